package cqltest_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	cqlgen "github.com/cqlgen/cqlgen/runtime"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// These tests drive the runtime's algorithms (reads of one partition and
// of hash buckets, idempotency keys, versioned changes) on the engine,
// with the music example's schema.

func musicSession(t *testing.T, opts ...cqltest.Option) *cqltest.Session {
	t.Helper()
	schema, err := os.ReadFile("../../example/music/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := cqltest.New(string(schema), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type track struct {
	Artist, ID, Name, Album string
	Plays                   int64
	Duration                int32
}

var topTracks = cqlgen.NewTable(cqlgen.TableSpec{
	Name:    "top_tracks_by_artist",
	Pattern: "TopTracksByArtist",
	Columns: []cqlgen.Column{
		{Name: "artist_id", Type: "text"}, {Name: "play_count", Type: "bigint"}, {Name: "track_id", Type: "text"},
		{Name: "track_name", Type: "text"}, {Name: "album", Type: "text"}, {Name: "duration_s", Type: "int"},
	},
	PartitionKey: []string{"artist_id"},
	Clustering: []cqlgen.ClusteringColumn{
		{Column: cqlgen.Column{Name: "play_count", Type: "bigint"}, Desc: true},
		{Column: cqlgen.Column{Name: "track_id", Type: "text"}},
	},
})

// compareTracks is the clustering order: play_count DESC, track_id ASC.
func compareTracks(a, b *track) int {
	if c := cmp.Compare(b.Plays, a.Plays); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func topTracksSpec(artist string, limit int, cursor string) cqlgen.ReadSpec[track] {
	return cqlgen.ReadSpec[track]{
		Table:     topTracks,
		Partition: []any{artist},
		Limit:     limit,
		Cursor:    cursor,
		Scan: func(it cqlgen.Iter) (e track, ok bool) {
			ok = it.Scan(&e.Artist, &e.Plays, &e.ID, &e.Name, &e.Album, &e.Duration)
			return
		},
		Key:     func(e *track) []any { return []any{e.Plays, e.ID} },
		Compare: compareTracks,
	}
}

// readAll pages through a read with ReadPage, and returns the rows and
// the number of queries each page took.
func readAll[T any](t *testing.T, s *cqltest.Session, spec cqlgen.ReadSpec[T]) ([]T, []int) {
	t.Helper()
	var rows []T
	var queries []int
	for range 10000 {
		before := len(s.Calls())
		page, err := cqlgen.ReadPage(context.Background(), s, spec)
		if err != nil {
			t.Fatalf("limit %d: %v", spec.Limit, err)
		}
		queries = append(queries, len(s.Calls())-before)
		if len(page.Rows) > spec.Limit {
			t.Fatalf("a page of %d rows, limit %d", len(page.Rows), spec.Limit)
		}
		rows = append(rows, page.Rows...)
		if page.Cursor == "" {
			return rows, queries
		}
		spec.Cursor = page.Cursor
	}
	t.Fatal("paging does not end")
	return nil, nil
}

func TestReadPageOfOnePartition(t *testing.T) {
	s := musicSession(t)
	rng := rand.New(rand.NewPCG(5, 6))
	// Keys repeat: a later write (a higher timestamp) replaces a row.
	var want []track
	at := map[[2]any]int{}
	var qs []cqlgen.Query
	for i := range 240 {
		tr := track{Artist: "artist", ID: fmt.Sprintf("t%03d", rng.IntN(1000)), Plays: int64(rng.IntN(40)), Name: fmt.Sprint("song ", i), Album: "LP", Duration: int32(i)}
		if i%5 == 0 {
			tr.Artist = "another" // another partition, never returned
		}
		qs = append(qs, cqlgen.Query{Stmt: topTracks.Insert, Values: []any{tr.Artist, tr.Plays, tr.ID, tr.Name, tr.Album, tr.Duration, int64(1000 + i)}})
		if tr.Artist != "artist" {
			continue
		}
		if j, ok := at[[2]any{tr.Plays, tr.ID}]; ok {
			want[j] = tr
			continue
		}
		at[[2]any{tr.Plays, tr.ID}] = len(want)
		want = append(want, tr)
	}
	if err := cqlgen.LoggedBatch.Apply(context.Background(), s, qs); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(want, func(a, b track) int { return compareTracks(&a, &b) })

	for _, limit := range []int{1, 2, 3, 7, 10, 50, len(want) - 1, len(want), len(want) + 1} {
		got, queries := readAll(t, s, topTracksSpec("artist", limit, ""))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d: %d rows, want %d; first difference at %d", limit, len(got), len(want), firstDiff(got, want))
		}
		// The first page is one query: it asks for limit+1 rows, which
		// come in one page. A page after a cursor takes at most one query
		// per clustering column (the rest of the play count, then the
		// lower play counts), plus an empty one after a page that was
		// exactly full.
		if queries[0] != 1 {
			t.Errorf("limit %d: the first page took %d queries", limit, queries[0])
		}
		for i, n := range queries[1:] {
			if n > 3 {
				t.Errorf("limit %d: page %d took %d queries", limit, i+2, n)
			}
		}
	}

	// Bounds on play_count, in clustering order: From (inclusive) is the
	// higher count, To (exclusive) the lower.
	spec := topTracksSpec("artist", 4, "")
	spec.From, spec.To = int64(30), int64(12)
	got, _ := readAll(t, s, spec)
	var bounded []track
	for _, tr := range want {
		if tr.Plays <= 30 && tr.Plays > 12 {
			bounded = append(bounded, tr)
		}
	}
	if !reflect.DeepEqual(got, bounded) {
		t.Errorf("from 30 to 12: %d rows, want %d; first difference at %d", len(got), len(bounded), firstDiff(got, bounded))
	}
}

func firstDiff[T any](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if !reflect.DeepEqual(a[i], b[i]) {
			return i
		}
	}
	return min(len(a), len(b))
}

type chartEntry struct {
	Date          time.Time
	Plays         int64
	ID, Name, Art string
}

const chartBuckets = 16

var dailyCharts = cqlgen.NewTable(cqlgen.TableSpec{
	Name:    "daily_charts",
	Pattern: "DailyCharts",
	Columns: []cqlgen.Column{
		{Name: "chart_date", Type: "date"}, {Name: "shard", Type: "int"}, {Name: "play_count", Type: "bigint"},
		{Name: "track_id", Type: "text"}, {Name: "track_name", Type: "text"}, {Name: "artist", Type: "text"},
	},
	PartitionKey: []string{"chart_date", "shard"},
	Clustering: []cqlgen.ClusteringColumn{
		{Column: cqlgen.Column{Name: "play_count", Type: "bigint"}, Desc: true},
		{Column: cqlgen.Column{Name: "track_id", Type: "text"}},
	},
	Bucket: "shard",
})

func compareEntries(a, b *chartEntry) int {
	if c := cmp.Compare(b.Plays, a.Plays); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

func TestReadPageOfHashBuckets(t *testing.T) {
	s := musicSession(t)
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 8))
	var want []chartEntry
	for i := range 300 {
		e := chartEntry{Date: day, Plays: int64(rng.IntN(25)), ID: fmt.Sprintf("track-%03d", i), Name: "n", Art: "a"}
		d := day
		if i%7 == 0 {
			d = day.AddDate(0, 0, -1) // another day, never returned
		} else {
			want = append(want, e)
		}
		q := cqlgen.Query{Stmt: dailyCharts.Insert, Values: []any{d, cqlgen.HashText(e.ID, chartBuckets), e.Plays, e.ID, e.Name, e.Art, int64(i)}}
		if err := s.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	slices.SortFunc(want, func(a, b chartEntry) int { return compareEntries(&a, &b) })
	spec := func(limit int) cqlgen.ReadSpec[chartEntry] {
		return cqlgen.ReadSpec[chartEntry]{
			Table:       dailyCharts,
			Partition:   []any{day},
			Limit:       limit,
			HashBuckets: chartBuckets,
			Concurrency: 4,
			Scan: func(it cqlgen.Iter) (e chartEntry, ok bool) {
				ok = it.Scan(&e.Date, &e.Plays, &e.ID, &e.Name, &e.Art)
				return
			},
			Key:     func(e *chartEntry) []any { return []any{e.Plays, e.ID} },
			Compare: compareEntries,
		}
	}
	for _, limit := range []int{1, 5, 16, 17, 100, len(want), len(want) + 1} {
		got, queries := readAll(t, s, spec(limit))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d: %d rows, want %d; first difference at %d", limit, len(got), len(want), firstDiff(got, want))
		}
		if queries[0] < chartBuckets {
			t.Errorf("limit %d: the first page took %d queries, fewer than the buckets", limit, queries[0])
		}
	}
	sp := spec(9)
	sp.From, sp.To = int64(20), int64(3)
	got, _ := readAll(t, s, sp)
	var bounded []chartEntry
	for _, e := range want {
		if e.Plays <= 20 && e.Plays > 3 {
			bounded = append(bounded, e)
		}
	}
	if !reflect.DeepEqual(got, bounded) {
		t.Errorf("from 20 to 3: %d rows, want %d", len(got), len(bounded))
	}
}

// The runtime's idempotency protocol, on the real statements: a command
// runs once per key, even when the reply of its claim is lost.
func TestIdempotencyKeys(t *testing.T) {
	lose := map[string]bool{"idempotency.claim": true}
	s := musicSession(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
		if p := c.Queries[0].Stmt.Pattern; lose[p] {
			delete(lose, p) // once
			return cqltest.LostReply(errors.New("timeout"))
		}
		return nil
	}))
	ctx := context.Background()
	runs := 0
	fn := func(ctx context.Context, ts int64) error {
		runs++
		return s.Exec(ctx, cqlgen.Query{Stmt: topTracks.Insert, Values: []any{"a", int64(1), "t", "n", "al", int32(3), ts}})
	}
	id := cqlgen.Idempotency{Key: "request-1"}
	for _, ts := range []int64{100, 200, 300} {
		if err := cqlgen.Idempotent(ctx, s, id, ts, []byte("payload"), fn); err != nil {
			t.Fatalf("ts %d: %v", ts, err)
		}
	}
	if runs != 1 {
		t.Errorf("the command ran %d times, want once", runs)
	}
	err := cqlgen.Idempotent(ctx, s, id, 400, []byte("other"), fn)
	if !errors.Is(err, cqlgen.ErrIdempotencyConflict) {
		t.Errorf("another payload: %v", err)
	}
	rows, _ := s.Rows(cqlgen.IdempotencyTable)
	if len(rows) != 1 || rows[0]["state"] != "done" || rows[0]["write_ts"] != int64(100) {
		t.Errorf("record %v", rows)
	}
}

// The versioned change of a canonical table: its conditional update on
// the version column, as ChangeVersioned runs it.
func TestChangeVersioned(t *testing.T) {
	s := musicSession(t)
	tracks := cqlgen.NewTable(cqlgen.TableSpec{
		Name:    "tracks",
		Pattern: "Tracks",
		Columns: []cqlgen.Column{
			{Name: "track_id", Type: "text"}, {Name: "artist_id", Type: "text"}, {Name: "play_count", Type: "bigint"},
			{Name: "track_name", Type: "text"}, {Name: "album", Type: "text"}, {Name: "duration_s", Type: "int"},
			{Name: "cqlgen_version", Type: "bigint"},
		},
		PartitionKey: []string{"track_id"},
		Version:      "cqlgen_version",
	})
	ctx := context.Background()
	ts := time.Now().UnixMicro()
	ins := cqlgen.Query{Stmt: tracks.Insert, Values: []any{"t1", "a1", int64(5), "song", "lp", int32(200), ts, ts}}
	if err := s.Exec(ctx, ins); err != nil {
		t.Fatal(err)
	}
	type versioned = cqlgen.Versioned[track]
	read := cqlgen.Query{Stmt: tracks.GetVersion, Values: []any{"t1"}}
	scan := func(it cqlgen.Iter) (v versioned, ok bool) {
		ok = it.Scan(&v.Row.ID, &v.Row.Artist, &v.Row.Plays, &v.Row.Name, &v.Row.Album, &v.Row.Duration, &v.Version)
		return
	}
	var newVersion int64
	err := cqlgen.ChangeVersioned(ctx, s, cqlgen.NewOptions(), read, scan,
		func(cur *versioned, ts int64) cqlgen.Query {
			newVersion = ts
			return cqlgen.Query{Stmt: tracks.UpdateIf, Values: []any{"a1", int64(6), "song", "lp", int32(200), ts, "t1", cur.Version}}
		},
		func(*versioned, int64) []cqlgen.Query { return nil }, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cqlgen.GetRow(ctx, s, read, scan)
	if err != nil || got.Row.Plays != 6 || got.Version != newVersion || newVersion < ts+2 {
		t.Errorf("after the change: %+v, %v; version %d", got, err, newVersion)
	}
	// A stale version does not apply, and reports the current one.
	var current int64
	applied, err := s.ExecCAS(ctx, cqlgen.Query{Stmt: tracks.UpdateIf, Values: []any{"a1", int64(7), "song", "lp", int32(200), ts + 10, "t1", ts}}, &current)
	if err != nil || applied || current != newVersion {
		t.Errorf("stale update: applied %v, %v, current version %d, want %d", applied, err, current, newVersion)
	}
}
