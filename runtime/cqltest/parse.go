package cqltest

import (
	"encoding/binary"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// The parsers of INSERT, UPDATE, DELETE and SELECT, and of their parts.

func parseSelect(p *parser, tables map[string]*table, st *prepared) error {
	if p.keyword("json") || p.keyword("distinct") {
		return unsupportedf("SELECT %s", strings.ToUpper(p.toks[p.i-1].text))
	}
	type rawSel struct {
		fn, col, alias string
		arg            int // a similarity function's vector: its token
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
			_, sim := similarities[name]
			if name != "writetime" && name != "ttl" && !sim {
				return unsupportedf("the function %s() in a selection", name)
			}
			r.fn = name
			if r.col, err = p.ident("a column name"); err != nil {
				return err
			}
			if sim {
				// similarity_f(column, vector): the vector is read once
				// the table, and so the column's type, is known.
				if err := p.expectPunct(","); err != nil {
					return err
				}
				r.arg = p.i
				if err := skipTerm(p); err != nil {
					return err
				}
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
			st.sel = append(st.sel, selector{col: c, name: c.name, typ: c.typ})
		}
	}
	for _, r := range raws {
		c, err := t.column(r.col)
		if err != nil {
			return err
		}
		s := selector{col: c, fn: r.fn, name: c.name, typ: c.typ}
		switch r.fn {
		case "writetime":
			s.name, s.typ = "writetime("+c.name+")", bigintType
		case "ttl":
			s.name, s.typ = "ttl("+c.name+")", intType
		}
		if _, sim := similarities[r.fn]; sim {
			if s, err = similaritySelector(p, st, s, r.arg); err != nil {
				return err
			}
		} else if r.fn != "" {
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
	var toks []tokenRelation
	if p.peek().kind == tIdent && p.peek().text == "where" {
		if rels, toks, err = parseWhere(p, st); err != nil {
			return err
		}
	}
	if p.keywords("order", "by") {
		if err := parseANN(p, st); err != nil {
			return err
		}
	}
	for _, kws := range [][]string{{"order", "by"}, {"group", "by"}} {
		if p.keywords(kws...) {
			return unsupportedf("%s in a SELECT", strings.ToUpper(strings.Join(kws, " ")))
		}
	}
	if p.keywords("per", "partition", "limit") {
		if err := parsePerPartitionLimit(p, st); err != nil {
			return err
		}
	}
	if p.keywords("limit") {
		if err := parseLimit(p, st, &st.limit, "[limit]"); err != nil {
			return err
		}
	}
	for _, kws := range [][]string{{"allow", "filtering"}} {
		if p.keywords(kws...) {
			return unsupportedf("%s in a SELECT", strings.ToUpper(strings.Join(kws, " ")))
		}
	}
	if err := st.checkANN(); err != nil {
		return err
	}
	return keyRestrictions(st, rels, toks)
}

// parsePerPartitionLimit reads the value of PER PARTITION LIMIT: a marker,
// bound to an int named [per_partition_limit] as in Cassandra, or an
// integer, which Cassandra's grammar takes with a sign. Its value is
// checked when the statement runs (perPartitionLimit).
func parsePerPartitionLimit(p *parser, st *prepared) error {
	return parseLimit(p, st, &st.perPartition, "[per_partition_limit]")
}

// parseLimit reads the value of a limit into dst: a marker, bound to an
// int of the given name, or an integer.
func parseLimit(p *parser, st *prepared, dst **term, name string) error {
	t := p.peek()
	if t.kind == tPunct && t.text == "-" {
		t = p.toks[p.i+1]
	}
	integer := t.kind == tNumber && strings.Trim(t.text, "0123456789") == ""
	if t.kind != tMark && !integer && !(t.kind == tPunct && t.text == ":") {
		return p.errorf("expecting an integer or a bind marker")
	}
	v, err := parseTerm(p, st, intType, name)
	if err != nil {
		return err
	}
	*dst = &v
	return nil
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
		c, err := p.column(t)
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
			st.sets = append(st.sets, assignment{col: c, val: vals[i]})
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
		c, err := p.column(t)
		if err != nil {
			return err
		}
		if p.peek().text == "[" || p.peek().text == "." {
			return unsupportedf("setting an element or a field of %s", c.name)
		}
		if err := p.expectPunct("="); err != nil {
			return err
		}
		var op byte
		if n := p.peek(); (n.kind == tIdent || n.kind == tQuoted) && n.text == c.name {
			if c.typ.isCollection() {
				return unsupportedf("%s = %s + ... (collection updates)", c.name, c.name)
			}
			p.next()
			switch {
			case p.punct("+"):
				op = '+'
			case p.punct("-"):
				op = '-'
			default:
				return p.errorf("expecting '+' or '-'")
			}
		}
		v, err := parseTerm(p, st, c.typ, c.name)
		if err != nil {
			return err
		}
		if c.isKey() {
			return invalidf("PRIMARY KEY part %s found in SET part", c.name)
		}
		switch {
		case c.typ.isCounter() && op == 0:
			return invalidf("Cannot set the value of counter column %s (counters can only be incremented/decremented, not set)", c.name)
		case !c.typ.isCounter() && op != 0:
			return invalidf("Invalid operation (%s = %s %c ?) for non counter column %s", c.name, c.name, op, c.name)
		}
		if seen[c] {
			return invalidf("Multiple incompatible setting of column %s", c.name)
		}
		seen[c] = true
		st.sets = append(st.sets, assignment{c, v, op})
		if !p.punct(",") {
			break
		}
	}
	return parseRowWhere(p, st)
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
	return parseRowWhere(p, st)
}

// parseRowWhere reads the end of an UPDATE or a DELETE: its WHERE clause,
// its IF, if there, and the rules on the key they restrict.
func parseRowWhere(p *parser, st *prepared) error {
	rels, toks, err := parseWhere(p, st)
	if err != nil {
		return err
	}
	if err := parseIf(p, st); err != nil {
		return err
	}
	if err := keyRestrictions(st, rels, toks); err != nil {
		return err
	}
	return checkKey(st)
}

// parseIf reads IF EXISTS or IF c op v AND ..., if there.
func parseIf(p *parser, st *prepared) error {
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
		c, err := p.column(st.table)
		if err != nil {
			return err
		}
		if p.peek().text == "[" || p.peek().text == "." {
			return unsupportedf("conditions on an element or a field of %s", c.name)
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
		if !isRequestError(err) {
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
		case cqldriver.TypeVarchar, cqldriver.TypeAscii:
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
		case cqldriver.TypeTinyInt, cqldriver.TypeSmallInt, cqldriver.TypeInt, cqldriver.TypeBigInt:
			size := fixedSizes[typ.kind].size
			n, err := strconv.ParseInt(text, 10, size*8)
			if err != nil {
				return nil, invalid("INTEGER")
			}
			b := binary.BigEndian.AppendUint64(nil, uint64(n))
			return b[8-size:], nil
		case cqldriver.TypeVarint:
			n, ok := new(big.Int).SetString(text, 10)
			if !ok {
				return nil, invalid("INTEGER")
			}
			return varintBytes(n), nil
		case cqldriver.TypeFloat, cqldriver.TypeDouble:
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return nil, invalid("FLOAT")
			}
			if typ.kind == cqldriver.TypeFloat {
				return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
			}
			return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)), nil
		}
		return nil, invalid("INTEGER")
	case tIdent:
		switch {
		case t.text == "null" && !neg:
			return nil, nil
		case (t.text == "true" || t.text == "false") && !neg:
			if typ.kind != cqldriver.TypeBoolean {
				return nil, invalid("BOOLEAN")
			}
			if t.text == "true" {
				return []byte{1}, nil
			}
			return []byte{0}, nil
		}
	}
	return nil, errNotLiteral
}

// varintBytes is n in varint's encoding: big-endian two's complement in
// the fewest bytes.
func varintBytes(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 in bytes, inverted, is n in two's complement.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

var errNotLiteral = &unsupportedError{what: "this kind of value"}

// parseUsing reads USING TTL x AND TIMESTAMP y, in either order, either
// alone.
func parseUsing(p *parser, st *prepared) error {
	// using reads the value of one, which only one definition may set.
	using := func(dest **term, keyword string, typ *cqlType, name string) error {
		if *dest != nil {
			return invalidf("Multiple definitions of %s", keyword)
		}
		t, err := parseTerm(p, st, typ, name)
		if err != nil {
			return err
		}
		*dest = &t
		return nil
	}
	for {
		var err error
		switch {
		case p.keyword("ttl"):
			err = using(&st.ttl, "TTL", intType, "[ttl]")
		case p.keyword("timestamp"):
			err = using(&st.ts, "TIMESTAMP", bigintType, "[timestamp]")
		default:
			return p.errorf("expecting TTL or TIMESTAMP")
		}
		if err != nil {
			return err
		}
		if !p.keyword("and") {
			return nil
		}
	}
}

// relation is one restriction of a WHERE clause. A multi-column one,
// (a, b, c) > (?, ?, ?), is kept on its first column: tuple holds the
// columns after it and more their values.
type relation struct {
	col   *column
	op    string
	val   term
	tuple []*column
	more  []term
	multi bool // written as a tuple, (a) > (?) included
}

// tokenRelation is a restriction of a WHERE clause on token(c, ...).
type tokenRelation struct {
	cols []*column
	op   string
	val  term
	args []term // token(?, ...): the partition key's values, in place of val
}

func parseWhere(p *parser, st *prepared) ([]relation, []tokenRelation, error) {
	if err := p.expectKeyword("where"); err != nil {
		return nil, nil, err
	}
	var rels []relation
	var toks []tokenRelation
	for {
		if p.punct("(") {
			r, err := parseTupleRelation(p, st)
			if err != nil {
				return nil, nil, err
			}
			rels = append(rels, r)
		} else if isCall(p, "token") {
			tr, err := parseTokenRelation(p, st)
			if err != nil {
				return nil, nil, err
			}
			toks = append(toks, tr)
		} else {
			col, err := p.column(st.table)
			if err != nil {
				return nil, nil, err
			}
			if p.keyword("in") {
				// col IN ?: one marker bound to a list of the column's
				// values (gocql binds a slice to it).
				if t := p.peek(); t.kind != tMark {
					return nil, nil, unsupportedf("IN with a list of values written in the statement; bind one marker to a list")
				}
				list := (&cqlType{kind: cqldriver.TypeList, elem: col.typ, frozen: true, name: "list<" + col.typ.name + ">"}).complete()
				val, err := parseTerm(p, st, list, "in("+col.name+")")
				if err != nil {
					return nil, nil, err
				}
				rels = append(rels, relation{col: col, op: "in", val: val})
				if !p.keyword("and") {
					return rels, toks, nil
				}
				continue
			}
			if p.keyword("between") {
				// col BETWEEN ? AND ? (Cassandra 6.0): both ends
				// inclusive, col >= ? AND col <= ?.
				lo, err := parseTerm(p, st, col.typ, col.name)
				if err != nil {
					return nil, nil, err
				}
				if err := p.expectKeyword("and"); err != nil {
					return nil, nil, err
				}
				hi, err := parseTerm(p, st, col.typ, col.name)
				if err != nil {
					return nil, nil, err
				}
				rels = append(rels, relation{col: col, op: ">=", val: lo}, relation{col: col, op: "<=", val: hi})
				if !p.keyword("and") {
					return rels, toks, nil
				}
				continue
			}
			typ := col.typ
			var op string
			if st.table.indexed[col] && (typ.kind == cqldriver.TypeSet || typ.kind == cqldriver.TypeList) && !typ.frozen && p.keyword("contains") {
				// col CONTAINS ?, through an index: an element's value.
				op, typ = "contains", typ.elem
			} else if st.table.indexedKeys[col] && p.keywords("contains", "key") {
				// col CONTAINS KEY ?, through an index on KEYS(col).
				op, typ = "contains key", typ.key
			} else if op, err = parseOperator(p, "relation"); err != nil {
				return nil, nil, err
			}
			val, err := parseTerm(p, st, typ, col.name)
			if err != nil {
				return nil, nil, err
			}
			rels = append(rels, relation{col: col, op: op, val: val})
		}
		if !p.keyword("and") {
			return rels, toks, nil
		}
	}
}

// parseTupleRelation reads a multi-column slice, after its '(': (a, b)
// op (?, ?), with as many values as columns. Equality and IN on tuples
// are not supported.
func parseTupleRelation(p *parser, st *prepared) (relation, error) {
	var cols []*column
	for {
		c, err := p.column(st.table)
		if err != nil {
			return relation{}, err
		}
		cols = append(cols, c)
		if p.punct(")") {
			break
		}
		if err := p.expectPunct(","); err != nil {
			return relation{}, err
		}
	}
	op, err := parseOperator(p, "relation")
	if err != nil {
		return relation{}, err
	}
	if op == "=" {
		return relation{}, unsupportedf("multi-column equality")
	}
	if err := p.expectPunct("("); err != nil {
		return relation{}, err
	}
	vals := make([]term, len(cols))
	for i, c := range cols {
		if i > 0 && p.punct(")") {
			return relation{}, invalidf("Expected %d elements in value tuple, but got %d", len(cols), i)
		}
		if i > 0 {
			if err := p.expectPunct(","); err != nil {
				return relation{}, err
			}
		}
		if vals[i], err = parseTerm(p, st, c.typ, c.name); err != nil {
			return relation{}, err
		}
	}
	if !p.punct(")") {
		return relation{}, invalidf("Expected %d elements in value tuple, but got more", len(cols))
	}
	return relation{col: cols[0], op: op, val: vals[0], tuple: cols[1:], more: vals[1:], multi: true}, nil
}

// isCall tells whether a call of the function fn comes next: its unquoted
// name, then '('. ("token" alone may be a column's name.)
func isCall(p *parser, fn string) bool {
	t, next := p.peek(), p.toks[min(p.i+1, len(p.toks)-1)]
	return t.kind == tIdent && t.text == fn && next.kind == tPunct && next.text == "("
}

// parseTokenRelation reads token(c, ...) op value. The columns must be the
// partition key's, in order; the value is a bigint (Murmur3Partitioner's
// tokens), which Cassandra names "partition key token".
func parseTokenRelation(p *parser, st *prepared) (tokenRelation, error) {
	p.i += 2 // token (
	var tr tokenRelation
	for {
		c, err := p.column(st.table)
		if err != nil {
			return tr, err
		}
		tr.cols = append(tr.cols, c)
		if p.punct(")") {
			break
		}
		if err := p.expectPunct(","); err != nil {
			return tr, err
		}
	}
	if err := checkTokenColumns(st.table, tr.cols); err != nil {
		return tr, err
	}
	op, err := parseOperator(p, "relation")
	if err != nil {
		return tr, err
	}
	tr.op = op
	if isCall(p, "token") {
		// token(?, ...): the token of a partition key bound column by
		// column, as a scatter continues after a partition.
		p.i += 2
		for i, c := range st.table.pk {
			if i > 0 {
				if err := p.expectPunct(","); err != nil {
					return tr, err
				}
			}
			arg, err := parseTerm(p, st, c.typ, c.name)
			if err != nil {
				return tr, err
			}
			tr.args = append(tr.args, arg)
		}
		return tr, p.expectPunct(")")
	}
	if t := p.peek(); (t.kind == tIdent || t.kind == tQuoted) && p.toks[p.i+1].kind == tPunct && p.toks[p.i+1].text == "(" {
		return tr, unsupportedf("function calls as values (%s(...))", t.text)
	}
	tr.val, err = parseTerm(p, st, bigintType, "partition key token")
	return tr, err
}

// checkTokenColumns applies Cassandra's rules on the arguments of token()
// in a WHERE clause: the partition key columns, all of them, in order.
func checkTokenColumns(t *table, cols []*column) error {
	if slices.Equal(cols, t.pk) {
		return nil
	}
	for _, c := range t.pk {
		if !slices.Contains(cols, c) {
			return invalidf("The token() function must be applied to all partition key components or none of them")
		}
	}
	for i, c := range cols {
		if slices.Contains(cols[:i], c) {
			return invalidf("The token() function contains duplicate partition key components")
		}
	}
	for _, c := range cols {
		if c.kind != partitionKey {
			return invalidf("The token() function must contains only partition key components")
		}
	}
	return invalidf("The token function arguments must be in the partition key order: %s", names(t.pk))
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
