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

func TestAdaptiveRisesWhileLatencyHolds(t *testing.T) {
	a, f := newFake(8, 256)
	ms := time.Millisecond
	run(t, a, f, 16, ms, 10*ms, nil)
	if got := a.current(); got != 16 {
		t.Fatalf("after a window at the baseline latency: bound %d, want 16 (doubled)", got)
	}
	run(t, a, f, 16+32+64+128, ms, 10*ms, nil)
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

func TestAdaptiveFallsWhenLatencyClimbs(t *testing.T) {
	a, f := newFake(8, 256)
	ms := time.Millisecond
	run(t, a, f, 16, ms, 10*ms, nil) // baseline 1ms; bound 16
	run(t, a, f, 16, ms, 10*ms, nil) // bound 32
	// Three times the latency, no more writes a second: a queue.
	run(t, a, f, 32, 3*ms, 10*ms, nil)
	if got := a.current(); got != 24 {
		t.Fatalf("after a window at 3x the latency: bound %d, want 24 (a quarter off)", got)
	}
	// Past the first decrease it rises by an eighth a window.
	run(t, a, f, 24, ms, 10*ms, nil)
	if got := a.current(); got != 27 {
		t.Fatalf("bound %d, want 27", got)
	}
	// The latency climbs, but the rows a second with it: still rising.
	run(t, a, f, 27, 3*ms, 4*ms, nil)
	if got := a.current(); got != 30 {
		t.Fatalf("bound %d, want 30: more writes a second at a higher latency", got)
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
		n := max(a.current(), 16)
		run(t, a, f, n, ms, 100*ms/time.Duration(n), nil)
	}
	if got := a.current(); got != 64 {
		t.Fatalf("bound %d, want 64", got)
	}
	low, rose := a.current(), false
	for range 60 {
		before := a.current()
		// Five times the latency; the writes a second follow the
		// bound, as they do when the cluster is the limit.
		n := max(before, 16)
		run(t, a, f, n, 5*ms, 100*ms/time.Duration(n), nil)
		low = min(low, a.current())
		if a.current() > before && low == 8 {
			rose = true
		}
	}
	if low != 8 {
		t.Fatalf("the bound fell to %d under a slower cluster; want the start, 8", low)
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
