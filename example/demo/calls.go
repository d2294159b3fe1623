package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// tally is a cqlobserve.CallObserver that adds up what each repository method
// cost: calls, statement attempts (pre-reads apart), rows and time. It is
// what an application hands its session to see a repository call as one
// thing; observe/otelcqlgen and observe/promcqlgen do the same for
// OpenTelemetry and Prometheus.
type tally struct {
	mu    sync.Mutex
	calls map[cqlobserve.Call]*callTotals
}

type callTotals struct {
	n, attempts, preReads, rows, failed int
	hosts                               map[string]bool
	time                                time.Duration
}

func newTally() *tally { return &tally{calls: map[cqlobserve.Call]*callTotals{}} }

func (t *tally) of(c cqlobserve.Call) *callTotals {
	ct := t.calls[c]
	if ct == nil {
		ct = &callTotals{hosts: map[string]bool{}}
		t.calls[c] = ct
	}
	return ct
}

// Observe counts the pre-reads of writes, and the nodes that served each
// method.
func (t *tally) Observe(_ context.Context, o cqlobserve.Observation) {
	if o.Call == (cqlobserve.Call{}) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	ct := t.of(o.Call)
	if o.Kind == cqlgen.PreRead {
		ct.preReads++
	}
	if o.Host != "" {
		ct.hosts[o.Host] = true
	}
}

// StartCall leaves the context as it is: a tracer would open a span here.
func (t *tally) StartCall(ctx context.Context, _ cqlobserve.Call) context.Context { return ctx }

// EndCall adds a call up.
func (t *tally) EndCall(_ context.Context, o cqlobserve.CallObservation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ct := t.of(o.Call)
	ct.n++
	ct.attempts += o.Attempts
	ct.rows += o.Rows
	ct.time += o.Latency
	if o.Err != nil && cqlobserve.ErrorType(o.Err) != "not_found" {
		ct.failed++
	}
}

// print shows one line per repository method, in name order.
func (t *tally) print() {
	t.mu.Lock()
	defer t.mu.Unlock()
	calls := make([]cqlobserve.Call, 0, len(t.calls))
	for c := range t.calls {
		calls = append(calls, c)
	}
	slices.SortFunc(calls, func(a, b cqlobserve.Call) int {
		if a.Entity != b.Entity {
			return cmpString(a.Entity, b.Entity)
		}
		return cmpString(a.Method, b.Method)
	})
	fmt.Println("== what the repository calls cost (a cqlobserve.CallObserver's tally)")
	fmt.Printf("  %-36s %5s %9s %9s %6s %6s %10s\n", "call", "calls", "attempts", "pre-reads", "rows", "failed", "mean")
	for _, c := range calls {
		ct := t.calls[c]
		if ct.n == 0 {
			continue
		}
		fmt.Printf("  %-36s %5d %9d %9d %6d %6d %10s\n", c, ct.n, ct.attempts, ct.preReads, ct.rows, ct.failed,
			(ct.time / time.Duration(ct.n)).Round(10*time.Microsecond))
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
