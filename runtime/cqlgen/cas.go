package cqlgen

import (
	"context"
	"fmt"
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
	return &NotAppliedError{Table: r.Table, Current: r.Current}
}

// MapCASer is implemented by sessions that can return the current values of
// a conditional write that did not apply by column name, which CAS needs;
// the sessions NewSession makes do. Positional scanning (Session.ExecCAS)
// cannot serve IF NOT EXISTS safely: Cassandra then returns the whole row,
// whose columns depend on the table, not on the statement.
type MapCASer interface {
	// ExecCASMap runs a conditional write; when it did not apply, current
	// receives the row's values by column name.
	ExecCASMap(ctx context.Context, q Query, current map[string]any) (applied bool, err error)
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
func CAS(ctx context.Context, s Session, q Query) (CASResult, error) {
	if q.Stmt.Kind != Conditional {
		return CASResult{}, fmt.Errorf("cqlgen: %s: CAS of %s, which is not a conditional statement", q.Stmt.Table, q.Stmt.Pattern)
	}
	m, ok := s.(MapCASer)
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

// Inserted is the outcome of an InsertIfAbsent (INSERT ... IF NOT EXISTS)
// of an entity stored in one table.
type Inserted[T any] struct {
	// Applied tells that the entity is now the one the call wrote: this
	// call created it, or found it already holding exactly what the call
	// writes (Again).
	Applied bool
	// Again tells that the row was already there, holding every value the
	// call writes, so the call did not write it: most likely the call's
	// own earlier attempt, whose reply was lost, and then not a conflict.
	// It cannot tell that attempt from another writer's identical insert;
	// when that matters, send the call with cqlgen.WithIdempotencyKey,
	// whose record tells them apart.
	Again bool
	// Current is the row found, when the call did not create it: the
	// other entity's when Applied is false, the identical one when Again
	// is true; nil when the call created it.
	Current *T
}
