package cqlgenimpl_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// Entities written without the write protocol go through their
// description (cqlgenimpl.NewEntity), which derives what each statement
// of each table binds from the tables' descriptions and the source of
// truth's Row: these tests run the fixture's immutable Event (a bucketed
// source of truth, copies over hash buckets, by kind, and a sparse table)
// and its counter table PageHits on the in-memory Cassandra, and read
// every table back.

// plainSent is a session that passes everything to the in-memory Cassandra and
// keeps the writes it sends, a batch's statements one by one.
type plainSent struct {
	cqlgen.Session
	mu     sync.Mutex
	writes []cqldriver.Query
	reads  int
}

func (s *plainSent) Exec(ctx context.Context, q cqldriver.Query) error {
	s.mu.Lock()
	s.writes = append(s.writes, q)
	s.mu.Unlock()
	return s.Session.Exec(ctx, q)
}

func (s *plainSent) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	s.mu.Lock()
	s.reads++
	s.mu.Unlock()
	return s.Session.Iter(ctx, q)
}

func (s *plainSent) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	s.mu.Lock()
	s.writes = append(s.writes, qs...)
	s.mu.Unlock()
	return s.Session.Batch(ctx, kind, qs)
}

func (s *plainSent) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	return s.Session.(cqldriver.MapCASer).ExecCASMap(ctx, q, current)
}

func (s *plainSent) reset() (writes []cqldriver.Query, reads int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writes, reads = s.writes, s.reads
	s.writes, s.reads = nil, 0
	return writes, reads
}

func keys(rows []fixture.Event) []int32 {
	var out []int32
	for _, r := range rows {
		out = append(out, r.Seq)
	}
	return out
}

func sameSeqs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestImmutableEntityThroughItsDescription(t *testing.T) {
	ctx := context.Background()
	s := &plainSent{Session: session(t)}
	now := day0.Add(50 * time.Hour)
	repo := fixture.NewEventRepo(s, cqlgen.WithClock(func() time.Time { return now }))
	hot := "hot"
	events := []fixture.Event{
		{Device: "d1", At: day0.Add(time.Hour), Seq: 1, Kind: "boot", Level: "info"},
		{Device: "d1", At: day0.Add(2 * time.Hour), Seq: 2, Kind: "temp", Level: "warn", Note: &hot},
		{Device: "d1", At: day0.Add(26 * time.Hour), Seq: 3, Kind: "temp", Level: "error"},
	}
	for i := range events {
		if err := repo.Insert(ctx, &events[i]); err != nil {
			t.Fatal(err)
		}
	}
	// Every statement of the Inserts is an INSERT at the clock's time,
	// its timestamp bound last: 3 rows in the 3 tables that hold every
	// event, and 2 alerts.
	writes, _ := s.reset()
	if len(writes) != 3*3+2 {
		t.Fatalf("the Inserts sent %d statements; want 11", len(writes))
	}
	for _, q := range writes {
		if !strings.HasPrefix(q.Stmt.CQL, "INSERT INTO ") || q.Values[len(q.Values)-1] != now.UnixMicro() {
			t.Errorf("%s bound %v: want an INSERT at %d", q.Stmt.CQL, q.Values, now.UnixMicro())
		}
	}

	check := func(what string, want []int32) {
		t.Helper()
		lookBack := &fixture.EventsByDayOptions{Start: day0.Add(48 * time.Hour), LookBack: 3}
		for _, read := range []struct {
			name string
			want []int32
			page func() (cqlgen.Page[fixture.Event], error)
		}{
			{"events_by_day", want, func() (cqlgen.Page[fixture.Event], error) { return repo.EventsByDay(ctx, "d1", lookBack) }},
			{"events_16", want, func() (cqlgen.Page[fixture.Event], error) { return repo.Events16(ctx, "d1", nil) }},
			{"events_by_kind", filter(want, 1), func() (cqlgen.Page[fixture.Event], error) { return repo.EventsByKind(ctx, "temp", nil) }},
			{"alerts_by_device", filter(want, 1), func() (cqlgen.Page[fixture.Event], error) { return repo.AlertsByDevice(ctx, "d1", nil) }},
		} {
			p, err := read.page()
			if err != nil {
				t.Fatalf("%s: %s: %v", what, read.name, err)
			}
			if got := keys(p.Rows); !sameSeqs(got, read.want) {
				t.Errorf("%s: %s holds events %v; want %v", what, read.name, got, read.want)
			}
			for _, r := range p.Rows {
				if r.Seq == 2 && (r.Note == nil || *r.Note != hot || r.Kind != "temp" || r.Level != "warn") {
					t.Errorf("%s: %s: event 2 reads back as %+v", what, read.name, r)
				}
			}
		}
		rep, err := repo.Verify(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Rows != int64(len(want)) {
			t.Errorf("%s: Verify read %d events; want %d", what, rep.Rows, len(want))
		}
		for _, tr := range rep.Tables {
			if tr.Missing+tr.Stale+tr.Orphans != 0 {
				t.Errorf("%s: Verify finds %s out of step: %+v", what, tr.Table, tr)
			}
		}
	}
	check("inserted", []int32{3, 2, 1})
	got, err := repo.Get(ctx, "d1", events[1].At, 2)
	if err != nil || got.Note == nil || *got.Note != hot || got.Kind != "temp" {
		t.Fatalf("Get: %+v, %v; want event 2", got, err)
	}
	s.reset()

	// Delete takes the key alone: the source of truth's row gives the
	// other tables' keys (the kind, the level that puts it in alerts).
	if err := repo.Delete(ctx, &fixture.Event{Device: "d1", At: events[1].At, Seq: 2}); err != nil {
		t.Fatal(err)
	}
	writes, reads := s.reset()
	if reads != 1 || len(writes) != 4 {
		t.Fatalf("Delete read %d times and sent %d statements; want 1 read and one DELETE a table (4)", reads, len(writes))
	}
	for _, q := range writes {
		if !strings.HasPrefix(q.Stmt.CQL, "DELETE FROM ") || q.Values[0] != now.UnixMicro() {
			t.Errorf("%s bound %v: want a DELETE at %d", q.Stmt.CQL, q.Values, now.UnixMicro())
		}
	}
	check("event 2 deleted", []int32{3, 1})
	if _, err := repo.Get(ctx, "d1", events[1].At, 2); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get of a deleted event: %v; want ErrNotFound", err)
	}
	s.reset()

	// No row, no write.
	if err := repo.Delete(ctx, &fixture.Event{Device: "d1", At: day0, Seq: 9}); err != nil {
		t.Fatal(err)
	}
	if writes, reads := s.reset(); reads != 1 || len(writes) != 0 {
		t.Errorf("Delete of no event read %d times and sent %d statements; want the read alone", reads, len(writes))
	}

	// The checks of empty keys, of every table that holds the event,
	// refuse before anything is sent; Delete needs the source of
	// truth's key alone.
	var in *cqlgen.InputError
	err = repo.Insert(ctx, &fixture.Event{Device: "d1", At: day0, Seq: 4})
	if !errors.As(err, &in) || !errors.Is(err, cqlgen.ErrEmptyKey) || in.Table != "events_by_kind" || in.Name != "kind" {
		t.Errorf("Insert without a kind: %v; want an empty key of events_by_kind.kind", err)
	}
	if err := repo.Insert(ctx, &fixture.Event{Device: "d1", At: day0, Seq: 4, Kind: "x"}, cqlgen.WithTTL(time.Hour)); !errors.Is(err, cqlgen.ErrInvalidOption) {
		t.Errorf("Insert with a TTL: %v; want ErrInvalidOption (the tables' TTLs apply)", err)
	}
	if err := repo.Delete(ctx, nil); !errors.Is(err, cqlgen.ErrNilEntity) {
		t.Errorf("Delete(nil): %v; want ErrNilEntity", err)
	}
	if writes, reads := s.reset(); reads != 0 || len(writes) != 0 {
		t.Errorf("refused writes read %d times and sent %d statements", reads, len(writes))
	}
}

// filter is want without the events of kind "boot" (event 1 alone): the
// rows of events_by_kind for "temp" and of the alerts.
func filter(want []int32, boot int32) []int32 {
	var out []int32
	for _, k := range want {
		if k != boot {
			out = append(out, k)
		}
	}
	return out
}

func TestCounterEntityThroughItsDescription(t *testing.T) {
	ctx := context.Background()
	s := &plainSent{Session: session(t)}
	repo := fixture.NewPageHitsRepo(s)
	day := day0
	for _, h := range []fixture.PageHits{
		{Site: "s", Page: "p", Day: day, Views: 2, Clicks: 1},
		{Site: "s", Page: "p", Day: day, Views: 3},
		{Site: "s", Page: "p", Day: day.AddDate(0, 0, 1), Views: 1, Clicks: 1},
	} {
		if err := repo.Add(ctx, &h); err != nil {
			t.Fatal(err)
		}
	}
	writes, _ := s.reset()
	if len(writes) != 3 || writes[0].Stmt.Idempotent {
		t.Fatalf("Add sent %d statements (the first idempotent: %v); want one update each, never retried", len(writes), writes[0].Stmt.Idempotent)
	}
	got, err := repo.Get(ctx, "s", "p", day)
	if err != nil || got.Views != 5 || got.Clicks != 1 {
		t.Fatalf("Get after two Adds: %+v, %v; want 5 views, 1 click", got, err)
	}
	p, err := repo.PageHits(ctx, "s", "p", nil)
	if err != nil || len(p.Rows) != 2 || !p.Rows[0].Day.Equal(day.AddDate(0, 0, 1)) || p.Rows[1].Views != 5 {
		t.Fatalf("PageHits: %+v, %v; want the two days, newest first", p.Rows, err)
	}
	if err := repo.Delete(ctx, &fixture.PageHits{Site: "s", Page: "p", Day: day}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Get(ctx, "s", "p", day); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after Delete: %v; want ErrNotFound", err)
	}
	s.reset()
	var in *cqlgen.InputError
	if err := repo.Add(ctx, &fixture.PageHits{Site: "s", Day: day, Views: 1}); !errors.As(err, &in) || in.Table != "page_hits" || in.Name != "page" {
		t.Errorf("Add without a page: %v; want an empty key of page_hits.page", err)
	}
	if err := repo.Add(ctx, &fixture.PageHits{Site: "s", Page: "p", Day: day, Views: 1}, cqlgen.WithIdempotencyKey("k")); !errors.Is(err, cqlgen.ErrInvalidOption) {
		t.Errorf("Add with an idempotency key: %v; want ErrInvalidOption", err)
	}
	if writes, _ := s.reset(); len(writes) != 0 {
		t.Errorf("refused Adds sent %d statements", len(writes))
	}
}
