package model

import (
	"go/token"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/load"
	"github.com/cqlgen/cqlgen/internal/tag"
)

// Filter is a filter pattern (filter:"..."): a read that combines
// conditions on several columns of one of the entity's tables, ANDed,
// each served by the storage-attached index an index pattern declares
// on its column. It declares no index of its own.
type Filter struct {
	Entity *Entity
	Pos    token.Position // the filter key's value
	// On is the table read; nil when OnName names none of the entity's
	// tables (validation reports it).
	On     *Table
	OnName string
	OnPos  token.Position
	Conds  []*FilterCond
	// OrPos is where an or joins two conditions; zero when none does
	// (validation refuses it with the target version's reason).
	OrPos token.Position
	IndexedRead

	stmts []*Statement `cache:"-"` // built by Statements; no part of a cache key
}

// FilterCond is one condition of a filter: a column and its operator.
type FilterCond struct {
	Column Ref
	Op     tag.FilterOp
	OpPos  token.Position
	// Index is the index pattern on the column that serves the condition;
	// nil until validation finds it (and reports its absence).
	Index *Index `cache:"-"`
}

// Scatter reports a filter read not restricted to one partition.
func (f *Filter) Scatter() bool { return len(f.PK) == 0 }

// Ranges are the conditions read between two bounds with options
// (range), in order: each has its FromExclusive and ToInclusive.
func (f *Filter) Ranges() []*FilterCond {
	var rs []*FilterCond
	for _, c := range f.Conds {
		if c.Op == tag.OpRange {
			rs = append(rs, c)
		}
	}
	return rs
}

// Bounded reports a condition that binds two values: a range or a
// BETWEEN.
func (c *FilterCond) Bounded() bool { return c.Op == tag.OpRange || c.Op == tag.OpBetween }

// ValueType is the CQL type of a value the condition binds: a
// collection's element, a map's key, or the column's type.
func (c *FilterCond) ValueType() *Type {
	t := c.Column.Field.Type
	switch c.Op {
	case tag.OpContains, tag.OpContainsKey:
		if len(t.Params) > 0 {
			return t.Params[0]
		}
	}
	return t
}

// ValueGoType is the Go type of a value the condition binds.
func (c *FilterCond) ValueGoType() *GoType {
	g := c.Column.Field.GoType.Deref()
	if g == nil {
		return g
	}
	if c.Op == tag.OpContains || c.Op == tag.OpContainsKey {
		return member(g)
	}
	return g
}

// Relation is the condition as the WHERE clause writes it, with the
// default bounds of a range.
func (c *FilterCond) Relation() string {
	n := cqlspec.Quote(c.Column.Name)
	switch c.Op {
	case tag.OpRange:
		return n + " >= ? AND " + n + " < ?"
	case tag.OpBetween:
		return n + " BETWEEN ? AND ?"
	}
	return n + " " + cqlspec.FilterOps[string(c.Op)] + " ?"
}

// Condition is the filter's restriction on its indexed columns, as a
// WHERE clause writes it.
func (f *Filter) Condition() string {
	var rs []string
	for _, c := range f.Conds {
		rs = append(rs, c.Relation())
	}
	return strings.Join(rs, " AND ")
}

// Statements returns the statements of the filter read, built once.
func (f *Filter) Statements() []*Statement {
	if f.stmts == nil {
		if spec := f.Spec(); spec != nil {
			f.stmts = f.On.convert(cqlspec.Render(spec), f.Names.Var)
		}
	}
	return f.stmts
}

// Spec is the description of the filter read for the runtime and the
// renderer: its table's, with the conditions; nil when its table or a
// column is unknown.
func (f *Filter) Spec() *cqlspec.Table {
	t := f.On
	if t == nil {
		return nil
	}
	s := t.Spec()
	s.Pattern, s.Canonical, s.Single, s.Maintained, s.Fenced, s.Unique, s.Prefix, s.TTL = f.Method, false, false, false, false, false, 0, 0
	ix := &cqlspec.Index{Scatter: f.Scatter()}
	s.Values = nil
	for _, c := range f.Conds {
		if c.Column.Field == nil || c.Column.Field.Type == nil {
			return nil
		}
		ix.Conds = append(ix.Conds, cqlspec.Cond{Column: c.Column.Name, Op: string(c.Op)})
		v := cqlspec.Column{Name: c.Column.Name, Type: c.ValueType().String()}
		s.Values = append(s.Values, v)
		if c.Bounded() {
			s.Values = append(s.Values, v)
		}
	}
	s.Index = ix
	return s
}

// idents are the identifiers generated for a filter pattern.
func (f *Filter) idents() []Ident {
	n := f.Names
	what := "filter " + f.Method
	return []Ident{
		{Name: f.Method, Recv: f.Entity.Names.Repo, Pos: f.MethodPos, What: "the read method of " + what},
		{Name: n.Var, Pos: f.MethodPos, What: "the statements of " + what},
		{Name: n.Key, Pos: f.MethodPos, What: "the cursor key of " + what},
		{Name: n.Options, Pos: f.MethodPos, What: "the options of read method " + f.Method},
	}
}

// filter builds a filter pattern; its table is resolved once every table
// of the entity is built.
func (b *builder) filter(e *Entity, lf *load.Field, tp *tag.Pattern, byColumn map[string]*Field) *Filter {
	pos := func(off int) token.Position { return b.tagPos(lf, off) }
	tf := tp.Filter
	f := &Filter{
		Entity:      e,
		Pos:         pos(tf.Off),
		OnName:      tf.On.Name,
		OnPos:       pos(tf.On.Off),
		IndexedRead: b.indexedRead(lf, tp, byColumn),
	}
	if tf.On.Name == "" {
		f.OnPos = f.Pos
	}
	if tf.OrOff >= 0 {
		f.OrPos = pos(tf.OrOff)
	}
	for _, c := range tf.Conds {
		f.Conds = append(f.Conds, &FilterCond{
			Column: Ref{Name: c.Column.Name, Pos: pos(c.Column.Off), Field: byColumn[c.Column.Name]},
			Op:     c.Op, OpPos: pos(c.OpOff),
		})
	}
	return f
}

// resolveFilter finds the table a filter reads, and the index pattern of
// each of its columns there; it words the pattern when the tag gives no
// doc.
func resolveFilter(e *Entity, f *Filter) {
	f.On = e.tableOn(f.OnName)
	for _, c := range f.Conds {
		for _, ix := range e.Indexes {
			if ix.On == f.On && f.On != nil && c.Column.Field != nil && ix.Column.Field == c.Column.Field && !ix.ANN && ix.Keys == (c.Op == tag.OpContainsKey) {
				c.Index = ix
			}
		}
	}
	if f.Doc == "" && f.On != nil {
		var parts []string
		for _, c := range f.Conds {
			parts = append(parts, c.Column.Name+" "+string(c.Op))
		}
		f.Doc = e.GoName + " rows by " + strings.Join(parts, " and ")
		if len(f.PK) > 0 {
			f.Doc += ", within one partition"
		}
	}
}
