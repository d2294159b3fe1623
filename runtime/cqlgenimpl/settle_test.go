package cqlgenimpl_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// settleCase is how the first conditional write on the source of truth
// (readings_by_day) of a Modify fails, and what happens before the serial
// read that settles it.
// instant is the land window of a cqltest session: it applies a
// conditional write at once or never, with no coordinator to land it
// later, so a write whose reply was lost needs no wait to be settled.
var instant = cqlgen.WithLandWindow(time.Millisecond)

type settleCase struct {
	name string
	// fault is the error of the conditional write: cqltest.LostReply
	// lets it apply first.
	fault error
	// rival, when set, changes the entity before the serial read.
	rival bool
	// want: the increments the entity holds after the call and its
	// resend with the same idempotency key; whether the call's error is
	// ErrOutcomeUnknown.
	want    int64
	unknown bool
}

// A Modify whose conditional write lost its reply learns from a serial
// read whether it applied. Applied: the call succeeds, and its resend with
// the key does not apply it again (before, the error released the key and
// the resend incremented twice). Not applied: the error stands, and the
// resend applies it once. Changed by another writer in between: the
// record of the last changes in the canonical row still tells whether it
// applied (before, versions alone could not, and the key answered
// "outcome unknown" to every resend).
// Checks invariant I9: a lost write is settled, never guessed.
// Checks invariant I10: a keyed call applies at most once.
func TestModifySettlesALostConditionalReply(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	for _, c := range []settleCase{
		{name: "applied, reply lost", fault: cqltest.LostReply(timeout), want: 1},
		{name: "timed out before applying", fault: timeout, want: 1},
		{name: "applied, then changed by another writer", fault: cqltest.LostReply(timeout), rival: true, want: 1 + 10},
		{name: "not applied, another writer first", fault: timeout, rival: true, want: 1 + 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			var armed, faulted, rivalled atomic.Bool
			var repo *fixture.ReadingRepo
			ctx := context.Background()
			s := session(t, cqltest.WithHook(func(_ context.Context, call cqltest.Call) error {
				q := call.Queries[0]
				if !armed.Load() || q.Stmt.Table != "readings_by_day" {
					return nil
				}
				switch {
				case call.Op == cqltest.OpCAS && !faulted.Swap(true):
					return c.fault
				case q.Stmt.Kind == cqlgen.SerialRead && c.rival && !rivalled.Swap(true):
					armed.Store(false)
					defer armed.Store(true)
					_, err := repo.Modify(ctx, "s1", day0, 1, func(e *fixture.Reading) error { e.Value += 10; return nil })
					return err
				}
				return nil
			}))
			repo = fixture.NewReadingRepo(s)
			if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a"}); err != nil {
				t.Fatal(err)
			}
			inc := func(e *fixture.Reading) error { e.Value++; return nil }
			key := cqlgen.WithIdempotencyKey("inc-1")
			armed.Store(true)
			_, err := repo.Modify(ctx, "s1", day0, 1, inc, key)
			if errors.Is(err, cqlgen.ErrOutcomeUnknown) != c.unknown {
				t.Fatalf("Modify: %v; want outcome unknown: %v", err, c.unknown)
			}
			if c.unknown {
				var we *cqlgen.WriteUnknownError
				if !errors.As(err, &we) || we.Table != "readings_by_day" {
					t.Errorf("Modify: %v, want a *WriteUnknownError on readings_by_day", err)
				}
			}
			again, err2 := repo.Modify(ctx, "s1", day0, 1, inc, key)
			if c.unknown != errors.Is(err2, cqlgen.ErrOutcomeUnknown) || !c.unknown && err2 != nil {
				t.Fatalf("Modify sent again with its key: %v", err2)
			}
			got, err := repo.Get(ctx, "s1", day0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got.Value != c.want {
				t.Errorf("value %d after the call and its resend, want %d", got.Value, c.want)
			}
			if !c.unknown && again.Value != c.want {
				t.Errorf("the resend returned value %d, want %d", again.Value, c.want)
			}
			if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
				t.Errorf("Verify: %+v, %v", rep, err)
			}
		})
	}
}

// faultPlan marks the first call of a keyed increment (a context value):
// its conditional write on the source of truth loses its reply (after
// applying, when applies is set), and then every serial read that tries
// to settle it fails.
type faultPlan struct {
	applies bool
	lost    atomic.Bool
}

type faultPlanKey struct{}

// Every keyed increment applies exactly once after its resends when the
// conditional write's reply is lost and so is every serial read of the
// call that would settle it: with one writer, and with two writers racing
// on the entity, each increment's first call so faulted. Before, the key
// recorded "outcome unknown" for good: every resend failed, and the
// increments that had not applied were lost.
// Checks invariant I10: a keyed call applies at most once.
func TestKeyedIncrementsSettleWhenTheSettleReadsFail(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	readTimeout := &gocql.RequestErrReadTimeout{}
	for _, writers := range []int{1, 2} {
		t.Run(fmt.Sprint(writers, " writers"), func(t *testing.T) {
			s := session(t, cqltest.WithHook(func(ctx context.Context, call cqltest.Call) error {
				plan, _ := ctx.Value(faultPlanKey{}).(*faultPlan)
				q := call.Queries[0]
				if plan == nil || q.Stmt.Table != "readings_by_day" {
					return nil
				}
				switch {
				case call.Op == cqltest.OpCAS && !plan.lost.Swap(true):
					if plan.applies {
						return cqltest.LostReply(timeout)
					}
					return timeout
				case q.Stmt.Kind == cqlgen.SerialRead && plan.lost.Load():
					return readTimeout
				}
				return nil
			}))
			repo := fixture.NewReadingRepo(s, instant)
			ctx := context.Background()
			if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a"}); err != nil {
				t.Fatal(err)
			}
			const each = 8
			inc := func(e *fixture.Reading) error { e.Value++; return nil }
			var wg sync.WaitGroup
			errs := make(chan error, writers*each)
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						key := cqlgen.WithIdempotencyKey(fmt.Sprintf("inc-%d-%d", w, i))
						first := context.WithValue(ctx, faultPlanKey{}, &faultPlan{applies: i%2 == 0})
						_, err := repo.Modify(first, "s1", day0, 1, inc, key, cqlgen.WithAttempts(50))
						if !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
							errs <- fmt.Errorf("increment %d-%d: first call: %v, want outcome unknown", w, i, err)
						}
						resent := 0
						for ; resent < 3; resent++ {
							if _, err = repo.Modify(ctx, "s1", day0, 1, inc, key, cqlgen.WithAttempts(50)); err == nil {
								break
							}
						}
						if err != nil {
							errs <- fmt.Errorf("increment %d-%d: after %d resends: %v", w, i, resent, err)
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			got, err := repo.Get(ctx, "s1", day0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(writers * each); got.Value != want {
				t.Errorf("value %d after %d keyed increments and their resends, want each applied once: %d", got.Value, want, want)
			}
			if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
				t.Errorf("Verify: %+v, %v", rep, err)
			}
		})
	}
}

// An Update under an idempotency key whose reply and settling reads were
// lost is settled by its resend before anything is written again. When it
// had applied and another writer changed the entity since, the resend
// reports success and leaves the other writer's change in place (before,
// the resend wrote the update a second time, over it); when it had not,
// the resend applies it.
// Checks invariant I10: a keyed call applies at most once.
func TestKeyedUpdateSettlesBeforeWritingAgain(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	for _, applies := range []bool{true, false} {
		t.Run(fmt.Sprint("applied ", applies), func(t *testing.T) {
			s := session(t, cqltest.WithHook(func(ctx context.Context, call cqltest.Call) error {
				plan, _ := ctx.Value(faultPlanKey{}).(*faultPlan)
				q := call.Queries[0]
				if plan == nil || q.Stmt.Table != "readings_by_day" {
					return nil
				}
				switch {
				case call.Op == cqltest.OpCAS && !plan.lost.Swap(true):
					if plan.applies {
						return cqltest.LostReply(timeout)
					}
					return timeout
				case q.Stmt.Kind == cqlgen.SerialRead && plan.lost.Load():
					return &gocql.RequestErrReadTimeout{}
				}
				return nil
			}))
			repo := fixture.NewReadingRepo(s)
			ctx := context.Background()
			if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a"}); err != nil {
				t.Fatal(err)
			}
			ours := &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a", Value: 1}
			key := cqlgen.WithIdempotencyKey("update-1")
			first := context.WithValue(ctx, faultPlanKey{}, &faultPlan{applies: applies})
			if err := repo.Update(first, ours, key); !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
				t.Fatalf("first call: %v, want outcome unknown", err)
			}
			if err := repo.Update(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "b", Value: 2}); err != nil {
				t.Fatal(err)
			}
			if err := repo.Update(ctx, ours, key); err != nil {
				t.Fatalf("resent with its key: %v", err)
			}
			got, err := repo.Get(ctx, "s1", day0, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(1) // not applied before: the resend applies it, last
			if applies {
				want = 2 // applied before the other writer's change, which stays
			}
			if got.Value != want {
				t.Errorf("value %d, want %d", got.Value, want)
			}
			if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
				t.Errorf("Verify: %+v, %v", rep, err)
			}
		})
	}
}

// Settling runs even when the caller's context is cancelled during the
// call (its answer is what the caller and its key are told), bounded by a
// fixed wait when the context has no deadline: a Modify cancelled as its
// conditional write loses its reply still learns that the write applied,
// and its resend with the key does not apply it again.
// Checks invariant I9: a lost write is settled, never guessed.
func TestSettleRunsAfterTheCallersCancel(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	var cancel context.CancelFunc
	var armed atomic.Bool
	s := session(t, cqltest.WithHook(func(_ context.Context, call cqltest.Call) error {
		q := call.Queries[0]
		if q.Stmt.Table != "readings_by_day" || !armed.Load() {
			return nil
		}
		if call.Op == cqltest.OpCAS {
			armed.Store(false)
			cancel()
			return cqltest.LostReply(timeout)
		}
		return nil
	}))
	repo := fixture.NewReadingRepo(s)
	ctx := context.Background()
	if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a"}); err != nil {
		t.Fatal(err)
	}
	inc := func(e *fixture.Reading) error { e.Value++; return nil }
	key := cqlgen.WithIdempotencyKey("inc-cancelled")
	cctx, c := context.WithCancel(ctx)
	cancel = c
	armed.Store(true)
	_, err := repo.Modify(cctx, "s1", day0, 1, inc, key)
	serialReads := 0
	for _, call := range s.Calls() {
		if call.Queries[0].Stmt.Kind == cqlgen.SerialRead {
			serialReads++
		}
	}
	if serialReads == 0 {
		t.Fatalf("Modify: %v, and no serial read settled its lost reply after the cancel", err)
	}
	if _, err := repo.Modify(ctx, "s1", day0, 1, inc, key); err != nil {
		t.Fatalf("resent with its key: %v", err)
	}
	got, err := repo.Get(ctx, "s1", day0, 1)
	if err != nil || got.Value != 1 {
		t.Errorf("value %v (%v) after a cancelled call whose write applied and its resend, want 1", got, err)
	}
}

// A serial read fences off the Paxos round in flight, not its
// coordinator: nothing having changed the row, the coordinator of a
// write whose reply was lost starts a new round and lands the write
// after the read saw the row unchanged. So a row found as the write
// expected it says "not applied" only once the land window has passed;
// settle waits for it and reads again. Here the write lands 20ms after
// the first serial read. Before, that read's "not applied" let the key's
// resend apply the increment a second time.
// Checks invariant I9: a lost write is settled, never guessed.
func TestSettleWaitsForALateLanding(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	var armed, faulted, reading atomic.Bool
	var late sync.WaitGroup
	var s *cqltest.Session
	s = session(t, cqltest.WithHook(func(_ context.Context, call cqltest.Call) error {
		q := call.Queries[0]
		if !armed.Load() || q.Stmt.Table != "readings_by_day" {
			return nil
		}
		switch {
		case call.Op == cqltest.OpCAS && !faulted.Swap(true):
			// The reply is lost before the write applies; its
			// coordinator goes on, and applies it once the first serial
			// read has come and gone.
			late.Add(1)
			go func() {
				defer late.Done()
				for !reading.Load() {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(20 * time.Millisecond)
				armed.Store(false)
				defer armed.Store(true)
				var cur any
				if _, err := s.ExecCAS(context.Background(), q, &cur); err != nil {
					t.Errorf("the late landing: %v", err)
				}
			}()
			return timeout
		case q.Stmt.Kind == cqlgen.SerialRead:
			reading.Store(true)
		}
		return nil
	}))
	repo := fixture.NewReadingRepo(s, cqlgen.WithLandWindow(300*time.Millisecond))
	ctx := context.Background()
	if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a"}); err != nil {
		t.Fatal(err)
	}
	inc := func(e *fixture.Reading) error { e.Value++; return nil }
	key := cqlgen.WithIdempotencyKey("inc-late")
	armed.Store(true)
	_, err := repo.Modify(ctx, "s1", day0, 1, inc, key)
	late.Wait()
	if err != nil {
		t.Fatalf("Modify: %v (%T); the write landed late, and settling should have waited for it", err, err)
	}
	if _, err := repo.Modify(ctx, "s1", day0, 1, inc, key); err != nil {
		t.Fatalf("Modify sent again with its key: %v", err)
	}
	got, err := repo.Get(ctx, "s1", day0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Value != 1 {
		t.Errorf("value %d after one keyed increment sent twice, want 1", got.Value)
	}
}

// busyRivalCase is a keyed increment whose conditional write loses its
// reply, and a rival that changes the entity many times before the
// increment is settled.
type busyRivalCase struct {
	name    string
	applies bool // the lost write applied
	// when the rival runs: "first read" (before the first serial read
	// of settle), "window" (before the second, once the first found the
	// row unchanged: while settle waits out the land window) or
	// "resend" (every serial read of the call failed: before the key's
	// resend settles it).
	when    string
	changes int
	// step, when set, is how far the rival's clock moves at each change:
	// its changes are that far apart in versions.
	step time.Duration
	// forGood: the key answers "outcome unknown" for good; the bound of
	// the record of the last changes was passed.
	forGood bool
}

// A keyed increment whose reply was lost ends applied exactly once when a
// rival changes the entity 48 or 500 times before it is settled: during
// the call's serial reads, while they wait out the land window, or before
// the key's resend. Before, the record of the last changes kept 32 and
// no longer reached back: the call, or the resend, got ErrTooManyChanges
// and the key answered "outcome unknown" to every resend, the increment
// applied or not (issue 35). Past the documented bound (more than
// writesKept changes, the lost write's successor older than the span
// before the last; or more than the cap of 1024), it is still unknown
// for good, never guessed.
// Checks invariant I9: a lost write is settled, never guessed.
// Checks invariant I10: a keyed call applies at most once.
func TestKeyedModifyOutlivesABusyRival(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	readTimeout := &gocql.RequestErrReadTimeout{}
	var cases []busyRivalCase
	for _, applies := range []bool{true, false} {
		for _, when := range []string{"first read", "window", "resend"} {
			if applies && when == "window" {
				continue // an applied write is found at once
			}
			for _, n := range []int{48, 500} {
				cases = append(cases, busyRivalCase{name: fmt.Sprintf("applied %v, %d changes before the %s", applies, n, when), applies: applies, when: when, changes: n})
			}
		}
		cases = append(cases,
			busyRivalCase{name: fmt.Sprintf("applied %v, 40 changes 1s apart before the resend", applies), applies: applies, when: "resend", changes: 40, step: time.Second, forGood: true},
			busyRivalCase{name: fmt.Sprintf("applied %v, 1100 changes before the resend", applies), applies: applies, when: "resend", changes: 1100, forGood: true})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			var repo, rival *fixture.ReadingRepo
			runRival := func() error {
				for range c.changes {
					if _, err := rival.Modify(ctx, "s1", day0, 1, func(e *fixture.Reading) error { e.Value += 10; return nil }); err != nil {
						return err
					}
				}
				return nil
			}
			var reads atomic.Int32
			s := session(t, cqltest.WithHook(func(ctx context.Context, call cqltest.Call) error {
				plan, _ := ctx.Value(faultPlanKey{}).(*faultPlan)
				q := call.Queries[0]
				if plan == nil || q.Stmt.Table != "readings_by_day" {
					return nil
				}
				switch {
				case call.Op == cqltest.OpCAS && !plan.lost.Swap(true):
					if plan.applies {
						return cqltest.LostReply(timeout)
					}
					return timeout
				case q.Stmt.Kind == cqlgen.SerialRead:
					n := reads.Add(1)
					switch {
					case c.when == "resend":
						return readTimeout
					case c.when == "first read" && n == 1, c.when == "window" && n == 2:
						return runRival()
					}
				}
				return nil
			}))
			window := cqlgen.WithLandWindow(300 * time.Millisecond)
			repo = fixture.NewReadingRepo(s, window)
			var clock atomic.Int64
			rivalOpts := []cqlgen.Option{window}
			if c.step > 0 {
				start := time.Now()
				rivalOpts = append(rivalOpts, cqlgen.WithClock(func() time.Time {
					return start.Add(time.Duration(clock.Add(1)) * c.step)
				}))
			}
			rival = fixture.NewReadingRepo(s, rivalOpts...)
			if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a"}); err != nil {
				t.Fatal(err)
			}
			inc := func(e *fixture.Reading) error { e.Value++; return nil }
			key := cqlgen.WithIdempotencyKey("inc-busy")
			first := context.WithValue(ctx, faultPlanKey{}, &faultPlan{applies: c.applies})
			_, err := repo.Modify(first, "s1", day0, 1, inc, key)
			if errors.Is(err, cqlgen.ErrTooManyChanges) {
				t.Fatalf("first call: %v: the record no longer reached back to it", err)
			}
			if c.when == "resend" {
				if !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
					t.Fatalf("first call, every serial read failed: %v, want outcome unknown", err)
				}
				if err := runRival(); err != nil {
					t.Fatal(err)
				}
			}
			_, err = repo.Modify(ctx, "s1", day0, 1, inc, key)
			if c.forGood {
				if !errors.Is(err, cqlgen.ErrTooManyChanges) {
					t.Fatalf("resent past the record's bound: %v, want ErrTooManyChanges", err)
				}
				if _, err := repo.Modify(ctx, "s1", day0, 1, inc, key); !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
					t.Errorf("resent again: %v, want outcome unknown for good", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("resent with its key: %v", err)
			}
			got, err := repo.Get(ctx, "s1", day0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(1 + 10*c.changes); got.Value != want {
				t.Errorf("value %d after the keyed increment, its resend and %d changes of +10, want %d", got.Value, c.changes, want)
			}
			if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
				t.Errorf("Verify: %+v, %v", rep, err)
			}
		})
	}
}
