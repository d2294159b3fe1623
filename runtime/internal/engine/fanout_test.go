package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

func queries(n int) []cqldriver.Query {
	qs := make([]cqldriver.Query, n)
	for i := range qs {
		qs[i] = cqldriver.Query{Stmt: &cqldriver.Statement{CQL: "INSERT", Table: "t", Kind: cqldriver.Write, Idempotent: true}, Values: []any{i}}
	}
	return qs
}

func TestBatchStrategies(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		st             cqlgen.Strategy
		n              int
		execs, batches int
		kind           cqldriver.BatchKind
	}{
		{cqlgen.LoggedBatch, 0, 0, 0, 0},
		{cqlgen.LoggedBatch, 1, 1, 0, 0},
		{cqlgen.LoggedBatch, 3, 0, 1, cqldriver.Logged},
		{cqlgen.UnloggedBatch, 3, 0, 1, cqldriver.Unlogged},
	} {
		f := &fakeSession{}
		if err := c.st.Apply(ctx, f, queries(c.n)); err != nil {
			t.Fatal(err)
		}
		if len(f.execs) != c.execs || len(f.batches) != c.batches || (c.batches > 0 && (f.kinds[0] != c.kind || len(f.batches[0]) != c.n)) {
			t.Errorf("%s of %d: %d execs, batches %v of kinds %v", c.st.Name(), c.n, len(f.execs), f.batches, f.kinds)
		}
	}
}

func TestConcurrentIsBoundedAndWaitsForAll(t *testing.T) {
	var running, peak, done atomic.Int32
	boom := errors.New("boom")
	f := &fakeSession{exec: func(ctx context.Context, q cqldriver.Query) error {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		running.Add(-1)
		done.Add(1)
		if q.Values[0] == 3 {
			return boom
		}
		return nil
	}}
	err := cqlgen.Concurrent(3).Apply(context.Background(), f, queries(20))
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want the failing statement's", err)
	}
	if done.Load() != 20 {
		t.Errorf("%d statements ran, want all 20 despite the failure", done.Load())
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("at most %d ran at once, want 3", p)
	}
}

func TestConcurrentStopsStartingWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
	f := &fakeSession{exec: func(ctx context.Context, q cqldriver.Query) error {
		started.Add(1)
		cancel()
		<-ctx.Done()
		return ctx.Err()
	}}
	err := cqlgen.Concurrent(1).Apply(ctx, f, queries(5))
	if !errors.Is(err, context.Canceled) || started.Load() != 1 {
		t.Errorf("err %v, %d started; want canceled, 1 started", err, started.Load())
	}
}

func TestConcurrentDefaultLimit(t *testing.T) {
	if got := cqlgen.Concurrent(0).Name(); got != "concurrent(8)" {
		t.Errorf("Concurrent(0) is %s", got)
	}
}
