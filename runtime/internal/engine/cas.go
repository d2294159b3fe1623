package engine

import (
	"context"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// CASResult is the outcome of a conditional write (a lightweight
// transaction: INSERT ... IF NOT EXISTS, UPDATE ... IF col = ?, DELETE ...
// IF EXISTS).
type CASResult struct {
	// Applied tells whether the condition held and the write applied.
	Applied bool
	// Table is the statement's table.
	Table string
	// Current holds, when the write did not apply, what the row holds now,
	// by column name, as gocql decodes each CQL type: the whole row for IF
	// NOT EXISTS, the columns of the condition for IF col = ?. It is empty
	// when the write applied, and when a row that did not exist was the
	// reason (IF EXISTS, or IF col = ? on a missing row).
	Current map[string]any
}

// Err is nil when the write applied, and otherwise a *NotAppliedError
// carrying the current values, so a caller that only cares whether it
// applied can write `if err := res.Err(); err != nil`.
func (r CASResult) Err() error {
	if r.Applied {
		return nil
	}
	return &cqlgen.NotAppliedError{Table: r.Table, Current: r.Current}
}

// CAS runs a conditional write and reports whether it applied, with the
// row's current values when it did not. q's statement must be of kind
// Conditional: the session then runs its Paxos phase at the serial
// consistency (SessionOptions.SerialConsistency, LocalSerial by default)
// and its commit at the write consistency. An error means the outcome is
// unknown, never that the write did not apply: the session does not
// retry a conditional write after a timeout, because the second attempt
// could find the first one's write and report "not applied" for a write
// that applied.
func CAS(ctx context.Context, s cqldriver.Session, q cqldriver.Query) (CASResult, error) {
	if q.Stmt.Kind != cqldriver.Conditional {
		return CASResult{}, fmt.Errorf("cqlgen: %s: CAS of %s, which is not a conditional statement", q.Stmt.Table, q.Stmt.Pattern)
	}
	m, ok := s.(cqldriver.MapCASer)
	if !ok {
		return CASResult{}, fmt.Errorf("cqlgen: CAS needs a session that implements MapCASer; %T does not", s)
	}
	current := make(map[string]any)
	applied, err := m.ExecCASMap(ctx, q, current)
	if err != nil {
		return CASResult{}, err
	}
	res := CASResult{Applied: applied, Table: q.Stmt.Table}
	if !applied {
		res.Current = current
	}
	return res, nil
}
