package music_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1"
	"github.com/gocql/gocql"
)

// recorder passes every query to the in-memory Cassandra and keeps the
// text of the statements of the repositories' tables.
type recorder struct {
	cqlgen.Session
	sent []string
}

func (r *recorder) note(q cqldriver.Query) {
	if q.Stmt != nil && q.Stmt.Pattern != "" || q.Stmt != nil && q.Stmt.Table != "" && !strings.HasPrefix(q.Stmt.Table, "cqlgen_") {
		r.sent = append(r.sent, q.Stmt.CQL)
	}
}

func (r *recorder) Exec(ctx context.Context, q cqldriver.Query) error {
	r.note(q)
	return r.Session.Exec(ctx, q)
}

func (r *recorder) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	r.note(q)
	return r.Session.Iter(ctx, q)
}

func (r *recorder) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	r.note(q)
	return r.Session.ExecCAS(ctx, q, dest...)
}

func (r *recorder) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	r.note(q)
	return r.Session.(cqldriver.MapCASer).ExecCASMap(ctx, q, current)
}

func (r *recorder) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	for _, q := range qs {
		r.note(q)
	}
	return r.Session.Batch(ctx, kind, qs)
}

// Every statement the repositories send, through each method of each
// entity, is one schema.md lists: the page is the one place to review
// what goes on the wire.
func TestSentStatementsAreListed(t *testing.T) {
	schema, err := os.ReadFile("schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	mem, err := cqltest.New(string(schema))
	if err != nil {
		t.Fatal(err)
	}
	s := &recorder{Session: mem}
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	page := func(_ any, err error) { t.Helper(); must(err) }
	now := time.Now().UTC().Truncate(time.Millisecond)
	day := now.Truncate(24 * time.Hour)

	plays := music.NewPlayRepo(s)
	for i := range 3 {
		must(plays.Insert(ctx, &music.Play{UserID: "ada", PlayedAt: now.Add(time.Duration(i) * time.Second), TrackID: "t1"}))
	}
	page(plays.InsertIfAbsent(ctx, &music.Play{UserID: "ada", PlayedAt: now, TrackID: "t1"}))
	must(plays.Insert(ctx, &music.Play{UserID: "ada", PlayedAt: now, TrackID: "t9"}, cqlgen.WithTTL(time.Hour)))
	page(plays.Get(ctx, "ada", now, "t1"))
	p, err := plays.ListeningHistory(ctx, "ada", &music.ListeningHistoryOptions{Limit: 2})
	must(err)
	page(plays.ListeningHistory(ctx, "ada", &music.ListeningHistoryOptions{Limit: 2, Cursor: p.Cursor}))
	from, to := now.Add(time.Hour), now.Add(-time.Hour)
	page(plays.ListeningHistory(ctx, "ada", &music.ListeningHistoryOptions{PlayedAtFrom: &from, PlayedAtTo: &to}))
	must(plays.Update(ctx, &music.Play{UserID: "ada", PlayedAt: now, TrackID: "t1", Artist: "x"}))
	must(plays.Delete(ctx, &music.Play{UserID: "ada", PlayedAt: now, TrackID: "t1"}))

	tracks := music.NewTrackRepo(s)
	for i, id := range []string{"t1", "t2", "t3"} {
		must(tracks.Insert(ctx, &music.Track{TrackID: id, ArtistID: "a", PlayCount: int64(i)}))
	}
	must(tracks.Update(ctx, &music.Track{TrackID: "t1", ArtistID: "a", PlayCount: 10}))
	page(tracks.Modify(ctx, "t2", func(tr *music.Track) error { tr.PlayCount++; return nil }))
	page(tracks.Get(ctx, "t1"))
	page(tracks.GetMany(ctx, []string{"t1", "t2"}))
	p2, err := tracks.TopTracksByArtist(ctx, "a", &music.TopTracksByArtistOptions{Limit: 1})
	must(err)
	page(tracks.TopTracksByArtist(ctx, "a", &music.TopTracksByArtistOptions{Limit: 1, Cursor: p2.Cursor}))
	page(tracks.Verify(ctx, nil))
	page(tracks.Repair(ctx, nil))
	page(tracks.Backfill(ctx, "top_tracks_by_artist", nil))
	must(tracks.Delete(ctx, &music.Track{TrackID: "t3"}))

	pls := music.NewPlaylistTrackRepo(s)
	for i := range 3 {
		must(pls.Insert(ctx, &music.PlaylistTrack{PlaylistID: "p", Position: int32(i), TrackID: "t"}))
	}
	p3, err := pls.PlaylistTracks(ctx, "p", &music.PlaylistTracksOptions{Limit: 2})
	must(err)
	page(pls.PlaylistTracks(ctx, "p", &music.PlaylistTracksOptions{Limit: 2, Cursor: p3.Cursor}))

	charts := music.NewChartEntryRepo(s)
	for i, id := range []string{"t1", "t2", "t3"} {
		must(charts.Insert(ctx, &music.ChartEntry{ChartDate: day, TrackID: id, PlayCount: int64(i)}))
	}
	p4, err := charts.DailyCharts(ctx, day, &music.DailyChartsOptions{Limit: 2})
	must(err)
	page(charts.DailyCharts(ctx, day, &music.DailyChartsOptions{Limit: 2, Cursor: p4.Cursor}))
	page(charts.GetMany(ctx, day, []string{"t1", "t2"}))
	must(charts.Delete(ctx, &music.ChartEntry{ChartDate: day, TrackID: "t1"}))

	releases := music.NewReleaseRepo(s)
	for i := range 3 {
		must(releases.Insert(ctx, &music.Release{ReleaseID: gocql.TimeUUID(), ArtistID: "a", ReleasedAt: now.Add(-time.Duration(i) * 24 * time.Hour)}))
	}
	p5, err := releases.NewReleases(ctx, &music.NewReleasesOptions{Limit: 2})
	must(err)
	page(releases.NewReleases(ctx, &music.NewReleasesOptions{Limit: 2, Cursor: p5.Cursor}))

	doc, err := os.ReadFile("schema.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := listedStatements(string(doc))
	if len(s.sent) < 40 {
		t.Fatalf("recorded %d statements; the repositories did not run", len(s.sent))
	}
	for _, q := range s.sent {
		if !slices.Contains(listed, q) {
			t.Errorf("sent a statement schema.md does not list:\n%s", q)
		}
	}
}

// listedStatements are the statements of schema.md's Statements section:
// in its sql blocks, each after a line "-- name", up to a blank line.
func listedStatements(page string) []string {
	_, sec, _ := strings.Cut(page, "\n## Statements\n")
	var out, cur []string
	in := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
		}
		cur = nil
	}
	for _, l := range strings.Split(sec, "\n") {
		switch {
		case l == "```sql":
			in = true
		case l == "```":
			flush()
			in = false
		case !in:
		case strings.HasPrefix(l, "-- "), l == "":
			flush()
		default:
			cur = append(cur, l)
		}
	}
	return out
}
