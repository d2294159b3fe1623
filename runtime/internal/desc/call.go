package desc

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/engine"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Observed is a repository call under way, as Observe starts it.
type Observed struct{ call engine.ActiveCall }

// Observe starts the record of a repository call (StartCall): a
// session's CallObserver gets one record of the whole call, and its
// tracer a span the statements' attempts run under. *ctx becomes the
// call's context. Generated methods begin with
//
//	defer cqlgenimpl.Observe(&ctx, r.s, "Entity", "Method").End(&err)
//
// which starts the call at once and ends it with the error returned.
func Observe(ctx *context.Context, s cqlgen.Session, entity, method string) Observed {
	var o Observed
	*ctx, o.call = engine.StartCall(*ctx, s, entity, method)
	return o
}

// End ends the call with the error *err holds.
func (o Observed) End(err *error) { o.call.End(*err) }

// EmptyKey is the error of a key value that is empty: a row with an empty
// partition key value can be neither written nor found.
func EmptyKey(table, column string) error {
	return &cqlgen.InputError{Err: cqlgen.ErrEmptyKey, Table: table, Name: column}
}

// pacer is the limiter of cqlgen.WithScanRate: it spaces requests out so
// that the rows they ask for keep to a rate, across the goroutines of
// every scan of a repository. The first request goes at once; each then
// pushes the next one's turn back by its rows' share of a second.
type pacer struct {
	mu    sync.Mutex
	next  time.Time
	rate  int // rows a second
	Now   func() time.Time
	Sleep func(context.Context, time.Duration) error
}

func NewPacer(rowsPerSecond int) *pacer {
	return &pacer{rate: rowsPerSecond, Now: time.Now, Sleep: engine.Sleep}
}

// WaitN waits for n rows' turn.
func (p *pacer) WaitN(ctx context.Context, n int) error {
	p.mu.Lock()
	now := p.Now()
	if p.next.Before(now) {
		p.next = now
	}
	at := p.next
	p.next = at.Add(time.Duration(float64(n) * float64(time.Second) / float64(p.rate)))
	p.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		return p.Sleep(ctx, d)
	}
	return ctx.Err()
}

// NewOptions applies opts over the defaults, for a repository.
func NewOptions(opts ...cqlgen.Option) cqlgen.Options {
	o := cqlgen.Options{Strategy: cqlgen.LoggedBatch, Clock: time.Now, Concurrency: cqlgen.DefaultReadConcurrency, MaxLimit: cqlgen.DefaultMaxLimit, Attempts: 8,
		LandWindow: cqlgen.DefaultLandWindow}
	for _, f := range opts {
		f(&o)
	}
	if o.ScanRate > 0 && o.ScanLimiter == nil {
		o.ScanLimiter = NewPacer(o.ScanRate)
	}
	return o
}

// CallOptions returns a repository's options with one call's applied.
func CallOptions(o cqlgen.Options, opts []cqlgen.Option) cqlgen.Options {
	if len(opts) > 0 {
		o = withOptions(o, opts)
	}
	if o.Idempotency.SerialConsistency == 0 {
		o.Idempotency.SerialConsistency = o.SerialConsistency
	}
	return o
}

// withOptions applies opts to o. An Option takes a pointer, which moves
// the Options it is given to the heap: kept apart from CallOptions, that
// allocation is paid only by calls that pass options.
func withOptions(o cqlgen.Options, opts []cqlgen.Option) cqlgen.Options {
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Now is the options' clock as a write timestamp, in microseconds.
func Now(o cqlgen.Options) int64 { return o.Clock().UnixMicro() }

// FirstError prefers a real cause over the cancellations it triggered.
func FirstError(errs []error) error {
	var canceled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			canceled = err
		default:
			return err
		}
	}
	return canceled
}
