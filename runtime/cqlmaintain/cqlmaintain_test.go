package cqlmaintain

import (
	"context"
	"strings"
	"testing"
	"time"
)

// fake is a Maintainer that records what it was asked and returns a
// report made by rep.
type fake struct {
	entity string
	tables []string
	rep    func(table string) *Report
	calls  []string
	opts   []Options
}

func (f *fake) Entity() string   { return f.entity }
func (f *fake) Tables() []string { return f.tables }
func (f *fake) record(call string, o *Options) *Report {
	f.calls = append(f.calls, call)
	f.opts = append(f.opts, *o)
	if f.rep == nil {
		return &Report{Entity: f.entity}
	}
	return f.rep(call)
}
func (f *fake) Verify(_ context.Context, o *Options) (*Report, error) {
	return f.record("verify", o), nil
}
func (f *fake) Repair(_ context.Context, o *Options) (*Report, error) {
	return f.record("repair", o), nil
}
func (f *fake) Backfill(_ context.Context, table string, o *Options) (*Report, error) {
	return f.record("backfill "+table, o), nil
}

func run(args string, ms ...Maintainer) (int, string, string) {
	var out, errs strings.Builder
	code := Run(context.Background(), strings.Fields(args), &out, &errs, ms...)
	return code, out.String(), errs.String()
}

func entities() (*fake, *fake) {
	return &fake{entity: "Order", tables: []string{"orders_by_day", "orders_by_customer"}},
		&fake{entity: "Track", tables: []string{"tracks_by_artist"}}
}

// A -table that names no table is a bad command line that names the
// tables there are, not a run that does nothing and succeeds.
func TestRunRefusesAnUnknownTable(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []string // in stderr
	}{
		{"backfill -entity Order -table orders_by_dya -job j", []string{`"orders_by_dya"; did you mean orders_by_day?`, "orders_by_day, orders_by_customer"}},
		{"verify -entity Ordr", []string{`no entity "Ordr"; did you mean Order?`, "Order, Track"}},
		{"verify -table nope", []string{`"nope"`, "Order: orders_by_day, orders_by_customer", "Track: tracks_by_artist"}},
		{"repair -entity Track -table orders_by_day", []string{"Track writes no table", "tracks_by_artist"}},
		{"verify -table orders_by_day -table nope", []string{`"nope"`}},
	} {
		order, track := entities()
		code, out, errs := run(tc.args, order, track)
		if code != 2 || out != "" || len(order.calls)+len(track.calls) != 0 {
			t.Errorf("%s: exit %d, ran %v %v, printed %q; want exit 2 and nothing run", tc.args, code, order.calls, track.calls, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: stderr does not name %s:\n%s", tc.args, w, errs)
			}
		}
	}
}

// A -table runs only the entity that writes it, and a backfill's -table
// names its entity when -entity is left out.
func TestRunTableChoosesItsEntity(t *testing.T) {
	order, track := entities()
	if code, _, errs := run("verify -table tracks_by_artist", order, track); code != 0 || len(order.calls) != 0 || len(track.calls) != 1 {
		t.Errorf("verify -table tracks_by_artist: exit %d, Order ran %v, Track ran %v\n%s", code, order.calls, track.calls, errs)
	}
	if code, _, errs := run("backfill -table orders_by_customer -job j", order, track); code != 0 || len(order.calls) != 1 || order.calls[0] != "backfill orders_by_customer" {
		t.Errorf("backfill without -entity: exit %d, Order ran %v\n%s", code, order.calls, errs)
	}
}

// Sample keys are redacted unless -show-keys asks for them.
func TestRunShowKeys(t *testing.T) {
	order, _ := entities()
	run("verify", order)
	run("repair -show-keys", order)
	if len(order.opts) != 2 {
		t.Fatalf("ran %v, want verify then repair", order.calls)
	}
	if order.opts[0].ShowKeys || !order.opts[1].ShowKeys {
		t.Errorf("ShowKeys: verify %v, repair -show-keys %v", order.opts[0].ShowKeys, order.opts[1].ShowKeys)
	}
}

// Each number of a report says what it counts: a backfill, which
// compares nothing, reports what it read and wrote, not "expected 0".
func TestRunReportWording(t *testing.T) {
	order := &fake{entity: "Order", tables: []string{"orders_by_day"}, rep: func(call string) *Report {
		r := &Report{Entity: "Order", Source: "orders", Rows: 6, Elapsed: time.Millisecond}
		tr := TableReport{Table: "orders_by_day"}
		if call == "backfill orders_by_day" {
			tr.Inserted = 6
			r.Resumed = 3
		} else {
			tr.Expected, tr.Present, tr.Missing, tr.Orphans = 6, 5, 2, 1
			tr.MissingKeys = []string{"day=#0a1b2c3d id=#4e5f6a7b"}
			if call == "repair" {
				tr.Inserted, tr.Deleted = 2, 1
			}
		}
		r.Tables = []TableReport{tr}
		return r
	}}
	_, out, _ := run("backfill -entity Order -table orders_by_day -job j", order)
	for _, w := range []string{"read 6 rows of orders", "wrote 6 rows", "skipping 3 token ranges"} {
		if !strings.Contains(out, w) {
			t.Errorf("backfill report lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "expected") || strings.Contains(out, "missing") {
		t.Errorf("backfill report speaks of a comparison it did not make:\n%s", out)
	}
	_, out, _ = run("verify", order)
	for _, w := range []string{"should hold 6 rows, holds 5; 2 missing, 0 stale, 1 orphans", "missing: day=#0a1b2c3d id=#4e5f6a7b"} {
		if !strings.Contains(out, w) {
			t.Errorf("verify report lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "wrote") {
		t.Errorf("verify report speaks of writes:\n%s", out)
	}
	_, out, _ = run("repair", order)
	if !strings.Contains(out, "repair wrote 2 missing or stale, deleted 1 orphans") {
		t.Errorf("repair report:\n%s", out)
	}
}
