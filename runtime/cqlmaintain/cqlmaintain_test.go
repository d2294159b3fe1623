package cqlmaintain

import (
	"context"
	"errors"
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
	err    func(call string) error // nil: none
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
func (f *fake) result(call string, o *Options) (*Report, error) {
	r := f.record(call, o)
	if f.err != nil {
		return r, f.err(call)
	}
	return r, nil
}
func (f *fake) Verify(_ context.Context, o *Options) (*Report, error) {
	return f.result("verify", o)
}
func (f *fake) Repair(_ context.Context, o *Options) (*Report, error) {
	return f.result("repair", o)
}
func (f *fake) Backfill(_ context.Context, table string, o *Options) (*Report, error) {
	return f.result("backfill "+table, o)
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
	for _, w := range []string{"read 6 rows of orders", "wrote 6 rows", "skipped 3 token ranges"} {
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

// No run passes for a success over rows it skipped or drift it left:
// each outcome has its own exit code, and the report says what was read
// and skipped.
func TestRunExitCodes(t *testing.T) {
	left := &Report{Tables: []TableReport{{Table: "orders_by_day", Missing: 3}}}
	for _, tc := range []struct {
		args string
		rep  *Report
		err  error
		code int
		want string // in stdout and stderr
	}{
		{"backfill -table orders_by_day -job j", &Report{Rows: 5, Tables: []TableReport{{Table: "orders_by_day", Inserted: 5}}}, nil, 0, "wrote 5 rows"},
		{"backfill -table orders_by_day -job j", &Report{Rows: 5, Tables: []TableReport{{Table: "orders_by_day", Inserted: 5}}, After: left}, nil, 6, "finds 3 rows out of step; run repair -table orders_by_day"},
		{"repair", &Report{Rows: 5, Tables: []TableReport{{Table: "orders_by_day", Inserted: 1}}, After: left}, nil, 6, "finds 3 rows out of step"},
		{"adopt -job a", &Report{Rows: 5, Unversioned: 2, Adopted: 2, After: &Report{}}, nil, 0, "gave 2 rows written outside cqlgen a version"},
		{"verify", &Report{Rows: 0, Graves: 4}, ErrUnread, 7, "rows of the source of truth were not read"},
		{"verify", &Report{Rows: 7, Unversioned: 3, Graves: 2, StaticsOnly: 1}, nil, 0, "7 rows of orders (its source of truth), 3 of them written outside cqlgen (no version); skipped 2 deleted entities' graves and 1 partitions' statics with no row"},
		{"backfill -table orders_by_day -job j", &Report{Rows: 1}, errors.New("unauthorized"), 4, `resume job "j"`},
	} {
		f := &fake{entity: "Order", tables: []string{"orders_by_day"}, rep: func(string) *Report {
			r := *tc.rep
			r.Entity, r.Source = "Order", "orders"
			return &r
		}, err: func(string) error { return tc.err }}
		code, out, errs := run(tc.args, f)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("%s: exit %d, want %d, with %q in\n%s%s", tc.args, code, tc.code, tc.want, out, errs)
		}
	}
}

// adopt and status run as Repair with their options; status reads every
// kind of run of the job, a backfill's of the table given too.
func TestRunAdoptAndStatus(t *testing.T) {
	f := &fake{entity: "Order", tables: []string{"orders_by_day"}}
	run("adopt -job a -rate 10", f)
	run("status -job a", f)
	run("status -job b -table orders_by_day", f)
	if len(f.calls) != 3 || f.calls[0] != "repair" || f.calls[1] != "repair" || f.calls[2] != "repair" {
		t.Fatalf("calls %v", f.calls)
	}
	if o := f.opts[0]; !o.Adopt || o.Status || o.Job != "a" || o.Rate != 10 {
		t.Errorf("adopt ran with %+v", o)
	}
	if o := f.opts[1]; o.Adopt || !o.Status || o.Job != "a" {
		t.Errorf("status ran with %+v", o)
	}
	if o := f.opts[2]; o.Adopt || !o.Status || o.Job != "b" || len(o.Tables) != 1 {
		t.Errorf("status of a table ran with %+v", o)
	}
	if code, _, errs := run("status", f); code != 2 || !strings.Contains(errs, "-job") {
		t.Errorf("status without a job: exit %d, %s", code, errs)
	}
}

// A worker's share of a job comes from -shard, or from an Indexed Job's
// JOB_COMPLETION_INDEX and CQLGEN_SHARDS; a share that names no worker,
// or half of the environment, is a bad command line.
func TestRunShards(t *testing.T) {
	f := &fake{entity: "Order", tables: []string{"orders_by_day"}}
	if code, _, errs := run("backfill -table orders_by_day -job j -shard 2/4 -rate 400", f); code != 0 {
		t.Fatalf("backfill -shard 2/4: exit %d\n%s", code, errs)
	}
	if o := f.opts[0]; o.Shard != 2 || o.Shards != 4 || o.Rate != 400 || o.Job != "j" {
		t.Errorf("backfill -shard 2/4 ran with %+v", o)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "3")
	t.Setenv("CQLGEN_SHARDS", "8")
	if code, _, errs := run("verify -job v", f); code != 0 {
		t.Fatalf("verify in an Indexed Job: exit %d\n%s", code, errs)
	}
	if o := f.opts[1]; o.Shard != 3 || o.Shards != 8 {
		t.Errorf("verify with JOB_COMPLETION_INDEX=3 CQLGEN_SHARDS=8 ran with %+v", o)
	}
	// -shard wins over the environment; status reads every shard's ranges.
	run("verify -job v -shard 1/2", f)
	run("status -job v", f)
	if o := f.opts[2]; o.Shard != 1 || o.Shards != 2 {
		t.Errorf("-shard 1/2 in an Indexed Job ran with %+v", o)
	}
	if o := f.opts[3]; o.Shards != 0 {
		t.Errorf("status in an Indexed Job ran with %+v", o)
	}
	for args, want := range map[string]string{
		"verify -shard 1/2":        "needs a -job",
		"verify -job v -shard 2/2": "want i/n, 0 <= i < n",
		"verify -job v -shard 1":   "want i/n",
		"verify -job v -shard a/b": "want i/n",
	} {
		if code, _, errs := run(args, f); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want 2 and %q in\n%s", args, code, want, errs)
		}
	}
	t.Setenv("CQLGEN_SHARDS", "")
	if code, _, errs := run("verify -job v", f); code != 2 || !strings.Contains(errs, "set it to the Job's completions") {
		t.Errorf("JOB_COMPLETION_INDEX without CQLGEN_SHARDS: exit %d\n%s", code, errs)
	}
}

// -consistency takes a level's CQL name, in any case, but not ANY nor a
// serial level; each run is given it on its context.
func TestRunConsistency(t *testing.T) {
	for name, want := range map[string]string{"ALL": "ALL", "local_quorum": "LOCAL_QUORUM", "One": "ONE", "EACH_QUORUM": "EACH_QUORUM"} {
		c, err := ParseConsistency(name)
		if err != nil || c.String() != want {
			t.Errorf("ParseConsistency(%q) = %v, %v; want %s", name, c, err, want)
		}
	}
	for _, name := range []string{"ANY", "SERIAL", "local_serial", "most"} {
		if _, err := ParseConsistency(name); err == nil {
			t.Errorf("ParseConsistency(%q) took it", name)
		}
	}
	f := &fake{entity: "Order", tables: []string{"orders_by_day"}}
	if code, _, errs := run("verify -consistency SERIAL", f); code != 2 || !strings.Contains(errs, "not a level a run can take") {
		t.Errorf("verify -consistency SERIAL: exit %d\n%s", code, errs)
	}
}

// A verify by job exits 1 on drift an earlier run of the job recorded in
// the ranges it skipped; status prints each kind of run of the job.
func TestRunJobReports(t *testing.T) {
	f := &fake{entity: "Order", tables: []string{"orders_by_day"}, rep: func(string) *Report {
		return &Report{Entity: "Order", Source: "orders", Rows: 5, Resumed: 3, ResumedDrift: 2, Shard: 1, Shards: 2, Tables: []TableReport{{Table: "orders_by_day"}}}
	}}
	code, out, _ := run("verify -job v -shard 1/2", f)
	if code != 1 || !strings.Contains(out, "shard 1/2; skipped 3 token ranges an earlier run of the job finished, which found 2 rows out of step") {
		t.Errorf("verify resumed over drift: exit %d\n%s", code, out)
	}
	now := time.Now()
	f.rep = func(string) *Report {
		return &Report{Entity: "Order", Jobs: []JobStatus{{Kind: "backfill", Table: "orders_by_day", Ranges: 8, Done: 3, Rows: 300, First: now.Add(-2 * time.Second), Last: now}}}
	}
	code, out, _ = run("status -job v", f)
	if code != 0 || !strings.Contains(out, "status Order: backfill orders_by_day: 3/8 token ranges done, 300 rows, 100 rows/s, ETA 5s, drift 0;") {
		t.Errorf("status: exit %d\n%s", code, out)
	}
}

// A typo in a command or a flag gets a suggestion.
func TestRunSuggests(t *testing.T) {
	f := &fake{entity: "Order", tables: []string{"orders_by_day"}}
	for args, want := range map[string]string{
		"verfy":             "did you mean verify?",
		"adpot":             "did you mean adopt?",
		"verify -entitty x": "did you mean -entity?",
	} {
		if code, _, errs := run(args, f); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, want 2 and %q in\n%s", args, code, want, errs)
		}
	}
}
