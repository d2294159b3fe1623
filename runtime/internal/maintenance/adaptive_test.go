package maintenance

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// fake is a clock that moves only when told.
type fake struct{ now time.Time }

func (f *fake) time() time.Time { return f.now }

// newFake is an adaptive bound on a fake clock.
func newFake(start, hi int) (*adaptive, *fake) {
	a := newAdaptive(start, hi)
	f := &fake{now: time.Unix(0, 0)}
	a.clock, a.since = f.time, f.now
	return a, f
}

// run completes n writes of latency d, one every `every` on the clock:
// 1/every writes a second.
func run(t *testing.T, a *adaptive, f *fake, n int, d, every time.Duration, err error) {
	t.Helper()
	for range n {
		if e := a.acquire(context.Background()); e != nil {
			t.Fatal(e)
		}
		if f != nil {
			f.now = f.now.Add(every)
		}
		a.release(d, err)
	}
}

// window completes one window of writes (adaptiveWindow long) of
// latency d, at perSecond writes a second.
func window(t *testing.T, a *adaptive, f *fake, d time.Duration, perSecond int) {
	t.Helper()
	n := perSecond * int(adaptiveWindow) / int(time.Second)
	if n < max(a.current(), 16) {
		t.Fatalf("a window of %d writes at a bound of %d: too few to close it", n, a.current())
	}
	run(t, a, f, n, d, (adaptiveWindow+time.Duration(n)-1)/time.Duration(n), nil)
}

// full is the writes a second of a bound of n writes in flight, each of
// latency d: a pipeline kept full (Little's law).
func full(n int, d time.Duration) int { return int(float64(n) / d.Seconds()) }

func TestAdaptiveRisesWhileLatencyHolds(t *testing.T) {
	a, f := newFake(8, 256)
	ms := time.Millisecond
	window(t, a, f, ms, full(8, ms))
	if got := a.current(); got != 16 {
		t.Fatalf("after a window at the baseline latency: bound %d, want 16 (doubled)", got)
	}
	for range 4 {
		window(t, a, f, ms, full(a.current(), ms))
	}
	if got := a.current(); got != 256 {
		t.Fatalf("bound %d, want the cap 256", got)
	}
}

// A window is at least adaptiveWindow long: writes that come back
// together (one instant on the clock) close none.
func TestAdaptiveWindowIsTimed(t *testing.T) {
	a, f := newFake(8, 256)
	run(t, a, f, 1000, time.Millisecond, 0, nil)
	if got := a.current(); got != 8 {
		t.Fatalf("after 1,000 writes in one instant: bound %d, want 8 (no window closed)", got)
	}
	f.now = f.now.Add(adaptiveWindow)
	run(t, a, f, 1, time.Millisecond, 0, nil)
	if got := a.current(); got != 16 {
		t.Fatalf("bound %d, want 16", got)
	}
}

// Writes the scan holds back (fewer in flight than half the bound) do not
// raise it: it would let a burst through later.
func TestAdaptiveHoldsWhileTheScanIsTheLimit(t *testing.T) {
	a, f := newFake(8, 256)
	ms := time.Millisecond
	for range 10 {
		window(t, a, f, ms, full(2, ms)) // 2 writes in flight
	}
	if got := a.current(); got != 8 {
		t.Fatalf("bound %d with 2 writes in flight; want 8, held", got)
	}
}

func TestAdaptiveFallsWhenLatencyClimbs(t *testing.T) {
	a, f := newFake(8, 256)
	ms := time.Millisecond
	window(t, a, f, ms, full(8, ms))  // baseline 1ms; bound 16
	window(t, a, f, ms, full(16, ms)) // bound 32
	// The rows a second have held at 16,000 a while.
	a.avg = float64(full(16, ms))
	// Three times the latency, no more writes a second: one window is
	// a stall, and the bound holds.
	window(t, a, f, 3*ms, full(16, ms))
	if got := a.current(); got != 32 {
		t.Fatalf("after one window at 3x the latency: bound %d, want 32 (held)", got)
	}
	// Two are a queue: an eighth off.
	window(t, a, f, 3*ms, full(16, ms))
	if got := a.current(); got != 28 {
		t.Fatalf("after two windows at 3x the latency: bound %d, want 28", got)
	}
	// Past the first decrease it rises by an eighth a window.
	window(t, a, f, ms, full(28, ms))
	if got := a.current(); got != 31 {
		t.Fatalf("bound %d, want 31", got)
	}
	// The latency climbs, but the rows a second with it: still rising.
	window(t, a, f, 3*ms, full(28, ms)*2)
	if got := a.current(); got != 34 {
		t.Fatalf("bound %d, want 34: more writes a second at a higher latency", got)
	}
}

// A cluster that turns slower for all its clients (another workload,
// a compaction) raises the latency whatever the bound. The bound falls,
// but latency alone takes it no lower than the start, and the baseline
// rises until the latency holds again: then the bound rises. Halving on
// each window against the latency of the best one, the first version
// fell to 1 and stayed near it.
func TestAdaptiveSlowerClusterDoesNotCollapse(t *testing.T) {
	a, f := newFake(8, 256)
	ms := time.Millisecond
	for range 3 {
		window(t, a, f, ms, full(a.current(), ms))
	}
	if got := a.current(); got != 64 {
		t.Fatalf("bound %d, want 64", got)
	}
	low, rose := a.current(), false
	for range 200 {
		before := a.current()
		// Five times the latency; the writes a second follow the
		// bound, as they do when the cluster is the limit.
		window(t, a, f, 5*ms, full(before, 5*ms))
		low = min(low, a.current())
		if low < 64 && a.current() > before {
			rose = true
		}
	}
	if low < 8 || low == 64 {
		t.Fatalf("the bound went down to %d under a slower cluster; want it to fall, and no lower than the start, 8", low)
	}
	if !rose {
		t.Fatalf("the bound stayed at %d: the baseline never caught up with the slower cluster", a.current())
	}
}

func TestAdaptiveHalvesWhenPushedBack(t *testing.T) {
	a := newAdaptive(64, 256)
	overloaded := &cqldriver.DriverError{Kind: cqldriver.ErrorServer, Code: cqldriver.CodeOverloaded, Err: errors.New("overloaded")}
	run(t, a, nil, 1, time.Millisecond, 0, overloaded)
	if got := a.current(); got != 32 {
		t.Fatalf("after an overloaded reply: bound %d, want 32", got)
	}
	timeout := &cqldriver.DriverError{Kind: cqldriver.ErrorServer, Code: cqldriver.CodeWriteTimeout, Err: errors.New("timeout")}
	run(t, a, nil, 1, time.Millisecond, 0, timeout)
	invalid := &cqldriver.DriverError{Kind: cqldriver.ErrorServer, Code: cqldriver.CodeInvalid, Err: errors.New("invalid")}
	run(t, a, nil, 1, time.Millisecond, 0, invalid)
	if got := a.current(); got != 16 {
		t.Fatalf("bound %d, want 16: a timeout halves, an invalid query does not", got)
	}
	run(t, a, nil, 10, time.Millisecond, 0, overloaded)
	if got := a.current(); got != 1 {
		t.Fatalf("bound %d, want the floor 1", got)
	}
}

// Writes in flight together that come back pushed back tell of one
// moment of the cluster's: they halve the bound once, not once each. A
// write sent after that decrease and pushed back halves it again.
func TestAdaptiveHalvesOnceForWritesInFlightTogether(t *testing.T) {
	a := newAdaptive(64, 256)
	ctx := context.Background()
	overloaded := &cqldriver.DriverError{Kind: cqldriver.ErrorServer, Code: cqldriver.CodeOverloaded, Err: errors.New("overloaded")}
	for range 10 {
		if err := a.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		a.release(time.Millisecond, overloaded)
	}
	if got := a.current(); got != 32 {
		t.Fatalf("after 10 writes in flight together pushed back: bound %d, want 32 (halved once)", got)
	}
	run(t, a, nil, 1, time.Millisecond, 0, overloaded)
	if got := a.current(); got != 16 {
		t.Fatalf("a write sent after the decrease, pushed back: bound %d, want 16", got)
	}
}

func TestAdaptiveBoundsInFlight(t *testing.T) {
	a := newAdaptive(2, 2)
	ctx := context.Background()
	for range 2 {
		if err := a.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan error, 1)
	go func() { got <- a.acquire(ctx) }()
	select {
	case err := <-got:
		t.Fatalf("a third write got a slot of two (err %v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	a.release(time.Millisecond, nil)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// A cancelled wait ends at the next release.
	cctx, cancel := context.WithCancel(ctx)
	go func() { got <- a.acquire(cctx) }()
	cancel()
	a.release(time.Millisecond, nil)
	a.acquire(ctx) // the slot freed, taken back so the waiter must give up
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
}

// The in-place FNV-1a of hash and bucket is hash/fnv's, so that a
// bucket is the one the key names.
func TestRowHashIsFNV(t *testing.T) {
	r := &row{cols: [][]byte{[]byte("board-1"), {0, 0, 0, 7}, nil, []byte("x")}, nkey: 2}
	h := fnv.New64a()
	h.Write([]byte(r.key()))
	if got, want := r.bucket(4096), int(h.Sum64()%4096); got != want {
		t.Fatalf("bucket %d, want %d", got, want)
	}
	h = fnv.New64a()
	for _, c := range r.cols {
		if c == nil {
			h.Write([]byte{0xff})
			continue
		}
		h.Write(binary.AppendUvarint(nil, uint64(len(c))))
		h.Write(c)
	}
	if got, want := r.hash(), h.Sum64(); got != want {
		t.Fatalf("hash %x, want %x", got, want)
	}
}
