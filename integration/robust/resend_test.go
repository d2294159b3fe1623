package robust

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// faultAt fails the n-th statement (from 1) of the calls whose context
// carries it: before it applies, or (lost) after it applied.
type faultAt struct {
	n, seen atomic.Int64
	lost    bool
	hit     atomic.Value // the statement failed
}

type faultKey struct{}

// The reduction of what the keyed histories of TestRecorderOnMemory
// found: a write sent with an idempotency key fails at one statement
// (each in turn, failed before it applies or after, its reply lost),
// another writer changes the track, and the write is sent again with
// its key. docs/repositories.md promises that "a resend neither reports
// a conflict for its own applied write nor writes it again over another
// writer's later change": when the first send's change applied, the
// resend must return nil and leave the rival's change in place.
// It failed before the key recorded a change that applied ahead of a
// failed fan-out (TestKeyedResendAfterItsFanOutFailed in
// runtime/cqlgenimpl).
func TestKeyedResendAfterARivalsChange(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}
	hook := func(ctx context.Context, c cqltest.Call) error {
		f, _ := ctx.Value(faultKey{}).(*faultAt)
		if f == nil || f.seen.Add(1) != f.n.Load() {
			return nil
		}
		f.hit.Store(fmt.Sprintf("%v %s %v", c.Op, c.Queries[0].Stmt.Table, c.Queries[0].Stmt.Kind))
		if f.lost {
			return cqltest.LostReply(timeout)
		}
		return timeout
	}
	type write struct {
		name string
		run  func(ctx context.Context, r *music.TrackRepo, ver int64, key string) error
		ours func(t *music.Track) bool // whether the track holds this write's change
	}
	base := music.Track{TrackID: "t1", ArtistID: "artist-1", PlayCount: 10, TrackName: "base", Album: "lp", DurationS: 1}
	ourTrack := base
	ourTrack.TrackName, ourTrack.ArtistID = "ours", "artist-2"
	writes := []write{
		{"Insert", func(ctx context.Context, r *music.TrackRepo, _ int64, key string) error {
			tr := ourTrack
			return r.Insert(ctx, &tr, cqlgen.WithIdempotencyKey(key))
		}, func(t *music.Track) bool { return t.TrackName == "ours" }},
		{"Update", func(ctx context.Context, r *music.TrackRepo, _ int64, key string) error {
			tr := ourTrack
			return r.Update(ctx, &tr, cqlgen.WithIdempotencyKey(key))
		}, func(t *music.Track) bool { return t.TrackName == "ours" }},
		{"IfVersion", func(ctx context.Context, r *music.TrackRepo, ver int64, key string) error {
			tr := ourTrack
			return r.Update(ctx, &tr, cqlgen.IfVersion(ver), cqlgen.WithIdempotencyKey(key))
		}, func(t *music.Track) bool { return t.TrackName == "ours" }},
		{"Modify", func(ctx context.Context, r *music.TrackRepo, _ int64, key string) error {
			_, err := r.Modify(ctx, "t1", func(t *music.Track) error { t.PlayCount += 100; return nil }, cqlgen.WithIdempotencyKey(key))
			return err
		}, func(t *music.Track) bool { return t.PlayCount >= 100 }},
	}
	for _, w := range writes {
		for _, lost := range []bool{false, true} {
			for n := int64(1); ; n++ {
				mem, err := cqltest.New(music.Schema, cqltest.WithHook(hook))
				if err != nil {
					t.Fatal(err)
				}
				r := music.NewTrackRepo(mem, cqlgen.WithLandWindow(time.Millisecond))
				ctx := context.Background()
				tr := base
				if err := r.Insert(ctx, &tr); err != nil {
					t.Fatal(err)
				}
				_, ver, err := r.GetVersioned(ctx, "t1")
				if err != nil {
					t.Fatal(err)
				}
				f := &faultAt{lost: lost}
				f.n.Store(n)
				key := fmt.Sprint("k-", w.name, n, lost)
				err1 := w.run(context.WithValue(ctx, faultKey{}, f), r, ver, key)
				if f.seen.Load() < n {
					break // the call made fewer statements: every point tried
				}
				if err1 == nil {
					continue // the runtime recovered by itself
				}
				after, err := r.Get(ctx, "t1")
				if err != nil {
					t.Fatal(err)
				}
				applied := w.ours(after)
				// A rival's change: a new album, a play more.
				if _, err := r.Modify(ctx, "t1", func(t *music.Track) error { t.Album = "rival"; t.PlayCount++; return nil }); err != nil {
					t.Fatal(err)
				}
				err2 := w.run(ctx, r, ver, key)
				final, err := r.Get(ctx, "t1")
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("%s, statement %d (%v) failed%s: first %v; resent: ", w.name, n, f.hit.Load(), map[bool]string{true: " after it applied"}[lost], err1)
				switch {
				case applied && err2 != nil:
					t.Errorf("%s%v, after the first send applied", where, err2)
				case applied && final.Album != "rival":
					t.Errorf("%swritten again over the rival's change (album %q, plays %d)", where, final.Album, final.PlayCount)
				case applied && w.name == "Modify" && final.PlayCount != 111:
					t.Errorf("%splays %d, want 111 (the increment once, the rival's once)", where, final.PlayCount)
				case !applied && err2 != nil && !errors.Is(err2, cqlgen.ErrNotApplied):
					t.Errorf("%s%v, the first send not applied", where, err2)
				}
			}
		}
	}
}
