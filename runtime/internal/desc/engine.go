package desc

import (
	"context"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
	"github.com/cqlgen/cqlgen/runtime/internal/bucket"
	"github.com/cqlgen/cqlgen/runtime/internal/engine"
)

// The engine's names this package runs on, from runtime/internal/engine
// and runtime/internal/bucket, under the names generated code knows them
// by in cqlgenimpl (whose engine.go and bucket.go re-export the same).

// ActiveCall is a repository call in progress, begun by StartCall.
type ActiveCall = engine.ActiveCall

// StartCall begins a repository call (engine.StartCall).
func StartCall(ctx context.Context, s cqlgen.Session, entity, method string) (context.Context, ActiveCall) {
	return engine.StartCall(ctx, s, entity, method)
}

// Apply writes the statements build returns with st (engine.Apply).
func Apply(ctx context.Context, s cqlgen.Session, st cqlgen.Strategy, id base.Idempotency, ts int64, build func(ts int64) []cqldriver.Query) error {
	return engine.Apply(ctx, s, st, id, ts, build)
}

// ApplyOne is Apply for a write of one statement.
func ApplyOne(ctx context.Context, s cqlgen.Session, st cqlgen.Strategy, id base.Idempotency, ts int64, build func(ts int64) cqldriver.Query) error {
	return engine.ApplyOne(ctx, s, st, id, ts, build)
}

// Idempotent runs fn at most once per id.Key within id.TTL.
func Idempotent(ctx context.Context, s cqlgen.Session, id base.Idempotency, ts int64, payload []byte, fn func(ctx context.Context, ts int64) error) error {
	return engine.Idempotent(ctx, s, id, ts, payload, fn)
}

// IdempotentSettle is Idempotent for a command whose record carries what
// settles it.
func IdempotentSettle(ctx context.Context, s cqlgen.Session, id base.Idempotency, ts int64, payload []byte, fn func(ctx context.Context, ts int64, settle []byte) error) error {
	return engine.IdempotentSettle(ctx, s, id, ts, payload, fn)
}

// PayloadHash fingerprints the statements of a command, for Idempotent.
func PayloadHash(qs []cqldriver.Query) []byte { return engine.PayloadHash(qs) }

// CAS runs a conditional write (engine.CAS).
func CAS(ctx context.Context, s cqlgen.Session, q cqldriver.Query) (engine.CASResult, error) {
	return engine.CAS(ctx, s, q)
}

// ExecCounter runs a counter update, which is never retried.
func ExecCounter(ctx context.Context, s cqlgen.Session, q cqldriver.Query) error {
	return engine.ExecCounter(ctx, s, q)
}

// TimeBuckets is the time buckets of a bucket tag.
type TimeBuckets = bucket.TimeBuckets

// backoff paces the runtime's own retries, as SessionOptions' retry
// fields pace a session's.
type Backoff engine.RetryOptions

// Wait sleeps for the backoff after the given number of failed attempts
// (from 1), or until ctx ends.
func (b Backoff) Wait(ctx context.Context, failed int) error {
	return engine.Wait(ctx, engine.RetryOptions(b), failed)
}
