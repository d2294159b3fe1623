package cqltest

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
)

// colKind is a column's role in its table.
type colKind uint8

const (
	partitionKey colKind = iota
	clusteringKey
	staticCol
	regularCol
)

type column struct {
	name string
	typ  *cqlType
	kind colKind
	pos  int  // index within the partition key or the clustering columns
	desc bool // clustering order
}

func (c *column) isKey() bool { return c.kind == partitionKey || c.kind == clusteringKey }

// table is a table's definition and its data.
type table struct {
	name       string
	columns    []*column // in definition order
	byName     map[string]*column
	pk, ck     []*column
	selectAll  []*column // SELECT * order: partition key, clustering, then the rest by name
	defaultTTL int32     // seconds; 0 for none
	hasStatic  bool
	// counter marks a counter table: every column outside the primary
	// key is a counter, written by UPDATE ... SET c = c + ? alone.
	counter bool
	// indexed are the columns with a secondary index (CREATE INDEX,
	// CREATE CUSTOM INDEX): a SELECT may restrict them as a
	// storage-attached index does (see filter).
	indexed map[*column]bool
	// indexedKeys are the map columns whose index is on their keys
	// (KEYS(m)), which CONTAINS KEY reads.
	indexedKeys map[*column]bool
	// similarity is the similarity function of a vector column's index
	// (WITH OPTIONS = {'similarity_function': ...}; cosine by default),
	// which an ANN query orders by.
	similarity map[*column]string

	partitions map[string]*partition // by encoded partition key
	ring       []*partition          // the same, in token order (see ringSearch)
}

func (t *table) column(name string) (*column, error) {
	if c, ok := t.byName[name]; ok {
		return c, nil
	}
	return nil, invalidf("Undefined column name %s in table %s", name, t.name)
}

// maxTTL is Cassandra's largest TTL: 20 years, in seconds.
const maxTTL = 20 * 365 * 24 * 60 * 60

// parseSchema reads a DDL script: CREATE KEYSPACE and USE (both ignored),
// CREATE TYPE, CREATE TABLE, CREATE INDEX, comments, statements separated
// by semicolons.
func parseSchema(src string) (map[string]*table, error) {
	p, err := newParser(src)
	if err != nil {
		return nil, err
	}
	tables := map[string]*table{}
	udts := map[string]*cqlType{}
	for p.peek().kind != tEOF {
		if p.punct(";") {
			continue
		}
		start := p.peek().pos
		switch {
		case p.keywords("create", "keyspace"), p.keyword("use"):
			// One keyspace is all this package models: skip to the end.
			for t := p.peek(); t.kind != tEOF && !(t.kind == tPunct && t.text == ";"); t = p.peek() {
				p.next()
			}
		case p.keywords("create", "type"):
			u, ifNotExists, err := parseCreateType(p, udts)
			if err != nil {
				return nil, ddlError(err, src[start:])
			}
			if err := define(udts, u.udt, u, ifNotExists, "a user type of name "); err != nil {
				return nil, err
			}
		case p.keywords("create", "table"), p.keywords("create", "columnfamily"):
			t, ifNotExists, err := parseCreateTable(p, udts)
			if err != nil {
				return nil, ddlError(err, src[start:])
			}
			if err := define(tables, t.name, t, ifNotExists, "table "); err != nil {
				return nil, err
			}
		case p.keywords("create", "custom", "index"), p.keywords("create", "index"):
			if err := parseCreateIndex(p, tables); err != nil {
				return nil, fmt.Errorf("cqltest: %w", err)
			}
		default:
			return nil, fmt.Errorf("cqltest: %w", p.errorf("expecting CREATE TABLE, CREATE TYPE, CREATE INDEX, CREATE KEYSPACE or USE (nothing else is supported)"))
		}
		if t := p.peek(); t.kind != tEOF && !p.punct(";") {
			return nil, fmt.Errorf("cqltest: %w", p.errorf("expecting ';'"))
		}
	}
	return tables, nil
}

// ddlError is the error of a CREATE statement that failed to parse: a
// parse error says where it is, any other is quoted with the statement's
// start.
func ddlError(err error, stmt string) error {
	var pe *parseError
	if errors.As(err, &pe) {
		return fmt.Errorf("cqltest: %w", err)
	}
	return fmt.Errorf("cqltest: %w, in %q", err, excerpt(stmt, 0))
}

// define adds a created table or type to defined by name, refusing a
// name defined already unless the statement said IF NOT EXISTS (and then
// keeping the first). what names the kind of thing, as Cassandra's error
// does.
func define[T any](defined map[string]T, name string, v T, ifNotExists bool, what string) error {
	if _, dup := defined[name]; dup {
		if ifNotExists {
			return nil
		}
		return fmt.Errorf("cqltest: %s%s already exists", what, name)
	}
	defined[name] = v
	return nil
}

// parseCreateTable reads the rest of CREATE TABLE, after its keywords.
func parseCreateTable(p *parser, udts map[string]*cqlType) (*table, bool, error) {
	ifNotExists := p.keywords("if", "not", "exists")
	name, err := p.name("a table name")
	if err != nil {
		return nil, false, err
	}
	t := &table{name: name, byName: map[string]*column{}, partitions: map[string]*partition{}}
	if err := p.expectPunct("("); err != nil {
		return nil, false, err
	}
	var pkNames, ckNames []string
	var statics []string
	for {
		if p.keywords("primary", "key") {
			if pkNames != nil {
				return nil, false, fmt.Errorf("multiple PRIMARY KEYs specified (exactly one required)")
			}
			if pkNames, ckNames, err = parsePrimaryKey(p); err != nil {
				return nil, false, err
			}
		} else {
			cname, err := p.ident("a column name")
			if err != nil {
				return nil, false, err
			}
			typ, err := parseType(p, topLevel, udts)
			if err != nil {
				return nil, false, err
			}
			if _, dup := t.byName[cname]; dup {
				return nil, false, fmt.Errorf("duplicate column name %s", cname)
			}
			c := &column{name: cname, typ: typ, kind: regularCol}
			t.columns = append(t.columns, c)
			t.byName[cname] = c
			if p.keyword("static") {
				statics = append(statics, cname)
			}
			if err := skipMask(p); err != nil {
				return nil, false, err
			}
			if p.keywords("primary", "key") {
				if pkNames != nil {
					return nil, false, fmt.Errorf("multiple PRIMARY KEYs specified (exactly one required)")
				}
				pkNames = []string{cname}
				ckNames = []string{}
			}
		}
		if p.punct(")") {
			break
		}
		if err := p.expectPunct(","); err != nil {
			return nil, false, err
		}
		if p.punct(")") { // a trailing comma
			break
		}
	}
	if pkNames == nil {
		return nil, false, fmt.Errorf("no PRIMARY KEY specified for table %s (exactly one required)", name)
	}
	// The key columns, named in PRIMARY KEY, of kind in order.
	keys := func(names []string, kind colKind) ([]*column, error) {
		var cs []*column
		for i, n := range names {
			c, ok := t.byName[n]
			if !ok {
				return nil, fmt.Errorf("unknown definition %s referenced in PRIMARY KEY", n)
			}
			if c.kind != regularCol {
				return nil, fmt.Errorf("column %s appears twice in PRIMARY KEY", n)
			}
			c.kind, c.pos = kind, i
			cs = append(cs, c)
		}
		return cs, nil
	}
	if t.pk, err = keys(pkNames, partitionKey); err != nil {
		return nil, false, err
	}
	if t.ck, err = keys(ckNames, clusteringKey); err != nil {
		return nil, false, err
	}
	for _, c := range append(append([]*column(nil), t.pk...), t.ck...) {
		switch {
		case c.typ.multiCell():
			return nil, false, fmt.Errorf("invalid non-frozen collection type %s for PRIMARY KEY component %s", c.typ.name, c.name)
		case c.typ.hasDuration():
			return nil, false, fmt.Errorf("invalid type %s for PRIMARY KEY component %s: durations have no order", c.typ.name, c.name)
		case c.typ.isCounter():
			return nil, false, fmt.Errorf("counter type is not supported for PRIMARY KEY column '%s'", c.name)
		}
	}
	for _, c := range t.columns {
		if !c.isKey() && c.typ.isCounter() {
			t.counter = true
		}
	}
	if t.counter {
		for _, c := range t.columns {
			if !c.isKey() && !c.typ.isCounter() {
				return nil, false, fmt.Errorf("Cannot mix counter and non counter columns in the same table")
			}
		}
	}
	for _, n := range statics {
		c := t.byName[n]
		if c.isKey() {
			return nil, false, fmt.Errorf("static column %s cannot be part of the PRIMARY KEY", n)
		}
		if len(t.ck) == 0 {
			return nil, false, fmt.Errorf("static columns are only useful (and thus allowed) if the table has at least one clustering column")
		}
		c.kind = staticCol
		t.hasStatic = true
	}
	if p.keyword("with") {
		if err := parseTableOptions(p, t); err != nil {
			return nil, false, err
		}
	}
	if t.counter && t.defaultTTL > 0 {
		return nil, false, fmt.Errorf("Cannot set default_time_to_live on a table with counters")
	}
	t.selectAll = append(append([]*column(nil), t.pk...), t.ck...)
	var rest []*column
	for _, c := range t.columns {
		if !c.isKey() {
			rest = append(rest, c)
		}
	}
	sort.Slice(rest, func(i, j int) bool { return rest[i].name < rest[j].name })
	t.selectAll = append(t.selectAll, rest...)
	return t, ifNotExists, nil
}

// skipMask skips a column's MASKED WITH DEFAULT or MASKED WITH f(...):
// the session reads as a user allowed to UNMASK, so masks change nothing.
func skipMask(p *parser) error {
	if !p.keyword("masked") {
		return nil
	}
	if err := p.expectKeyword("with"); err != nil {
		return err
	}
	if p.keyword("default") {
		return nil
	}
	if _, err := p.name("a masking function"); err != nil {
		return err
	}
	if err := p.expectPunct("("); err != nil {
		return err
	}
	for !p.punct(")") {
		if t := p.next(); t.kind == tEOF {
			return p.errorf("expecting ')'")
		}
	}
	return nil
}

// parsePrimaryKey reads (pk, ck, ...) or ((pk1, pk2), ck, ...).
func parsePrimaryKey(p *parser) (pk, ck []string, err error) {
	if err := p.expectPunct("("); err != nil {
		return nil, nil, err
	}
	if p.punct("(") {
		for {
			n, err := p.ident("a partition key column")
			if err != nil {
				return nil, nil, err
			}
			pk = append(pk, n)
			if p.punct(")") {
				break
			}
			if err := p.expectPunct(","); err != nil {
				return nil, nil, err
			}
		}
	} else {
		n, err := p.ident("a partition key column")
		if err != nil {
			return nil, nil, err
		}
		pk = []string{n}
	}
	ck = []string{}
	for !p.punct(")") {
		if err := p.expectPunct(","); err != nil {
			return nil, nil, err
		}
		n, err := p.ident("a clustering column")
		if err != nil {
			return nil, nil, err
		}
		ck = append(ck, n)
	}
	return pk, ck, nil
}

// parseTableOptions reads the options after WITH: CLUSTERING ORDER BY and
// default_time_to_live matter here; every other option is accepted and
// ignored, as it does not change what statements return.
func parseTableOptions(p *parser, t *table) error {
	for {
		switch {
		case p.keywords("clustering", "order", "by"):
			if err := parseClusteringOrder(p, t); err != nil {
				return err
			}
		case p.keywords("compact", "storage"):
			return fmt.Errorf("cqltest: COMPACT STORAGE is not supported")
		default:
			opt, err := p.ident("a table option")
			if err != nil {
				return err
			}
			if err := p.expectPunct("="); err != nil {
				return err
			}
			if opt == "default_time_to_live" {
				tok := p.next()
				n, err := strconv.ParseInt(tok.text, 10, 32)
				if tok.kind != tNumber || err != nil || n < 0 || n > maxTTL {
					return fmt.Errorf("invalid default_time_to_live %q: an integer between 0 and %d", tok.text, maxTTL)
				}
				t.defaultTTL = int32(n)
			} else if err := skipOptionValue(p); err != nil {
				return err
			}
		}
		if !p.keyword("and") {
			return nil
		}
	}
}

func parseClusteringOrder(p *parser, t *table) error {
	if err := p.expectPunct("("); err != nil {
		return err
	}
	for i := 0; ; i++ {
		n, err := p.ident("a clustering column")
		if err != nil {
			return err
		}
		c, ok := t.byName[n]
		if !ok || c.kind != clusteringKey {
			return fmt.Errorf("only clustering key columns can be defined in CLUSTERING ORDER directive: %s", n)
		}
		if c.pos != i {
			return fmt.Errorf("the order of columns in the CLUSTERING ORDER directive must match that of the clustering columns (%s)", n)
		}
		switch {
		case p.keyword("desc"):
			c.desc = true
		case p.keyword("asc"):
		default:
			return p.errorf("expecting ASC or DESC")
		}
		if p.punct(")") {
			return nil
		}
		if err := p.expectPunct(","); err != nil {
			return err
		}
	}
}

// skipOptionValue skips a constant or a {map literal}.
func skipOptionValue(p *parser) error {
	if !p.punct("{") {
		p.punct("-")
		switch t := p.next(); t.kind {
		case tString, tNumber, tIdent:
			return nil
		default:
			p.i--
			return p.errorf("expecting an option value")
		}
	}
	for depth := 1; depth > 0; {
		t := p.next()
		switch {
		case t.kind == tEOF:
			return p.errorf("expecting '}'")
		case t.kind == tPunct && t.text == "{":
			depth++
		case t.kind == tPunct && t.text == "}":
			depth--
		}
	}
	return nil
}
