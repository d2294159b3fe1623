package cqltest

import (
	"math/big"
	"strconv"
	"strings"

	"github.com/gocql/gocql"
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
// messages (a column, or [ttl] and [timestamp]).
type marker struct {
	typ  *cqlType
	name string
}

type assignment struct {
	col *column
	val term
}

type condition struct {
	col *column
	op  string // = != < <= > >=
	val term
}

type bound struct {
	val       term
	inclusive bool
}

// selector is one selected expression: a column, or writetime(column) or
// ttl(column).
type selector struct {
	col  *column
	fn   string // "", "writetime" or "ttl"
	name string // the result column's name
	info gocql.TypeInfo
}

var (
	bigintType = &cqlType{kind: gocql.TypeBigInt, name: "bigint", info: gocql.NewNativeType(protoVersion, gocql.TypeBigInt, "")}
	intType    = &cqlType{kind: gocql.TypeInt, name: "int", info: gocql.NewNativeType(protoVersion, gocql.TypeInt, "")}
)

type prepared struct {
	kind  stmtKind
	table *table
	marks []marker

	// The key: equality on every partition key column, by position, then
	// on a prefix of the clustering columns; a SELECT may bound the next
	// clustering column (at most one bound on each side).
	pkEq         []term
	ckEq         []term
	lower, upper *bound

	// SELECT
	sel []selector

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

// parseTerm reads a value for a receiver of type typ named name.
func parseTerm(p *parser, st *prepared, typ *cqlType, name string) (term, error) {
	t := p.peek()
	switch {
	case t.kind == tMark:
		p.next()
		st.marks = append(st.marks, marker{typ: typ, name: name})
		return term{mark: len(st.marks) - 1}, nil
	case t.kind == tPunct && t.text == ":":
		return term{}, unsupportedf("named bind markers (:%s)", p.toks[p.i+1].text)
	case t.kind == tPunct && (t.text == "{" || t.text == "[" || t.text == "("):
		return term{}, unsupportedf("collection and tuple literals")
	}
	neg := p.punct("-")
	t = p.next()
	b, err := literal(t, neg, typ, name)
	if err != nil {
		p.i--
		if _, ok := err.(*requestError); !ok {
			return term{}, p.errorf("expecting a value")
		}
		return term{}, err
	}
	return term{mark: -1, lit: b}, nil
}

// literal converts a constant of the statement text for its receiver.
// Strings, integers, floats, booleans and null are understood.
func literal(t token, neg bool, typ *cqlType, name string) ([]byte, error) {
	invalid := func(what string) error {
		return invalidf("Invalid %s constant (%s) for \"%s\" of type %s", what, t.text, name, typ.name)
	}
	switch t.kind {
	case tString:
		if neg {
			return nil, invalid("STRING")
		}
		switch typ.kind {
		case gocql.TypeVarchar, gocql.TypeAscii:
			b := []byte(t.text)
			if err := typ.validate(b); err != nil {
				return nil, invalidf("%v", err)
			}
			return b, nil
		}
		return nil, invalid("STRING")
	case tNumber:
		text := t.text
		if neg {
			text = "-" + text
		}
		switch typ.kind {
		case gocql.TypeTinyInt, gocql.TypeSmallInt, gocql.TypeInt, gocql.TypeBigInt:
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return nil, invalid("INTEGER")
			}
			b, err := gocql.Marshal(typ.info, n)
			if err != nil {
				return nil, invalidf("%v", err)
			}
			return b, nil
		case gocql.TypeVarint:
			n, ok := new(big.Int).SetString(text, 10)
			if !ok {
				return nil, invalid("INTEGER")
			}
			return gocql.Marshal(typ.info, n)
		case gocql.TypeFloat, gocql.TypeDouble:
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return nil, invalid("FLOAT")
			}
			if typ.kind == gocql.TypeFloat {
				return gocql.Marshal(typ.info, float32(f))
			}
			return gocql.Marshal(typ.info, f)
		}
		return nil, invalid("INTEGER")
	case tIdent:
		switch {
		case t.text == "null" && !neg:
			return nil, nil
		case (t.text == "true" || t.text == "false") && !neg:
			if typ.kind != gocql.TypeBoolean {
				return nil, invalid("BOOLEAN")
			}
			return gocql.Marshal(typ.info, t.text == "true")
		}
	}
	return nil, errNotLiteral
}

var errNotLiteral = &unsupportedError{what: "this kind of value"}

// parseUsing reads USING TTL x AND TIMESTAMP y, in either order, either
// alone.
func parseUsing(p *parser, st *prepared) error {
	for {
		switch {
		case p.keyword("ttl"):
			if st.ttl != nil {
				return invalidf("Multiple definitions of TTL")
			}
			t, err := parseTerm(p, st, intType, "[ttl]")
			if err != nil {
				return err
			}
			st.ttl = &t
		case p.keyword("timestamp"):
			if st.ts != nil {
				return invalidf("Multiple definitions of TIMESTAMP")
			}
			t, err := parseTerm(p, st, bigintType, "[timestamp]")
			if err != nil {
				return err
			}
			st.ts = &t
		default:
			return p.errorf("expecting TTL or TIMESTAMP")
		}
		if !p.keyword("and") {
			return nil
		}
	}
}

// relation is one restriction of a WHERE clause.
type relation struct {
	col *column
	op  string
	val term
}

func parseWhere(p *parser, st *prepared) ([]relation, error) {
	if err := p.expectKeyword("where"); err != nil {
		return nil, err
	}
	var rels []relation
	for {
		if p.peek().kind == tPunct && p.peek().text == "(" {
			return nil, unsupportedf("multi-column relations")
		}
		if p.keyword("token") {
			return nil, unsupportedf("token() restrictions")
		}
		name, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		col, err := st.table.column(name)
		if err != nil {
			return nil, err
		}
		op, err := parseOperator(p, "relation")
		if err != nil {
			return nil, err
		}
		val, err := parseTerm(p, st, col.typ, col.name)
		if err != nil {
			return nil, err
		}
		rels = append(rels, relation{col, op, val})
		if !p.keyword("and") {
			return rels, nil
		}
	}
}

func parseOperator(p *parser, what string) (string, error) {
	t := p.peek()
	if t.kind == tPunct {
		switch t.text {
		case "=", "<", "<=", ">", ">=":
			p.next()
			return t.text, nil
		case "!=":
			if what == "condition" {
				p.next()
				return t.text, nil
			}
			return "", invalidf("Unsupported \"!=\" relation: %s", excerpt(p.src, t.pos))
		}
	}
	if t.kind == tIdent {
		switch t.text {
		case "in", "contains", "like", "is":
			return "", unsupportedf("the %s operator", strings.ToUpper(t.text))
		}
	}
	return "", p.errorf("expecting an operator")
}

// keyRestrictions sorts the relations of a WHERE clause into the key of
// st, with Cassandra's rules for each kind of statement.
func keyRestrictions(st *prepared, rels []relation) error {
	t := st.table
	byCol := map[*column][]relation{}
	var order []*column
	for _, r := range rels {
		if byCol[r.col] == nil {
			order = append(order, r.col)
		}
		byCol[r.col] = append(byCol[r.col], r)
	}
	for _, c := range order {
		rs := byCol[c]
		if len(rs) > 1 {
			for _, r := range rs {
				if r.op == "=" {
					return invalidf("%s cannot be restricted by more than one relation if it includes an Equal", c.name)
				}
			}
		}
		if !c.isKey() {
			if st.kind == selectStmt {
				return invalidf("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")
			}
			return invalidf("Non PRIMARY KEY columns found in where clause: %s ", c.name)
		}
	}

	// The partition key: equality on every column.
	var missing []string
	for _, c := range t.pk {
		rs := byCol[c]
		if len(rs) == 0 {
			missing = append(missing, c.name)
			continue
		}
		if rs[0].op != "=" {
			return invalidf("Only EQ and IN relation are supported on the partition key (unless you use the token() function or allow filtering)")
		}
		st.pkEq = append(st.pkEq, rs[0].val)
	}
	if len(missing) > 0 {
		switch {
		case st.kind != selectStmt:
			return invalidf("Some partition key parts are missing: %s", strings.Join(missing, ", "))
		case len(missing) < len(t.pk):
			return invalidf("Partition key parts: %s must be restricted as other parts are", strings.Join(missing, ", "))
		case len(rels) > 0:
			return invalidf("Cannot execute this query as it might involve data filtering and thus may have unpredictable performance. If you want to execute this query despite the performance unpredictability, use ALLOW FILTERING")
		}
		return unsupportedf("a SELECT that does not restrict the partition key (a table scan)")
	}

	// The clustering columns: equality on a prefix, then (SELECT only)
	// bounds on the next column.
	var slice *column
	var unrestricted *column
	for _, c := range t.ck {
		rs := byCol[c]
		switch {
		case len(rs) == 0:
			if unrestricted == nil {
				unrestricted = c
			}
			continue
		case slice != nil:
			return invalidf("Clustering column \"%s\" cannot be restricted (preceding column \"%s\" is restricted by a non-EQ relation)", c.name, slice.name)
		case unrestricted != nil:
			return invalidf("PRIMARY KEY column \"%s\" cannot be restricted as preceding column \"%s\" is not restricted", c.name, unrestricted.name)
		case rs[0].op == "=":
			st.ckEq = append(st.ckEq, rs[0].val)
			continue
		}
		if st.kind == updateStmt {
			return invalidf("Slice restrictions are not supported on the clustering columns in UPDATE statements")
		}
		if st.kind == deleteStmt {
			return unsupportedf("range deletions with slice restrictions")
		}
		slice = c
		for _, r := range rs {
			b := &bound{val: r.val, inclusive: r.op == "<=" || r.op == ">="}
			if r.op == ">" || r.op == ">=" {
				if st.lower != nil {
					return invalidf("More than one restriction was found for the start bound on %s", c.name)
				}
				st.lower = b
			} else {
				if st.upper != nil {
					return invalidf("More than one restriction was found for the end bound on %s", c.name)
				}
				st.upper = b
			}
		}
	}
	return nil
}

func parseSelect(p *parser, tables map[string]*table, st *prepared) error {
	if p.keyword("json") || p.keyword("distinct") {
		return unsupportedf("SELECT %s", strings.ToUpper(p.toks[p.i-1].text))
	}
	type rawSel struct {
		fn, col, alias string
	}
	var raws []rawSel
	star := p.punct("*")
	for !star {
		name, err := p.ident("a column name")
		if err != nil {
			return err
		}
		r := rawSel{col: name}
		if p.punct("(") {
			if name != "writetime" && name != "ttl" {
				return unsupportedf("the function %s() in a selection", name)
			}
			r.fn = name
			if r.col, err = p.ident("a column name"); err != nil {
				return err
			}
			if err := p.expectPunct(")"); err != nil {
				return err
			}
		}
		if p.keyword("as") {
			if r.alias, err = p.ident("an alias"); err != nil {
				return err
			}
		}
		raws = append(raws, r)
		if !p.punct(",") {
			break
		}
	}
	if err := p.expectKeyword("from"); err != nil {
		return err
	}
	t, err := lookupTable(p, tables)
	if err != nil {
		return err
	}
	st.table = t
	if star {
		for _, c := range t.selectAll {
			st.sel = append(st.sel, selector{col: c, name: c.name, info: c.typ.info})
		}
	}
	for _, r := range raws {
		c, err := t.column(r.col)
		if err != nil {
			return err
		}
		s := selector{col: c, fn: r.fn, name: c.name, info: c.typ.info}
		switch r.fn {
		case "writetime":
			s.name, s.info = "writetime("+c.name+")", bigintType.info
		case "ttl":
			s.name, s.info = "ttl("+c.name+")", intType.info
		}
		if r.fn != "" {
			if c.isKey() {
				return invalidf("Cannot use selection function %s on PRIMARY KEY part %s", r.fn, c.name)
			}
			if c.typ.multiCell() {
				return unsupportedf("%s() of a non-frozen collection", r.fn)
			}
		}
		if r.alias != "" {
			s.name = r.alias
		}
		st.sel = append(st.sel, s)
	}
	var rels []relation
	if p.peek().kind == tIdent && p.peek().text == "where" {
		if rels, err = parseWhere(p, st); err != nil {
			return err
		}
	}
	for _, kws := range [][]string{{"order", "by"}, {"limit"}, {"per", "partition", "limit"}, {"group", "by"}, {"allow", "filtering"}} {
		if p.keywords(kws...) {
			return unsupportedf("%s in a SELECT", strings.ToUpper(strings.Join(kws, " ")))
		}
	}
	return keyRestrictions(st, rels)
}

func parseInsert(p *parser, tables map[string]*table, st *prepared) error {
	t, err := lookupTable(p, tables)
	if err != nil {
		return err
	}
	st.table = t
	if p.keyword("json") {
		return unsupportedf("INSERT JSON")
	}
	if err := p.expectPunct("("); err != nil {
		return err
	}
	var cols []*column
	seen := map[*column]bool{}
	for {
		name, err := p.ident("a column name")
		if err != nil {
			return err
		}
		c, err := t.column(name)
		if err != nil {
			return err
		}
		if seen[c] {
			return invalidf("Multiple definitions found for column %s", c.name)
		}
		seen[c] = true
		cols = append(cols, c)
		if p.punct(")") {
			break
		}
		if err := p.expectPunct(","); err != nil {
			return err
		}
	}
	if err := p.expectKeyword("values"); err != nil {
		return err
	}
	if err := p.expectPunct("("); err != nil {
		return err
	}
	var vals []term
	for i := 0; ; i++ {
		if i == len(cols) {
			return invalidf("Unmatched column names/values")
		}
		v, err := parseTerm(p, st, cols[i].typ, cols[i].name)
		if err != nil {
			return err
		}
		vals = append(vals, v)
		if p.punct(")") {
			break
		}
		if err := p.expectPunct(","); err != nil {
			return err
		}
	}
	if len(vals) != len(cols) {
		return invalidf("Unmatched column names/values")
	}
	st.ifNotExists = p.keywords("if", "not", "exists")
	if p.keyword("using") {
		if err := parseUsing(p, st); err != nil {
			return err
		}
	}
	var missingPK, missingCK []string
	st.pkEq = make([]term, len(t.pk))
	st.ckEq = make([]term, len(t.ck))
	for _, c := range t.pk {
		if !seen[c] {
			missingPK = append(missingPK, c.name)
		}
	}
	for i, c := range cols {
		switch c.kind {
		case partitionKey:
			st.pkEq[c.pos] = vals[i]
		case clusteringKey:
			st.ckEq[c.pos] = vals[i]
		default:
			st.sets = append(st.sets, assignment{c, vals[i]})
		}
	}
	if len(missingPK) > 0 {
		return invalidf("Some partition key parts are missing: %s", strings.Join(missingPK, ", "))
	}
	for _, c := range t.ck {
		if !seen[c] {
			missingCK = append(missingCK, c.name)
		}
	}
	switch {
	case len(missingCK) == len(t.ck) && st.staticOnly():
		st.ckEq, st.staticRow = nil, true
	case len(missingCK) > 0:
		return invalidf("Some clustering keys are missing: %s", strings.Join(missingCK, ", "))
	}
	return checkWrite(st)
}

func parseUpdate(p *parser, tables map[string]*table, st *prepared) error {
	t, err := lookupTable(p, tables)
	if err != nil {
		return err
	}
	st.table = t
	if p.keyword("using") {
		if err := parseUsing(p, st); err != nil {
			return err
		}
	}
	if err := p.expectKeyword("set"); err != nil {
		return err
	}
	seen := map[*column]bool{}
	for {
		name, err := p.ident("a column name")
		if err != nil {
			return err
		}
		c, err := t.column(name)
		if err != nil {
			return err
		}
		if p.peek().text == "[" || p.peek().text == "." {
			return unsupportedf("setting an element or a field of %s", c.name)
		}
		if err := p.expectPunct("="); err != nil {
			return err
		}
		if n := p.peek(); (n.kind == tIdent || n.kind == tQuoted) && n.text == c.name {
			return unsupportedf("%s = %s + ... (counter and collection updates)", c.name, c.name)
		}
		v, err := parseTerm(p, st, c.typ, c.name)
		if err != nil {
			return err
		}
		if c.isKey() {
			return invalidf("PRIMARY KEY part %s found in SET part", c.name)
		}
		if seen[c] {
			return invalidf("Multiple incompatible setting of column %s", c.name)
		}
		seen[c] = true
		st.sets = append(st.sets, assignment{c, v})
		if !p.punct(",") {
			break
		}
	}
	rels, err := parseWhere(p, st)
	if err != nil {
		return err
	}
	if err := parseIf(p, st, false); err != nil {
		return err
	}
	if err := keyRestrictions(st, rels); err != nil {
		return err
	}
	return checkKey(st)
}

func parseDelete(p *parser, tables map[string]*table, st *prepared) error {
	var names []string
	for !p.keyword("from") {
		name, err := p.ident("a column name or FROM")
		if err != nil {
			return err
		}
		if p.peek().text == "[" || p.peek().text == "." {
			return unsupportedf("deleting an element or a field of %s", name)
		}
		names = append(names, name)
		if !p.punct(",") {
			if err := p.expectKeyword("from"); err != nil {
				return err
			}
			break
		}
	}
	t, err := lookupTable(p, tables)
	if err != nil {
		return err
	}
	st.table = t
	for _, n := range names {
		c, err := t.column(n)
		if err != nil {
			return err
		}
		if c.isKey() {
			return invalidf("Invalid identifier %s for deletion (should not be a PRIMARY KEY part)", c.name)
		}
		st.delCols = append(st.delCols, c)
	}
	if p.keyword("using") {
		if err := parseUsing(p, st); err != nil {
			return err
		}
		if st.ttl != nil {
			return invalidf("TTL attribute is not allowed for deletes")
		}
	}
	rels, err := parseWhere(p, st)
	if err != nil {
		return err
	}
	if err := parseIf(p, st, true); err != nil {
		return err
	}
	if err := keyRestrictions(st, rels); err != nil {
		return err
	}
	return checkKey(st)
}

// parseIf reads IF EXISTS or IF c op v AND ..., if there.
func parseIf(p *parser, st *prepared, isDelete bool) error {
	if !p.keyword("if") {
		return nil
	}
	if p.keyword("exists") {
		st.ifExists = true
		return nil
	}
	if p.keywords("not", "exists") {
		return p.errorf("IF NOT EXISTS is only valid for INSERT")
	}
	for {
		name, err := p.ident("a column name")
		if err != nil {
			return err
		}
		c, err := st.table.column(name)
		if err != nil {
			return err
		}
		if p.peek().text == "[" || p.peek().text == "." {
			return unsupportedf("conditions on an element or a field of %s", name)
		}
		op, err := parseOperator(p, "condition")
		if err != nil {
			return err
		}
		v, err := parseTerm(p, st, c.typ, c.name)
		if err != nil {
			return err
		}
		if c.isKey() {
			return invalidf("PRIMARY KEY column '%s' cannot have IF conditions", c.name)
		}
		if op != "=" && op != "!=" && c.typ.hasDuration() {
			return invalidf("Slice conditions ( %s ) are not supported on durations", op)
		}
		st.conds = append(st.conds, condition{c, op, v})
		if !p.keyword("and") {
			return nil
		}
	}
}

// checkKey applies the rules on the clustering key of UPDATE and DELETE.
func checkKey(st *prepared) error {
	t := st.table
	full := len(st.ckEq) == len(t.ck)
	static := st.staticOnly()
	switch {
	case static && len(st.ckEq) > 0:
		return invalidf("Invalid restrictions on clustering columns since the %s statement modifies only static columns", st.kind)
	case static:
		st.staticRow = true
	case st.kind == updateStmt && !full:
		return invalidf("Some clustering keys are missing: %s", names(t.ck[len(st.ckEq):]))
	case st.kind == deleteStmt && !full && len(st.delCols) > 0:
		return invalidf("Range deletions are not supported for specific columns")
	case st.kind == deleteStmt && !full && st.conditional():
		return invalidf("DELETE statements must restrict all PRIMARY KEY columns with equality relations in order to use IF conditions")
	}
	return checkWrite(st)
}

// checkWrite applies the rules shared by every write.
func checkWrite(st *prepared) error {
	if st.conditional() && st.ts != nil {
		return invalidf("Cannot provide custom timestamp for conditional updates")
	}
	return nil
}

func names(cols []*column) string {
	s := make([]string, len(cols))
	for i, c := range cols {
		s[i] = c.name
	}
	return strings.Join(s, ", ")
}
