package schemadiff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gocql/gocql"
)

// Index is a secondary index: its name, table and indexed column.
type Index struct {
	Name, Table, Column string
	CQL                 string // the CREATE INDEX statement, when read from a file
	// Class is a custom index's class without its package
	// (StorageAttachedIndex); "" for a legacy secondary index. Options
	// are the index's OPTIONS but its target and class, as k=v pairs
	// sorted and joined by commas (similarity_function=dot_product).
	// Comparisons read neither; import does.
	Class   string
	Options string
	// Target is the indexed expression as written: tags, values(tags),
	// keys(m), entries(m), full(l).
	Target string
	Line   int // the 1-based line of the statement, when read from a file
}

// parseIndex reads CREATE [CUSTOM] INDEX [IF NOT EXISTS] name ON table
// (column) ...; a statement it cannot read is no index of cqlgen's.
func parseIndex(toks []string) (Index, bool) {
	p := &parser{toks: toks, i: 1}
	if p.is("custom") {
		p.next()
	}
	if !p.is("index") {
		return Index{}, false
	}
	p.next()
	if p.is("if") {
		p.i += 3 // IF NOT EXISTS
	}
	ix := Index{Name: Ident(p.next())}
	if !p.is("on") {
		return Index{}, false
	}
	p.next()
	ix.Table = unqualified(Ident(p.next()))
	if p.expect("(") != nil {
		return Index{}, false
	}
	ix.Column = target(p.next())
	ix.Target = ix.Column
	if p.is("(") { // values(col), keys(col), full(col)
		p.next()
		ix.Column = Ident(p.next())
		ix.Target += "(" + ix.Column + ")"
		p.next()
	}
	p.next() // )
	for p.peek() != "" {
		switch {
		case p.is("using"):
			p.next()
			ix.Class = unquote(p.next())
			ix.Class = ix.Class[strings.LastIndexByte(ix.Class, '.')+1:]
		case p.is("options"):
			p.next()
			if p.expect("=") != nil || p.expect("{") != nil {
				return ix, true
			}
			opts := map[string]string{}
			for !p.is("}") && p.peek() != "" {
				k := unquote(p.next())
				if p.expect(":") != nil {
					return ix, true
				}
				opts[strings.ToLower(k)] = unquote(p.next())
				if p.is(",") {
					p.next()
				}
			}
			p.next()
			ix.Options = joinOptions(opts)
		default:
			p.next()
		}
	}
	return ix, true
}

// target is the column of an index target as system_schema writes it:
// values(tags), tags, or "to" for a name that needs quotes.
func target(s string) string {
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		return Ident(s[i+1 : len(s)-1])
	}
	return Ident(s)
}

// targetText is an index target as a file writes it, its column as
// Ident reads it: values(tags), to.
func targetText(s string) string {
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		return strings.ToLower(s[:i]) + "(" + Ident(s[i+1:len(s)-1]) + ")"
	}
	return Ident(s)
}

// index returns the index called name, or nil.
func (s *Schema) index(name string) *Index {
	for i := range s.Indexes {
		if s.Indexes[i].Name == name {
			return &s.Indexes[i]
		}
	}
	return nil
}

// compareIndexes lists new, changed and dropped indexes. A new index is
// created in place (Cassandra builds it from the existing rows in the
// background); one no pattern declares is left for a person to drop,
// once nothing reads through it.
//
// With live, an index on a table new does not declare belongs to whoever
// owns that table, and is not compared.
func compareIndexes(old, new *Schema, live bool) []Change {
	var out []Change
	for _, ni := range new.Indexes {
		oi := old.index(ni.Name)
		switch {
		case oi == nil:
			stmt := ni.CQL
			if stmt == "" {
				stmt = "-- CREATE INDEX " + ni.Name + " (see schema.cql)"
			}
			out = append(out, Change{Kind: Additive, Table: ni.Table, What: fmt.Sprintf("new index %s on %s; Cassandra builds it from the existing rows", ni.Name, ni.Column), CQL: stmt + ";"})
		case oi.Table != ni.Table || oi.Column != ni.Column:
			out = append(out, Change{Kind: Breaking, Table: ni.Table, What: fmt.Sprintf("index %s moves from %s(%s) to %s(%s); drop the old one by hand, then create the new", ni.Name, oi.Table, oi.Column, ni.Table, ni.Column)})
		}
	}
	for _, oi := range old.Indexes {
		if live && new.Table(oi.Table) == nil {
			continue
		}
		if new.index(oi.Name) == nil {
			out = append(out, Change{Kind: Breaking, Table: oi.Table, What: fmt.Sprintf("index %s is no longer declared; cqlgen never drops one, so drop it by hand (DROP INDEX %s) once nothing reads through it", oi.Name, oi.Name)})
		}
	}
	return out
}

// liveIndexes reads the indexes of a keyspace.
func liveIndexes(s *gocql.Session, keyspace string) ([]Index, error) {
	var out []Index
	var ix Index
	var opts map[string]string
	it := s.Query(`SELECT index_name, table_name, options FROM system_schema.indexes WHERE keyspace_name = ?`, keyspace).Iter()
	for it.Scan(&ix.Name, &ix.Table, &opts) {
		ix.Column = target(opts["target"])
		ix.Target = targetText(opts["target"])
		ix.Class = opts["class_name"]
		ix.Class = ix.Class[strings.LastIndexByte(ix.Class, '.')+1:]
		ix.Options = joinOptions(opts)
		out = append(out, ix)
		opts = nil
	}
	return out, it.Close()
}

// joinOptions writes an index's options but its target and class as
// sorted k=v pairs joined by commas.
func joinOptions(m map[string]string) string {
	var parts []string
	for k, v := range m {
		if k != "target" && k != "class_name" {
			parts = append(parts, k+"="+v)
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}
