package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// streamKeys ranges over a whole stream, failing on an error.
func streamKeys[T any](t *testing.T, what string, rows func(func(T, error) bool), key func(T) string) []string {
	t.Helper()
	var got []string
	for r, err := range rows {
		if err != nil {
			t.Fatalf("%s: after %d rows: %v", what, len(got), err)
		}
		got = append(got, key(r))
	}
	return got
}

// checkNodeStream checks a stream of read on the node against want, the
// keys of its rows in order: whole; broken after k rows, for several k,
// and resumed from the cursor (no row twice, none missing); and
// cancelled mid-stream (the context's error yielded once, and the
// cursor resumes after the last row yielded).
func checkNodeStream[T any](t *testing.T, what string, want []string, key func(T) string, read func(context.Context, string) (cqlgen.Page[T], error)) {
	t.Helper()
	ctx := context.Background()
	rows, _ := cqlgen.Stream(ctx, "", read)
	if got := streamKeys(t, what, rows, key); !slices.Equal(got, want) {
		t.Fatalf("%s: a stream of %d rows, want %d:\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
	for _, k := range []int{1, len(want) / 3, len(want) - 1} {
		rows, cursor := cqlgen.Stream(ctx, "", read)
		var head []string
		for r, err := range rows {
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if head = append(head, key(r)); len(head) == k {
				break
			}
		}
		rest, _ := cqlgen.Stream(ctx, cursor(), read)
		if got := append(head, streamKeys(t, what, rest, key)...); !slices.Equal(got, want) {
			t.Errorf("%s: break after %d rows, resumed: %d rows, want %d:\n got %v\nwant %v", what, k, len(got), len(want), got, want)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, cursor := cqlgen.Stream(cctx, "", read)
	var head []string
	var errs []error
	for r, err := range rows {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if head = append(head, key(r)); len(head) == len(want)/2 {
			cancel()
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) || len(head) != len(want)/2 {
		t.Fatalf("%s: cancelled after %d rows: %d rows, errors %v", what, len(want)/2, len(head), errs)
	}
	rest, _ := cqlgen.Stream(ctx, cursor(), read)
	if got := append(head, streamKeys(t, what, rest, key)...); !slices.Equal(got, want) {
		t.Errorf("%s: resumed after a cancel: %d rows, want %d", what, len(got), len(want))
	}
}

// pageKeys reads every page of a read, the page API's rows.
func pageKeys[T any](t *testing.T, what string, key func(T) string, read func(context.Context, string) (cqlgen.Page[T], error)) []string {
	t.Helper()
	var keys []string
	c := ""
	for range 10_000 {
		p, err := read(context.Background(), c)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, r := range p.Rows {
			keys = append(keys, key(r))
		}
		if c = p.Cursor; c == "" {
			return keys
		}
	}
	t.Fatalf("%s: paging does not end", what)
	return nil
}

// Streams on the node, of one partition across many pages, a read
// through an index over every partition, 16 hash buckets merged, day
// buckets walked back and a scan: each against Cassandra's own rows
// (read with plain gocql) or the page API's, broken and resumed, and
// cancelled mid-stream.
func TestStreamsOnTheNode(t *testing.T) {
	var stmts []string
	for _, st := range cqlscript.Split(testmodel.Schema) {
		for _, name := range []string{"notes", "readings_by_day", "readings_1", "readings_16", "visits"} {
			if strings.Contains(st.Text, "CREATE TABLE IF NOT EXISTS "+name+" ") || strings.Contains(st.Text, "CREATE TABLE IF NOT EXISTS "+name+"_by") || strings.Contains(st.Text, " ON "+name+" (") {
				stmts = append(stmts, st.Text+";")
				break
			}
		}
	}
	raw, s := repoSession(t, strings.Join(stmts, "\n"))
	ctx := context.Background()
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

	notes := testmodel.NewNoteRepo(s)
	for i := range 260 {
		must(t, notes.Insert(ctx, &testmodel.Note{Space: fmt.Sprint("sp", i%2), At: day.Add(time.Duration(i/3) * time.Minute), Seq: int64(i), Author: fmt.Sprint("a", i%3), Size: int32(i % 10)}))
	}
	noteKey := func(n testmodel.Note) string { return fmt.Sprint(n.Seq) }
	var want []string
	it := raw.Query("SELECT seq FROM notes WHERE space = 'sp0'").PageSize(1000).Iter()
	var seq int64
	for it.Scan(&seq) {
		want = append(want, fmt.Sprint(seq))
	}
	must(t, it.Close())
	checkNodeStream(t, "notes of one partition, pages of 17", want, noteKey, func(ctx context.Context, c string) (cqlgen.Page[testmodel.Note], error) {
		return notes.Notes(ctx, "sp0", &testmodel.NotesOptions{Limit: 17, Cursor: c})
	})
	byAuthor := func(ctx context.Context, c string) (cqlgen.Page[testmodel.Note], error) {
		return notes.NotesByAuthor(ctx, "a1", &testmodel.NotesByAuthorOptions{Limit: 13, Cursor: c})
	}
	want = pageKeys(t, "notes_by_author", noteKey, byAuthor)
	if len(want) != 260/3+1 {
		t.Fatalf("notes_by_author: %d rows, want %d", len(want), 260/3+1)
	}
	checkNodeStream(t, "notes_by_author (an index over every partition), pages of 13", want, noteKey, byAuthor)

	readings := testmodel.NewReadingRepo(s)
	for i := range 240 {
		must(t, readings.Insert(ctx, &testmodel.Reading{SensorID: "s1", At: day.Add(time.Duration(i%5)*24*time.Hour + time.Duration(i%7)*time.Hour), Seq: int64(i), Value: float64(i)}))
	}
	readingKey := func(r testmodel.Reading) string { return fmt.Sprint(r.Seq) }
	hash := func(ctx context.Context, c string) (cqlgen.Page[testmodel.Reading], error) {
		return readings.Readings16(ctx, "s1", &testmodel.Readings16Options{Limit: 25, Cursor: c})
	}
	if want = pageKeys(t, "readings_16", readingKey, hash); len(want) != 240 {
		t.Fatalf("readings_16: %d rows of 240", len(want))
	}
	checkNodeStream(t, "readings_16 (16 hash buckets merged), pages of 25", want, readingKey, hash)
	walk := func(ctx context.Context, c string) (cqlgen.Page[testmodel.Reading], error) {
		return readings.ReadingsByDay(ctx, "s1", &testmodel.ReadingsByDayOptions{Limit: 25, Cursor: c, Start: day.AddDate(0, 0, 6)})
	}
	if want = pageKeys(t, "readings_by_day", readingKey, walk); len(want) != 240 {
		t.Fatalf("readings_by_day: %d rows of 240", len(want))
	}
	checkNodeStream(t, "readings_by_day (day buckets walked back), pages of 25", want, readingKey, walk)

	visits := testmodel.NewVisitRepo(s)
	for i := range 150 {
		must(t, visits.Insert(ctx, &testmodel.Visit{VisitID: fmt.Sprint("v", i), UserID: fmt.Sprint("u", i%4), Site: "x", At: day.Add(time.Duration(i) * time.Second), Page: "p"}))
	}
	visitKey := func(v testmodel.Visit) string { return v.VisitID }
	scan := func(ctx context.Context, c string) (cqlgen.Page[testmodel.Visit], error) {
		return visits.ScanVisits(ctx, &cqlgen.ScanOptions{Limit: 20, Cursor: c})
	}
	if want = pageKeys(t, "scan of visits", visitKey, scan); len(want) != 150 {
		t.Fatalf("scan of visits: %d rows of 150", len(want))
	}
	checkNodeStream(t, "scan of visits, pages of 20", want, visitKey, scan)
}
