package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// ExecCounter runs a counter update (UPDATE ... SET c = c + ?) once. Its
// statement must be a write marked not idempotent, so that the session
// never sends it twice; any other is refused with an *InputError (ErrInvalidOption) before
// anything is sent. Every error the session returns comes back as a
// counterError, which says whether the update may have applied
// (cqlgen.ErrCounterNotApplied).
func ExecCounter(ctx context.Context, s cqldriver.Session, q cqldriver.Query) error {
	if q.Stmt == nil || q.Stmt.Idempotent || q.Stmt.Kind != cqldriver.Write {
		return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "Statement", Reason: "a counter update must be a plain write marked not idempotent, so that it is never retried"}
	}
	err := s.Exec(ctx, q)
	if err == nil {
		return nil
	}
	return &counterError{table: q.Stmt.Table, unknown: !neverApplied(err), err: err}
}

// counterError is a counter update's error: errors.Is finds
// cqlgen.ErrOutcomeUnknown in it when the update may have applied,
// cqlgen.ErrCounterNotApplied when it did not, and the session's error.
type counterError struct {
	table   string // the counter table
	unknown bool   // the update may have applied
	err     error  // what the session returned
}

func (e *counterError) Error() string {
	if e.unknown {
		return fmt.Sprintf("cqlgen: counter update of %s: outcome unknown, it may or may not have applied (not retried: a counter update is not idempotent): %v", e.table, e.err)
	}
	return fmt.Sprintf("cqlgen: counter update of %s: not applied: %v", e.table, e.err)
}

func (e *counterError) Unwrap() []error {
	if e.unknown {
		return []error{cqlgen.ErrOutcomeUnknown, e.err}
	}
	return []error{cqlgen.ErrCounterNotApplied, e.err}
}

// neverApplied reports an error that proves a write never reached a
// replica: nothing was sent, or the coordinator refused it before
// sending it on. Anything else, including anything not recognised, may
// have applied.
func neverApplied(err error) bool {
	var retries *cqlgen.RetriesExhaustedError
	switch {
	case errors.As(err, &retries):
		// A statement that is not idempotent is sent again only after a
		// pass that sent nothing (no connection to any host): when its
		// last pass sent nothing too, none of them did.
		return ranNothing(retries.Last)
	case errors.Is(err, cqldriver.ErrNoConnections), errors.Is(err, cqlgen.ErrEmptyKey), errors.Is(err, cqlgen.ErrInvalidOption):
		return true
	}
	if code, ok := cqldriver.ServerCode(err); ok {
		switch code {
		case cqldriver.CodeUnavailable, cqldriver.CodeOverloaded, cqldriver.CodeBootstrapping,
			cqldriver.CodeSyntax, cqldriver.CodeInvalid, cqldriver.CodeUnauthorized, cqldriver.CodeConfig,
			cqldriver.CodeCredentials, cqldriver.CodeProtocol, cqldriver.CodeUnprepared:
			return true
		}
	}
	return false
}
