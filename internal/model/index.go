package model

import (
	"go/token"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
)

// TableOptions are the options of a table beyond its keys and TTL:
// compaction, gc_grace_seconds and comment, each as its pattern gives it.
type TableOptions struct {
	Compaction    *Compaction // nil: Cassandra's default (size-tiered)
	GCGrace       int64       // seconds
	HasGCGrace    bool
	GCGracePos    token.Position
	Comment       string // the explicit comment; the table's Doc when not HasComment
	HasComment    bool
	CommentPos    token.Position
	CompactionPos token.Position
}

// Compaction is a compaction strategy, and the window of a time-window one.
type Compaction struct {
	Strategy   string // stcs, lcs, ucs or twcs
	WindowN    int64
	WindowUnit string // m, h or d
	WindowPos  token.Position
}

// compactionClasses are the strategies' Cassandra class names.
var compactionClasses = map[string]string{
	"stcs": "SizeTieredCompactionStrategy",
	"lcs":  "LeveledCompactionStrategy",
	"twcs": "TimeWindowCompactionStrategy",
	"ucs":  "UnifiedCompactionStrategy",
}

var windowUnitNames = map[string]string{"m": "MINUTES", "h": "HOURS", "d": "DAYS"}

var windowUnitSeconds = map[string]int64{"m": 60, "h": 3600, "d": 86400}

// Class is the strategy's Cassandra class name.
func (c *Compaction) Class() string { return compactionClasses[c.Strategy] }

// WindowSeconds is a TWCS window in seconds; 0 for other strategies.
func (c *Compaction) WindowSeconds() int64 { return c.WindowN * windowUnitSeconds[c.WindowUnit] }

// CQL is the compaction map as the DDL writes it.
func (c *Compaction) CQL() string {
	m := "{'class': '" + c.Class() + "'"
	if c.Strategy == "twcs" {
		m += ", 'compaction_window_unit': '" + windowUnitNames[c.WindowUnit] + "', 'compaction_window_size': " + itoa(c.WindowN)
	}
	return m + "}"
}

// Tag is the compaction as a tag writes it: lcs, twcs(1d).
func (c *Compaction) Tag() string {
	if c.Strategy == "twcs" {
		return "twcs(" + itoa(c.WindowN) + c.WindowUnit + ")"
	}
	return c.Strategy
}

// CommentText is the table's comment as the DDL stores it: the explicit
// comment, or else the pattern's doc (given or worded by cqlgen). A
// semicolon becomes a comma: migration tools (gocqlx's migrate among
// them) split a file into statements at every semicolon, quoted or not,
// so an ALTER TABLE ... WITH comment holding one could not be applied.
//
// A deprecated table's comment starts with DEPRECATED (and the table that
// replaces it), so that schema.cql, the live keyspace and cqlgen diff all
// know it is on its way out.
func (t *Table) CommentText() string {
	c := strings.TrimRight(t.Doc, ".")
	if t.Options.HasComment {
		c = t.Options.Comment
	}
	if t.Deprecated {
		head := "DEPRECATED"
		if t.ReplacedByName != "" {
			head += ", replaced by " + t.ReplacedByName
		}
		c = head + ": " + c
	}
	return strings.ReplaceAll(c, ";", ",")
}

// Index is an index pattern: a storage-attached index (SAI) on one column
// of one of the entity's tables, and the read method that queries it. It
// serves rare or ad hoc reads without a table of its own.
type Index struct {
	Entity *Entity
	Name   string // the index's name in the keyspace
	Pos    token.Position
	// On is the table the index is on; nil when OnName names none of the
	// entity's tables (validation reports it).
	On     *Table
	OnName string
	OnPos  token.Position
	Column Ref
	// Keys indexes the keys of a map (col:"keys(col)"), which a read asks
	// for by CONTAINS KEY.
	Keys bool
	// Range reads the column between two values rather than by equality
	// (match:"range"); a set or list column is always read by CONTAINS.
	Range    bool
	MatchPos token.Position
	IndexedRead

	// ANN reads the rows whose vector is nearest a given one
	// (match:"ann"), by Similarity: cosine, dot_product or euclidean.
	ANN        bool
	Similarity string
	// Score is the similarity function whose value an ANN read returns
	// with each row (score:"similarity"); empty: rows alone.
	Score    string
	ScorePos token.Position
	// Filter, on an ANN read (filter:"column eq|contains"), names a
	// column whose own index pattern on the same table (FilterIndex, once
	// resolved) narrows the rows searched by its condition, FilterOp: eq
	// (=) or contains (CONTAINS).
	Filter      Ref
	FilterOp    string
	FilterIndex *Index
	// Declared is the index pattern that declares this one's index, when
	// an earlier pattern of the entity names the same index: this one
	// adds a read through it (its own name, pk, score, filter and doc),
	// and the DDL is the declaring pattern's alone. Nil: this pattern
	// declares its index.
	Declared *Index

	stmts []*Statement `cache:"-"` // built by Statements; no part of a cache key
}

// IndexedRead is what a read through indexes declares besides its
// conditions, alike for an index pattern and a filter pattern: the
// partition it is restricted to, its read method and doc, the warnings it
// silences, and the names generated code declares for it.
type IndexedRead struct {
	PK        []Ref // the partition the read is restricted to; nil: a scatter
	PKPos     token.Position
	Method    string
	MethodPos token.Position
	Doc       string
	Ignores   []Ignore
	Names     IndexNames
}

// IndexNames are the Go identifiers generated code declares for an index.
type IndexNames struct {
	Var     string // its statements (*cqlgenimpl.Table)
	Key     string // a row's cursor key
	Options string // the read method's options type (exported)
}

// Declares reports an index pattern that declares its index (and emits
// its DDL), rather than adding a read through one declared before.
func (ix *Index) Declares() bool { return ix.Declared == nil }

// Scatter reports an index read not restricted to one partition: every
// query visits every token range of the cluster.
func (ix *Index) Scatter() bool { return len(ix.PK) == 0 }

// Contains reports an index on a set or list, which a read queries by
// CONTAINS: rows whose collection holds the value.
func (ix *Index) Contains() bool {
	f := ix.Column.Field
	return f != nil && f.Type != nil && (f.Type.Name == "set" || f.Type.Name == "list") && !f.Type.Frozen
}

// ValueType is the CQL type of the value a read binds: the element of a
// set or list, else the column's type.
func (ix *Index) ValueType() *Type {
	t := ix.Column.Field.Type
	if ix.Contains() || ix.Keys && len(t.Params) > 0 {
		return t.Params[0]
	}
	return t
}

// Op is the relation a read puts on the indexed column.
func (ix *Index) Op() string {
	switch {
	case ix.Keys:
		return "CONTAINS KEY"
	case ix.Contains():
		return "CONTAINS"
	case ix.Range:
		return ">= ? AND < ?"
	}
	return "="
}

// Condition is the index's restriction in a WHERE clause; for an ANN
// index, its ordering.
func (ix *Index) Condition() string {
	c := ix.Column.Name
	if ix.ANN {
		return c + " ANN OF ?" // in ORDER BY, not in WHERE
	}
	if ix.Range {
		return c + " >= ? AND " + c + " < ?"
	}
	return c + " " + ix.Op() + " ?"
}

// Rangeable reports a CQL type SAI reads by range: numbers, dates and
// times. Text is equality only.
func Rangeable(t *Type) bool {
	switch t.Name {
	case "tinyint", "smallint", "int", "bigint", "varint", "float", "double", "decimal", "date", "time", "timestamp":
		return true
	}
	return false
}

// Indexable reports a CQL type a storage-attached index can index in
// Cassandra 5.0, and why not when it cannot.
func Indexable(t *Type) (bool, string) {
	switch {
	case t.Name == "counter":
		return false, "a counter"
	case t.Name == "duration":
		return false, "a duration, which Cassandra does not index"
	case t.Name == "blob":
		return false, "a blob, which SAI does not index in Cassandra 5.0"
	case t.Frozen && t.Name == "list":
		return false, "a frozen list (a Go slice is stored frozen<list<T>> by default, one cell a rewrite keeps as it is), which SAI indexes only whole; to find rows by one element, store the field as a set (cql:\"set<" + t.Params[0].String() + ">\", or map[T]struct{}), whose CONTAINS reads cqlgen generates"
	case t.Frozen:
		return false, "a frozen collection, which SAI indexes only whole (full(...)), a form cqlgen does not generate reads for yet"
	case t.Name == "map":
		return false, "a map, whose values or entries cqlgen does not index yet; index its keys with col:\"keys(column)\" (read by contains key), or keep the values you search for in a set"
	case t.IsVector():
		return true, ""
	case t.IsCollection():
		if ok, _ := Indexable(t.Params[0]); !ok || t.Params[0].IsCollection() {
			return false, "a collection of " + t.Params[0].String()
		}
	}
	return true, ""
}

// Statements returns the statements of the index read: First, After per
// run of clustering columns, and for a scatter Next. They are built once.
func (ix *Index) Statements() []*Statement {
	if ix.stmts == nil {
		ix.stmts = ix.statements()
	}
	return ix.stmts
}

func (ix *Index) statements() []*Statement {
	spec := ix.Spec()
	if spec == nil {
		return nil
	}
	return ix.On.convert(cqlspec.Render(spec), ix.Names.Var)
}

// Spec is the description of the index read for the runtime and the
// renderer: its table's, with the index; nil when it has no table.
func (ix *Index) Spec() *cqlspec.Table {
	t := ix.On
	if t == nil || ix.Column.Field == nil {
		return nil
	}
	var col *Column
	for _, c := range t.Columns {
		if c.Field == ix.Column.Field {
			col = c
		}
	}
	if col == nil {
		return nil
	}
	s := t.Spec()
	// The index's statements need the columns a read selects alone.
	s.Times = nil
	s.Pattern, s.Canonical, s.Single, s.Maintained, s.Fenced, s.Unique, s.Prefix, s.TTL = ix.Method, false, false, false, false, false, 0, 0
	s.Index = &cqlspec.Index{Column: col.Name, Contains: ix.Contains(), Keys: ix.Keys, Range: ix.Range, ANN: ix.ANN, Score: ix.Score, Scatter: ix.Scatter()}
	v := cqlspec.Column{Name: ix.Column.Name, Type: ix.ValueType().String()}
	s.Values = []cqlspec.Column{v}
	if ix.Range {
		s.Values = append(s.Values, v)
	}
	if fx := ix.FilterIndex; fx != nil && fx.Column.Field != nil {
		s.Index.Filter, s.Index.FilterContains = fx.Column.Name, fx.Contains()
		s.Values = append(s.Values, cqlspec.Column{Name: fx.Column.Name, Type: fx.ValueType().String()})
	}
	return s
}

// idents are the identifiers generated for an index pattern.
func (ix *Index) idents() []Ident {
	n := ix.Names
	what := "index " + ix.Name
	ids := []Ident{
		{Name: ix.Method, Recv: ix.Entity.Names.Repo, Pos: ix.MethodPos, What: "the read method of " + what},
		{Name: n.Var, Pos: ix.MethodPos, What: "the statements of " + what},
		{Name: n.Key, Pos: ix.MethodPos, What: "the cursor key of " + what},
		{Name: n.Options, Pos: ix.MethodPos, What: "the options of read method " + ix.Method},
	}
	return ids
}

// TimeSeries reports a table whose rows expire and arrive in time order:
// a TTL, and a time bucket or a first clustering column of a time type.
// Such a table is what TimeWindowCompactionStrategy is for.
func (t *Table) TimeSeries() bool {
	if t.TTL == 0 {
		return false
	}
	if t.Bucket != nil && t.Bucket.Kind.IsTime() {
		return true
	}
	ck := t.Clustering()
	if len(ck) == 0 || ck[0].Type == nil {
		return false
	}
	switch ck[0].Type.Name {
	case "timestamp", "timeuuid", "date":
		return true
	}
	return false
}

// TargetWindows is how many TWCS windows a TTL should span: Cassandra's
// guidance is 20 to 50 SSTables' worth; 30 sits inside it.
const TargetWindows = 30

// RecommendedWindow is the TWCS window for a table with a TTL: about the
// TTL over TargetWindows, as a whole number of time buckets when the
// table has a time bucket (so one bucket's rows sit in one or two
// windows), else rounded to whole days, hours or minutes. It returns the
// window as a twcs compaction and how many windows the TTL spans.
func (t *Table) RecommendedWindow() (*Compaction, int64) {
	if t.TTL == 0 {
		return nil, 0
	}
	target := float64(t.TTL) / TargetWindows
	var w int64
	if b := t.Bucket; b != nil && b.Kind.IsTime() {
		base := b.BucketSeconds()
		w = base * max(1, int64(target/float64(base)+0.5))
	} else {
		base := int64(60)
		switch {
		case target >= 86400:
			base = 86400
		case target >= 3600:
			base = 3600
		}
		w = base * max(1, int64(target/float64(base)+0.5))
	}
	c := &Compaction{Strategy: "twcs"}
	switch {
	case w%86400 == 0:
		c.WindowN, c.WindowUnit = w/86400, "d"
	case w%3600 == 0:
		c.WindowN, c.WindowUnit = w/3600, "h"
	default:
		c.WindowN, c.WindowUnit = w/60, "m"
	}
	return c, (t.TTL + w - 1) / w
}
