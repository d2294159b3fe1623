package cqlgenimpl_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// These tests run the runtime's algorithms through generated repositories
// (internal/fixture) on an in-memory Cassandra (cqltest): paging and
// cursors, hash-bucket merges with ties, the walk back over time buckets,
// and the writes that keep every table in step. They need no server, and
// each was checked by breaking the code it guards (see the notes).

var day0 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

func session(t testing.TB, opts ...cqltest.Option) *cqltest.Session {
	t.Helper()
	schema, err := os.ReadFile("internal/fixture/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := cqltest.New(string(schema), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readings makes n readings of sensor s1 over the given days, with many
// ties: several readings share an instant, several share a kind.
func readings(n, days int, seed uint64) []fixture.Reading {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]fixture.Reading, n)
	for i := range out {
		at := day0.AddDate(0, 0, rng.IntN(days)).Add(time.Duration(rng.IntN(4)) * time.Hour)
		out[i] = fixture.Reading{SensorID: "s1", At: at, Seq: int32(i), Kind: []string{"a", "b", "c"}[rng.IntN(3)], Value: int64(i)}
	}
	return out
}

func insertAll[T any](t testing.TB, insert func(context.Context, *T, ...cqlgen.Option) error, rows []T) {
	t.Helper()
	for i := range rows {
		if err := insert(context.Background(), &rows[i]); err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
	}
}

// byTimeDesc is the clustering order at desc, seq asc.
func byTimeDesc(a, b fixture.Reading) int {
	if c := b.At.Compare(a.At); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}

// byKind is the clustering order kind asc, at desc, seq asc.
func byKind(a, b fixture.Reading) int {
	if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	return byTimeDesc(a, b)
}

func seqs(rs []fixture.Reading) []int32 {
	out := make([]int32, len(rs))
	for i, r := range rs {
		out[i] = r.Seq
	}
	return out
}

// pages reads every page of a read, following cursors, and fails on a
// loop.
func pages[T any](t *testing.T, read func(cursor string) (cqlgen.Page[T], error)) []T {
	t.Helper()
	var all []T
	cursor := ""
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("paging does not end")
		}
		p, err := read(cursor)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		all = append(all, p.Rows...)
		if p.Cursor == "" {
			return all
		}
		cursor = p.Cursor
	}
}

// Paging one partition with three clustering columns in mixed order:
// every limit gives the rows once each, in Cassandra's order, and the
// bounds on the first column hold. A cursor continues at each run of
// one direction, here each column (After0..After2); breaking any run, or
// the operator of one, loses or repeats rows here.
func TestPagingOnePartition(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	rows := readings(120, 3, 1)
	insertAll(t, repo.Insert, rows)
	want := slices.Clone(rows)
	slices.SortFunc(want, byKind)
	for _, limit := range []int{1, 2, 3, 7, 40, 119, 120, 121} {
		got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
			return repo.ReadingsByKind(context.Background(), "s1", &fixture.ReadingsByKindOptions{Limit: limit, Cursor: c})
		})
		if !slices.Equal(seqs(got), seqs(want)) {
			t.Errorf("limit %d: got %v\nwant %v", limit, seqs(got), seqs(want))
		}
	}
	from, to := "b", "c"
	got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.ReadingsByKind(context.Background(), "s1", &fixture.ReadingsByKindOptions{Limit: 5, Cursor: c, KindFrom: &from, KindTo: &to})
	})
	var bounded []fixture.Reading
	for _, r := range want {
		if r.Kind == "b" {
			bounded = append(bounded, r)
		}
	}
	if !slices.Equal(seqs(got), seqs(bounded)) {
		t.Errorf("kind in [b, c): got %v\nwant %v", seqs(got), seqs(bounded))
	}
}

// reads counts the reads a session runs.
type reads struct {
	cqlgen.Session
	n int
}

func (r *reads) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	r.n++
	return r.Session.Iter(ctx, q)
}

// A table ordered one way throughout (kind, at, seq, all ascending)
// continues a page in one multi-column slice, (kind, at, seq) > (?, ?, ?),
// where the mixed order of readings_by_kind takes one query per run of
// one direction (three). Both give every row once, in order, at every
// limit and within bounds; a slice whose columns or operator were wrong
// would lose or repeat rows here.
func TestContinuationQueries(t *testing.T) {
	counted := &reads{Session: session(t)}
	repo := fixture.NewReadingRepo(counted)
	rows := readings(120, 3, 1)
	insertAll(t, repo.Insert, rows)
	oldest := func(a, b fixture.Reading) int {
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Seq, b.Seq)
	}
	for _, c := range []struct {
		table   string
		order   func(a, b fixture.Reading) int
		read    func(o *fixture.ReadingsByKindOptions) (cqlgen.Page[fixture.Reading], error)
		queries int // the most a continuation page runs
	}{
		{"readings_by_kind_oldest", oldest, func(o *fixture.ReadingsByKindOptions) (cqlgen.Page[fixture.Reading], error) {
			return repo.ReadingsByKindOldest(context.Background(), "s1", (*fixture.ReadingsByKindOldestOptions)(o))
		}, 1},
		{"readings_by_kind", byKind, func(o *fixture.ReadingsByKindOptions) (cqlgen.Page[fixture.Reading], error) {
			return repo.ReadingsByKind(context.Background(), "s1", o)
		}, 3},
	} {
		want := slices.Clone(rows)
		slices.SortFunc(want, c.order)
		for _, limit := range []int{1, 2, 7, 119, 120} {
			most := 0
			got := pages(t, func(cur string) (cqlgen.Page[fixture.Reading], error) {
				counted.n = 0
				p, err := c.read(&fixture.ReadingsByKindOptions{Limit: limit, Cursor: cur})
				if cur != "" {
					most = max(most, counted.n)
				}
				return p, err
			})
			if !slices.Equal(seqs(got), seqs(want)) {
				t.Errorf("%s, limit %d: got %v\nwant %v", c.table, limit, seqs(got), seqs(want))
			}
			if limit < len(rows) && most != c.queries {
				t.Errorf("%s, limit %d: a continuation page ran up to %d reads, want %d", c.table, limit, most, c.queries)
			}
		}
		from, to := "b", "c"
		got := pages(t, func(cur string) (cqlgen.Page[fixture.Reading], error) {
			return c.read(&fixture.ReadingsByKindOptions{Limit: 5, Cursor: cur, KindFrom: &from, KindTo: &to})
		})
		var bounded []fixture.Reading
		for _, r := range want {
			if r.Kind == "b" {
				bounded = append(bounded, r)
			}
		}
		if !slices.Equal(seqs(got), seqs(bounded)) {
			t.Errorf("%s, kind in [b, c): got %v\nwant %v", c.table, seqs(got), seqs(bounded))
		}
	}
}

// Paging a merge of 16 hash buckets with rows that tie on their instant:
// the cursor records the bucket of the last row, so buckets before it
// continue after the row and later ones at it. Letting the bucket of the
// last row itself continue "at" the row repeats it.
func TestPagingHashBuckets(t *testing.T) {
	for _, mode := range scatterModes {
		s := session(t)
		repo := fixture.NewReadingRepo(s, cqlgen.WithScatter(mode))
		rows := readings(150, 2, 2)
		insertAll(t, repo.Insert, rows)
		want := slices.Clone(rows)
		slices.SortFunc(want, byTimeDesc)
		for _, limit := range []int{1, 2, 5, 16, 17, 149, 150, 151} {
			got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
				return repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Limit: limit, Cursor: c})
			})
			if !slices.Equal(seqs(got), seqs(want)) {
				t.Errorf("%s, limit %d: got %v\nwant %v", scatterName[mode], limit, seqs(got), seqs(want))
			}
		}
	}
}

// scatterModes are the two ways a read reaches hash buckets; the tests of
// hash reads run under both.
var scatterModes = []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient}

var scatterName = map[cqlgen.Scatter]string{cqlgen.ScatterCoordinator: "coordinator", cqlgen.ScatterClient: "client"}

// One clustering column over hash buckets, bounded: the at-or-after
// statements with and without the To bound (AtOrAfter, AtOrAfterTo).
func TestPagingHashBucketsOneColumnBounded(t *testing.T) {
	for _, mode := range scatterModes {
		t.Run(scatterName[mode], func(t *testing.T) { pagingHashBucketsOneColumnBounded(t, mode) })
	}
}

func pagingHashBucketsOneColumnBounded(t *testing.T, mode cqlgen.Scatter) {
	s := session(t)
	repo := fixture.NewTickRepo(s, cqlgen.WithScatter(mode))
	var ticks []fixture.Tick
	for i := range 60 {
		ticks = append(ticks, fixture.Tick{Stream: "x", Seq: int64(i)})
	}
	insertAll(t, repo.Insert, ticks)
	for _, limit := range []int{1, 3, 4, 10, 100} {
		for _, b := range []struct{ from, to *int64 }{{nil, nil}, {ptr[int64](10), nil}, {nil, ptr[int64](50)}, {ptr[int64](7), ptr[int64](41)}} {
			got := pages(t, func(c string) (cqlgen.Page[fixture.Tick], error) {
				return repo.Ticks4(context.Background(), "x", &fixture.Ticks4Options{Limit: limit, Cursor: c, SeqFrom: b.from, SeqTo: b.to})
			})
			lo, hi := int64(0), int64(60)
			if b.from != nil {
				lo = *b.from
			}
			if b.to != nil {
				hi = *b.to
			}
			var want []int64
			for i := lo; i < hi; i++ {
				want = append(want, i)
			}
			var gotSeqs []int64
			for _, g := range got {
				gotSeqs = append(gotSeqs, g.Seq)
			}
			if !slices.Equal(gotSeqs, want) {
				t.Errorf("limit %d, [%v, %v): got %v, want %v", limit, deref(b.from), deref(b.to), gotSeqs, want)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }

func deref(p *int64) any {
	if p == nil {
		return "open"
	}
	return *p
}

// The walk back over day buckets: newest first, skipping empty days,
// stopping at the look-back, and later pages keep the first page's bound;
// the same whether a round's buckets are read in one request or one
// each.
func TestTimeBucketWalkBack(t *testing.T) {
	for _, mode := range scatterModes {
		t.Run(scatterName[mode], func(t *testing.T) { timeBucketWalkBack(t, mode) })
	}
}

func timeBucketWalkBack(t *testing.T, mode cqlgen.Scatter) {
	s := session(t)
	repo := fixture.NewReadingRepo(s, cqlgen.WithScatter(mode))
	var rows []fixture.Reading
	for i, d := range []int{0, 0, 1, 4, 4, 4, 9} { // days 2, 3 and 5 to 8 are empty
		rows = append(rows, fixture.Reading{SensorID: "s1", At: day0.AddDate(0, 0, d).Add(time.Hour), Seq: int32(i), Kind: "a"})
	}
	insertAll(t, repo.Insert, rows)
	start := day0.AddDate(0, 0, 9).Add(12 * time.Hour)
	read := func(lookBack, limit int) []int32 {
		got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
			return repo.ReadingsByDay(context.Background(), "s1", &fixture.ReadingsByDayOptions{Start: start, LookBack: lookBack, Limit: limit, Cursor: c})
		})
		return seqs(got)
	}
	for _, limit := range []int{1, 2, 10} {
		if got, want := read(10, limit), []int32{6, 3, 4, 5, 2, 0, 1}; !slices.Equal(got, want) {
			t.Errorf("look back 10, limit %d: %v, want %v", limit, got, want)
		}
		// Six days back from day 9 reach day 4, not day 1.
		if got, want := read(6, limit), []int32{6, 3, 4, 5}; !slices.Equal(got, want) {
			t.Errorf("look back 6, limit %d: %v, want %v", limit, got, want)
		}
	}
	// When nothing stops the walk, its rounds of 1, 2 and 4 buckets read
	// every bucket of the look-back: a request each, or one a round.
	before := len(s.Calls())
	if _, err := repo.ReadingsByDay(context.Background(), "s2", &fixture.ReadingsByDayOptions{Start: start, LookBack: 7}); err != nil {
		t.Fatal(err)
	}
	want := map[cqlgen.Scatter]int{cqlgen.ScatterClient: 7, cqlgen.ScatterCoordinator: 3}[mode]
	if n := len(s.Calls()) - before; n != want {
		t.Errorf("an empty walk over 7 buckets sent %d queries, want %d", n, want)
	}
}

// A read never writes the options it is given, so one value can be reused
// and shared: here by goroutines (run with -race), and after a first call
// that defaulted Start to now.
func TestReadDoesNotWriteOptions(t *testing.T) {
	now := day0.AddDate(0, 0, 4)
	s := session(t)
	repo := fixture.NewReadingRepo(s, cqlgen.WithClock(func() time.Time { return now }))
	insertAll(t, repo.Insert, []fixture.Reading{{SensorID: "s1", At: day0.AddDate(0, 0, 4), Seq: 1}})
	o := &fixture.ReadingsByDayOptions{LookBack: 2}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := repo.ReadingsByDay(context.Background(), "s1", o); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if !o.Start.IsZero() || o.LookBack != 2 || o.Cursor != "" {
		t.Errorf("the read changed its options: %+v", o)
	}
}

// Cursors belong to one read: another partition or another pattern
// refuses them.
func TestCursorOfAnotherRead(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	insertAll(t, repo.Insert, readings(10, 1, 3))
	p, err := repo.ReadingsByKind(context.Background(), "s1", &fixture.ReadingsByKindOptions{Limit: 2})
	if err != nil || p.Cursor == "" {
		t.Fatal(p, err)
	}
	if _, err := repo.ReadingsByKind(context.Background(), "s2", &fixture.ReadingsByKindOptions{Cursor: p.Cursor}); !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("another partition: %v", err)
	}
	if _, err := repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Cursor: p.Cursor}); !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("another pattern: %v", err)
	}
}

// readingTables lists the rows of every table of Reading, by sequence,
// graves (the canonical rows of deleted readings) left out.
func readingTables(t *testing.T, s *cqltest.Session) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range []string{"readings_by_day", "readings_16", "readings_by_kind"} {
		rows, err := s.Rows(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r["cqlgen_deleted"] == true {
				continue
			}
			out[table] = append(out[table], fmt.Sprintf("%v/%v/%v", r["seq"], r["kind"], r["value"]))
		}
		slices.Sort(out[table])
	}
	return out
}

// Update moves a row whose sort key changed: the old row of
// readings_by_kind is deleted at the new version and the new one inserted
// 1µs later, so even a move back to an earlier key, in one batch, keeps
// the row. Every table then holds the entity once, with its new values.
// Checks invariant I1: nil means applied everywhere.
// Checks invariant I5: versions only grow, and the fan-out follows them.
func TestUpdateMovesRows(t *testing.T) {
	now := day0
	s := session(t, cqltest.WithClock(func() time.Time { return now }))
	repo := fixture.NewReadingRepo(s, cqlgen.WithClock(func() time.Time { return now }))
	r := fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a", Value: 1}
	insertAll(t, repo.Insert, []fixture.Reading{r})
	for i, kind := range []string{"b", "a", "a", "c"} {
		now = now.Add(time.Millisecond)
		r.Kind, r.Value = kind, int64(10+i)
		if err := repo.Update(context.Background(), &r); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		want := []string{fmt.Sprintf("1/%s/%d", kind, r.Value)}
		for table, got := range readingTables(t, s) {
			if !slices.Equal(got, want) {
				t.Errorf("after update %d to %s: %s holds %v, want %v", i, kind, table, got, want)
			}
		}
	}
	got, err := repo.Get(context.Background(), "s1", day0, 1)
	if err != nil || got.Kind != "c" || got.Value != 13 {
		t.Errorf("Get: %+v, %v", got, err)
	}
}

// A delete and an insert of one primary key at the timestamps
// DeleteThenInsert gives, in one batch, leave the row: at one timestamp
// the tombstone would win.
// Checks invariant I5: versions only grow, and the fan-out follows them.
func TestDeleteThenInsertKeepsTheRow(t *testing.T) {
	s := session(t)
	ctx := context.Background()
	ins := &cqldriver.Statement{CQL: "INSERT INTO ticks (stream, seq) VALUES (?, ?) USING TIMESTAMP ?", Kind: cqlgen.Write, Table: "ticks"}
	del := &cqldriver.Statement{CQL: "DELETE FROM ticks USING TIMESTAMP ? WHERE stream = ? AND seq = ?", Kind: cqlgen.Write, Table: "ticks"}
	d, i := cqlgenimpl.DeleteThenInsert(1000)
	err := s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{
		{Stmt: del, Values: []any{d, "x", int64(1)}},
		{Stmt: ins, Values: []any{"x", int64(1), i}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := s.Rows("ticks"); len(rows) != 1 {
		t.Errorf("%d rows after delete-then-insert, want 1", len(rows))
	}
}

// Delete removes the entity from every table, found from the canonical
// row; deleting it again is not an error.
// Checks invariant I1: nil means applied everywhere.
// Checks invariant I7: graves fence re-creation.
func TestDeleteRemovesEveryCopy(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	rows := readings(5, 2, 4)
	insertAll(t, repo.Insert, rows)
	// The caller passes only the key; the other tables' keys come from
	// the canonical row.
	victim := fixture.Reading{SensorID: "s1", At: rows[2].At, Seq: rows[2].Seq}
	for range 2 {
		if err := repo.Delete(context.Background(), &victim); err != nil {
			t.Fatal(err)
		}
	}
	for table, got := range readingTables(t, s) {
		if len(got) != 4 || slices.ContainsFunc(got, func(r string) bool { return r[:2] == "2/" }) {
			t.Errorf("%s holds %v after deleting seq 2", table, got)
		}
	}
	// The canonical row stays as a grave, which no read returns.
	if _, err := repo.Get(context.Background(), "s1", victim.At, victim.Seq); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get of a deleted reading: %v", err)
	}
	got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.ReadingsByDay(context.Background(), "s1", &fixture.ReadingsByDayOptions{Start: day0.AddDate(0, 0, 1), LookBack: 2, Limit: 1, Cursor: c})
	})
	if len(got) != 4 || slices.Contains(seqs(got), victim.Seq) {
		t.Errorf("a read of the canonical table returns %v after deleting seq %d", seqs(got), victim.Seq)
	}
}

// Insert leaves a nil pointer and an empty list unset; Update clears them.
func TestUnsetOnInsertClearOnUpdate(t *testing.T) {
	s := session(t)
	repo := fixture.NewTickRepo(s)
	ctx := context.Background()
	if err := repo.Insert(ctx, &fixture.Tick{Stream: "x", Seq: 1, Tags: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	if err := repo.Insert(ctx, &fixture.Tick{Stream: "x", Seq: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := repo.Get(ctx, "x", 1)
	if err != nil || !slices.Equal(got.Tags, []string{"a"}) {
		t.Fatalf("an Insert without tags cleared them: %+v, %v", got, err)
	}
	if err := repo.Update(ctx, &fixture.Tick{Stream: "x", Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if got, err := repo.Get(ctx, "x", 1); err != nil || len(got.Tags) != 0 {
		t.Errorf("an Update without tags kept them: %+v, %v", got, err)
	}
}

// Bounds on a descending clustering column: From is where the read starts
// (the newest instant included), To where it stops (excluded), in the
// order rows come back.
func TestBoundsOnADescendingColumn(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	rows := readings(80, 1, 5) // one day, four distinct hours
	insertAll(t, repo.Insert, rows)
	from, to := day0.Add(2*time.Hour), day0.Add(0*time.Hour)
	var want []fixture.Reading
	for _, r := range rows {
		if !r.At.After(from) && r.At.After(to) {
			want = append(want, r)
		}
	}
	slices.SortFunc(want, byTimeDesc)
	if len(want) == 0 {
		t.Fatal("no rows between the bounds")
	}
	for _, limit := range []int{1, 3, 100} {
		got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
			return repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Limit: limit, Cursor: c, AtFrom: &from, AtTo: &to})
		})
		if !slices.Equal(seqs(got), seqs(want)) {
			t.Errorf("hash buckets, limit %d: got %v\nwant %v", limit, seqs(got), seqs(want))
		}
		got = pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
			return repo.ReadingsByDay(context.Background(), "s1", &fixture.ReadingsByDayOptions{Limit: limit, Cursor: c, Start: day0, LookBack: 1, AtFrom: &from, AtTo: &to})
		})
		if !slices.Equal(seqs(got), seqs(want)) {
			t.Errorf("day bucket, limit %d: got %v\nwant %v", limit, seqs(got), seqs(want))
		}
	}
}

// Update of an entity in several tables writes every column of every
// table, so a nil pointer clears the column everywhere, not only in the
// source of truth.
// Checks invariant I1: nil means applied everywhere.
func TestUpdateClearsEveryCopy(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	note := "calibrated"
	r := fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a", Note: &note}
	insertAll(t, repo.Insert, []fixture.Reading{r})
	r.Note = nil
	if err := repo.Update(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"readings_by_day", "readings_16", "readings_by_kind"} {
		rows, err := s.Rows(table)
		if err != nil || len(rows) != 1 {
			t.Fatalf("%s: %v, %v", table, rows, err)
		}
		if v, ok := rows[0]["note"]; ok {
			t.Errorf("%s keeps note %v after an Update that cleared it", table, v)
		}
	}
}

// The same for an entity in one table, whose Update is a plain write.
func TestUpdateOfOneTableClears(t *testing.T) {
	s := session(t)
	repo := fixture.NewSettingRepo(s)
	ctx := context.Background()
	v := "dark"
	if err := repo.Insert(ctx, &fixture.Setting{Owner: "u", Name: "theme", Value: &v, Labels: map[string]string{"a": "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := repo.Insert(ctx, &fixture.Setting{Owner: "u", Name: "theme"}); err != nil {
		t.Fatal(err)
	}
	got, err := repo.Get(ctx, "u", "theme")
	if err != nil || got.Value == nil || len(got.Labels) != 1 {
		t.Fatalf("an Insert without values cleared them: %+v, %v", got, err)
	}
	if err := repo.Update(ctx, &fixture.Setting{Owner: "u", Name: "theme"}); err != nil {
		t.Fatal(err)
	}
	if got, err := repo.Get(ctx, "u", "theme"); err != nil || got.Value != nil || len(got.Labels) != 0 {
		t.Errorf("an Update without values kept them: %+v, %v", got, err)
	}
}

// A page size out of bounds is refused, typed, before anything is sent;
// the largest allowed one works.
func TestLimitBounds(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s, cqlgen.WithMaxLimit(50))
	insertAll(t, repo.Insert, readings(60, 1, 8))
	before := len(s.Calls())
	for _, limit := range []int{-1, 51, math.MaxInt, 1<<32 + 5} {
		_, err := repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Limit: limit})
		var le *cqlgen.InputError
		if !errors.Is(err, cqlgen.ErrInvalidLimit) || !(errors.As(err, &le) && le.Err == cqlgen.ErrInvalidLimit) || !strings.Contains(le.Reason, "outside 0..50 ") {
			t.Errorf("limit %d: %v", limit, err)
		}
	}
	if n := len(s.Calls()) - before; n != 0 {
		t.Errorf("%d queries sent for refused limits", n)
	}
	p, err := repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Limit: 50})
	if err != nil || len(p.Rows) != 50 || p.Cursor == "" {
		t.Errorf("limit 50: %d rows, %v", len(p.Rows), err)
	}
}

// The walk back over time buckets reads older buckets in parallel rounds
// and returns what a bucket-by-bucket walk returns: every page, for random
// sparse data, limits and look-backs, against a reference.
func TestTimeWalkMatchesAReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := range 20 {
		s := session(t)
		repo := fixture.NewReadingRepo(s, cqlgen.WithConcurrency(1+rng.IntN(8)), cqlgen.WithScatter(scatterModes[round%2]))
		var rows []fixture.Reading
		for i := range rng.IntN(40) {
			day := rng.IntN(45)
			rows = append(rows, fixture.Reading{SensorID: "s1", At: day0.AddDate(0, 0, day).Add(time.Duration(rng.IntN(3)) * time.Hour), Seq: int32(i)})
		}
		insertAll(t, repo.Insert, rows)
		start := day0.AddDate(0, 0, 44).Add(23 * time.Hour)
		back, limit := 1+rng.IntN(45), 1+rng.IntN(6)
		oldest := day0.AddDate(0, 0, 44-back+1)
		var want []fixture.Reading
		for _, r := range rows {
			if !r.At.Before(oldest) {
				want = append(want, r)
			}
		}
		slices.SortFunc(want, byTimeDesc)
		got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
			return repo.ReadingsByDay(context.Background(), "s1", &fixture.ReadingsByDayOptions{Start: start, LookBack: back, Limit: limit, Cursor: c})
		})
		if !slices.Equal(seqs(got), seqs(want)) {
			t.Errorf("round %d (look-back %d, limit %d): got %v\nwant %v", round, back, limit, seqs(got), seqs(want))
		}
	}
}

// On sparse data the walk reads buckets at once: a page over 30 empty
// days has several queries in flight, not one at a time, or names
// several days in each of its 5 queries.
func TestTimeWalkPrefetches(t *testing.T) {
	var inflight, peak atomic.Int32
	var named atomic.Int64
	s := session(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
		n := inflight.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		if days, ok := c.Queries[0].Values[1].([]time.Time); ok {
			named.Add(int64(len(days)))
		} else {
			named.Add(1)
		}
		time.Sleep(2 * time.Millisecond)
		inflight.Add(-1)
		return nil
	}))
	client := fixture.NewReadingRepo(s, cqlgen.WithScatter(cqlgen.ScatterClient))
	if _, err := client.ReadingsByDay(context.Background(), "s9", &fixture.ReadingsByDayOptions{Start: day0, LookBack: 30}); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Calls()); n != 30 {
		t.Errorf("%d queries for 30 empty buckets", n)
	}
	if p := peak.Load(); p < 4 {
		t.Errorf("at most %d queries in flight: the walk is sequential", p)
	}
	before := len(s.Calls())
	named.Store(0)
	coordinator := fixture.NewReadingRepo(s)
	if _, err := coordinator.ReadingsByDay(context.Background(), "s9", &fixture.ReadingsByDayOptions{Start: day0, LookBack: 30}); err != nil {
		t.Fatal(err)
	}
	if n := len(s.Calls()) - before; n != 5 || named.Load() != 30 {
		t.Errorf("%d queries naming %d buckets for 30 empty buckets, want rounds of 1, 2, 4, 8 and 15", n, named.Load())
	}
}

// The merge over hash buckets asks each bucket for about its share
// of a page, and again only for a bucket it drains: whatever the spread
// of the rows (even, all in one bucket, a few in some), every limit gives
// the rows once each in the order of a reference sort, ties included,
// and an even spread costs one query a bucket for a page. Asking every
// bucket for the whole page (the old way) passes the first part too;
// asking for less without the refill loses rows here.
func TestHashMergeRefills(t *testing.T) {
	bucketOf := func(seq int32) int32 { return cqlgenimpl.HashInt(seq, 16) }
	spreads := map[string]func(i int) bool{
		"even":           func(int) bool { return true },
		"one bucket":     func(i int) bool { return bucketOf(int32(i)) == 3 },
		"two of sixteen": func(i int) bool { b := bucketOf(int32(i)); return b == 5 || b == 11 },
		"one row a few":  func(i int) bool { return bucketOf(int32(i)) == 7 || i%97 == 0 },
	}
	for name, keep := range spreads {
		for _, mode := range scatterModes {
			hashMergeRefills(t, name+", "+scatterName[mode], keep, mode)
		}
	}
	// An even spread: a page of 100 of 1,600 rows over 16 buckets asks for
	// about 16 × 15 rows: in about one query a bucket, or in one query
	// naming every bucket.
	for _, mode := range scatterModes {
		var queries, asked atomic.Int64
		s := session(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
			if c.Op == cqltest.OpIter {
				queries.Add(1)
				q := c.Queries[0]
				if q.PageSize == cqldriver.Unpaged {
					// A scatter: the rows per bucket, bound last, times
					// the buckets, bound after the partition key.
					asked.Add(int64(q.Values[len(q.Values)-1].(int) * len(q.Values[1].([]int32))))
				} else {
					asked.Add(int64(q.PageSize))
				}
			}
			return nil
		}))
		repo := fixture.NewReadingRepo(s, cqlgen.WithScatter(mode))
		insertAll(t, repo.Insert, readings(1600, 3, 9))
		queries.Store(0)
		asked.Store(0)
		p, err := repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Limit: 100})
		if err != nil || len(p.Rows) != 100 {
			t.Fatalf("%s: a page of 100: %d rows, %v", scatterName[mode], len(p.Rows), err)
		}
		t.Logf("%s: a page of 100 over 16 buckets: %d queries asking for %d rows (asking each bucket for 101: 16 queries, 1,616 rows)", scatterName[mode], queries.Load(), asked.Load())
		most := int64(20)
		if mode == cqlgen.ScatterCoordinator {
			most = 3
		}
		if queries.Load() > most || asked.Load() > 400 {
			t.Errorf("%s: a page of 100 over 16 evenly filled buckets took %d queries asking for %d rows", scatterName[mode], queries.Load(), asked.Load())
		}
	}
}

func hashMergeRefills(t *testing.T, name string, keep func(int) bool, mode cqlgen.Scatter) {
	s := session(t)
	repo := fixture.NewReadingRepo(s, cqlgen.WithScatter(mode))
	var rows []fixture.Reading
	for _, r := range readings(3000, 3, 7) {
		if keep(int(r.Seq)) {
			rows = append(rows, r)
		}
		if len(rows) == 400 {
			break
		}
	}
	insertAll(t, repo.Insert, rows)
	want := slices.Clone(rows)
	slices.SortFunc(want, byTimeDesc)
	for _, limit := range []int{1, 2, 7, 16, 50, 100, 399, 400, 401} {
		got := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
			return repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Limit: limit, Cursor: c})
		})
		if !slices.Equal(seqs(got), seqs(want)) {
			t.Errorf("%s, limit %d: got %v\nwant %v", name, limit, seqs(got), seqs(want))
		}
	}
}

// A Scatter that names no way of reading buckets is refused, not read
// one way or the other.
func TestScatterUnknown(t *testing.T) {
	repo := fixture.NewReadingRepo(session(t), cqlgen.WithScatter(cqlgen.ScatterClient+1))
	_, err := repo.Readings16(context.Background(), "s1", nil)
	if oe := (*cqlgen.InputError)(nil); !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) || oe.Name != "Scatter" {
		t.Errorf("Scatter %d: %v, want an *InputError (ErrInvalidOption) on Scatter", cqlgen.ScatterClient+1, err)
	}
}

// What a cursor over hash buckets guarantees while rows change between
// pages: the rows come in clustering order, none twice; every row there
// from the first page to the last that lies after the cursor when it is
// read comes once, rows inserted after the cursor's position come, and
// rows inserted behind it or deleted before they are reached do not.
// Both scatter modes, several limits, rows inserted and deleted at
// random between every two pages.
func TestHashPagingWhileRowsChange(t *testing.T) {
	for _, mode := range scatterModes {
		for _, limit := range []int{3, 7, 16, 50} {
			s := session(t)
			repo := fixture.NewReadingRepo(s, cqlgen.WithScatter(mode))
			rows := readings(300, 3, 11)
			insertAll(t, repo.Insert, rows)
			present := map[int32]fixture.Reading{}
			for _, r := range rows {
				present[r.Seq] = r
			}
			rng := rand.New(rand.NewPCG(uint64(limit), 5))
			var got []fixture.Reading
			shouldCome := map[int32]bool{} // rows inserted after the position
			gone := map[int32]bool{}       // rows deleted before they were reached
			cursor, next := "", int32(10000)
			for page := 0; ; page++ {
				if page > 1000 {
					t.Fatal("paging does not end")
				}
				p, err := repo.Readings16(context.Background(), "s1", &fixture.Readings16Options{Limit: limit, Cursor: cursor})
				if err != nil {
					t.Fatalf("%s, limit %d, page %d: %v", scatterName[mode], limit, page, err)
				}
				got = append(got, p.Rows...)
				if p.Cursor == "" {
					break
				}
				cursor = p.Cursor
				last := got[len(got)-1]
				// Insert two rows at random instants (ahead of the
				// position or behind it) and delete one row not yet read.
				for range 2 {
					r := fixture.Reading{SensorID: "s1", At: day0.AddDate(0, 0, rng.IntN(3)).Add(time.Duration(rng.IntN(4)) * time.Hour), Seq: next, Kind: "a", Value: int64(next)}
					next++
					if err := repo.Insert(context.Background(), &r); err != nil {
						t.Fatal(err)
					}
					present[r.Seq] = r
					if byTimeDesc(r, last) > 0 {
						shouldCome[r.Seq] = true
					}
				}
				for _, r := range rows {
					if byTimeDesc(r, last) > 0 && !gone[r.Seq] {
						if err := repo.Delete(context.Background(), &r); err != nil {
							t.Fatal(err)
						}
						gone[r.Seq] = true
						delete(shouldCome, r.Seq)
						break
					}
				}
			}
			name := fmt.Sprintf("%s, limit %d", scatterName[mode], limit)
			seen := map[int32]bool{}
			for i, r := range got {
				if i > 0 && byTimeDesc(got[i-1], r) >= 0 {
					t.Fatalf("%s: row %d (seq %d) does not come after row %d (seq %d)", name, i, r.Seq, i-1, got[i-1].Seq)
				}
				if gone[r.Seq] {
					t.Errorf("%s: seq %d, deleted before it was reached, came", name, r.Seq)
				}
				if r.Seq >= 10000 && !shouldCome[r.Seq] {
					t.Errorf("%s: seq %d, inserted behind the cursor, came", name, r.Seq)
				}
				seen[r.Seq] = true
			}
			for _, r := range rows {
				if !gone[r.Seq] && !seen[r.Seq] {
					t.Errorf("%s: seq %d, there throughout, never came", name, r.Seq)
				}
			}
			for seq := range shouldCome {
				if !seen[seq] {
					t.Errorf("%s: seq %d, inserted after the cursor, never came", name, seq)
				}
			}
		}
	}
}
