package cqltest

import (
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// A statement is parsed and checked against the schema once per CQL text,
// as a driver prepares it once; what that yields is a prepared statement.

type stmtKind uint8

const (
	selectStmt stmtKind = iota
	insertStmt
	updateStmt
	deleteStmt
)

func (k stmtKind) String() string {
	return [...]string{"SELECT", "INSERT", "UPDATE", "DELETE"}[k]
}

// term is a value in a statement: a bind marker or a literal.
type term struct {
	mark int    // index among the statement's markers; -1 for a literal
	lit  []byte // a literal, marshaled for its receiver; nil is null
}

// marker is what a bind marker is bound to: its type, and a name for
// messages (a column, or [ttl], [timestamp] and [per_partition_limit]).
type marker struct {
	typ  *cqlType
	name string
}

type assignment struct {
	col *column
	val term
	// op is '+' or '-' for a counter update, c = c + ? or c = c - ?;
	// 0 for c = ?.
	op byte
}

type condition struct {
	col *column
	op  string // = != < <= > >=
	val term
}

type bound struct {
	val       term
	inclusive bool
	// more are a multi-column bound's values after the first, one for
	// each clustering column that follows: (a, b) > (?, ?).
	more []term
	// multi tells a multi-column bound, even of one column: (a) > (?).
	multi bool
	// args are, for a bound on the token, the partition key values of
	// token(?, ...) in place of val.
	args []term
}

// selector is one selected expression: a column, or writetime(column) or
// ttl(column).
type selector struct {
	col  *column
	fn   string   // "", "writetime", "ttl" or a similarity function (see ann.go)
	arg  term     // a similarity function's vector
	name string   // the result column's name
	typ  *cqlType // the result column's type
}

var (
	bigintType = (&cqlType{kind: cqldriver.TypeBigInt, name: "bigint"}).complete()
	intType    = (&cqlType{kind: cqldriver.TypeInt, name: "int"}).complete()
)

type prepared struct {
	kind  stmtKind
	table *table
	marks []marker

	// The key: equality on every partition key column, by position, then
	// on a prefix of the clustering columns; a SELECT may bound the next
	// clustering column (at most one bound on each side).
	pkEq []term
	// pkIn marks a SELECT whose last partition key term is IN ?: a list
	// of values, each a partition read in turn.
	pkIn         bool
	ckEq         []term
	lower, upper *bound
	// filters are the restrictions on indexed columns that are not in
	// the key (a SELECT through an index): each row must satisfy them.
	filters []condition

	// A scan of the table (SELECT only), in token order: no key, and at
	// most one bound on each side of token(partition key).
	scan               bool
	tokLower, tokUpper *bound

	// SELECT
	sel []selector
	// ann is ORDER BY column ANN OF vector: the rows nearest the vector
	// (see ann.go).
	ann *annOrder
	// perPartition is the value of PER PARTITION LIMIT, if any: the most
	// rows each partition returns.
	perPartition *term
	// limit is the value of LIMIT, if any, on a SELECT of one partition:
	// the most rows it returns.
	limit *term

	// INSERT, UPDATE, DELETE
	sets                  []assignment // INSERT values, UPDATE SET
	delCols               []*column    // DELETE c, ... FROM
	ttl, ts               *term
	ifNotExists, ifExists bool
	conds                 []condition
	// staticRow is set for a write of static columns alone, which names
	// no clustering key.
	staticRow bool
}

func (st *prepared) conditional() bool { return st.ifNotExists || st.ifExists || len(st.conds) > 0 }

// staticOnly tells whether a write touches static columns only, which then
// needs no clustering key.
func (st *prepared) staticOnly() bool {
	n := 0
	for _, a := range st.sets {
		if a.col.kind != staticCol {
			return false
		}
		n++
	}
	for _, c := range st.delCols {
		if c.kind != staticCol {
			return false
		}
		n++
	}
	for _, c := range st.conds {
		if c.col.kind != staticCol {
			return false
		}
	}
	return n > 0
}

// prepare parses one statement (an optional final semicolon allowed) and
// checks it against the schema.
func prepare(cql string, tables map[string]*table) (*prepared, error) {
	st, err := parseStatement(cql, tables)
	return st, asStatementError(err)
}

func parseStatement(cql string, tables map[string]*table) (*prepared, error) {
	p, err := newParser(cql)
	if err != nil {
		return nil, err
	}
	st := &prepared{}
	switch {
	case p.keyword("select"):
		st.kind = selectStmt
		err = parseSelect(p, tables, st)
	case p.keywords("insert", "into"):
		st.kind = insertStmt
		err = parseInsert(p, tables, st)
	case p.keyword("update"):
		st.kind = updateStmt
		err = parseUpdate(p, tables, st)
	case p.keyword("delete"):
		st.kind = deleteStmt
		err = parseDelete(p, tables, st)
	case p.keyword("begin"):
		return nil, unsupportedf("BEGIN BATCH in a statement (use Session.Batch)")
	default:
		return nil, p.errorf("expecting SELECT, INSERT, UPDATE or DELETE")
	}
	if err != nil {
		return nil, err
	}
	p.punct(";")
	if p.peek().kind != tEOF {
		return nil, p.errorf("expecting the end of the statement")
	}
	return st, nil
}

func lookupTable(p *parser, tables map[string]*table) (*table, error) {
	name, err := p.name("a table name")
	if err != nil {
		return nil, err
	}
	t, ok := tables[name]
	if !ok {
		return nil, invalidf("unconfigured table %s", name)
	}
	return t, nil
}
