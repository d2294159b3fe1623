package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// The write protocol's contract on the real node: each write path of a
// Track (stored in tracks and top_tracks_by_artist), under each strategy,
// fails at each of its calls in turn: before the call reaches Cassandra,
// after Cassandra applied it (the reply is lost), or with the client
// dying there. Then the same call runs again, or another client writes
// the track. Both tables are then read with plain gocql: the drift must
// be zero.

type fault uint8

const (
	failBefore fault = iota + 1
	lostReply
	dies
)

func (f fault) String() string { return [...]string{"", "fail-before", "lost-reply", "client-dies"}[f] }

var errInjected = errors.New("injected fault")

// injected is the land window of repositories on a faultSession or a
// lossSession: an injected failure is one of a write never sent, or of a
// reply dropped after the write applied, never a round still in flight,
// so no coordinator can land the write later and settling needs no wait.
// (TestProtocolUnderCuts, whose proxy cuts real connections, keeps the
// default window.)
var injected = cqlgen.WithLandWindow(time.Millisecond)

// faultSession fails the k-th call after arming with its fault.
type faultSession struct {
	cqlgen.Session
	k     int64
	f     fault
	armed atomic.Bool
	n     atomic.Int64 // calls since arming
	calls atomic.Int64 // calls in all
}

// step says whether the call runs (before) and whether it then fails.
func (fs *faultSession) step() (run bool, fail error) {
	fs.calls.Add(1)
	if !fs.armed.Load() {
		return true, nil
	}
	n := fs.n.Add(1)
	switch {
	case n == fs.k && fs.f == lostReply:
		return true, errInjected
	case n == fs.k, n > fs.k && fs.f == dies:
		return false, errInjected
	}
	return true, nil
}

func (fs *faultSession) Exec(ctx context.Context, q cqldriver.Query) error {
	run, fail := fs.step()
	if run {
		if err := fs.Session.Exec(ctx, q); err != nil {
			return err
		}
	}
	return fail
}

func (fs *faultSession) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	run, fail := fs.step()
	if run {
		if err := fs.Session.Batch(ctx, kind, qs); err != nil {
			return err
		}
	}
	return fail
}

func (fs *faultSession) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	run, fail := fs.step()
	var applied bool
	if run {
		var err error
		if applied, err = fs.Session.ExecCAS(ctx, q, dest...); err != nil {
			return false, err
		}
	}
	if fail != nil {
		return false, fail
	}
	return applied, nil
}

func (fs *faultSession) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	run, fail := fs.step()
	if !run {
		return failedIter{fail}
	}
	it := fs.Session.Iter(ctx, q)
	if fail != nil {
		it.Close()
		return failedIter{fail}
	}
	return it
}

type failedIter struct{ err error }

func (failedIter) Scan(...any) bool  { return false }
func (failedIter) PageState() []byte { return nil }
func (it failedIter) Close() error   { return it.err }

// trackDrift compares the top_tracks_by_artist rows of the given artists
// with what tracks says of the track: its one row, with its values, or
// none when the track is gone.
func trackDrift(t *testing.T, raw *gocql.Session, trackID string, artists []string) []string {
	t.Helper()
	var want []string
	var artist, name, album string
	var plays int64
	var dur int32
	var deleted bool
	err := raw.Query("SELECT artist_id, play_count, track_name, album, duration_s, cqlgen_deleted FROM tracks WHERE track_id = ?", trackID).
		Scan(&artist, &plays, &name, &album, &dur, &deleted)
	switch {
	case errors.Is(err, gocql.ErrNotFound):
	case err != nil:
		t.Fatal(err)
	case !deleted:
		want = append(want, fmt.Sprintf("%s/%d/%s/%s/%s/%d", artist, plays, trackID, name, album, dur))
	}
	var got []string
	for _, a := range artists {
		it := raw.Query("SELECT artist_id, play_count, track_id, track_name, album, duration_s FROM top_tracks_by_artist WHERE artist_id = ?", a).Iter()
		var tid string
		for it.Scan(&artist, &plays, &tid, &name, &album, &dur) {
			got = append(got, fmt.Sprintf("%s/%d/%s/%s/%s/%d", artist, plays, tid, name, album, dur))
		}
		must(t, it.Close())
	}
	slices.Sort(got)
	if slices.Equal(got, want) {
		return nil
	}
	return []string{fmt.Sprintf("top_tracks_by_artist holds %v, tracks implies %v", got, want)}
}

// Checks invariant I1: nil means applied everywhere.
// Checks invariant I2: running a call again converges.
// Checks invariant I3: the next write completes the last.
// Checks invariant I6: a pending record is carried out at its change's timestamps.
func TestWriteProtocolCrashPoints(t *testing.T) {
	raw, base := repoSession(t, music.Schema)
	ctx := context.Background()
	n := 0
	track := func(id, artist string, plays int64, name string) *music.Track {
		return &music.Track{TrackID: id, ArtistID: artist, PlayCount: plays, TrackName: name, Album: "lp", DurationS: 200}
	}
	type path struct {
		name  string
		setup func(r *music.TrackRepo, id string, a []string) error
		op    func(r *music.TrackRepo, id string, a []string) error
	}
	paths := []path{
		{"insert new", nil, func(r *music.TrackRepo, id string, a []string) error { return r.Insert(ctx, track(id, a[0], 1, "x")) }},
		{"update moving in the partition",
			func(r *music.TrackRepo, id string, a []string) error { return r.Insert(ctx, track(id, a[0], 1, "x")) },
			func(r *music.TrackRepo, id string, a []string) error { return r.Update(ctx, track(id, a[0], 5, "y")) }},
		{"update moving to another partition",
			func(r *music.TrackRepo, id string, a []string) error { return r.Insert(ctx, track(id, a[0], 1, "x")) },
			func(r *music.TrackRepo, id string, a []string) error { return r.Update(ctx, track(id, a[1], 5, "y")) }},
		{"delete",
			func(r *music.TrackRepo, id string, a []string) error { return r.Insert(ctx, track(id, a[0], 1, "x")) },
			func(r *music.TrackRepo, id string, a []string) error { return r.Delete(ctx, track(id, "", 0, "")) }},
		{"insert after delete",
			func(r *music.TrackRepo, id string, a []string) error {
				if err := r.Insert(ctx, track(id, a[0], 1, "x")); err != nil {
					return err
				}
				return r.Delete(ctx, track(id, "", 0, ""))
			},
			func(r *music.TrackRepo, id string, a []string) error { return r.Insert(ctx, track(id, a[1], 7, "z")) }},
	}
	recoveries := map[string]func(r *music.TrackRepo, id string, a []string) error{
		"later insert": func(r *music.TrackRepo, id string, a []string) error { return r.Insert(ctx, track(id, a[2], 9, "w")) },
		"later delete": func(r *music.TrackRepo, id string, a []string) error { return r.Delete(ctx, track(id, "", 0, "")) },
	}
	strategies := map[string]cqlgen.Strategy{"logged": cqlgen.LoggedBatch, "unlogged": cqlgen.UnloggedBatch, "concurrent": cqlgen.Concurrent(2)}
	for _, p := range paths {
		for _, sname := range []string{"logged", "unlogged", "concurrent"} {
			// A clean run counts the op's calls.
			count := &faultSession{Session: base}
			id, artists := fmt.Sprintf("clean-%d", n), []string{fmt.Sprintf("a-%d", n), fmt.Sprintf("b-%d", n), fmt.Sprintf("c-%d", n)}
			n++
			repo := music.NewTrackRepo(count, cqlgen.WithStrategy(strategies[sname]))
			if p.setup != nil {
				must(t, p.setup(repo, id, artists))
			}
			before := count.calls.Load()
			must(t, p.op(repo, id, artists))
			calls := int(count.calls.Load() - before)
			if d := trackDrift(t, raw, id, artists); d != nil {
				t.Fatalf("%s, %s: the clean run drifts: %v", p.name, sname, d)
			}
			for k := 1; k <= calls; k++ {
				for _, f := range []fault{failBefore, lostReply, dies} {
					for _, rec := range []string{"rerun", "later insert", "later delete"} {
						name := fmt.Sprintf("%s/%s/call %d of %d/%s/%s", p.name, sname, k, calls, f, rec)
						id, artists := fmt.Sprintf("trk-%d", n), []string{fmt.Sprintf("a-%d", n), fmt.Sprintf("b-%d", n), fmt.Sprintf("c-%d", n)}
						n++
						fs := &faultSession{Session: base, k: int64(k), f: f}
						repo := music.NewTrackRepo(fs, cqlgen.WithStrategy(strategies[sname]), cqlgen.WithAttempts(3), injected)
						if p.setup != nil {
							must(t, p.setup(repo, id, artists))
						}
						fs.armed.Store(true)
						err := p.op(repo, id, artists)
						fs.armed.Store(false)
						if err == nil && f != lostReply {
							t.Errorf("%s: a failed step went unreported", name)
						}
						var rerr error
						if rec == "rerun" {
							rerr = p.op(repo, id, artists)
						} else {
							rerr = recoveries[rec](repo, id, artists)
						}
						if rerr != nil {
							t.Errorf("%s: %v", name, rerr)
						}
						if d := trackDrift(t, raw, id, artists); d != nil {
							t.Errorf("%s: %v", name, d)
						}
					}
				}
			}
		}
	}
	t.Logf("%d tracks written through crash points", n)
	// And Verify, over every track at once, finds no drift either.
	rep, err := music.NewTrackRepo(base).Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 || rep.Rows == 0 {
		t.Errorf("verify after the crash points: %+v, %v", rep, err)
	}
}

// Clients whose clocks are off by ±50ms and ±5s write one track in turn:
// each write shows in both tables, whatever the clocks say.
// Checks invariant I5: versions only grow, and the fan-out follows them.
func TestWriteProtocolClockSkew(t *testing.T) {
	raw, s := repoSession(t, music.Schema)
	ctx := context.Background()
	n := 0
	for _, skew := range []time.Duration{50 * time.Millisecond, -50 * time.Millisecond, 5 * time.Second, -5 * time.Second} {
		for _, order := range [][]int{{1, -1, 0, 1}, {-1, 1, -1, 1}, {0, 1, -1, -1}} {
			n++
			id, artists := fmt.Sprintf("skew-%d", n), []string{fmt.Sprintf("sa-%d", n), fmt.Sprintf("sb-%d", n)}
			client := func(i int) *music.TrackRepo {
				off := time.Duration(order[i]) * skew
				return music.NewTrackRepo(s, cqlgen.WithClock(func() time.Time { return time.Now().Add(off) }))
			}
			steps := []struct {
				what string
				do   func(*music.TrackRepo) error
				want int64 // play count Get must see; -1: not found
			}{
				{"insert", func(r *music.TrackRepo) error {
					return r.Insert(ctx, &music.Track{TrackID: id, ArtistID: artists[0], PlayCount: 1, TrackName: "a"})
				}, 1},
				{"update", func(r *music.TrackRepo) error {
					return r.Update(ctx, &music.Track{TrackID: id, ArtistID: artists[1], PlayCount: 2, TrackName: "b"})
				}, 2},
				{"delete", func(r *music.TrackRepo) error { return r.Delete(ctx, &music.Track{TrackID: id}) }, -1},
				{"insert again", func(r *music.TrackRepo) error {
					return r.Insert(ctx, &music.Track{TrackID: id, ArtistID: artists[0], PlayCount: 3, TrackName: "c"})
				}, 3},
			}
			for i, st := range steps {
				name := fmt.Sprintf("skew %v, clients %v, %s", skew, order, st.what)
				if err := st.do(client(i)); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got, err := client(0).Get(ctx, id)
				switch {
				case st.want < 0 && !errors.Is(err, cqlgen.ErrNotFound):
					t.Errorf("%s: Get = %+v, %v; want not found", name, got, err)
				case st.want >= 0 && (err != nil || got.PlayCount != st.want):
					t.Errorf("%s: Get = %+v, %v; want play count %d", name, got, err, st.want)
				}
				if d := trackDrift(t, raw, id, artists); d != nil {
					t.Errorf("%s: %v", name, d)
				}
			}
		}
	}
}
