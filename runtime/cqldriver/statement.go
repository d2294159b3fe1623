package cqldriver

import "strconv"

// StatementKind tells what a statement does, which decides its consistency
// level and whether it may be retried.
type StatementKind uint8

const (
	// Read is a SELECT.
	Read StatementKind = iota
	// Write is an INSERT, UPDATE or DELETE without a condition.
	Write
	// Conditional is a lightweight transaction (IF ...): it runs Paxos at
	// the serial consistency level and reports whether it applied.
	Conditional
	// PreRead is a SELECT a write makes before writing: the version and
	// pending record of an entity's canonical row that Insert, Update,
	// Delete and Modify read first under the write protocol. It runs like
	// a Read; observers see it apart, so that a pattern's read latency and
	// rows are its readers' alone.
	PreRead
	// SerialRead is a SELECT at the serial consistency level (the Paxos
	// phase's): it completes any Paxos round in flight on its row, or
	// fences it off, before it reads, so what it sees of a conditional
	// write is final. A write reads its canonical row so when its
	// conditional write's reply was lost. Observers see it apart.
	SerialRead
)

// String is the kind's name: read, write, conditional, pre-read or
// serial-read.
func (k StatementKind) String() string {
	switch k {
	case Read:
		return "read"
	case Write:
		return "write"
	case Conditional:
		return "conditional"
	case PreRead:
		return "pre-read"
	case SerialRead:
		return "serial-read"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Statement is one CQL statement with what the session needs to run it.
// Generated code declares each one's text as a constant and wraps it once,
// at package initialisation, so the driver prepares it once; values are
// bound positionally at run time.
type Statement struct {
	CQL        string        // the statement, with ? placeholders
	Table      string        // the table it touches
	Pattern    string        // the access pattern or operation, for observers
	Kind       StatementKind // read, write or conditional write
	Idempotent bool          // safe to retry: same effect however often it runs
}

// Unpaged, as a Query's PageSize, turns paging off: the reply holds every
// row the read selects. Only a read whose rows are bounded otherwise (a
// LIMIT, a PER PARTITION LIMIT over a known number of partitions) asks
// for it.
const Unpaged = -1

// Query is a statement with its bound values and paging state.
type Query struct {
	// Stmt is the statement to run; it must not be nil.
	Stmt      *Statement
	Values    []any  // bound to the statement's placeholders, in order
	PageSize  int    // rows per page for reads; 0 leaves the session default, Unpaged reads every row in one reply
	PageState []byte // where the previous page ended; nil for the first page
	// SerialConsistency overrides the session's for a conditional
	// statement; 0 keeps the session's (SessionOptions).
	SerialConsistency Consistency
}
