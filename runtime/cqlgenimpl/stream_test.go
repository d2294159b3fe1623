package cqlgenimpl_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// Streams (cqlgen.Stream) over each kind of read (one partition, a prefix
// and a range, hash buckets, time buckets, an index, a scan), on
// cqltest: every row
// of the page API, in its order; a break after any row and a stream
// resumed from the cursor give exactly the rest; ranging again after a
// break goes on where it stopped; cancellation and an error mid-stream
// are yielded once. Each was checked by breaking the code it guards: a
// cursor made of the row before the last yielded (duplicates), the
// page's end cursor on a break (gaps), a scan cursor without its skip
// (duplicates).

// streamRows ranges over a whole stream, failing on an error.
func streamRows[T any](t *testing.T, rows func(func(T, error) bool)) []T {
	t.Helper()
	var got []T
	for r, err := range rows {
		if err != nil {
			t.Fatalf("after %d rows: %v", len(got), err)
		}
		got = append(got, r)
	}
	return got
}

// checkStream checks read's stream against want, the rows of the page
// API: whole, then broken after each of the given numbers of rows and
// resumed from the cursor, and ranged again after a break.
func checkStream[T any](t *testing.T, name string, want []T, key func(T) string, read func(context.Context, string) (cqlgen.Page[T], error)) {
	t.Helper()
	ctx := context.Background()
	keys := func(rs []T) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = key(r)
		}
		return out
	}
	if len(want) < 10 {
		t.Fatalf("%s: %d rows: too few to test", name, len(want))
	}
	rows, cursor := cqlgen.Stream(ctx, "", read)
	if got := streamRows(t, rows); !slices.Equal(keys(got), keys(want)) {
		t.Fatalf("%s: a stream of %d rows, the pages %d:\n%v\n%v", name, len(got), len(want), keys(got), keys(want))
	}
	// After the end: the cursor is after the last row, and resumes to
	// nothing.
	if c := cursor(); c == "" {
		t.Errorf("%s: no cursor after the last row", name)
	} else if rest := streamRows(t, func(y func(T, error) bool) { r, _ := cqlgen.Stream(ctx, c, read); r(y) }); len(rest) != 0 {
		t.Errorf("%s: resumed after the last row: %d rows", name, len(rest))
	}
	for _, k := range []int{1, 2, 7, len(want) / 3, len(want) / 2, len(want) - 1, len(want)} {
		rows, cursor := cqlgen.Stream(ctx, "", read)
		var head []T
		inLoop := ""
		for r, err := range rows {
			if err != nil {
				t.Fatal(err)
			}
			head = append(head, r)
			if len(head) == k {
				inLoop = cursor()
				break
			}
		}
		c := cursor()
		if c != inLoop {
			t.Errorf("%s, break after %d: the cursor asked in the loop and after it differ", name, k)
		}
		rest, _ := cqlgen.Stream(ctx, c, read)
		got := append(head, streamRows(t, rest)...)
		if !slices.Equal(keys(got), keys(want)) {
			t.Errorf("%s, break after %d rows and resume: %d rows, want %d:\n%v\n%v", name, k, len(got), len(want), keys(got), keys(want))
		}
		// The same stream, ranged again, goes on after the break.
		again := append(head[:k:k], streamRows(t, rows)...)
		if !slices.Equal(keys(again), keys(want)) {
			t.Errorf("%s, break after %d rows, ranged again: %d rows, want %d", name, k, len(again), len(want))
		}
	}
}

func TestStreamEveryKindOfRead(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	rs := readings(400, 9, 7)
	rrepo := fixture.NewReadingRepo(s)
	insertAll(t, rrepo.Insert, rs)
	key := func(r fixture.Reading) string { return fmt.Sprint(r.Seq) }
	for _, limit := range []int{1, 7, 100} {
		// One partition across many pages.
		partition := func(ctx context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
			return rrepo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: limit, Cursor: c})
		}
		checkStream(t, fmt.Sprintf("readings_by_kind, limit %d", limit), pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) { return partition(ctx, c) }), key, partition)
		// 16 hash buckets merged.
		hash := func(ctx context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
			return rrepo.Readings16(ctx, "s1", &fixture.Readings16Options{Limit: limit, Cursor: c})
		}
		want := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) { return hash(ctx, c) })
		if len(want) != len(rs) {
			t.Fatalf("readings_16: %d rows of %d", len(want), len(rs))
		}
		checkStream(t, fmt.Sprintf("readings_16, limit %d", limit), want, key, hash)
		// Day buckets walked back.
		walk := func(ctx context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
			return rrepo.ReadingsByDay(ctx, "s1", &fixture.ReadingsByDayOptions{Limit: limit, Cursor: c, Start: day0.AddDate(0, 0, 10)})
		}
		want = pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) { return walk(ctx, c) })
		if len(want) != len(rs) {
			t.Fatalf("readings_by_day: %d rows of %d", len(want), len(rs))
		}
		checkStream(t, fmt.Sprintf("readings_by_day, limit %d", limit), want, key, walk)
	}

	// A read through an index over every partition, and a scan.
	orepo := fixture.NewOrderRepo(s)
	prepo := fixture.NewProfileRepo(s)
	for i := range 240 {
		o := &fixture.Order{UserID: fmt.Sprintf("u%d", i%3), PlacedAt: day0.Add(time.Duration(i%17) * time.Hour), OrderID: fmt.Sprint(i), Status: []string{"new", "paid"}[i%2], Items: int32(i % 5), Event: gocql.UUIDFromTime(day0.Add(time.Duration(i) * time.Second))}
		must(t, orepo.Insert(ctx, o))
		must(t, prepo.Insert(ctx, &fixture.Profile{Org: fmt.Sprintf("o%d", i%11), UserID: fmt.Sprint(i), Name: fmt.Sprint(i % 7)}))
	}
	okey := func(o fixture.Order) string { return o.UserID + "/" + o.OrderID }
	pkey := func(p fixture.Profile) string { return p.Org + "/" + p.UserID }
	for _, limit := range []int{1, 9, 100} {
		index := func(ctx context.Context, c string) (cqlgen.Page[fixture.Order], error) {
			return orepo.OrdersByItems(ctx, math.MinInt32, math.MaxInt32, &fixture.OrdersByItemsOptions{Limit: limit, Cursor: c})
		}
		checkStream(t, fmt.Sprintf("orders_by_items, limit %d", limit), pages(t, func(c string) (cqlgen.Page[fixture.Order], error) { return index(ctx, c) }), okey, index)
		// A prefix fixed and a range under it, in one partition and over
		// 4 hash buckets.
		paid, from, to := "paid", day0.Add(15*time.Hour), day0.Add(2*time.Hour) // placed_at desc: From is the later
		prefix := func(ctx context.Context, c string) (cqlgen.Page[fixture.Order], error) {
			return orepo.OrdersByStatus(ctx, "u1", &fixture.OrdersByStatusOptions{Limit: limit, Cursor: c, StatusEq: &paid, PlacedAtFrom: &from, PlacedAtTo: &to, PlacedAtToInclusive: true})
		}
		checkStream(t, fmt.Sprintf("orders_by_status = paid, placed_at in a range, limit %d", limit), pages(t, func(c string) (cqlgen.Page[fixture.Order], error) { return prefix(ctx, c) }), okey, prefix)
		prefix4 := func(ctx context.Context, c string) (cqlgen.Page[fixture.Order], error) {
			return orepo.Orders4(ctx, "u1", &fixture.Orders4Options{Limit: limit, Cursor: c, StatusEq: &paid, PlacedAtFrom: &from, PlacedAtTo: &to})
		}
		checkStream(t, fmt.Sprintf("orders_4 status = paid, placed_at in a range, limit %d", limit), pages(t, func(c string) (cqlgen.Page[fixture.Order], error) { return prefix4(ctx, c) }), okey, prefix4)
		for _, of := range []int{1, 3} {
			scan := func(ctx context.Context, c string) (cqlgen.Page[fixture.Profile], error) {
				return prepo.ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: limit, Cursor: c, Split: of - 1, Of: of})
			}
			want := pages(t, func(c string) (cqlgen.Page[fixture.Profile], error) { return scan(ctx, c) })
			checkStream(t, fmt.Sprintf("scan of profiles, share %d of %d, limit %d", of-1, of, limit), want, pkey, scan)
		}
	}
}

// A cursor of a stream resumes the page API too: exactly the rows after
// the last one the stream yielded, mid-page included.
func TestStreamCursorResumesPages(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	insertAll(t, repo.Insert, readings(300, 5, 3))
	read := func(ctx context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.Readings16(ctx, "s1", &fixture.Readings16Options{Limit: 50, Cursor: c})
	}
	want := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) { return read(ctx, c) })
	rows, cursor := cqlgen.Stream(ctx, "", read)
	n := 0
	for _, err := range rows {
		must(t, err)
		if n++; n == 73 {
			break
		}
	}
	rest := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
		if c == "" {
			c = cursor()
		}
		return read(ctx, c)
	})
	if len(rest) != len(want)-73 || rest[0].Seq != want[73].Seq {
		t.Fatalf("pages from a stream's cursor after 73 rows: %d rows from seq %d, want %d from seq %d", len(rest), rest[0].Seq, len(want)-73, want[73].Seq)
	}
}

// A context cancelled mid-stream ends it with the context's error,
// yielded once; the cursor is after the last row yielded. No request is
// sent after the cancel.
func TestStreamCancelled(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	insertAll(t, repo.Insert, readings(200, 3, 5))
	want := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.ReadingsByKind(context.Background(), "s1", &fixture.ReadingsByKindOptions{Limit: 30, Cursor: c})
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	read := func(ctx context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: 30, Cursor: c})
	}
	rows, cursor := cqlgen.Stream(ctx, "", read)
	var got []fixture.Reading
	var errs []error
	calls := 0
	for r, err := range rows {
		if err != nil {
			errs = append(errs, err)
			calls = len(s.Calls())
			continue
		}
		if got = append(got, r); len(got) == 45 {
			cancel()
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
		t.Fatalf("errors yielded: %v, want one context.Canceled", errs)
	}
	if len(got) != 45 {
		t.Fatalf("%d rows before the cancel's error, want 45", len(got))
	}
	if len(s.Calls()) != calls {
		t.Errorf("requests sent after the cancel")
	}
	rest, _ := cqlgen.Stream(context.Background(), cursor(), read)
	if all := append(got, streamRows(t, rest)...); len(all) != len(want) || all[45].Seq != want[45].Seq {
		t.Errorf("resumed after a cancel: %d rows, want %d", len(all), len(want))
	}
}

// A read that fails mid-stream (here the third page's query) yields its
// error once and ends the sequence; ranged again, the stream goes on
// after the last row yielded.
func TestStreamErrorMidStream(t *testing.T) {
	var fail atomic.Bool
	broken := errors.New("the connection was cut")
	s := session(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
		if c.Op == cqltest.OpIter && fail.Load() {
			return broken
		}
		return nil
	}))
	ctx := context.Background()
	repo := fixture.NewReadingRepo(s)
	insertAll(t, repo.Insert, readings(100, 3, 9))
	read := func(ctx context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.Readings16(ctx, "s1", &fixture.Readings16Options{Limit: 20, Cursor: c})
	}
	want := pages(t, func(c string) (cqlgen.Page[fixture.Reading], error) { return read(ctx, c) })
	rows, _ := cqlgen.Stream(ctx, "", read)
	var got []fixture.Reading
	var errs []error
	for r, err := range rows {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if got = append(got, r); len(got) == 40 {
			fail.Store(true) // the page after this one fails
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], broken) || len(got) != 40 {
		t.Fatalf("%d rows, errors %v: want 40 rows and the cut", len(got), errs)
	}
	fail.Store(false)
	got = append(got, streamRows(t, rows)...)
	if len(got) != len(want) || got[40].Seq != want[40].Seq {
		t.Errorf("ranged again after the error: %d rows, want %d", len(got), len(want))
	}
}

// A read that does not pass on the stream's context cannot tell where
// its rows lie: the stream refuses it rather than hand out cursors that
// would repeat or skip rows.
func TestStreamRefusesAReadWithoutItsContext(t *testing.T) {
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	insertAll(t, repo.Insert, readings(20, 2, 1))
	ctx := context.Background()
	rows, _ := cqlgen.Stream(ctx, "", func(_ context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
		return repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: 5, Cursor: c})
	})
	for _, err := range rows {
		if !errors.Is(err, cqlgen.ErrInvalidOption) {
			t.Fatalf("a row or %v, want ErrInvalidOption", err)
		}
		return
	}
	t.Fatal("nothing yielded")
}

// With a cursor key, a stream's cursors are sealed as a page's are, and
// resume the same: exactly the rest, over hash buckets and a scan.
func TestStreamSealedCursors(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	key := cqlgen.WithCursorKey([]byte("stream secret"))
	repo := fixture.NewReadingRepo(s, key)
	insertAll(t, repo.Insert, readings(150, 4, 11))
	prepo := fixture.NewProfileRepo(s, key)
	for i := range 90 {
		must(t, prepo.Insert(ctx, &fixture.Profile{Org: fmt.Sprint("o", i%7), UserID: fmt.Sprint(i)}))
	}
	check := func(name string, n int, k int, key func(int) string, stream func(from string) (func(func(int, error) bool), func() string)) {
		t.Helper()
		var all []string
		rows, _ := stream("")
		for i, err := range rows {
			must(t, err)
			all = append(all, key(i))
		}
		if len(all) != n {
			t.Fatalf("%s: %d rows, want %d", name, len(all), n)
		}
		rows, cursor := stream("")
		var got []string
		for i, err := range rows {
			must(t, err)
			if got = append(got, key(i)); len(got) == k {
				break
			}
		}
		c := cursor()
		if _, err := fixture.NewReadingRepo(s).Readings16(ctx, "s1", &fixture.Readings16Options{Cursor: c}); !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("%s: a sealed cursor read without the key: %v", name, err)
		}
		rest, _ := stream(c)
		for i, err := range rest {
			must(t, err)
			got = append(got, key(i))
		}
		if !slices.Equal(got, all) {
			t.Errorf("%s: broken after %d rows and resumed: %d rows, want %d", name, k, len(got), len(all))
		}
	}
	var readingsSeen []fixture.Reading
	check("readings_16, sealed", 150, 33, func(i int) string { return fmt.Sprint(readingsSeen[i].Seq) }, func(from string) (func(func(int, error) bool), func() string) {
		rows, cursor := cqlgen.Stream(ctx, from, func(ctx context.Context, c string) (cqlgen.Page[fixture.Reading], error) {
			return repo.Readings16(ctx, "s1", &fixture.Readings16Options{Limit: 20, Cursor: c})
		})
		return func(y func(int, error) bool) {
			for r, err := range rows {
				readingsSeen = append(readingsSeen, r)
				if !y(len(readingsSeen)-1, err) {
					return
				}
			}
		}, cursor
	})
	var profilesSeen []fixture.Profile
	check("scan of profiles, sealed", 90, 29, func(i int) string { return profilesSeen[i].Org + "/" + profilesSeen[i].UserID }, func(from string) (func(func(int, error) bool), func() string) {
		rows, cursor := cqlgen.Stream(ctx, from, func(ctx context.Context, c string) (cqlgen.Page[fixture.Profile], error) {
			return prepo.ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 20, Cursor: c})
		})
		return func(y func(int, error) bool) {
			for r, err := range rows {
				profilesSeen = append(profilesSeen, r)
				if !y(len(profilesSeen)-1, err) {
					return
				}
			}
		}, cursor
	})
}
