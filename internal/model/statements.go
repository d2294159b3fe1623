package model

import (
	"github.com/cqlgen/cqlgen/internal/cqlspec"
)

// Statement is one CQL statement that generated code declares for a table:
// its text, one clause per line, and what its placeholders bind, in order.
// Both come from one description here, so the emitted CQL and the code
// that binds it cannot disagree.
type Statement struct {
	Slot cqlspec.Slot
	// Depth is, for a page statement, how many clustering columns, from
	// the first, it fixes by equality: 0, or up to the table's
	// PrefixDepth.
	Depth int
	// Scatter marks the form of a page statement that reads every hash
	// bucket of a partition at once: the bucket column IN ?, the bucket
	// column selected last, at most a bound number of rows per bucket
	// (PER PARTITION LIMIT ?).
	Scatter bool
	Const   string   // the Go constant that holds the text
	Clauses []string // the statement, one clause per line
	Binds   []Bind   // one per placeholder, in order
}

// CQL is the statement's text, clauses on their own lines (see
// cqlspec.Statement.CQL): the text the runtime renders and sends.
func (s *Statement) CQL() string {
	return (&cqlspec.Statement{Clauses: s.Clauses}).CQL()
}

// Bind is one placeholder.
type Bind struct {
	Kind   cqlspec.BindKind
	Column *Column // for cqlspec.BindColumn, and the column a bound restricts
}

// Words describes the placeholder for a comment.
func (b Bind) Words() string {
	switch b.Kind {
	case cqlspec.BindTimestamp:
		return "the write timestamp"
	case cqlspec.BindOldVersion:
		return "the version read"
	case cqlspec.BindPending:
		return "the pending record"
	case cqlspec.BindWrites:
		return "the record of the last changes"
	case cqlspec.BindFrom:
		return "From"
	case cqlspec.BindTo:
		return "To"
	case cqlspec.BindTokenLo:
		return "the lower token (excluded)"
	case cqlspec.BindTokenHi:
		return "the upper token"
	case cqlspec.BindHeld:
		return b.Column.Name + " as read"
	case cqlspec.BindChange:
		return "the version of the change"
	case cqlspec.BindDelta:
		return "the amount added to " + b.Column.Name
	case cqlspec.BindTTL:
		return "the TTL in seconds (unset: the table's default)"
	case cqlspec.BindValue:
		return "the value of " + b.Column.Name + " looked for"
	case cqlspec.BindKeys:
		return "the list of " + b.Column.Name + " values"
	case cqlspec.BindLimit:
		return "the limit"
	case cqlspec.BindPerPartition:
		return "the most rows per bucket"
	case cqlspec.BindStaticTS:
		return "the statics' new version (unset: unchanged)"
	case cqlspec.BindOldStatic:
		return "the statics' version read"
	}
	if b.Column.Kind == Claim {
		return b.Column.Name + " (the version of the change)"
	}
	if b.Column.Kind == Version {
		return b.Column.Name + " (the write timestamp)"
	}
	return b.Column.Name
}

// The table's uses decide which statements it gets.

// HasRead reports whether the table gets a read method of its own: every
// table but a canonical one with no clustering column and no bucket, whose
// one row per partition Get already reads.
func (t *Table) HasRead() bool {
	return !(t.Entity.Canonical == t && t.pagesOne())
}

// ReadsOne reports whether the table's read method returns one row rather
// than pages: its partition holds one row.
func (t *Table) ReadsOne() bool { return t.Unique || (t.pagesOne() && t.Entity.Canonical != t) }

// HasGetMany reports whether the entity's repository gets a multi-get,
// GetMany, on t: the source of truth, when a partition holds one entity
// (no clustering column, no bucket), so that a list of partition keys is
// a list of entities.
func (t *Table) HasGetMany() bool {
	return t.Entity.Canonical == t && t.pagesOne() && !t.Unique && len(t.PartitionKey()) > 0
}

func (t *Table) pagesOne() bool { return len(t.CK) == 0 && t.Bucket == nil }

// Statements returns the statements generated code declares for t, in
// the order they are emitted. They are built once, on first use, after
// the model is complete, from Rendered; safe for concurrent use, as the
// emitters run at once.
func (t *Table) Statements() []*Statement {
	t.render()
	return t.stmts
}

// Rendered returns t's statements as cqlspec.Render renders them from
// t.Spec(), with their text, which the review page lists: rendered once
// for the Go emitter and the review page both.
func (t *Table) Rendered() []cqlspec.Statement {
	t.render()
	return t.rendered
}

func (t *Table) render() {
	t.once.Do(func() {
		t.rendered = cqlspec.Render(t.Spec())
		t.stmts = t.convert(t.rendered, t.Names.Var)
	})
}

// convert gives rendered statements their Go constant's name and their
// binds the model's columns.
func (t *Table) convert(rendered []cqlspec.Statement, prefix string) []*Statement {
	byName := map[string]*Column{}
	for _, c := range t.Columns {
		byName[c.Name] = c
	}
	out := make([]*Statement, len(rendered))
	for i, r := range rendered {
		name := prefix
		if r.Scatter {
			name += "Scatter"
		}
		if r.Depth > 0 {
			name += "Eq" + itoa(int64(r.Depth))
		}
		name += string(r.Slot)
		if r.Slot == cqlspec.SlotAfter {
			name += itoa(int64(r.Level))
		}
		binds := make([]Bind, len(r.Binds))
		for j, b := range r.Binds {
			binds[j] = Bind{Kind: b.Kind, Column: byName[b.Column]}
		}
		out[i] = &Statement{Slot: r.Slot, Depth: r.Depth, Scatter: r.Scatter, Const: name + "CQL", Clauses: r.Clauses, Binds: binds}
	}
	return out
}

// CostShape is what the costs of the entity's writes depend on
// (cqlspec.Costs): the review page's "What a write costs", and cqlgen
// diff's when the entity changes kind.
func (e *Entity) CostShape() cqlspec.Shape {
	s := cqlspec.Shape{Immutable: e.Immutable}
	for _, t := range e.Tables {
		s.Tables = append(s.Tables, t.Spec())
		s.Sparse = append(s.Sparse, t.Sparse())
	}
	return s
}

// Spec is t's description for the runtime and the renderer: its columns
// and what the table is to its entity.
func (t *Table) Spec() *cqlspec.Table {
	e := t.Entity
	col := func(c *Column) cqlspec.Column {
		typ := ""
		if c.Type != nil {
			typ = c.Type.Spec()
		}
		return cqlspec.Column{Name: c.Name, Type: typ, Desc: c.Desc, Static: c.Kind == Static}
	}
	s := &cqlspec.Table{
		Name:       t.Name,
		Pattern:    t.Method,
		Canonical:  e.Canonical == t,
		Unique:     t.Unique,
		Single:     e.Single(),
		Maintained: e.Maintained(),
		Scanned:    t.Scan && !t.Unique,
		Prefix:     t.PrefixDepth(),
		TTL:        t.TTL,
	}
	s.Versioned = s.Canonical && e.Versioned()
	s.Fenced = s.Versioned && e.HasUnique()
	s.Transactional = e.Transactional
	if b := t.Bucket; b != nil {
		switch {
		case b.Kind.IsTime():
			s.Bucket = cqlspec.BucketTime
		case b.N > 1:
			s.Bucket = cqlspec.BucketHash
		default:
			s.Bucket = cqlspec.BucketOne
		}
	}
	for _, c := range t.Columns {
		switch c.Kind {
		case PartitionKey:
			s.PartitionKey = append(s.PartitionKey, col(c))
		case Clustering:
			s.Clustering = append(s.Clustering, col(c))
		case Regular, Static:
			s.Columns = append(s.Columns, col(c))
			if f := c.Field; s.Canonical && f != nil && f.TTL {
				s.Times = append(s.Times, "ttl("+cqlspec.Quote(c.Name)+")")
			}
			if f := c.Field; s.Canonical && f != nil && f.Writetime {
				s.Times = append(s.Times, "writetime("+cqlspec.Quote(c.Name)+")")
			}
		}
	}
	return s
}

// Single reports an entity stored in one table that is not a counter
// table: its writes are one plain statement each, which can take a TTL
// of the call's, and its Insert can be conditional (IF NOT EXISTS).
func (e *Entity) Single() bool { return len(e.Tables) == 1 && !e.Counting() }

// HasUnique reports whether the entity has a unique table.
func (e *Entity) HasUnique() bool {
	for _, t := range e.Tables {
		if t.Unique {
			return true
		}
	}
	return false
}

// WritetimeColumns are the columns whose write timestamps Scan selects,
// last, on a projection or an immutable entity's canonical table (see
// cqlspec.Table.Writetime).
func (t *Table) WritetimeColumns() []*Column {
	var out []*Column
	for _, w := range t.Spec().Writetime() {
		for _, c := range t.Columns {
			if c.Name == w.Name {
				out = append(out, c)
			}
		}
	}
	return out
}

// GraveTTLSeconds is how long the canonical row of a deleted entity stays
// as a grave (see cqlspec.GraveTTLSeconds).
const GraveTTLSeconds = cqlspec.GraveTTLSeconds

// GraveTTL is the TTL of a grave in t: GraveTTLSeconds, or the table's
// own TTL when shorter.
func (t *Table) GraveTTL() int64 { return t.Spec().GraveTTL() }

// Scatters reports whether the table's reads get the scatter form of their
// page statements (see cqlspec.Table.Scatters).
func (t *Table) Scatters() bool { return t.Spec().Scatters() }

// TimedFields are the fields of e whose column's TTL() or WRITETIME()
// GetTimes reads (cqlgen:"ttl, writetime"), in the source of truth's
// column order.
func (e *Entity) TimedFields() []*Field {
	var out []*Field
	if e.Canonical == nil {
		return nil
	}
	for _, c := range e.Canonical.Columns {
		if f := c.Field; f != nil && (f.TTL || f.Writetime) && (c.Kind == Regular || c.Kind == Static) {
			out = append(out, f)
		}
	}
	return out
}
