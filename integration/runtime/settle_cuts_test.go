package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Keyed increments of one track through Modify, through a proxy that cuts
// every connection at random, with one writer and with two: a call that
// fails is sent again at once with its key until it succeeds. Each
// increment must be acknowledged and count exactly once, read with plain
// gocql. Before, a call whose conditional write lost its reply and whose
// one serial read failed too left its key answering "outcome unknown" to
// every resend (measured: 11 of 200 with one writer, 57 of 400 with
// two); and, with the record of the last changes at 32, a lost write
// that found the row unchanged waited out the land window while the
// other writer made more changes than that, and was unknown for good
// (1 of 200 and 1 of 400, issue 35).
func TestKeyedIncrementsUnderCuts(t *testing.T) {
	for _, writers := range []int{1, 2} {
		t.Run(fmt.Sprint(writers, " writers"), func(t *testing.T) {
			direct, ks := cassandratest.Keyspace(t)
			cassandratest.MustApplyCQL(t, direct, music.Schema)
			p := startProxy(t, cassandratest.Hosts(t)[0])
			s := gocqlv1.NewSession(proxied(t, ks, p), faultOptions(nil))
			repo := music.NewTrackRepo(s, cqlgen.WithAttempts(50))
			tr := &music.Track{TrackID: "t1", ArtistID: "a1", TrackName: "one", Album: "lp", DurationS: 200}
			if err := music.NewTrackRepo(gocqlv1.NewSession(direct, nil)).Insert(context.Background(), tr); err != nil {
				t.Fatal(err)
			}
			const each = 200
			inc := func(e *music.Track) error { e.PlayCount++; return nil }
			var inflight atomic.Int32
			var started atomic.Int64
			cutsDone, writesDone := make(chan struct{}), make(chan struct{})
			var cuts int
			go cutWhile(p, &inflight, &started, 4, each/2, &cuts, writesDone, cutsDone)
			var failedFirst, resends, acked atomic.Int64
			errs := make(chan error, writers*each)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						key := cqlgen.WithIdempotencyKey(fmt.Sprintf("play-%d-%d", w, i))
						started.Add(1)
						inflight.Add(1)
						var err error
						for try := 0; try < 20; try++ {
							ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
							_, err = repo.Modify(ctx, tr.TrackID, inc, key)
							cancel()
							if err == nil {
								break
							}
							if try == 0 {
								failedFirst.Add(1)
							}
							resends.Add(1)
							if errors.Is(err, cqlgen.ErrOutcomeUnknown) && !errors.Is(err, context.DeadlineExceeded) {
								t.Logf("increment %d-%d, try %d: %v", w, i, try+1, err)
							}
						}
						inflight.Add(-1)
						if err == nil {
							acked.Add(1)
						} else {
							errs <- fmt.Errorf("increment %d-%d: sent 20 times: %v", w, i, err)
						}
					}
				})
			}
			wg.Wait()
			close(writesDone)
			<-cutsDone
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			var plays int64
			if err := direct.Query("SELECT play_count FROM tracks WHERE track_id = ?", tr.TrackID).Scan(&plays); err != nil {
				t.Fatal(err)
			}
			t.Logf("%d writers, %d increments, %d cuts, %d first calls failed, %d resends; play_count %d",
				writers, writers*each, cuts, failedFirst.Load(), resends.Load(), plays)
			if plays != acked.Load() {
				t.Errorf("play_count %d after %d keyed increments acknowledged: want each counted once", plays, acked.Load())
			}
			if cuts == 0 {
				t.Error("no cut happened during the increments")
			}
		})
	}
}

// keyedOps is how many keyed increments TestKeyedIncrementsBesideBusyRivals
// makes with each number of rivals: CQLGEN_KEYED_OPS, or 600 (issue 35
// asks 10,000: make soak-keyed).
func keyedOps(t *testing.T) int {
	if v := os.Getenv("CQLGEN_KEYED_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("CQLGEN_KEYED_OPS=%q: want a positive number", v)
		}
		return n
	}
	return 600
}

// Keyed increments of one track through Modify, through a proxy that cuts
// the connections at random, while 1 or 2 rivals increment the same track
// at full speed (tight loops of Modify without a key, on sessions the
// proxy does not cut: they go on while the keyed writer reconnects and
// settles). A keyed call that fails is sent again at once with its key.
// Every keyed increment must be acknowledged and none unknown for good;
// the play count, read with plain gocql, must be the keyed increments plus
// the rivals' acknowledged ones, and at most those plus the rivals' calls
// whose outcome is unknown. Before, a keyed write whose reply was lost
// waited out the land window while the rivals made more changes than the
// record of the last changes kept (32): ErrTooManyChanges, and the key
// answered "outcome unknown" for good (issue 35).
func TestKeyedIncrementsBesideBusyRivals(t *testing.T) {
	ops := keyedOps(t)
	for _, rivals := range []int{1, 2} {
		t.Run(fmt.Sprint(rivals, " rivals"), func(t *testing.T) {
			direct, ks := cassandratest.Keyspace(t)
			cassandratest.MustApplyCQL(t, direct, music.Schema)
			p := startProxy(t, cassandratest.Hosts(t)[0])
			repo := music.NewTrackRepo(gocqlv1.NewSession(proxied(t, ks, p), faultOptions(nil)), cqlgen.WithAttempts(50))
			tr := &music.Track{TrackID: "t1", ArtistID: "a1", TrackName: "one", Album: "lp", DurationS: 200}
			if err := music.NewTrackRepo(gocqlv1.NewSession(direct, nil)).Insert(context.Background(), tr); err != nil {
				t.Fatal(err)
			}
			inc := func(e *music.Track) error { e.PlayCount++; return nil }

			// The rivals, on the session the proxy does not cut, until the
			// keyed writer is done.
			stop := make(chan struct{})
			var rivalAcked, rivalUnknown, rivalLost, rivalOther atomic.Int64
			var rg sync.WaitGroup
			for range rivals {
				rrepo := music.NewTrackRepo(gocqlv1.NewSession(direct, nil), cqlgen.WithAttempts(50))
				rg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						_, err := rrepo.Modify(ctx, tr.TrackID, inc)
						cancel()
						var na *cqlgen.NotAppliedError
						switch {
						case err == nil:
							rivalAcked.Add(1)
						case errors.As(err, &na):
							rivalLost.Add(1) // lost every race: not applied
						case errors.Is(err, cqlgen.ErrOutcomeUnknown):
							rivalUnknown.Add(1)
						default:
							rivalOther.Add(1) // may have applied: counted as unknown
							t.Logf("rival: %v", err)
						}
					}
				})
			}

			var inflight atomic.Int32
			var started atomic.Int64
			cutsDone, writesDone := make(chan struct{}), make(chan struct{})
			var cuts int
			go cutWhile(p, &inflight, &started, 4, ops/2, &cuts, writesDone, cutsDone)
			var failedFirst, resends, acked, forGood, failed int
			begin := time.Now()
			for i := range ops {
				key := cqlgen.WithIdempotencyKey(fmt.Sprintf("play-%d", i))
				started.Add(1)
				inflight.Add(1)
				var err error
				tooMany := false
				for try := 0; try < 20; try++ {
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					_, err = repo.Modify(ctx, tr.TrackID, inc, key)
					cancel()
					if err == nil {
						break
					}
					if errors.Is(err, cqlgen.ErrTooManyChanges) && !tooMany {
						tooMany = true
						t.Errorf("increment %d, try %d: %v", i, try+1, err)
					}
					if try == 0 {
						failedFirst++
					}
					resends++
				}
				inflight.Add(-1)
				switch {
				case err == nil:
					acked++
				case tooMany:
					forGood++
				default:
					failed++
					t.Errorf("increment %d: sent 20 times: %v", i, err)
				}
			}
			took := time.Since(begin)
			close(writesDone)
			close(stop)
			rg.Wait()
			<-cutsDone

			var plays int64
			var record []byte
			if err := direct.Query("SELECT play_count, cqlgen_writes FROM tracks WHERE track_id = ?", tr.TrackID).Scan(&plays, &record); err != nil {
				t.Fatal(err)
			}
			low := int64(acked) + rivalAcked.Load()
			maybe := rivalUnknown.Load() + rivalOther.Load() + int64(forGood)
			t.Logf("%d rivals, %s: %d keyed increments: %d applied once, %d unknown for good, %d failed; %d cuts, %d first calls failed, %d resends; "+
				"rivals: %d acknowledged (%.0f a second), %d unknown, %d other errors, %d lost every race; play_count %d; record of the last changes %d bytes",
				rivals, took.Round(time.Second), ops, acked, forGood, failed, cuts, failedFirst, resends,
				rivalAcked.Load(), float64(rivalAcked.Load())/took.Seconds(), rivalUnknown.Load(), rivalOther.Load(), rivalLost.Load(), plays, len(record))
			if plays < low || plays > low+maybe {
				t.Errorf("play_count %d: want %d acknowledged increments (%d keyed, %d by the rivals), plus at most %d whose outcome is unknown",
					plays, low, acked, rivalAcked.Load(), maybe)
			}
			if cuts == 0 {
				t.Error("no cut happened during the increments")
			}
			if rivalAcked.Load() == 0 {
				t.Error("the rivals changed nothing")
			}
		})
	}
}
