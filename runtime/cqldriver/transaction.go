package cqldriver

import (
	"strings"
	"unicode"
)

// PrepareHint is the trailing comment PreparedCQL adds to a transaction.
// It ends in a newline: Cassandra's lexer refuses a line comment that
// the end of the text cuts short ("mismatched character '<EOF>'").
const PrepareHint = "\n-- cqlgen: prepared as a batch\n"

// PreparedCQL returns cql in a form that both gocql drivers (gocql v1.7.0
// and the ASF's v2) prepare and bind values to.
//
// Those drivers decide from the text alone whether to prepare a statement:
// by its first word (SELECT, INSERT, UPDATE, DELETE), or, for a statement
// that begins with BEGIN, by its last word (BATCH, as in APPLY BATCH). A
// Cassandra 6 transaction, BEGIN TRANSACTION … COMMIT TRANSACTION, ends in
// TRANSACTION, so they send it as a plain query without its values, and
// Cassandra answers "Invalid amount of bind variables". Neither driver
// offers another way to ask for preparing. The comment PrepareHint's last
// word is "batch": the drivers then prepare the statement, Cassandra
// ignores the comment, and the values are bound.
//
// Every other statement is returned as it is, unchanged: the result is
// cql itself, so only transactions cost an allocation.
func PreparedCQL(cql string) string {
	stmt := strings.TrimFunc(cql, func(r rune) bool { return unicode.IsSpace(r) || r == ';' })
	n := strings.IndexFunc(stmt, unicode.IsSpace)
	if n < 0 || !strings.EqualFold(stmt[:n], "begin") {
		return cql
	}
	if last := stmt[strings.LastIndexFunc(stmt, unicode.IsSpace)+1:]; strings.EqualFold(last, "batch") {
		return cql
	}
	return cql + PrepareHint
}
