package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/typemodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// TestDirectCreateOnTheNode runs the create without a read
// (docs/protocol.md) on the real node: a new track is created by its
// conditional write with no read before it; over a live track, over a
// grave and over a racing creator, the conditional write does not apply,
// Cassandra's reply is the row, and the Insert goes on from it without a
// read; Modify reads once. Every table ends in step.
// Checks invariant I4: writers of one entity take turns.
// Checks invariant I7: graves fence re-creation.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestDirectCreateOnTheNode(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	raw, _ := cassandratest.Keyspace(t, func(*gocql.ClusterConfig) {})
	cassandratest.MustApplyCQL(t, raw, music.Schema)
	s := gocqlv1.NewSession(raw, &cqlgen.SessionOptions{Observer: rec})
	repo := music.NewTrackRepo(s, cqlgen.WithAttempts(1))
	ctx := context.Background()
	track := func(id string, plays int64, name string) *music.Track {
		return &music.Track{TrackID: id, ArtistID: "a1", PlayCount: plays, TrackName: name}
	}
	// kinds are the kinds of the statements sent to tracks since the
	// last call of mark.
	from := 0
	mark := func() {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		from = len(rec.obs)
	}
	kinds := func() []string {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var out []string
		for _, o := range rec.obs[from:] {
			if o.Table == "tracks" {
				out = append(out, o.Kind.String())
			}
		}
		return out
	}
	inStep := func(when string, want ...*music.Track) {
		t.Helper()
		page, err := repo.TopTracksByArtist(ctx, "a1", nil)
		must(t, err)
		if len(page.Rows) != len(want) {
			t.Fatalf("%s: top tracks %+v, want %d", when, page.Rows, len(want))
		}
		for i, w := range want {
			if g := page.Rows[i]; g.TrackID != w.TrackID || g.PlayCount != w.PlayCount || g.TrackName != w.TrackName {
				t.Errorf("%s: top track %d = %+v, want %+v", when, i, g, w)
			}
		}
	}

	mark()
	must(t, repo.Insert(ctx, track("t1", 5, "one")))
	if got := fmt.Sprint(kinds()); got != "[conditional]" {
		t.Errorf("a new track's Insert sent %s to tracks; want its conditional write alone", got)
	}
	inStep("created", track("t1", 5, "one"))

	// Over a live track, with one attempt allowed: the direct create does
	// not apply, and does not count; its reply is the row.
	mark()
	must(t, repo.Insert(ctx, track("t1", 9, "renamed")))
	if got := fmt.Sprint(kinds()); got != "[conditional conditional]" {
		t.Errorf("Insert over a live track sent %s to tracks; want the direct create, then the change, and no read", got)
	}
	inStep("replaced", track("t1", 9, "renamed"))

	// Over a grave: written past its version.
	_, v, err := repo.GetVersioned(ctx, "t1")
	must(t, err)
	must(t, repo.Delete(ctx, track("t1", 0, "")))
	inStep("deleted")
	mark()
	must(t, repo.Insert(ctx, track("t1", 3, "again")))
	if got := fmt.Sprint(kinds()); got != "[conditional conditional]" {
		t.Errorf("Insert over a grave sent %s to tracks; want the direct create, then the change, and no read", got)
	}
	got, v2, err := repo.GetVersioned(ctx, "t1")
	must(t, err)
	if got.TrackName != "again" || v2 <= v+2 {
		t.Errorf("created again: %+v at %d; want it past the grave of the version %d", got, v2, v)
	}
	inStep("created again", track("t1", 3, "again"))

	// Modify reads once.
	mark()
	_, err = repo.Modify(ctx, "t1", func(t *music.Track) error { t.PlayCount++; return nil })
	must(t, err)
	if got := fmt.Sprint(kinds()); got != "[pre-read conditional]" {
		t.Errorf("Modify sent %s to tracks; want one read, then its conditional write", got)
	}
	inStep("modified", track("t1", 4, "again"))

	// Racing creators with IfAbsent: one applies.
	racing := music.NewTrackRepo(s, cqlgen.WithAttempts(100))
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	for i := range 8 {
		wg.Go(func() {
			err := racing.Insert(ctx, track("t2", int64(100+i), "racer"), cqlgen.IfAbsent())
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.As(err, new(*cqlgen.VersionConflictError)):
				lost++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if won != 1 || lost != 7 {
		t.Errorf("8 racing creators with IfAbsent: %d created, %d conflicts; want 1 and 7", won, lost)
	}
	winner, err := repo.Get(ctx, "t2")
	must(t, err)
	inStep("raced", winner, track("t1", 4, "again"))
}

// TestDirectCreateEveryType replaces an Everything, a value of every type
// cqlgen maps, collections and user-defined types not frozen among them,
// by an Insert over it that moves its row: Create's condition (each such
// column null) is one the node takes, its reply decodes into the row, the
// key (a frozen list among its columns) comes from the entity, and the row
// moves from the reply's old values. Modify then decodes its one read
// twice, every type through the codec.
// Checks invariant I1: nil means applied everywhere.
// Checks invariant I2: a row that leaves a table is deleted there.
func TestDirectCreateEveryType(t *testing.T) {
	_, s := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	repo := typemodel.NewEverythingRepo(s, cqlgen.WithAttempts(1))
	e := everything("first", 42)
	must(t, repo.Insert(ctx, &e))
	e.S, e.I64, e.Members = "second", 43, map[string]struct{}{"cy": {}}
	must(t, repo.Insert(ctx, &e))
	got, err := repo.Get(ctx, e.ID, e.TagsKey, e.Day)
	must(t, err)
	sameEverything(t, "Get after the replace", got, e)
	if page, err := repo.EverythingByS(ctx, "first", nil); err != nil || len(page.Rows) != 0 {
		t.Errorf("the old row stays: %v, %v", page, err)
	}
	// Modify decodes its one read twice, every type through the codec:
	// what it returns, and what it wrote, are the entity edited.
	out, err := repo.Modify(ctx, e.ID, e.TagsKey, e.Day, func(x *typemodel.Everything) error {
		x.I64++
		x.List = append(x.List, "c")
		return nil
	})
	must(t, err)
	e.I64, e.List = 44, append(e.List, "c")
	sameEverything(t, "Modify's result", out, e)
	got, err = repo.Get(ctx, e.ID, e.TagsKey, e.Day)
	must(t, err)
	sameEverything(t, "Get after Modify", got, e)
	rep, err := repo.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}
