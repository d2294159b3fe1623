// Package cqlobserve is the hook for metrics, tracing and logs of
// generated repositories: a Session made by a driver adapter reports every
// attempt of every statement to the Observer of its
// cqlgen.SessionOptions, and every repository call to one that is also a
// CallObserver. The modules observe/otelcqlgen and observe/promcqlgen are
// ready-made observers; ErrorType names an error for a label.
package cqlobserve

import (
	"context"
	"errors"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"

	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// Observer sees every attempt of every statement a Session made by a
// driver adapter runs: one Observation per statement per attempt, including the
// attempts that failed and were retried, and the statements the runtime
// refused before sending (Attempt 0). It is the hook for metrics, tracing
// and logs; the runtime itself logs nothing. An Observer that is also a
// CallObserver sees every repository call as well.
//
// Observe is called on the goroutine running the statement, between the
// attempt and the next one, so it should be quick and must not block; it
// may be called from many goroutines at once.
type Observer interface {
	Observe(ctx context.Context, o Observation)
}

// Observation is one attempt of one statement. It never carries the
// statement's bound values, which may be secrets; its error does not
// either (see cqlgen.NotAppliedError).
type Observation struct {
	Table   string                  // the statement's Table
	Pattern string                  // the statement's Pattern
	Kind    cqldriver.StatementKind // read, write, conditional write or pre-read
	// Attempt counts from 1; 0 means the runtime refused the statement
	// before sending it (a batch over the size limit, an unlogged batch
	// across partitions), or found no node to send it to, and Err says
	// why.
	Attempt int
	Latency time.Duration // of this attempt alone, backoff excluded
	Err     error         // nil when the attempt succeeded
	// Host is the node that coordinated the attempt, as host:port; ""
	// when no node did (Attempt 0).
	Host string
	// Keyspace is the keyspace the statement ran in: the one it names, or
	// the session's; "" when the driver did not report one.
	Keyspace string
	// Rows is the number of rows the attempt returned: one page of a read,
	// the one row of a conditional write; 0 for other writes, batches and
	// failed attempts.
	Rows int
	// Batch is the number of statements in the batch this statement was
	// sent in; 0 when it was sent alone. Every statement of a batch is
	// observed, with the batch's latency and error.
	Batch int
	// BatchBytes is the estimated size of the batch's bound values
	// (as Cassandra measures a batch); BatchWarn is set when it is over
	// cqlgen.SessionOptions.BatchWarnBytes, Cassandra's batch_size_warn_threshold
	// by default: the batch was sent, but it is larger than it should be.
	BatchBytes int
	BatchWarn  bool // see BatchBytes
	// Call is the repository call the statement was part of, when the
	// session's Observer is a CallObserver; zero otherwise, and for
	// statements run outside a repository method.
	Call Call
}

// Call names one call of a generated repository method: the entity the
// repository keeps and the method, e.g. {Track Insert} or
// {Message ConversationMessages}.
type Call struct {
	Entity string
	Method string
}

// String is Entity.Method, e.g. Track.Insert.
func (c Call) String() string { return c.Entity + "." + c.Method }

// CallObservation is one repository call, observed when it returns.
type CallObservation struct {
	Call
	Latency time.Duration // from the start of the call to its return
	Err     error         // what the call returned
	// Attempts counts the attempts of every statement the call made,
	// retries and pre-reads included; a batch counts once per attempt.
	Attempts int
	// Retries counts those that were not a statement's first attempt.
	Retries int
	// Rows is the number of rows the call's reads returned (Kind Read;
	// pre-reads are not counted).
	Rows int
}

// CallObserver is an Observer that also sees each call of a generated
// repository method: one Insert, Update, Modify, read of a pattern, and so
// on, however many statements and attempts it takes.
//
// StartCall is called as the method starts, with the context it was
// given; the context it returns is the one every statement of the call
// runs with, and so the one Observe and EndCall get: a tracer opens the
// call's span there, and the attempts' spans become its children. EndCall
// is called once, when the method returns. Both are called on the
// caller's goroutine; Observe may be called from others while a call
// reads concurrently.
type CallObserver interface {
	Observer
	StartCall(ctx context.Context, c Call) context.Context
	EndCall(ctx context.Context, o CallObservation)
}

// CallOf names the repository call ctx belongs to: the context an
// Observer's Observe receives during a call; false outside one.
func CallOf(ctx context.Context) (Call, bool) {
	st := base.CallOf(ctx)
	if st == nil {
		return Call{}, false
	}
	return Call{Entity: st.Entity, Method: st.Method}, true
}

// ErrorType names what kind of error err is, in a few words fit for a
// metric label or a span attribute, whose values must stay few: "" for
// nil; a cqlgen error by its sentinel (not_found, not_applied,
// retries_exhausted, ...); a context's end (canceled, deadline_exceeded);
// a gocql error by its class (read_timeout, write_timeout, unavailable,
// request_error, no_connections, connection); anything else "other".
// It never carries text from the error, which may quote values.
func ErrorType(err error) string {
	if err == nil {
		return ""
	}
	for _, s := range errorTypes {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	if d := (*cqldriver.DriverError)(nil); errors.As(err, &d) {
		switch {
		case d.Kind == cqldriver.ErrorServer && d.Code == cqldriver.CodeReadTimeout:
			return "read_timeout"
		case d.Kind == cqldriver.ErrorServer && d.Code == cqldriver.CodeWriteTimeout:
			return "write_timeout"
		case d.Kind == cqldriver.ErrorServer && d.Code == cqldriver.CodeUnavailable:
			return "unavailable"
		case d.Kind == cqldriver.ErrorServer:
			return "request_error"
		case d.Kind == cqldriver.ErrorNoResponse:
			return "client_timeout"
		case d.Kind == cqldriver.ErrorNoConnections:
			return "no_connections"
		case d.Kind == cqldriver.ErrorConnection:
			return "connection"
		}
	}
	if cqldriver.IsConnError(err) {
		return "connection"
	}
	return "other"
}

// errorTypes are ErrorType's sentinels, in the order they are tried: the
// ones that wrap others first.
var errorTypes = []struct {
	err  error
	name string
}{
	{context.Canceled, "canceled"},
	{context.DeadlineExceeded, "deadline_exceeded"},
	{base.ErrRetriesExhausted, "retries_exhausted"},
	{base.ErrOutcomeUnknown, "outcome_unknown"},
	{base.ErrFenced, "fenced"},
	{base.ErrDeletedSince, "deleted_since"},
	{base.ErrNotFound, "not_found"},
	{base.ErrNotApplied, "not_applied"},
	{base.ErrCounterNotApplied, "counter_not_applied"},
	{base.ErrIdempotencyConflict, "idempotency_conflict"},
	{base.ErrInvalidCursor, "invalid_cursor"},
	{base.ErrEmptyKey, "empty_key"},
	{base.ErrBatchTooLarge, "batch_too_large"},
	{base.ErrCrossPartition, "cross_partition"},
	{base.ErrKeyChanged, "key_changed"},
	{base.ErrNilEntity, "nil_entity"},
	{base.ErrInvalidLimit, "invalid_limit"},
	{base.ErrInvalidOption, "invalid_option"},
}
