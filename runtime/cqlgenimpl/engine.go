package cqlgenimpl

import (
	"context"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
	"github.com/cqlgen/cqlgen/runtime/internal/engine"
)

// The engine that generated code runs on, from runtime/internal/engine:
// this file is its one door, as protobuf-go's protoimpl is for
// generated messages. Each name is the engine's own, documented there.

// Idempotency names a command that must apply at most once (see
// cqlgen.WithIdempotencyKey).
type Idempotency = base.Idempotency

// Idempotency defaults.
const (
	DefaultIdempotencyTTL   = base.DefaultIdempotencyTTL
	DefaultIdempotencyLease = base.DefaultIdempotencyLease
)

// IdempotencyTable records idempotency keys; IdempotencyTableCQL creates
// it (every generated schema.cql ends with it).
const (
	IdempotencyTable    = engine.IdempotencyTable
	IdempotencyTableCQL = engine.IdempotencyTableCQL
)

// ActiveCall is a repository call in progress, begun by StartCall.
type ActiveCall = engine.ActiveCall

// StartCall begins a repository call: its observer (a CallObserver) sees
// it, and every statement it runs counts towards it. End it with the
// call's error.
func StartCall(ctx context.Context, s cqlgen.Session, entity, method string) (context.Context, ActiveCall) {
	return engine.StartCall(ctx, s, entity, method)
}

// Apply writes the statements build returns with st, at most once per
// idempotency key when id has one.
func Apply(ctx context.Context, s cqlgen.Session, st cqlgen.Strategy, id Idempotency, ts int64, build func(ts int64) []cqldriver.Query) error {
	return engine.Apply(ctx, s, st, id, ts, build)
}

// ApplyOne is Apply for a write of one statement.
func ApplyOne(ctx context.Context, s cqlgen.Session, st cqlgen.Strategy, id Idempotency, ts int64, build func(ts int64) cqldriver.Query) error {
	return engine.ApplyOne(ctx, s, st, id, ts, build)
}

// Idempotent runs fn at most once per id.Key within id.TTL.
func Idempotent(ctx context.Context, s cqlgen.Session, id Idempotency, ts int64, payload []byte, fn func(ctx context.Context, ts int64) error) error {
	return engine.Idempotent(ctx, s, id, ts, payload, fn)
}

// IdempotentSettle is Idempotent for a command whose record carries what
// settles it.
func IdempotentSettle(ctx context.Context, s cqlgen.Session, id Idempotency, ts int64, payload []byte, fn func(ctx context.Context, ts int64, settle []byte) error) error {
	return engine.IdempotentSettle(ctx, s, id, ts, payload, fn)
}

// PayloadHash fingerprints the statements of a command, for Idempotent.
func PayloadHash(qs []cqldriver.Query) []byte { return engine.PayloadHash(qs) }

// CASResult is the outcome of CAS.
type CASResult = engine.CASResult

// CAS runs a conditional write and returns whether it applied, with the
// row's current values when it did not.
func CAS(ctx context.Context, s cqlgen.Session, q cqldriver.Query) (CASResult, error) {
	return engine.CAS(ctx, s, q)
}

// ExecCounter runs a counter update, which is never retried.
func ExecCounter(ctx context.Context, s cqlgen.Session, q cqldriver.Query) error {
	return engine.ExecCounter(ctx, s, q)
}

// Retryable reports whether an attempt that failed with err may be
// followed by another, and whether on another node.
func Retryable(err error, kind cqldriver.StatementKind) (retry, next bool) {
	return engine.Retryable(err, kind)
}

// EstimateBatchBytes estimates the size of a batch as Cassandra measures
// it against its batch size thresholds.
func EstimateBatchBytes(qs []cqldriver.Query) int { return engine.EstimateBatchBytes(qs) }

// Timestamp is the write timestamp of t: microseconds since the epoch.
func Timestamp(t time.Time) int64 { return engine.Timestamp(t) }

// backoff paces the runtime's own retries, as SessionOptions' retry
// fields pace a session's.
type backoff engine.RetryOptions

// Wait sleeps for the backoff after the given number of failed attempts
// (from 1), or until ctx ends.
func (b backoff) Wait(ctx context.Context, failed int) error {
	return engine.Wait(ctx, engine.RetryOptions(b), failed)
}

// Query is a statement with its bound values, as a Session runs it.
type Query = cqldriver.Query

// Iter iterates over the rows of one page of a read.
type Iter = cqldriver.Iter
