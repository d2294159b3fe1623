package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// counter is a command body that counts its runs and remembers their
// timestamps.
type counter struct {
	mu   sync.Mutex
	ts   []int64
	err  error
	wait time.Duration
}

func (c *counter) fn(ctx context.Context, ts int64) error {
	time.Sleep(c.wait)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ts = append(c.ts, ts)
	return c.err
}

func (c *counter) runs() []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int64(nil), c.ts...)
}

var payloadA, payloadB = []byte("payload A"), []byte("payload B")

func TestIdempotentAppliesOnceAndReplays(t *testing.T) {
	f := &fakeSession{}
	var c counter
	ctx := context.Background()
	id := base.Idempotency{Key: "k1"}
	for i := range 3 {
		if err := Idempotent(ctx, f, id, int64(100+i), payloadA, c.fn); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if got := c.runs(); len(got) != 1 || got[0] != 100 {
		t.Errorf("runs %v, want one, at the first call's timestamp 100", got)
	}
	if row := f.row("k1"); row["state"] != stateDone || row["outcome"] != "" {
		t.Errorf("record %v, want done with an empty outcome", row)
	}
}

func TestIdempotentConflict(t *testing.T) {
	f := &fakeSession{}
	var c counter
	ctx := context.Background()
	id := base.Idempotency{Key: "k"}
	if err := Idempotent(ctx, f, id, 1, payloadA, c.fn); err != nil {
		t.Fatal(err)
	}
	err := Idempotent(ctx, f, id, 2, payloadB, c.fn)
	var ce *cqlgen.InputError
	if !errors.Is(err, cqlgen.ErrIdempotencyConflict) || !(errors.As(err, &ce) && ce.Err == cqlgen.ErrIdempotencyConflict) || ce.Name != `key "k"` {
		t.Fatalf("err = %v, want an ErrIdempotencyConflict for k", err)
	}
	if n := len(c.runs()); n != 1 {
		t.Errorf("fn ran %d times, want 1", n)
	}
	// A pending key conflicts too, without waiting for its lease.
	f.pending("p", payloadA, 1, time.Now().Add(time.Hour))
	start := time.Now()
	if err := Idempotent(ctx, f, base.Idempotency{Key: "p"}, 2, payloadB, c.fn); !errors.Is(err, cqlgen.ErrIdempotencyConflict) {
		t.Errorf("pending key, other payload: err = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Error("a conflict waited for the lease")
	}
}

func TestIdempotentReplaysNotApplied(t *testing.T) {
	f := &fakeSession{}
	c := counter{err: fmt.Errorf("insert: %w", &cqlgen.NotAppliedError{Table: "users", Current: map[string]any{"id": 1}})}
	ctx := context.Background()
	id := base.Idempotency{Key: "k"}
	first := Idempotent(ctx, f, id, 1, payloadA, c.fn)
	c.err = nil // a second run would succeed: it must not happen
	second := Idempotent(ctx, f, id, 2, payloadA, c.fn)
	var na *cqlgen.NotAppliedError
	if !errors.Is(first, cqlgen.ErrNotApplied) || !errors.As(second, &na) || na.Table != "users" {
		t.Fatalf("first %v, second %v; want both not applied on users", first, second)
	}
	if n := len(c.runs()); n != 1 {
		t.Errorf("fn ran %d times, want 1", n)
	}
}

func TestIdempotentFailureReleasesForTheNextCall(t *testing.T) {
	f := &fakeSession{}
	c := counter{err: errors.New("write timeout")}
	// Failing to release would make the retry wait the hour out.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	id := base.Idempotency{Key: "k", Lease: time.Hour}
	if err := Idempotent(ctx, f, id, 111, payloadA, c.fn); err == nil || err.Error() != "write timeout" {
		t.Fatalf("err = %v, want fn's", err)
	}
	if row := f.row("k"); row["state"] != statePending || !row["lease_until"].(time.Time).Before(time.Now()) {
		t.Fatalf("after a failed run the record is %v; want pending with its lease released", row)
	}
	c.err = nil
	start := time.Now()
	if err := Idempotent(ctx, f, id, 222, payloadA, c.fn); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > time.Second {
		t.Error("the retry waited although the lease was released")
	}
	// The completion reuses the first claim's timestamp.
	if got := c.runs(); len(got) != 2 || got[1] != 111 {
		t.Errorf("runs at %v, want the second at 111", got)
	}
}

func TestIdempotentTakesOverAnExpiredLease(t *testing.T) {
	f := &fakeSession{}
	var c counter
	// A caller claimed the key at timestamp 42 and crashed; its lease ends
	// in 80ms.
	lease := time.Now().Add(80 * time.Millisecond)
	f.pending("k", payloadA, 42, lease)
	if err := Idempotent(context.Background(), f, base.Idempotency{Key: "k"}, 99, payloadA, c.fn); err != nil {
		t.Fatal(err)
	}
	if now := time.Now(); now.Before(lease) {
		t.Errorf("took over %v before the lease ran out", lease.Sub(now))
	}
	if got := c.runs(); len(got) != 1 || got[0] != 42 {
		t.Errorf("runs at %v, want one at the crashed claim's timestamp 42", got)
	}
	if row := f.row("k"); row["state"] != stateDone {
		t.Errorf("record %v, want done", row)
	}
}

func TestIdempotentWaitsForTheOwner(t *testing.T) {
	f := &fakeSession{}
	owner := counter{wait: 100 * time.Millisecond}
	var dup counter
	ctx := context.Background()
	id := base.Idempotency{Key: "k"}
	done := make(chan error)
	go func() { done <- Idempotent(ctx, f, id, 1, payloadA, owner.fn) }()
	time.Sleep(20 * time.Millisecond) // the owner has claimed, and runs
	if err := Idempotent(ctx, f, id, 2, payloadA, dup.fn); err != nil {
		t.Fatal(err)
	}
	if len(owner.runs()) != 1 {
		t.Error("the duplicate returned before the owner finished")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(dup.runs()); n != 0 {
		t.Errorf("the duplicate ran fn %d times", n)
	}

	// A duplicate whose context ends first says so.
	slow := counter{wait: 300 * time.Millisecond}
	go func() { done <- Idempotent(ctx, f, base.Idempotency{Key: "k2"}, 1, payloadA, slow.fn) }()
	time.Sleep(20 * time.Millisecond)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := Idempotent(short, f, base.Idempotency{Key: "k2"}, 2, payloadA, dup.fn); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the deadline", err)
	}
	<-done
}

func TestIdempotentConcurrentDuplicatesRunOnce(t *testing.T) {
	f := &fakeSession{}
	c := counter{wait: 30 * time.Millisecond}
	var wg sync.WaitGroup
	var failed atomic.Int32
	for i := range 20 {
		wg.Go(func() {
			if err := Idempotent(context.Background(), f, base.Idempotency{Key: "k"}, int64(i), payloadA, c.fn); err != nil {
				t.Error(err)
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if n := len(c.runs()); n != 1 || failed.Load() != 0 {
		t.Errorf("fn ran %d times, %d calls failed; want once, none", n, failed.Load())
	}
}

func TestIdempotentRecognisesItsOwnLostClaim(t *testing.T) {
	var lost atomic.Bool
	f := &fakeSession{fault: func(q cqldriver.Query) (before, after error) {
		if q.Stmt == claimStmt && lost.CompareAndSwap(false, true) {
			return nil, errors.New("connection reset after the claim applied")
		}
		return nil, nil
	}}
	var c counter
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := Idempotent(ctx, f, base.Idempotency{Key: "k", Lease: time.Hour}, 7, payloadA, c.fn); err != nil {
		t.Fatal(err)
	}
	if got := c.runs(); len(got) != 1 || got[0] != 7 {
		t.Errorf("runs %v, want one at 7, without waiting for its own lease", got)
	}
}

func TestIdempotentUnrecordedSuccessStillSucceeds(t *testing.T) {
	var doneTries atomic.Int32
	f := &fakeSession{fault: func(q cqldriver.Query) (before, after error) {
		if q.Stmt == doneStmt {
			doneTries.Add(1)
			return errors.New("cluster gone"), nil
		}
		return nil, nil
	}}
	withJitter(t, noJitter)
	var c counter
	if err := Idempotent(context.Background(), f, base.Idempotency{Key: "k"}, 7, payloadA, c.fn); err != nil {
		t.Fatalf("fn succeeded, but Idempotent returned %v", err)
	}
	if n := doneTries.Load(); n != maxStepFailures {
		t.Errorf("recording was tried %d times, want %d", n, maxStepFailures)
	}
	if row := f.row("k"); row["state"] != statePending {
		t.Errorf("record %v, want still pending", row)
	}
}

func TestIdempotentPermanentErrorsStopAtOnce(t *testing.T) {
	var tries atomic.Int32
	f := &fakeSession{fault: func(cqldriver.Query) (before, after error) {
		tries.Add(1)
		return srvErr(cqldriver.CodeInvalid), nil // invalid: e.g. the table does not exist
	}}
	var c counter
	err := Idempotent(context.Background(), f, base.Idempotency{Key: "k"}, 1, payloadA, c.fn)
	if err == nil || tries.Load() != 1 || len(c.runs()) != 0 {
		t.Errorf("err %v after %d tries and %d runs; want the error after 1 try, no run", err, tries.Load(), len(c.runs()))
	}
}

func TestIdempotentEmptyKey(t *testing.T) {
	var c counter
	err := Idempotent(context.Background(), &fakeSession{}, base.Idempotency{}, 1, payloadA, c.fn)
	var ek *cqlgen.InputError
	if !errors.Is(err, cqlgen.ErrEmptyKey) || !(errors.As(err, &ek) && ek.Err == cqlgen.ErrEmptyKey) || ek.Table != IdempotencyTable {
		t.Errorf("err = %v", err)
	}
}

func TestApplyWithAndWithoutKey(t *testing.T) {
	ins := &cqldriver.Statement{CQL: "INSERT INTO a (k, v) VALUES (?, ?) USING TIMESTAMP ?", Table: "a", Kind: cqldriver.Write, Idempotent: true}
	ins2 := &cqldriver.Statement{CQL: "INSERT INTO b (k, v) VALUES (?, ?) USING TIMESTAMP ?", Table: "b", Kind: cqldriver.Write, Idempotent: true}
	build := func(v string) func(ts int64) []cqldriver.Query {
		return func(ts int64) []cqldriver.Query {
			return []cqldriver.Query{{Stmt: ins, Values: []any{"k", v, ts}}, {Stmt: ins2, Values: []any{"k", v, ts}}}
		}
	}
	ctx := context.Background()
	f := &fakeSession{}
	if err := Apply(ctx, f, nil, base.Idempotency{}, 5, build("x")); err != nil {
		t.Fatal(err)
	}
	if len(f.batches) != 1 || f.kinds[0] != cqldriver.Logged || f.batches[0][0].Values[2] != int64(5) || len(f.rows) != 0 {
		t.Fatalf("without a key: batches %v, records %v; want one logged batch at ts 5 and no record", f.batches, f.rows)
	}

	f = &fakeSession{}
	id := base.Idempotency{Key: "req-1"}
	// Sent again later, at another timestamp: the same command.
	for _, ts := range []int64{10, 20} {
		if err := Apply(ctx, f, cqlgen.Concurrent(2), id, ts, build("x")); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.execs) != 2 || f.execs[0].Values[2] != int64(10) {
		t.Errorf("with a key: %d statements sent (%v), want the 2 of the first call, at 10", len(f.execs), f.execs)
	}
	if err := Apply(ctx, f, cqlgen.Concurrent(2), id, 30, build("y")); !errors.Is(err, cqlgen.ErrIdempotencyConflict) {
		t.Errorf("another payload: err = %v", err)
	}
}

func TestIdempotencyTableCQL(t *testing.T) {
	// Every column the statements use exists in the DDL, and the DDL is
	// what cqlscript-style appliers expect: statements end with ";" at a
	// line's end.
	for _, col := range []string{"key", "fingerprint", "state", "owner", "write_ts", "lease_until", "outcome"} {
		if !strings.Contains(IdempotencyTableCQL, "\n    "+col+" ") {
			t.Errorf("column %s missing from IdempotencyTableCQL", col)
		}
	}
	if !strings.HasSuffix(IdempotencyTableCQL, ");\n") || !strings.Contains(IdempotencyTableCQL, "CREATE TABLE IF NOT EXISTS "+IdempotencyTable+" (") {
		t.Errorf("unexpected DDL:\n%s", IdempotencyTableCQL)
	}
}

func TestIdempotentRefusesARecordItDidNotWrite(t *testing.T) {
	f := &fakeSession{}
	f.pending("k", payloadA, 1, time.Time{})
	f.rows["k"]["state"] = nil // e.g. written by hand without a state
	var c counter
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := Idempotent(ctx, f, base.Idempotency{Key: "k"}, 2, payloadA, c.fn)
	if err == nil || !strings.Contains(err.Error(), "unknown state") || len(c.runs()) != 0 {
		t.Errorf("err %v, %d runs; want an unknown-state error and no run", err, len(c.runs()))
	}
}

// A key that would expire before its lease runs out is refused before
// anything is sent.
func TestIdempotencyTTLMustOutliveTheLease(t *testing.T) {
	f := &fakeSession{}
	ran := false
	err := Idempotent(context.Background(), f, base.Idempotency{Key: "k", TTL: time.Second, Lease: time.Minute}, 1, nil, func(context.Context, int64) error {
		ran = true
		return nil
	})
	if !errors.Is(err, cqlgen.ErrInvalidOption) || ran || len(f.execs)+len(f.batches) != 0 {
		t.Errorf("TTL below the lease: %v, ran %v", err, ran)
	}
}

// An owner whose lease ran out while its command ran, and whose key
// another call took over, is told: its command may apply twice.
func TestIdempotentFencesALateOwner(t *testing.T) {
	f := &fakeSession{}
	err := Idempotent(context.Background(), f, base.Idempotency{Key: "k", Lease: time.Second}, 7, payloadA, func(context.Context, int64) error {
		// Meanwhile the lease runs out and a duplicate takes the key.
		f.mu.Lock()
		f.rows["k"]["owner"], _ = randomUUID()
		f.mu.Unlock()
		return nil
	})
	var fe *cqlgen.FencedError
	if !errors.Is(err, cqlgen.ErrFenced) || !errors.As(err, &fe) || fe.Key != "k" {
		t.Errorf("a late owner's outcome: %v", err)
	}
	if row := f.row("k"); row["state"] == stateDone {
		t.Errorf("the late owner recorded its outcome over the new owner's: %v", row)
	}
}

// A caller's deadline bounds the whole call, the recording of the
// outcome included: a stalled record gives a typed "outcome unknown"
// error within the deadline, not after the lease.
func TestIdempotentHonoursTheDeadline(t *testing.T) {
	f := &fakeSession{fault: func(q cqldriver.Query) (before, after error) {
		if q.Stmt == doneStmt {
			time.Sleep(100 * time.Millisecond)
			return errors.New("write timeout"), nil
		}
		return nil, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Idempotent(ctx, f, base.Idempotency{Key: "k", Lease: 30 * time.Second}, 7, payloadA, func(context.Context, int64) error { return nil })
	var ou *cqlgen.OutcomeUnknownError
	if !errors.Is(err, cqlgen.ErrOutcomeUnknown) || !errors.As(err, &ou) || ou.Outcome != nil {
		t.Errorf("a stalled record under a deadline: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call took %v with a 200ms deadline and a 30s lease", d)
	}
	// A duplicate waiting for that key past its own deadline is told the
	// same. (Its deadline leaves it time to find the key pending on a
	// loaded machine: at 50ms it could expire before the first read, a
	// plain deadline error, as one loaded run here showed.)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	if err := Idempotent(ctx2, f, base.Idempotency{Key: "k", Lease: 30 * time.Second}, 8, payloadA, func(context.Context, int64) error { return nil }); !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
		t.Errorf("a duplicate past its deadline: %v", err)
	}
}

// countingStrategy is a strategy of the user's own: it counts its calls.
type countingStrategy struct{ calls *int }

func (c countingStrategy) Name() string { return "counting" }
func (c countingStrategy) Apply(ctx context.Context, s cqldriver.Session, qs []cqldriver.Query) error {
	*c.calls++
	return cqlgen.LoggedBatch.Apply(ctx, s, qs)
}

// ApplyOne sends a lone statement straight to the session only where
// Apply would do exactly that: a strategy of the user's own still sees
// every write, and an idempotency key still makes a resent write apply
// once.
func TestApplyOne(t *testing.T) {
	ins := &cqldriver.Statement{CQL: "INSERT INTO a (k, v) VALUES (?, ?) USING TIMESTAMP ?", Table: "a", Kind: cqldriver.Write, Idempotent: true}
	build := func(v string) func(ts int64) cqldriver.Query {
		return func(ts int64) cqldriver.Query { return cqldriver.Query{Stmt: ins, Values: []any{"k", v, ts}} }
	}
	ctx := context.Background()
	for _, st := range []cqlgen.Strategy{nil, cqlgen.LoggedBatch, cqlgen.UnloggedBatch, cqlgen.Concurrent(3)} {
		f := &fakeSession{}
		if err := ApplyOne(ctx, f, st, base.Idempotency{}, 5, build("x")); err != nil {
			t.Fatal(err)
		}
		if len(f.execs) != 1 || f.execs[0].Values[2] != int64(5) || len(f.batches) != 0 {
			t.Errorf("%v: execs %v, batches %v; want the statement alone, at 5", st, f.execs, f.batches)
		}
	}
	var calls int
	f := &fakeSession{}
	if err := ApplyOne(ctx, f, countingStrategy{&calls}, base.Idempotency{}, 5, build("x")); err != nil || calls != 1 || len(f.execs) != 1 {
		t.Errorf("own strategy: err %v, %d calls, execs %v; want it called once", err, calls, f.execs)
	}
	f = &fakeSession{}
	id := base.Idempotency{Key: "req-1"}
	for _, ts := range []int64{10, 20} {
		if err := ApplyOne(ctx, f, nil, id, ts, build("x")); err != nil {
			t.Fatal(err)
		}
	}
	if len(f.execs) != 1 || f.execs[0].Values[2] != int64(10) {
		t.Errorf("with a key: statements sent %v, want the first call's alone, at 10", f.execs)
	}
	if err := ApplyOne(ctx, f, nil, id, 30, build("y")); !errors.Is(err, cqlgen.ErrIdempotencyConflict) {
		t.Errorf("another payload: err = %v", err)
	}
}

// A command that cannot tell whether it applied, but records how to learn
// it, leaves the key unsettled: the next call runs it again with that
// record (at the first claim's timestamp), and what it then reports is
// the key's outcome. A record-less unknown is final, as before.
func TestIdempotentSettleHandsTheRecordToTheNextCall(t *testing.T) {
	f := &fakeSession{}
	ctx := context.Background()
	id := base.Idempotency{Key: "k"}
	var got [][]byte
	var tss []int64
	outcomes := []error{
		&cqlgen.OutcomeUnknownError{Key: "k", Err: errors.New("lost"), Settle: []byte("w1")},
		&cqlgen.OutcomeUnknownError{Key: "k", Err: errors.New("still lost"), Settle: []byte("w1")},
		nil,
	}
	fn := func(_ context.Context, ts int64, settle []byte) error {
		got = append(got, settle)
		tss = append(tss, ts)
		return outcomes[len(got)-1]
	}
	for i, want := range []bool{true, true, false} {
		err := IdempotentSettle(ctx, f, id, int64(100+i), payloadA, fn)
		if errors.Is(err, cqlgen.ErrOutcomeUnknown) != want {
			t.Fatalf("call %d: %v, want outcome unknown: %v", i, err, want)
		}
		if i == 0 && f.row("k")["state"] != stateUnsettled {
			t.Errorf("record %v after an unknown outcome with a record, want unsettled", f.row("k"))
		}
	}
	if len(got) != 3 || got[0] != nil || string(got[1]) != "w1" || string(got[2]) != "w1" {
		t.Errorf("fn ran with records %q, want none, then w1 twice", got)
	}
	if tss[1] != 100 || tss[2] != 100 {
		t.Errorf("runs at %v, want the first claim's timestamp, 100, throughout", tss)
	}
	if row := f.row("k"); row["state"] != stateDone || row["outcome"] != "" {
		t.Errorf("record %v, want done", row)
	}
	// Settled: later calls replay it without running fn.
	if err := IdempotentSettle(ctx, f, id, 200, payloadA, fn); err != nil || len(got) != 3 {
		t.Errorf("after settling: %v, %d runs", err, len(got))
	}
	// Without a record, "unknown" is the final word.
	n := 0
	final := func(context.Context, int64, []byte) error {
		n++
		return &cqlgen.OutcomeUnknownError{Key: "f", Err: errors.New("lost")}
	}
	for range 2 {
		if err := IdempotentSettle(ctx, f, base.Idempotency{Key: "f"}, 1, payloadA, final); !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
			t.Errorf("a final unknown: %v", err)
		}
	}
	if n != 1 {
		t.Errorf("fn ran %d times under a final unknown, want 1", n)
	}
}
