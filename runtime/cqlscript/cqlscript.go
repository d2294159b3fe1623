// Package cqlscript splits a CQL script, such as a schema.cql that cqlgen
// generated or a hand-written migration file, into statements that a driver
// can execute one by one.
//
// Drivers execute one statement per request and have no notion of a
// script; cqlsh's splitter is not available to Go programs. Split reads the
// script with CQL's own lexical rules, so that a semicolon ends a statement
// only where Cassandra would see one:
//
//   - not inside a string ('x; y'), which may span lines and hold a quote
//     doubled;
//   - not inside a quoted name ("a;b") or a $$ ... $$ string, such as the
//     body of a user-defined function;
//   - not inside a comment: -- and // to the end of the line, /* ... */
//     across lines;
//   - not between BEGIN [UNLOGGED | COUNTER] BATCH and APPLY BATCH: a batch
//     is one statement, semicolons between its inner statements included.
//
// Several statements may share a line. Comments before a statement, and
// comments standing alone on a line inside one, are left out of its text;
// a comment after code on a line stays (Cassandra skips it).
package cqlscript

import "github.com/cqlgen/cqlgen/internal/cqlsplit"

// Statement is one statement of a script.
type Statement struct {
	Line int    // the 1-based line the statement's first word is on
	Text string // the statement, without its final semicolon
}

// Split returns the statements of script in order. Empty statements (a
// lone semicolon) are dropped; a last statement without a semicolon is
// kept, and so is one whose string or comment never ends: Cassandra, not
// Split, reports it.
func Split(script string) []Statement {
	parts := cqlsplit.Split(script)
	if parts == nil {
		return nil
	}
	stmts := make([]Statement, len(parts))
	for i, p := range parts {
		stmts[i] = Statement(p)
	}
	return stmts
}

// IsCreateKeyspace reports whether s creates a keyspace.
func (s Statement) IsCreateKeyspace() bool { return cqlsplit.Statement(s).IsCreateKeyspace() }

// Use returns the keyspace of a USE statement. Drivers refuse USE on a
// shared session, so a program applying a script switches sessions instead.
func (s Statement) Use() (keyspace string, ok bool) { return cqlsplit.Statement(s).Use() }
