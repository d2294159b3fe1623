package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TestBucketOnlyFeed reads music's new_releases, whose partition key is a
// day bucket alone, on the real node: the read takes no key, walks back a
// day at a time from Start, newest first, pages through every release
// within the look-back exactly once, and leaves out what lies beyond it.
func TestBucketOnlyFeed(t *testing.T) {
	raw, s := repoSession(t, music.Schema)
	ctx := context.Background()
	today := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	repo := music.NewReleaseRepo(s, cqlgen.WithClock(func() time.Time { return today.Add(20 * time.Hour) }))

	// Releases over five days, 0 to 4 days back, three a day, and one 40
	// days back, beyond the default look-back of 30 days.
	var want []string
	for back := range 5 {
		for i := range 3 {
			at := today.AddDate(0, 0, -back).Add(time.Duration(18-4*i) * time.Hour)
			r := &music.Release{ReleaseID: gocql.TimeUUID(), ArtistID: fmt.Sprintf("a%d", i), Title: fmt.Sprintf("d%d-%d", back, i), ReleasedAt: at}
			must(t, repo.Insert(ctx, r))
			want = append(want, r.Title) // newest first: by day back, then by hour descending
		}
	}
	must(t, repo.Insert(ctx, &music.Release{ReleaseID: gocql.TimeUUID(), ArtistID: "old", Title: "too old", ReleasedAt: today.AddDate(0, 0, -40)}))

	// Every partition is one day: five days and the old one.
	var days []time.Time
	it := raw.Query("SELECT DISTINCT bucket FROM new_releases").Iter()
	var d time.Time
	for it.Scan(&d) {
		days = append(days, d)
	}
	must(t, it.Close())
	if len(days) != 6 {
		t.Fatalf("new_releases has %d partitions (%v), want 6, one a day", len(days), days)
	}

	// Pages of 4, with no key: the releases of the 30 days back, newest
	// first, each once.
	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("paging does not end")
		}
		p, err := repo.NewReleases(ctx, &music.NewReleasesOptions{Limit: 4, Cursor: cursor})
		must(t, err)
		for _, r := range p.Rows {
			got = append(got, r.Title)
		}
		if cursor = p.Cursor; cursor == "" {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the feed read\n%v\nwant\n%v", got, want)
	}

	// Start two days back, look back two days: that day and the one before.
	p, err := repo.NewReleases(ctx, &music.NewReleasesOptions{Start: today.AddDate(0, 0, -2), LookBack: 2, Limit: 100})
	must(t, err)
	var titles []string
	for _, r := range p.Rows {
		titles = append(titles, r.Title)
	}
	if fmt.Sprint(titles) != fmt.Sprint(want[6:12]) || p.Cursor != "" {
		t.Fatalf("two days from two days back: %v (cursor %q), want %v", titles, p.Cursor, want[6:12])
	}
	// A look-back that reaches 40 days finds the old one last.
	p, err = repo.NewReleases(ctx, &music.NewReleasesOptions{LookBack: 41, Limit: 100})
	must(t, err)
	if n := len(p.Rows); n != 16 || p.Rows[n-1].Title != "too old" {
		t.Fatalf("41 days back: %d rows, the last %+v; want 16, the last the old one", n, p.Rows[n-1])
	}
}
