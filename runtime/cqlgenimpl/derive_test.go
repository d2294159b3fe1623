package cqlgenimpl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// The write protocol's functions and the checks of empty keys that
// NewEntity derives from a source of truth's values and fields and from
// the tables' descriptions (music's Track, ChartEntry and Release declare
// no others): an entity reads back as written, through every version, and
// each empty partition key value is refused with the table and column
// that need it, before anything is sent.
func TestDerivedProtocolAndChecks(t *testing.T) {
	s, err := cqltest.New(music.Schema)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tracks := music.NewTrackRepo(s)
	in := music.Track{TrackID: "t1", ArtistID: "a1", PlayCount: 3, TrackName: "n", Album: "al", DurationS: 200}
	if err := tracks.Insert(ctx, &in); err != nil {
		t.Fatal(err)
	}
	got, v1, err := tracks.GetVersioned(ctx, "t1")
	if err != nil || *got != in {
		t.Fatalf("GetVersioned: %+v, %v; want %+v", got, err, in)
	}
	got, err = tracks.Modify(ctx, "t1", func(tr *music.Track) error { tr.PlayCount++; return nil })
	if err != nil || got.PlayCount != 4 {
		t.Fatalf("Modify: %+v, %v", got, err)
	}
	_, v2, err := tracks.GetVersioned(ctx, "t1")
	if err != nil || v2 <= v1 {
		t.Fatalf("version after Modify %d (%v), before %d", v2, err, v1)
	}
	page, err := tracks.TopTracksByArtist(ctx, "a1", nil)
	if err != nil || len(page.Rows) != 1 || page.Rows[0].PlayCount != 4 {
		t.Fatalf("TopTracksByArtist after Modify: %+v, %v", page.Rows, err)
	}
	if err := tracks.Delete(ctx, &music.Track{TrackID: "t1"}); err != nil {
		t.Fatalf("Delete by the key alone: %v", err)
	}
	if _, err := tracks.Get(ctx, "t1"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if page, err := tracks.TopTracksByArtist(ctx, "a1", nil); err != nil || len(page.Rows) != 0 {
		t.Fatalf("TopTracksByArtist after Delete: %+v, %v", page.Rows, err)
	}

	sent := len(s.Calls())
	for _, c := range []struct {
		name          string
		call          func() error
		table, column string
	}{
		{"Insert, empty track_id", func() error { return tracks.Insert(ctx, &music.Track{ArtistID: "a"}) }, "tracks", "track_id"},
		{"Insert, empty artist_id", func() error { return tracks.Insert(ctx, &music.Track{TrackID: "t"}) }, "top_tracks_by_artist", "artist_id"},
		{"Delete, empty key", func() error { return tracks.Delete(ctx, &music.Track{}) }, "tracks", "track_id"},
		{"GetVersioned, empty key", func() error { _, _, err := tracks.GetVersioned(ctx, ""); return err }, "tracks", "track_id"},
		{"Modify, empty key", func() error {
			_, err := tracks.Modify(ctx, "", func(*music.Track) error { return nil })
			return err
		}, "tracks", "track_id"},
		{"ChartEntry, zero date", func() error {
			return music.NewChartEntryRepo(s).Insert(ctx, &music.ChartEntry{TrackID: "t"})
		}, "daily_track_plays", "chart_date"},
		{"Release, zero UUID", func() error {
			return music.NewReleaseRepo(s).Insert(ctx, &music.Release{ReleasedAt: time.Now()})
		}, "releases", "release_id"},
	} {
		var ek *cqlgen.InputError
		if err := c.call(); !errors.As(err, &ek) || !errors.Is(err, cqlgen.ErrEmptyKey) || ek.Table != c.table || ek.Name != c.column {
			t.Errorf("%s: %v, want the empty %s of %s", c.name, err, c.column, c.table)
		}
	}
	if n := len(s.Calls()); n != sent {
		t.Errorf("the refused calls sent %d statements", n-sent)
	}

	// Modify refuses an edit that empties a key another table needs.
	if err := tracks.Insert(ctx, &in); err != nil {
		t.Fatal(err)
	}
	_, err = tracks.Modify(ctx, "t1", func(tr *music.Track) error { tr.ArtistID = ""; return nil })
	var ek *cqlgen.InputError
	if !errors.As(err, &ek) || !errors.Is(err, cqlgen.ErrEmptyKey) || ek.Table != "top_tracks_by_artist" {
		t.Errorf("Modify emptying artist_id: %v", err)
	}
}
