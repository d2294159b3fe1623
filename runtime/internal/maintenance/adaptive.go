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
// answers. It measures windows of writes (as many as the bound, at least
// 16, and at least adaptiveWindow long): their rows a second and mean
// latency. From the start (32: what a hand-written copy runs) it doubles
// while each window holds, then rises by an eighth (at least one) a
// window; it rises only while the writes in flight (rows a second times
// latency) fill half the bound at least: fewer, and the scan is what
// holds the writes back. It halves when a write comes back timed out,
// overloaded or unavailable (once for the writes that were in flight
// together: their replies tell of one moment of the cluster's). It falls
// by an eighth, but not below the start, when the latency stays past
// twice the baseline (the lowest window's latency) for two windows in a
// row without 10% more rows a second than the windows before (smoothed):
// more writes at once only queue. The baseline rises by 1% a window
// (doubles in 7 seconds), so that a cluster
// slower since (or busier with other work) is measured afresh. The rate
// bound (-rate) is applied before a write asks for a slot, so the bound
// never lifts a run past it.
type adaptive struct {
	mu       sync.Mutex
	cond     *sync.Cond
	limit    int
	inflight int
	lo, hi   int
	start    int  // the bound latency alone does not take it below
	slow     bool // past the start: rise by an eighth, not double
	// grace counts the writes still in flight at the last decrease: sent
	// under the bound before it, their pushbacks do not halve it again.
	grace int

	n     int           // writes in the window
	sum   time.Duration // their latency
	since time.Time     // the window's start
	avg   float64       // the windows' writes a second, smoothed
	// strikes counts the windows in a row whose latency climbed
	// without more rows a second.
	strikes int
	base    time.Duration // the lowest window's mean latency, rising
	clock   func() time.Time
}

const (
	adaptiveStart  = 32
	adaptiveMax    = 256
	adaptiveWindow = 100 * time.Millisecond
	adaptiveAging  = 1.01
)

func newAdaptive(start, hi int) *adaptive {
	a := &adaptive{limit: min(start, hi), start: min(start, hi), lo: 1, hi: hi, since: time.Now(), clock: time.Now}
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
	elapsed := now.Sub(a.since)
	if a.n < max(a.limit, 16) || elapsed < adaptiveWindow {
		return
	}
	mean := a.sum / time.Duration(a.n)
	rate := float64(a.n) / elapsed.Seconds()
	a.n, a.sum, a.since = 0, 0, now
	if a.base == 0 || mean < a.base {
		a.base = mean
	}
	holds := mean <= 2*a.base || (a.avg > 0 && rate > a.avg*1.1)
	if holds {
		a.strikes = 0
	} else {
		a.strikes++
	}
	switch {
	case holds && rate*mean.Seconds() >= float64(a.limit)/2:
		// The latency holds, or more rows a second came with it,
		// with the writes in flight (by Little's law) filling half
		// the bound at least. Fewer, and the scan is what holds
		// the writes back: a higher bound would change nothing
		// now, and let a burst through later.
		a.increase()
	case holds:
	case a.strikes >= 2:
		// A queue, which lasts; one slow window is a stall of the
		// cluster's or of this process's, which fewer writes do not
		// shorten.
		a.slow = true
		// Not below the start, nor up to it from a bound pushed
		// below it.
		a.limit = max(min(a.limit, a.start), a.limit-max(1, a.limit/8))
	}
	if a.avg == 0 {
		a.avg = rate
	}
	a.avg += (rate - a.avg) / 4
	a.base = time.Duration(float64(a.base) * adaptiveAging)
}

func (a *adaptive) increase() {
	if a.slow {
		a.limit += max(1, a.limit/8)
	} else {
		a.limit *= 2
	}
	a.limit = min(a.limit, a.hi)
}

// decrease halves the bound: the cluster pushed back.
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
