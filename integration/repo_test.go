package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// repoSession gives a test its own keyspace holding schema, and the
// runtime session on it.
func repoSession(t *testing.T, schema string) (*gocql.Session, cqlgen.Session) {
	t.Helper()
	raw, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, schema)
	return raw, gocqlv1.NewSession(raw, nil)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// scan reads every row of a table with plain gocql, as strings, so the
// check does not go through the repository it checks.
func scanTable(t *testing.T, s *gocql.Session, cql string) []string {
	t.Helper()
	it := s.Query(cql).PageSize(1000).Iter()
	var rows []string
	for {
		m := map[string]any{}
		if !it.MapScan(m) {
			break
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%v ", k, m[k])
		}
		rows = append(rows, b.String())
	}
	must(t, it.Close())
	sort.Strings(rows)
	return rows
}

func TestRepoFanOut(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, music.Schema)
	ctx := context.Background()
	repo := music.NewTrackRepo(s)
	const n = 120
	var wantTracks, wantTop []string
	for i := range n {
		tr := &music.Track{TrackID: fmt.Sprintf("t%03d", i), ArtistID: fmt.Sprintf("a%d", i%7), PlayCount: int64(i * 13 % 50), TrackName: fmt.Sprint("name ", i), Album: "album", DurationS: int32(180 + i)}
		must(t, repo.Insert(ctx, tr))
		wantTop = append(wantTop, fmt.Sprintf("album=%s artist_id=%s duration_s=%d play_count=%d track_id=%s track_name=%s ", tr.Album, tr.ArtistID, tr.DurationS, tr.PlayCount, tr.TrackID, tr.TrackName))
		wantTracks = append(wantTracks, fmt.Sprintf("album=%s artist_id=%s duration_s=%d play_count=%d track_id=%s track_name=%s ", tr.Album, tr.ArtistID, tr.DurationS, tr.PlayCount, tr.TrackID, tr.TrackName))
	}
	sort.Strings(wantTop)
	sort.Strings(wantTracks)
	if got := scanTable(t, raw, "SELECT track_id, artist_id, play_count, track_name, album, duration_s FROM tracks"); !slices.Equal(got, wantTracks) {
		t.Errorf("tracks holds %d rows, want %d matching:\n%v", len(got), n, got)
	}
	if got := scanTable(t, raw, "SELECT track_id, artist_id, play_count, track_name, album, duration_s FROM top_tracks_by_artist"); !slices.Equal(got, wantTop) {
		t.Errorf("top_tracks_by_artist holds %d rows, want %d matching", len(got), n)
	}

	// Every strategy fans out the same way.
	for _, strategy := range []cqlgen.Strategy{cqlgen.Concurrent(2), cqlgen.LoggedBatch} {
		tr := &music.Track{TrackID: "s-" + strategy.Name(), ArtistID: "strategies", PlayCount: 1}
		must(t, repo.Insert(ctx, tr, cqlgen.WithStrategy(strategy)))
		var count int
		must(t, raw.Query("SELECT count(*) FROM top_tracks_by_artist WHERE artist_id = ? AND play_count = 1 AND track_id = ?", "strategies", tr.TrackID).Scan(&count))
		if count != 1 {
			t.Errorf("%s: top_tracks_by_artist has %d rows for the track", strategy.Name(), count)
		}
	}
}

// An Insert with an idempotency key applies once: resent, it returns the
// first outcome; another entity under the same key is a conflict.
// Checks invariant I10: a keyed call applies at most once.
func TestRepoIdempotentInsert(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, music.Schema)
	ctx := context.Background()
	repo := music.NewTrackRepo(s)
	tr := &music.Track{TrackID: "t1", ArtistID: "a1", PlayCount: 3}
	key := cqlgen.WithIdempotencyKey("request-1")
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = repo.Insert(ctx, tr, key) }()
	}
	wg.Wait()
	must(t, errors.Join(errs...))
	// Applied once: one write timestamp across the 20 sends.
	var writes int
	must(t, raw.Query("SELECT count(*) FROM top_tracks_by_artist WHERE artist_id = 'a1'").Scan(&writes))
	if writes != 1 {
		t.Errorf("top_tracks_by_artist holds %d rows", writes)
	}
	other := &music.Track{TrackID: "t2", ArtistID: "a1", PlayCount: 4}
	if err := repo.Insert(ctx, other, key); !errors.Is(err, cqlgen.ErrIdempotencyConflict) {
		t.Errorf("another track under the same key: %v, want ErrIdempotencyConflict", err)
	}
	if _, err := repo.Get(ctx, "t2"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("the conflicting insert was written: %v", err)
	}
}

func TestRepoOrderLimitAndPaging(t *testing.T) {
	t.Parallel()
	_, s := repoSession(t, music.Schema)
	ctx := context.Background()
	repo := music.NewPlayRepo(s)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var all []music.Play
	for i := range 57 {
		p := music.Play{UserID: "u1", PlayedAt: base.Add(time.Duration(i%20) * time.Minute), TrackID: fmt.Sprintf("t%02d", i), TrackName: "x", Artist: "y", DurationS: 1}
		must(t, repo.Insert(ctx, &p))
		all = append(all, p)
	}
	must(t, repo.Insert(ctx, &music.Play{UserID: "u2", PlayedAt: base, TrackID: "other"}))
	// The reference: played_at descending, then track_id ascending.
	slices.SortFunc(all, func(a, b music.Play) int {
		if c := b.PlayedAt.Compare(a.PlayedAt); c != 0 {
			return c
		}
		return strings.Compare(a.TrackID, b.TrackID)
	})

	page, err := repo.ListeningHistory(ctx, "u1", &music.ListeningHistoryOptions{Limit: 10})
	must(t, err)
	if len(page.Rows) != 10 || page.Cursor == "" {
		t.Fatalf("first page: %d rows, cursor %q", len(page.Rows), page.Cursor)
	}
	for i, p := range page.Rows {
		if p.TrackID != all[i].TrackID {
			t.Fatalf("row %d is %s, want %s: not in clustering order", i, p.TrackID, all[i].TrackID)
		}
	}

	for _, limit := range []int{1, 7, 57, 100} {
		got := pageAll(t, func(cursor string) (cqlgen.Page[music.Play], error) {
			return repo.ListeningHistory(ctx, "u1", &music.ListeningHistoryOptions{Limit: limit, Cursor: cursor})
		}, limit)
		if ids(got) != ids(all) {
			t.Errorf("limit %d: paging gave\n%s\nwant\n%s", limit, ids(got), ids(all))
		}
	}

	// Bounds in clustering order: From is the newest, inclusive; To the
	// oldest, exclusive.
	from, to := base.Add(15*time.Minute), base.Add(5*time.Minute)
	var want []music.Play
	for _, p := range all {
		if !p.PlayedAt.After(from) && p.PlayedAt.After(to) {
			want = append(want, p)
		}
	}
	got := pageAll(t, func(cursor string) (cqlgen.Page[music.Play], error) {
		return repo.ListeningHistory(ctx, "u1", &music.ListeningHistoryOptions{Limit: 4, Cursor: cursor, PlayedAtFrom: &from, PlayedAtTo: &to})
	}, 4)
	if ids(got) != ids(want) {
		t.Errorf("bounded paging gave\n%s\nwant\n%s", ids(got), ids(want))
	}
}

// A table ordered one way throughout (position, track_id) continues each
// page with one multi-column slice, (position, track_id) > (?, ?), on the
// live node: with positions shared by several tracks, every limit gives
// every row once, in the order a plain read of the partition gives, and
// the bounds on position hold.
func TestRepoOneSliceContinuation(t *testing.T) {
	raw, s := repoSession(t, music.Schema)
	ctx := context.Background()
	repo := music.NewPlaylistTrackRepo(s)
	for i := range 60 {
		must(t, repo.Insert(ctx, &music.PlaylistTrack{PlaylistID: "p1", Position: int32(i * 7 % 10), TrackID: fmt.Sprintf("t%02d", i*13%60), TrackName: "n"}))
	}
	all := scanTable(t, raw, "SELECT position, track_id FROM playlist_tracks WHERE playlist_id = 'p1'")
	key := func(p music.PlaylistTrack) string { return fmt.Sprintf("%v", []any{p.Position, p.TrackID}) }
	keys := func(ps []music.PlaylistTrack) []string {
		var out []string
		for _, p := range ps {
			out = append(out, key(p))
		}
		return out
	}
	if len(all) != 60 {
		t.Fatalf("%d rows in playlist_tracks, want 60", len(all))
	}
	var want []string
	for _, limit := range []int{1, 6, 7, 59, 60} {
		got := keys(pageAll(t, func(cursor string) (cqlgen.Page[music.PlaylistTrack], error) {
			return repo.PlaylistTracks(ctx, "p1", &music.PlaylistTracksOptions{Limit: limit, Cursor: cursor})
		}, limit))
		if want == nil {
			want = got
		}
		if strings.Join(got, " ") != strings.Join(want, " ") || len(got) != 60 {
			t.Errorf("limit %d: paging gave %d rows\n%v\nwant\n%v", limit, len(got), got, want)
		}
	}
	if !slices.IsSorted(want) { // one-digit positions, two-digit track ids
		t.Errorf("rows not in clustering order: %v", want)
	}
	from, to := int32(2), int32(7)
	got := keys(pageAll(t, func(cursor string) (cqlgen.Page[music.PlaylistTrack], error) {
		return repo.PlaylistTracks(ctx, "p1", &music.PlaylistTracksOptions{Limit: 4, Cursor: cursor, PositionFrom: &from, PositionTo: &to})
	}, 4))
	var bounded []string
	for _, k := range want {
		var p int32
		fmt.Sscanf(k, "[%d", &p)
		if p >= from && p < to {
			bounded = append(bounded, k)
		}
	}
	if strings.Join(got, " ") != strings.Join(bounded, " ") || len(bounded) != 30 {
		t.Errorf("position in [2, 7): got\n%v\nwant\n%v", got, bounded)
	}
}

// pageAll follows cursors to the end, checking each page's size.
func pageAll[T any](t *testing.T, read func(cursor string) (cqlgen.Page[T], error), limit int) []T {
	t.Helper()
	var rows []T
	cursor := ""
	for range 10000 {
		page, err := read(cursor)
		must(t, err)
		if len(page.Rows) > limit {
			t.Fatalf("page of %d rows over the limit %d", len(page.Rows), limit)
		}
		rows = append(rows, page.Rows...)
		if page.Cursor == "" {
			return rows
		}
		if len(page.Rows) == 0 {
			t.Fatal("an empty page with a cursor")
		}
		cursor = page.Cursor
	}
	t.Fatal("paging did not end")
	return nil
}

func ids[T any](rows []T) string {
	var b strings.Builder
	for _, r := range rows {
		switch r := any(r).(type) {
		case music.Play:
			b.WriteString(r.TrackID)
		case music.ChartEntry:
			b.WriteString(r.TrackID)
		case testmodel.Reading:
			fmt.Fprint(&b, r.Seq)
		}
		b.WriteByte(' ')
	}
	return b.String()
}

func TestRepoBucketPaging(t *testing.T) {
	t.Parallel()
	_, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	repo := testmodel.NewReadingRepo(s, cqlgen.WithClock(func() time.Time { return now }))
	var all []testmodel.Reading
	for i := range 90 {
		// Ten days, several readings at the same instant (ties on at).
		r := testmodel.Reading{SensorID: "s1", At: now.Add(-time.Duration(i/3) * 2 * time.Hour), Seq: int64(i), Value: float64(i)}
		must(t, repo.Insert(ctx, &r))
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b testmodel.Reading) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		return int(a.Seq - b.Seq)
	})
	for _, limit := range []int{1, 8, 100} {
		for _, mode := range []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient} {
			t.Run(fmt.Sprintf("day buckets, scatter mode %d, limit %d", mode, limit), func(t *testing.T) {
				repo := testmodel.NewReadingRepo(s, cqlgen.WithClock(func() time.Time { return now }), cqlgen.WithScatter(mode))
				got := pageAll(t, func(c string) (cqlgen.Page[testmodel.Reading], error) {
					return repo.ReadingsByDay(ctx, "s1", &testmodel.ReadingsByDayOptions{Limit: limit, Cursor: c})
				}, limit)
				if ids(got) != ids(all) {
					t.Errorf("got\n%s\nwant\n%s", ids(got), ids(all))
				}
			})
		}
		t.Run(fmt.Sprint("1 hash bucket, limit ", limit), func(t *testing.T) {
			got := pageAll(t, func(c string) (cqlgen.Page[testmodel.Reading], error) {
				return repo.Readings1(ctx, "s1", &testmodel.Readings1Options{Limit: limit, Cursor: c})
			}, limit)
			if ids(got) != ids(all) {
				t.Errorf("got\n%s\nwant\n%s", ids(got), ids(all))
			}
		})
		for _, mode := range []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient} {
			t.Run(fmt.Sprintf("16 hash buckets, scatter mode %d, limit %d", mode, limit), func(t *testing.T) {
				repo := testmodel.NewReadingRepo(s, cqlgen.WithScatter(mode))
				got := pageAll(t, func(c string) (cqlgen.Page[testmodel.Reading], error) {
					return repo.Readings16(ctx, "s1", &testmodel.Readings16Options{Limit: limit, Cursor: c})
				}, limit)
				if ids(got) != ids(all) {
					t.Errorf("got\n%s\nwant\n%s", ids(got), ids(all))
				}
			})
		}
	}
	// The look-back bounds the walk: three days from the newest.
	got := pageAll(t, func(c string) (cqlgen.Page[testmodel.Reading], error) {
		return repo.ReadingsByDay(ctx, "s1", &testmodel.ReadingsByDayOptions{Limit: 5, Cursor: c, LookBack: 3})
	}, 5)
	oldest := cqlgenimpl.DayBuckets.Of(now).AddDate(0, 0, -2)
	var want []testmodel.Reading
	for _, r := range all {
		if !r.At.Before(oldest) {
			want = append(want, r)
		}
	}
	if ids(got) != ids(want) {
		t.Errorf("look-back 3: got\n%s\nwant\n%s", ids(got), ids(want))
	}
}

func TestRepoHashMerge100(t *testing.T) {
	t.Parallel()
	_, s := repoSession(t, music.Schema)
	ctx := context.Background()
	repo := music.NewChartEntryRepo(s)
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var all []music.ChartEntry
	for i := range 400 {
		// Many ties on play_count, across buckets.
		e := music.ChartEntry{ChartDate: day, TrackID: fmt.Sprintf("track-%03d", i), PlayCount: int64(i * 7 % 60), TrackName: "n", Artist: "a"}
		must(t, repo.Insert(ctx, &e))
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b music.ChartEntry) int {
		if a.PlayCount != b.PlayCount {
			return int(b.PlayCount - a.PlayCount)
		}
		return strings.Compare(a.TrackID, b.TrackID)
	})
	for _, mode := range []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient} {
		repo := music.NewChartEntryRepo(s, cqlgen.WithScatter(mode))
		page, err := repo.DailyCharts(ctx, day, &music.DailyChartsOptions{Limit: 100})
		must(t, err)
		if ids(page.Rows) != ids(all[:100]) {
			t.Errorf("scatter mode %d: first merged page over 100 buckets:\n%s\nwant\n%s", mode, ids(page.Rows), ids(all[:100]))
		}
		for _, limit := range []int{1, 37, 401} {
			got := pageAll(t, func(c string) (cqlgen.Page[music.ChartEntry], error) {
				return repo.DailyCharts(ctx, day, &music.DailyChartsOptions{Limit: limit, Cursor: c})
			}, limit)
			if ids(got) != ids(all) {
				t.Errorf("scatter mode %d: paging over 100 buckets by %d:\n%s\nwant\n%s", mode, limit, ids(got), ids(all))
			}
		}
	}
}

// A cursor over 100 hash buckets while rows are written between pages,
// on a real Cassandra (docs/repositories.md, "Cursors"): the rows come
// in chart order, none twice; a row there throughout comes; a row
// inserted ahead of the cursor comes, one inserted behind it or deleted
// before it is reached does not. Both scatter modes, each on a day of
// its own.
func TestRepoHashCursorWhileRowsChange(t *testing.T) {
	t.Parallel()
	_, s := repoSession(t, music.Schema)
	ctx := context.Background()
	order := func(a, b music.ChartEntry) int {
		if a.PlayCount != b.PlayCount {
			return int(b.PlayCount - a.PlayCount)
		}
		return strings.Compare(a.TrackID, b.TrackID)
	}
	for i, mode := range []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient} {
		repo := music.NewChartEntryRepo(s, cqlgen.WithScatter(mode))
		day := time.Date(2026, 11, 23+i, 0, 0, 0, 0, time.UTC)
		var all []music.ChartEntry
		for k := range 200 {
			e := music.ChartEntry{ChartDate: day, TrackID: fmt.Sprintf("track-%03d", k), PlayCount: int64(k * 7 % 60), TrackName: "n", Artist: "a"}
			must(t, repo.Insert(ctx, &e))
			all = append(all, e)
		}
		slices.SortFunc(all, order)
		var got []music.ChartEntry
		ahead := map[string]bool{} // inserted ahead of the cursor
		gone := map[string]bool{}  // deleted before they were reached
		cursor, next := "", 0
		for page := 0; ; page++ {
			if page > 100 {
				t.Fatal("paging does not end")
			}
			p, err := repo.DailyCharts(ctx, day, &music.DailyChartsOptions{Limit: 23, Cursor: cursor})
			must(t, err)
			got = append(got, p.Rows...)
			if p.Cursor == "" {
				break
			}
			cursor = p.Cursor
			last := got[len(got)-1]
			// Two new rows, one on each side of the cursor, and the
			// first row not yet reached deleted.
			for _, plays := range []int64{last.PlayCount + 1, last.PlayCount - 1} {
				e := music.ChartEntry{ChartDate: day, TrackID: fmt.Sprintf("new-%03d", next), PlayCount: plays, TrackName: "n", Artist: "a"}
				next++
				must(t, repo.Insert(ctx, &e))
				if order(e, last) > 0 {
					ahead[e.TrackID] = true
				}
			}
			for _, e := range all {
				if order(e, last) > 0 && !gone[e.TrackID] {
					must(t, repo.Delete(ctx, &e))
					gone[e.TrackID] = true
					break
				}
			}
		}
		seen := map[string]bool{}
		for k, e := range got {
			if k > 0 && order(got[k-1], e) >= 0 {
				t.Fatalf("scatter mode %d: row %d (%s) does not come after row %d (%s)", mode, k, e.TrackID, k-1, got[k-1].TrackID)
			}
			if gone[e.TrackID] {
				t.Errorf("scatter mode %d: %s, deleted before it was reached, came", mode, e.TrackID)
			}
			if strings.HasPrefix(e.TrackID, "new-") && !ahead[e.TrackID] {
				t.Errorf("scatter mode %d: %s, inserted behind the cursor, came", mode, e.TrackID)
			}
			seen[e.TrackID] = true
		}
		for _, e := range all {
			if !gone[e.TrackID] && !seen[e.TrackID] {
				t.Errorf("scatter mode %d: %s, there throughout, never came", mode, e.TrackID)
			}
		}
		for id := range ahead {
			if !seen[id] {
				t.Errorf("scatter mode %d: %s, inserted ahead of the cursor, never came", mode, id)
			}
		}
	}
}

// Checks invariant I1: nil means applied everywhere.
func TestRepoKeyChange(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, music.Schema)
	ctx := context.Background()
	repo := music.NewTrackRepo(s)
	tr := &music.Track{TrackID: "t1", ArtistID: "a1", PlayCount: 10, TrackName: "one", Album: "al", DurationS: 200}
	must(t, repo.Insert(ctx, tr))
	tr.PlayCount = 11
	tr.TrackName = "renamed"
	must(t, repo.Update(ctx, tr))
	rows := scanTable(t, raw, "SELECT artist_id, play_count, track_id, track_name FROM top_tracks_by_artist")
	if want := []string{"artist_id=a1 play_count=11 track_id=t1 track_name=renamed "}; !slices.Equal(rows, want) {
		t.Errorf("after the play count changed, top_tracks_by_artist holds %v, want %v", rows, want)
	}
	got, err := repo.Get(ctx, "t1")
	must(t, err)
	if got.PlayCount != 11 || got.TrackName != "renamed" {
		t.Errorf("tracks holds %+v", got)
	}
	// An update that keeps the key keeps the row.
	tr.TrackName = "again"
	must(t, repo.Update(ctx, tr))
	rows = scanTable(t, raw, "SELECT artist_id, play_count, track_id, track_name FROM top_tracks_by_artist")
	if want := []string{"artist_id=a1 play_count=11 track_id=t1 track_name=again "}; !slices.Equal(rows, want) {
		t.Errorf("after an update with the same key, top_tracks_by_artist holds %v, want %v", rows, want)
	}
	// Delete removes it everywhere; deleting again is no error.
	must(t, repo.Delete(ctx, tr))
	must(t, repo.Delete(ctx, tr))
	if rows := scanTable(t, raw, "SELECT track_id FROM top_tracks_by_artist"); len(rows) != 0 {
		t.Errorf("after Delete, top_tracks_by_artist holds %v", rows)
	}
	if _, err := repo.Get(ctx, "t1"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after Delete: %v, want ErrNotFound", err)
	}
	if err := repo.Update(ctx, tr); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Update of a deleted track: %v, want ErrNotFound", err)
	}
}

// Checks invariant I4: writers of one entity take turns.
func TestRepoConcurrentUpdates(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, music.Schema)
	ctx := context.Background()
	repo := music.NewTrackRepo(s, cqlgen.WithAttempts(1000))
	must(t, repo.Insert(ctx, &music.Track{TrackID: "hot", ArtistID: "a", PlayCount: 0}))
	var wg sync.WaitGroup
	errs := make([]error, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = repo.Update(ctx, &music.Track{TrackID: "hot", ArtistID: "a", PlayCount: int64(i + 1), TrackName: fmt.Sprint(i)})
		}()
	}
	wg.Wait()
	must(t, errors.Join(errs...))
	top := scanTable(t, raw, "SELECT play_count, track_id, track_name FROM top_tracks_by_artist")
	canon := scanTable(t, raw, "SELECT play_count, track_id, track_name FROM tracks")
	if len(top) != 1 || len(canon) != 1 || top[0] != canon[0] {
		t.Errorf("after 50 concurrent updates: top_tracks_by_artist %v, tracks %v; want one identical row each", top, canon)
	}
}

func TestRepoBadInput(t *testing.T) {
	t.Parallel()
	_, s := repoSession(t, music.Schema+messaging.Schema)
	ctx := context.Background()
	plays := music.NewPlayRepo(s)
	if _, err := plays.ListeningHistory(ctx, "", nil); !errors.Is(err, cqlgen.ErrEmptyKey) {
		t.Errorf("empty partition key on read: %v", err)
	}
	if err := plays.Insert(ctx, &music.Play{TrackID: "t"}); !errors.Is(err, cqlgen.ErrEmptyKey) {
		t.Errorf("empty partition key on write: %v", err)
	}
	var ek *cqlgen.InputError
	if err := plays.Insert(ctx, &music.Play{TrackID: "t"}); !(errors.As(err, &ek) && ek.Err == cqlgen.ErrEmptyKey) || ek.Name != "user_id" {
		t.Errorf("ErrEmptyKey does not name user_id: %v", err)
	}
	if err := plays.Insert(ctx, nil); !errors.Is(err, cqlgen.ErrNilEntity) {
		t.Errorf("nil entity: %v", err)
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		must(t, plays.Insert(ctx, &music.Play{UserID: "u1", PlayedAt: base.Add(time.Duration(i) * time.Second), TrackID: "t"}))
	}
	page, err := plays.ListeningHistory(ctx, "u1", &music.ListeningHistoryOptions{Limit: 1})
	must(t, err)
	// Another user's history, another pattern, and a corrupted cursor.
	if _, err := plays.ListeningHistory(ctx, "u2", &music.ListeningHistoryOptions{Cursor: page.Cursor}); !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("cursor of another partition: %v", err)
	}
	msgs := messaging.NewMessageRepo(s)
	if _, err := msgs.MessagesByUser(ctx, "u1", &messaging.MessagesByUserOptions{Cursor: page.Cursor}); !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("cursor of another pattern: %v", err)
	}
	for _, bad := range []string{"x", page.Cursor[:len(page.Cursor)-2], strings.ToUpper(page.Cursor), "!!!"} {
		_, err := plays.ListeningHistory(ctx, "u1", &music.ListeningHistoryOptions{Cursor: bad})
		var ic *cqlgen.InputError
		if !(errors.As(err, &ic) && ic.Err == cqlgen.ErrInvalidCursor) {
			t.Errorf("corrupted cursor %q: %v", bad, err)
		}
	}
}
