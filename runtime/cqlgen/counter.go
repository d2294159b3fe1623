package cqlgen

import (
	"context"
	"errors"
	"fmt"
)

// ErrCounterNotApplied: a counter update failed in a way that proves it
// was not applied (it never reached a replica). A *CounterError says so;
// when the outcome is unknown it matches ErrOutcomeUnknown instead.
var ErrCounterNotApplied = errors.New("cqlgen: counter update not applied")

// CounterError reports a counter update that returned an error. A counter
// update adds to what is there, so sending it twice would count twice:
// it is sent once and never retried, by cqlgen or by gocql, and an error
// says which of two things happened.
//
//   - Unknown: the update may or may not have applied (a timeout, a write
//     failure on a replica, a connection lost after the request went out,
//     the context ended while it was in flight). errors.Is(err,
//     ErrOutcomeUnknown) is true. Sending it again may count it twice;
//     not sending it may count it never. Only the caller can choose.
//   - Otherwise it did not apply (no connection, the cluster refused it as
//     unavailable, overloaded or bootstrapping, or an invalid request):
//     errors.Is(err, ErrCounterNotApplied) is true, and it is safe to send
//     again.
type CounterError struct {
	Table   string // the counter table
	Unknown bool   // the update may have applied
	Err     error  // what the session returned
}

// Error names the table, the outcome and the cause.
func (e *CounterError) Error() string {
	if e.Unknown {
		return fmt.Sprintf("cqlgen: counter update of %s: outcome unknown, it may or may not have applied (not retried: a counter update is not idempotent): %v", e.Table, e.Err)
	}
	return fmt.Sprintf("cqlgen: counter update of %s: not applied: %v", e.Table, e.Err)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true of an update that may
// have applied, and errors.Is(err, ErrCounterNotApplied) of one that did
// not.
func (e *CounterError) Is(target error) bool {
	if e.Unknown {
		return target == ErrOutcomeUnknown
	}
	return target == ErrCounterNotApplied
}

// Unwrap gives the session's error.
func (e *CounterError) Unwrap() error { return e.Err }

// ExecCounter runs a counter update (UPDATE ... SET c = c + ?) once. Its
// statement must be a write marked not idempotent, so that the session
// never sends it twice; any other is refused with an *OptionError before
// anything is sent. Every error the session returns comes back as a
// *CounterError that says whether the update may have applied.
func ExecCounter(ctx context.Context, s Session, q Query) error {
	if q.Stmt == nil || q.Stmt.Idempotent || q.Stmt.Kind != Write {
		return &OptionError{Option: "Statement", Reason: "a counter update must be a plain write marked not idempotent, so that it is never retried"}
	}
	err := s.Exec(ctx, q)
	if err == nil {
		return nil
	}
	return &CounterError{Table: q.Stmt.Table, Unknown: !neverApplied(err), Err: err}
}

// neverApplied reports an error that proves a write never reached a
// replica: nothing was sent, or the coordinator refused it before
// sending it on. Anything else, including anything not recognised, may
// have applied.
func neverApplied(err error) bool {
	var retries *RetriesExhaustedError
	switch {
	case errors.As(err, &retries):
		// Only idempotent statements are retried; a counter update never
		// gets here, but if it did its attempts could have applied.
		return false
	case errors.Is(err, ErrNoConnections), errors.Is(err, ErrEmptyKey), errors.Is(err, ErrInvalidOption):
		return true
	}
	if code, ok := ServerCode(err); ok {
		switch code {
		case CodeUnavailable, CodeOverloaded, CodeBootstrapping,
			CodeSyntax, CodeInvalid, CodeUnauthorized, CodeConfig,
			CodeCredentials, CodeProtocol, CodeUnprepared:
			return true
		}
	}
	return false
}
