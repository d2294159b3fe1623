// Package schemadiff compares two Cassandra schemas table by table and
// classifies every change as additive (safe to apply in place: a new
// table, a new regular column, a changed TTL) or breaking (a changed key,
// clustering order or type, a dropped column or table: a new table and a
// backfill). It reads schemas from CQL files such as schema.cql, and from a
// live cluster's system_schema.
package schemadiff

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/cqlgen/cqlgen/internal/cqlsplit"
)

// Schema is a set of tables.
type Schema struct {
	Tables  []*Table
	Indexes []Index
	// Types are the user-defined types, in the order the file or the
	// keyspace gives them (comparisons do not read them; import does).
	Types []*Type
}

// Type is a user-defined type and its fields.
type Type struct {
	Name   string
	Fields []Column // Name and Type
	Line   int      // the 1-based line of its CREATE TYPE, when read from a file
}

// Table is what a comparison needs of one table.
type Table struct {
	Name         string
	Columns      []Column // in declaration order
	PartitionKey []string
	Clustering   []Clustering
	TTL          int64
	CQL          string // the CREATE TABLE statement, when read from a file
	Options      Options
	// SourceOf is the entity whose source of truth the table is, from the
	// "-- Source of truth for E." comment cqlgen writes above it; "" for
	// other tables, and for tables read from a cluster.
	SourceOf string
	// Entity is the entity whose access pattern the table serves, from the
	// "-- E.Method: ..." comment cqlgen writes above it; "" when the
	// script has none, and for tables read from a cluster.
	Entity string
	// Line and Col are where the CREATE TABLE statement starts, when read
	// from a file (1-based); 0 for tables read from a cluster.
	Line, Col int
	// Unread are the options the CREATE TABLE states that a comparison
	// does not read (caching, compression, ...), by name, in order.
	Unread []string
}

// Column is a column and its type, as Cassandra writes it.
type Column struct {
	Name   string
	Type   string
	Static bool
	// Mask is the masking function of a masked column as the schema
	// states it (mask_inner(1, 1)); comparisons do not read it.
	Mask string
}

// Clustering is a clustering column and its order.
type Clustering struct {
	Name string
	Desc bool
}

// Table returns the table called name, or nil.
func (s *Schema) Table(name string) *Table {
	for _, t := range s.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (t *Table) column(name string) *Column {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i]
		}
	}
	return nil
}

// Parse reads the CREATE TABLE statements of a CQL script; other
// statements are skipped.
func Parse(script string) (*Schema, error) {
	s := &Schema{}
	lines := strings.Split(script, "\n")
	for _, st := range cqlsplit.Split(script) {
		toks := tokenize(st.Text)
		if len(toks) < 2 || !strings.EqualFold(toks[0], "create") {
			continue
		}
		if ix, ok := parseIndex(toks); ok {
			ix.CQL, ix.Line = st.Text, st.Line
			s.Indexes = append(s.Indexes, ix)
			continue
		}
		if strings.EqualFold(toks[1], "type") {
			if ty, ok := parseType(toks); ok {
				ty.Line = st.Line
				s.Types = append(s.Types, ty)
			}
			continue
		}
		if !strings.EqualFold(toks[1], "table") {
			continue
		}
		t, err := parseTable(toks)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", st.Line, err)
		}
		t.CQL = st.Text
		t.SourceOf = sourceOf(lines, st.Line)
		t.Entity = entityOf(lines, st.Line)
		t.Line, t.Col = st.Line, 1
		if st.Line-1 < len(lines) {
			if i := strings.Index(lines[st.Line-1], toks[0]); i >= 0 {
				t.Col = i + 1
			}
		}
		s.Tables = append(s.Tables, t)
	}
	return s, nil
}

// sourceOf reads the comment lines just above line (1-based) for the
// one that names the entity the table is the source of truth of.
func sourceOf(lines []string, line int) string {
	for i := line - 2; i >= 0 && i < len(lines) && strings.HasPrefix(lines[i], "--"); i-- {
		if rest, ok := strings.CutPrefix(strings.TrimRight(lines[i], "\r"), "-- Source of truth for "); ok {
			return strings.TrimSuffix(rest, ".")
		}
	}
	return ""
}

// entityOf reads the comment lines just above line (1-based) for the
// one that names the access pattern the table serves, "-- E.Method: ...",
// and returns E.
func entityOf(lines []string, line int) string {
	for i := line - 2; i >= 0 && i < len(lines) && strings.HasPrefix(lines[i], "--"); i-- {
		name, _, ok := strings.Cut(strings.TrimPrefix(lines[i], "-- "), ": ")
		if !ok {
			continue
		}
		if ent, method, ok := strings.Cut(name, "."); ok && isIdent(ent) && isIdent(method) {
			return ent
		}
	}
	return ""
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// tokenize splits CQL into words, numbers and punctuation; comments (--,
// // and /* */) are dropped and quoted strings kept whole.
func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case (c == '-' || c == '/') && i+1 < len(s) && s[i+1] == c:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'':
			j := i + 1
			for j < len(s) && (s[j] != '\'' || j+1 < len(s) && s[j+1] == '\'') {
				if s[j] == '\'' {
					j++ // a doubled quote stands for one
				}
				j++
			}
			toks = append(toks, s[i:min(j+1, len(s))])
			i = j + 1
		case c == '"':
			// A quoted name, one token with its quotes, "" for a quote.
			j := i + 1
			for j < len(s) && (s[j] != '"' || j+1 < len(s) && s[j+1] == '"') {
				if s[j] == '"' {
					j++
				}
				j++
			}
			toks = append(toks, s[i:min(j+1, len(s))])
			i = j + 1
		case strings.IndexByte("(),<>=;{}:", c) >= 0:
			toks = append(toks, string(c))
			i++
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\n\r(),<>=;{}:'", s[j]) < 0 {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

type parser struct {
	toks []string
	i    int
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *parser) next() string {
	t := p.peek()
	p.i++
	return t
}

func (p *parser) is(word string) bool { return strings.EqualFold(p.peek(), word) }

func (p *parser) expect(tok string) error {
	if got := p.next(); !strings.EqualFold(got, tok) {
		return fmt.Errorf("expected %q, found %q", tok, got)
	}
	return nil
}

// created reads the name a CREATE statement gives, after its keywords and
// IF NOT EXISTS, without its keyspace.
func (p *parser) created() string {
	if p.is("if") {
		p.i += 3 // IF NOT EXISTS
	}
	return Ident(unqualified(p.next()))
}

// unqualified is a name without its keyspace.
func unqualified(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func parseTable(toks []string) (*Table, error) {
	p := &parser{toks: toks, i: 2}
	t := &Table{Name: p.created()}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	for !p.is(")") && p.peek() != "" {
		if p.is("primary") {
			p.i += 2 // PRIMARY KEY
			if err := p.primaryKey(t); err != nil {
				return nil, err
			}
		} else {
			col := Column{Name: Ident(p.next())}
			col.Type = p.typ()
			for !p.is(",") && !p.is(")") && p.peek() != "" {
				switch w := strings.ToLower(p.next()); w {
				case "static":
					col.Static = true
				case "masked": // MASKED WITH mask_inner(1, 1): its commas are not the column's end
					p.next() // WITH
					// the function, and its arguments as written
					col.Mask = strings.ToLower(p.next())
					for depth := 0; p.is("(") || depth > 0; {
						switch tok := p.next(); tok {
						case "(":
							depth++
							col.Mask += tok
						case ")":
							depth--
							col.Mask += tok
						case "":
							depth = 0
						case ",":
							col.Mask += ", "
						default:
							col.Mask += tok
						}
					}
				case "primary": // inline PRIMARY KEY
					p.next()
					t.PartitionKey = []string{col.Name}
				}
			}
			t.Columns = append(t.Columns, col)
		}
		if p.is(",") {
			p.next()
		}
	}
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	t.Options = DefaultOptions()
	if p.is("with") {
		p.next()
		for p.peek() != "" {
			switch {
			case p.is("clustering"):
				p.i += 2 // CLUSTERING ORDER BY
				p.next()
				if err := p.expect("("); err != nil {
					return nil, err
				}
				for !p.is(")") && p.peek() != "" {
					col := Ident(p.next())
					desc := strings.EqualFold(p.next(), "desc")
					for i := range t.Clustering {
						if t.Clustering[i].Name == col {
							t.Clustering[i].Desc = desc
						}
					}
					if p.is(",") {
						p.next()
					}
				}
				p.next()
			case p.is("default_time_to_live"):
				p.i += 2
				n, err := strconv.ParseInt(p.next(), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("default_time_to_live: %w", err)
				}
				t.TTL = n
			case p.is("comment"), p.is("gc_grace_seconds"), p.is("compaction"), p.is("transactional_mode"):
				if err := p.option(&t.Options); err != nil {
					return nil, err
				}
			case p.is("and"):
				p.next()
			default:
				// An option a comparison does not read: skip its value,
				// a word, a string or a {map}.
				name := strings.ToLower(p.next())
				if p.is("=") {
					t.Unread = append(t.Unread, name)
					p.next()
					for depth := 0; p.peek() != "" && (depth > 0 || !p.is("and")); {
						switch p.next() {
						case "{":
							depth++
						case "}":
							depth--
						}
					}
				}
			}
		}
	}
	return t, nil
}

// parseType reads CREATE TYPE [IF NOT EXISTS] name (field type, ...).
func parseType(toks []string) (*Type, bool) {
	p := &parser{toks: toks, i: 2}
	ty := &Type{Name: p.created()}
	if p.expect("(") != nil {
		return nil, false
	}
	for !p.is(")") && p.peek() != "" {
		f := Column{Name: Ident(p.next())}
		f.Type = p.typ()
		ty.Fields = append(ty.Fields, f)
		if p.is(",") {
			p.next()
		}
	}
	return ty, true
}

// typ reads a type such as frozen<map<text, int>>, as Cassandra writes it.
func (p *parser) typ() string {
	name := strings.ToLower(p.next())
	if !p.is("<") {
		return name
	}
	p.next()
	var params []string
	for !p.is(">") && p.peek() != "" {
		params = append(params, p.typ())
		if p.is(",") {
			p.next()
		}
	}
	p.next()
	return name + "<" + strings.Join(params, ", ") + ">"
}

func (p *parser) primaryKey(t *Table) error {
	if err := p.expect("("); err != nil {
		return err
	}
	if p.is("(") {
		p.next()
		for !p.is(")") && p.peek() != "" {
			t.PartitionKey = append(t.PartitionKey, Ident(p.next()))
			if p.is(",") {
				p.next()
			}
		}
		p.next()
	} else {
		t.PartitionKey = []string{Ident(p.next())}
	}
	for p.is(",") {
		p.next()
		t.Clustering = append(t.Clustering, Clustering{Name: Ident(p.next())})
	}
	return p.expect(")")
}

// DeprecatedPrefix starts the comment of a table whose pattern is marked
// deprecated; cqlgen writes it, so that a schema file and a live keyspace
// both say which tables are on their way out. The comment reads
// "DEPRECATED, replaced by NEW: ..." or "DEPRECATED: ...".
const DeprecatedPrefix = "DEPRECATED"

// Deprecated reports whether the table's comment marks it deprecated, and
// the table that replaces it, if the comment names one.
func (t *Table) Deprecated() (replacement string, ok bool) {
	rest, ok := strings.CutPrefix(t.Options.Comment, DeprecatedPrefix)
	if !ok {
		return "", false
	}
	if r, ok := strings.CutPrefix(rest, ", replaced by "); ok {
		name, _, _ := strings.Cut(r, ":")
		return strings.TrimSpace(name), true
	}
	return "", strings.HasPrefix(rest, ":") || rest == ""
}

// Ident is a name as CQL reads it: a quoted one ("from", "createdAt") as
// written between its quotes, an unquoted one folded to lower case, as
// system_schema stores them both.
func Ident(tok string) string {
	if len(tok) >= 2 && tok[0] == '"' && tok[len(tok)-1] == '"' {
		return strings.ReplaceAll(tok[1:len(tok)-1], `""`, `"`)
	}
	return strings.ToLower(tok)
}
