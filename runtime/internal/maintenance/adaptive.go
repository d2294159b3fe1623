package maintenance

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// adaptive bounds the writes in flight of a backfill or an adoption,
// across all its ranges, and moves the bound with what the cluster
// answers (additive increase, multiplicative decrease). It measures
// windows of writes (as many as the bound, at least 16): their rows a
// second and mean latency. From a start it doubles while each window
// holds, then rises by one a window. It halves when a write comes back
// timed out, overloaded or unavailable (once for the writes that were in
// flight together: their replies tell of one moment of the cluster's),
// or when the latency climbs past twice the latency of the best window
// (the most rows a second, by 5% at least) without more rows a second:
// more writes at once only queue. The best decays by 1% each window, so
// that a cluster slower since (or busier with other work) is measured
// afresh. The rate bound (-rate) is applied before a write asks for a
// slot, so the bound never lifts a run past it.
type adaptive struct {
	mu       sync.Mutex
	cond     *sync.Cond
	limit    int
	inflight int
	lo, hi   int
	slow     bool // past the start: rise by one, not double
	// grace counts the writes still in flight at the last decrease: sent
	// under the bound before it, their pushbacks do not halve it again.
	grace int

	n     int           // writes in the window
	sum   time.Duration // their latency
	since time.Time     // the window's start
	best  float64       // the best window's writes a second, decaying
	ref   time.Duration // its mean latency
	clock func() time.Time
}

const (
	adaptiveStart = 8
	adaptiveMax   = 256
	adaptiveDecay = 0.99
)

func newAdaptive(start, hi int) *adaptive {
	a := &adaptive{limit: min(start, hi), lo: 1, hi: hi, since: time.Now(), clock: time.Now}
	a.cond = sync.NewCond(&a.mu)
	return a
}

// acquire waits for a slot. A slot in use is always given back (release),
// so a wait ends; a cancelled ctx ends it at the next release.
func (a *adaptive) acquire(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.inflight >= a.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		a.cond.Wait()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	a.inflight++
	return nil
}

// release gives a slot back with the latency and outcome of its write.
func (a *adaptive) release(d time.Duration, err error) {
	now := a.clock()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inflight--
	defer a.cond.Broadcast()
	sentBefore := a.grace > 0
	if sentBefore {
		a.grace--
	}
	if pushedBack(err) {
		if !sentBefore {
			a.decrease(now)
		}
		return
	}
	if err != nil {
		return
	}
	a.n++
	a.sum += d
	if a.n < max(a.limit, 16) {
		return
	}
	mean := a.sum / time.Duration(a.n)
	rate := float64(a.n) / max(now.Sub(a.since).Seconds(), 1e-9)
	a.n, a.sum, a.since = 0, 0, now
	switch {
	case a.best == 0 || rate > a.best*1.05:
		a.best, a.ref = rate, mean
		a.increase()
	case mean > 2*a.ref:
		a.decrease(now)
	default:
		a.increase()
	}
	a.best *= adaptiveDecay
}

func (a *adaptive) increase() {
	if a.slow {
		a.limit++
	} else {
		a.limit *= 2
	}
	a.limit = min(a.limit, a.hi)
}

func (a *adaptive) decrease(now time.Time) {
	a.slow = true
	a.limit = max(a.lo, a.limit/2)
	a.grace = a.inflight
	a.n, a.sum, a.since = 0, 0, now
}

// current is the bound now.
func (a *adaptive) current() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit
}

// pushedBack reports whether err is the cluster saying it cannot keep
// up: a timeout, overloaded or unavailable.
func pushedBack(err error) bool {
	var d *cqldriver.DriverError
	if err == nil || !errors.As(err, &d) {
		return false
	}
	switch d.Kind {
	case cqldriver.ErrorNoResponse:
		return true
	case cqldriver.ErrorServer:
		switch d.Code {
		case cqldriver.CodeUnavailable, cqldriver.CodeOverloaded, cqldriver.CodeWriteTimeout, cqldriver.CodeReadTimeout:
			return true
		}
	}
	return false
}
