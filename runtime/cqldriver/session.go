package cqldriver

import "context"

// Session is everything generated code asks of Cassandra. It is
// deliberately narrow: generated repositories depend on it alone.
// cqladapter.NewSession makes one from a Driver, which a driver adapter
// supplies (gocqlv1.NewSession and gocqlv2.NewSession do both at once).
type Session interface {
	// Exec runs a statement that returns no rows.
	Exec(ctx context.Context, q Query) error
	// Iter runs a read and iterates over one page of its rows.
	Iter(ctx context.Context, q Query) Iter
	// ExecCAS runs a conditional write. When it did not apply, dest
	// receives the row's current values.
	ExecCAS(ctx context.Context, q Query, dest ...any) (applied bool, err error)
	// Batch runs statements as one batch, logged or not.
	Batch(ctx context.Context, kind BatchKind, qs []Query) error
}

// Iter iterates over the rows of one page.
type Iter interface {
	// Scan copies the next row into dest, positionally, and reports
	// whether there was one.
	Scan(dest ...any) bool
	// PageState is where the next page starts; empty after the last page.
	PageState() []byte
	// Close ends the iteration and returns its error, if any.
	Close() error
}

// BatchKind is the kind of a batch.
type BatchKind uint8

const (
	// Logged batches go through the batch log: once Cassandra accepts one,
	// every statement in it eventually applies, though a reader may see
	// some applied before others.
	Logged BatchKind = iota
	// Unlogged batches skip the batch log: cheap, and atomic only when
	// every statement hits the same partition.
	Unlogged
)

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
