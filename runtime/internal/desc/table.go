package desc

import (
	"math"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// TableSpec describes a table of an access pattern as generated code
// declares it: its columns and what it is to its entity (see
// internal/cqlspec, the contract generator and runtime share). NewTable
// renders every statement of the table from it, once, with the renderer
// the generator lists them with on the review page.
type TableSpec = cqlspec.Table

// Column is a column of a table: its name, its CQL type as in the DDL
// (text, bigint, frozen<list<text>>, ...), its clustering order, and
// whether it is static.
type Column = cqlspec.Column

// Cols reads the columns of a TableSpec as generated code writes them,
// one string a column: "name type", then desc for a descending
// clustering column, static for a static one.
func Cols(cols ...string) []Column { return cqlspec.Cols(cols...) }

// IndexSpec is the storage-attached index a read goes through.
type IndexSpec = cqlspec.Index

// IndexCond is a condition of a filter read (IndexSpec.Conds).
type IndexCond = cqlspec.Cond

// Bucket is how a table's partitions are split over buckets.
type Bucket = cqlspec.Bucket

// How a table's partitions are split over buckets (TableSpec.Bucket).
const (
	BucketOne  = cqlspec.BucketOne
	BucketHash = cqlspec.BucketHash
	BucketTime = cqlspec.BucketTime
)

// TableCQL is a table's statements as cqlspec.Render gives them, each
// with its text: what newTable wraps, by slot, and what the bound
// variants change (see withBounds). The page statements are bound by
// ReadPage in cqlspec's order: the partition key values (bucket last),
// then the clustering values the statement names, in clustering order,
// then the From bound, then the To bound.
type TableCQL []RenderedCQL

// RenderedCQL is one statement of a table and its text.
type RenderedCQL struct {
	cqlspec.Statement
	Text string
}

// Table is a table's key and its statements, ready to run.
type Table struct {
	Spec TableSpec
	// Row lists every column the table's Insert writes, in order: the
	// key, then Spec.Columns. What verify and repair compare in a
	// projection or unique table, and InsertIfAbsent in the one table of
	// an entity stored in one table.
	Row []Column
	// Data lists, on the source of truth of an entity under the write
	// protocol, the columns of the entity's fields in table order.
	Data []Column
	// Statements lists every statement the table can send, rendered
	// from Spec, in cqlspec.Render's order (the bound variants aside).
	Statements []*cqldriver.Statement
	// Parts lists, on a table in the transactional mode, the text of the
	// parts its entity's transactions are composed of (cqlspec.Render's
	// SlotTxn... statements), which are never sent alone.
	Parts []string

	Insert, Delete, Get, Scan *cqldriver.Statement
	// ScanRows reads a token range for a scan method (see ScanRows).
	ScanRows *cqldriver.Statement
	// PreRead is State as a write reads it before writing: the same text,
	// of kind cqlgen.PreRead, so that observers tell it from reads.
	PreRead *cqldriver.Statement
	// SerialRead is State at the serial level, which settles a
	// conditional write whose reply was lost (see settle).
	SerialRead *cqldriver.Statement
	// Partition reads the statics of a partition (see CQL.Partition), of
	// kind cqlgen.PreRead.
	Partition                     *cqldriver.Statement
	GetMany                       *cqldriver.Statement
	InsertTTL, Create             *cqldriver.Statement
	Add                           *cqldriver.Statement
	State, Change, Remove, Settle *cqldriver.Statement
	FenceLive, FenceGrave         *cqldriver.Statement
	Take, Release                 *cqldriver.Statement

	// Pages[k] are the page statements of a read that fixes the first k
	// clustering columns: pages[0] those of CQL, the others Prefix's.
	Pages []Pages
	// Scatter[k] are the scatter forms of pages[k] (see CQL.Scatter).
	Scatter []Pages
	Next    *cqldriver.Statement
	Nearest *cqldriver.Statement
	// Times is Get with the TTL() and WRITETIME() of Spec.Times last.
	Times *cqldriver.Statement
	// bounds are the variants of the statements for bounds other than
	// From inclusive and To exclusive (see withBounds).
	bounds *boundVariants
	cql    TableCQL // the text of the statements, for the bound variants
}

// Pages are the page statements of one depth of a prefix key.
type Pages struct {
	First                  [4]*cqldriver.Statement // by from | to<<1
	After                  []*cqldriver.Statement
	Runs                   []int // where each run of After starts, among all the clustering columns
	AfterTo                *cqldriver.Statement
	AtOrAfter, AtOrAfterTo *cqldriver.Statement
}

// newPages wraps the page statements of c of the read that fixes the
// first depth clustering columns, in their scatter form or not.
func (t *Table) newPages(c TableCQL, depth int, scatter bool) Pages {
	var p Pages
	single := [...]**cqldriver.Statement{&p.First[0], &p.First[1], &p.First[2], &p.First[3], &p.AfterTo, &p.AtOrAfter, &p.AtOrAfterTo}
	for _, s := range c {
		if s.Depth != depth || s.Scatter != scatter {
			continue
		}
		if i, ok := pageSlot[s.Slot]; ok {
			*single[i] = t.stmt(s.Text, cqlgen.Read)
		} else if s.Slot == cqlspec.SlotAfter {
			p.After = append(p.After, t.stmt(s.Text, cqlgen.Read))
		}
	}
	for _, start := range t.Spec.Runs(depth) {
		p.Runs = append(p.Runs, depth+start)
	}
	return p
}

// NewTable renders the statements of spec and wraps each: it gets the
// table, the pattern, and the kind and idempotence of its slot.
func NewTable(spec TableSpec) *Table {
	return NewTableFrom(spec, renderCQL(&spec))
}

// renderCQL is every statement of spec, with its text.
func renderCQL(spec *TableSpec) TableCQL {
	stmts := cqlspec.Render(spec)
	c := make(TableCQL, len(stmts))
	for i, s := range stmts {
		c[i] = RenderedCQL{s, s.CQL()}
	}
	return c
}

// pageSlot is where a page statement goes in pages (see newPages).
var pageSlot = map[cqlspec.Slot]int{
	cqlspec.SlotFirst: 0, cqlspec.SlotFirstFrom: 1, cqlspec.SlotFirstTo: 2, cqlspec.SlotFirstFromTo: 3,
	cqlspec.SlotAfterTo: 4, cqlspec.SlotAtOrAfter: 5, cqlspec.SlotAtOrAfterTo: 6,
}

// NewTableFrom wraps the statements c of spec: each slot's statement in the
// field of its name, of the kind the slot's statement is.
func NewTableFrom(spec TableSpec, c TableCQL) *Table {
	t := &Table{Spec: spec, bounds: &boundVariants{}}
	t.Row = append(append(append([]Column(nil), spec.PartitionKey...), spec.Clustering...), spec.Columns...)
	if spec.Versioned {
		for _, c := range spec.All() {
			if c.Field {
				t.Data = append(t.Data, c.Column)
			}
		}
	}
	insert := cqlgen.Write
	if spec.Unique {
		insert = cqlgen.Conditional
	}
	fields := map[cqlspec.Slot]struct {
		to   []**cqldriver.Statement
		kind []cqldriver.StatementKind
	}{
		cqlspec.SlotInsert:       {[]**cqldriver.Statement{&t.Insert}, []cqldriver.StatementKind{insert}},
		cqlspec.SlotInsertTTL:    {[]**cqldriver.Statement{&t.InsertTTL}, []cqldriver.StatementKind{cqlgen.Write}},
		cqlspec.SlotCreate:       {[]**cqldriver.Statement{&t.Create}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotAdd:          {[]**cqldriver.Statement{&t.Add}, []cqldriver.StatementKind{cqlgen.Write}},
		cqlspec.SlotDelete:       {[]**cqldriver.Statement{&t.Delete}, []cqldriver.StatementKind{cqlgen.Write}},
		cqlspec.SlotGet:          {[]**cqldriver.Statement{&t.Get}, []cqldriver.StatementKind{cqlgen.Read}},
		cqlspec.SlotGetMany:      {[]**cqldriver.Statement{&t.GetMany}, []cqldriver.StatementKind{cqlgen.Read}},
		cqlspec.SlotState:        {[]**cqldriver.Statement{&t.State, &t.PreRead, &t.SerialRead}, []cqldriver.StatementKind{cqlgen.Read, cqlgen.PreRead, cqlgen.SerialRead}},
		cqlspec.SlotPartition:    {[]**cqldriver.Statement{&t.Partition}, []cqldriver.StatementKind{cqlgen.PreRead}},
		cqlspec.SlotChange:       {[]**cqldriver.Statement{&t.Change}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotRemove:       {[]**cqldriver.Statement{&t.Remove}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotClearPending: {[]**cqldriver.Statement{&t.Settle}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotFenceLive:    {[]**cqldriver.Statement{&t.FenceLive}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotFenceGrave:   {[]**cqldriver.Statement{&t.FenceGrave}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotTake:         {[]**cqldriver.Statement{&t.Take}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotRelease:      {[]**cqldriver.Statement{&t.Release}, []cqldriver.StatementKind{cqlgen.Conditional}},
		cqlspec.SlotScan:         {[]**cqldriver.Statement{&t.Scan}, []cqldriver.StatementKind{cqlgen.Read}},
		cqlspec.SlotScanRows:     {[]**cqldriver.Statement{&t.ScanRows}, []cqldriver.StatementKind{cqlgen.Read}},
		cqlspec.SlotNext:         {[]**cqldriver.Statement{&t.Next}, []cqldriver.StatementKind{cqlgen.Read}},
		cqlspec.SlotNearest:      {[]**cqldriver.Statement{&t.Nearest}, []cqldriver.StatementKind{cqlgen.Read}},
		cqlspec.SlotTimes:        {[]**cqldriver.Statement{&t.Times}, []cqldriver.StatementKind{cqlgen.Read}},
	}
	for _, s := range c {
		if s.Depth > 0 || s.Scatter {
			continue
		}
		if f, ok := fields[s.Slot]; ok {
			for i, to := range f.to {
				*to = t.stmt(s.Text, f.kind[i])
			}
		} else if s.Slot.Txn() {
			t.Parts = append(t.Parts, s.Text)
		}
	}
	if t.Add != nil {
		// Adding twice counts twice: neither cqlgen's session nor the driver
		// may send it again.
		t.Add.Idempotent = false
	}
	depth, scatter := 0, -1 // the deepest page statements, of each form
	for _, s := range c {
		if _, ok := pageSlot[s.Slot]; ok || s.Slot == cqlspec.SlotAfter {
			if s.Scatter {
				scatter = max(scatter, s.Depth)
			} else {
				depth = max(depth, s.Depth)
			}
		}
	}
	for k := 0; k <= depth; k++ {
		t.Pages = append(t.Pages, t.newPages(c, k, false))
	}
	for k := 0; k <= scatter; k++ {
		t.Scatter = append(t.Scatter, t.newPages(c, k, true))
	}
	t.cql = c
	return t
}

// stmt wraps one statement; nil for "". Reads and plain writes are
// idempotent (but for Add, which NewTable marks); a conditional write is
// not (a retry after a lost reply could see its own write as a conflict).
func (t *Table) stmt(cql string, kind cqldriver.StatementKind) *cqldriver.Statement {
	if cql == "" {
		return nil
	}
	s := &cqldriver.Statement{
		CQL:        cql,
		Table:      t.Spec.Name,
		Pattern:    t.Spec.Pattern,
		Kind:       kind,
		Idempotent: kind != cqlgen.Conditional,
	}
	t.Statements = append(t.Statements, s)
	return s
}

// KeyColumn is the type of the i-th primary key column: the partition
// key, then the clustering columns.
func (t *Table) KeyColumn(i int) Column {
	if i < len(t.Spec.PartitionKey) {
		return t.Spec.PartitionKey[i]
	}
	return t.Spec.Clustering[i-len(t.Spec.PartitionKey)]
}

// SameKey reports whether two primary keys of t (values in key order,
// bucket included) are equal as Cassandra stores them: both are encoded
// with the columns' CQL types, so a timestamp that differs only below a
// millisecond is the same key. Keys it cannot encode count as different,
// which is safe: the row is then deleted and inserted again.
func SameKey(t *Table, a, b []any) bool {
	if len(a) != len(t.Spec.PartitionKey)+len(t.Spec.Clustering) {
		return false
	}
	return value.SameEncoded(a, b, func(i int) string { return t.KeyColumn(i).Type })
}

// TokenRange is the i-th of n equal ranges of Murmur3's tokens, as the
// bounds of "token(pk) > ? AND token(pk) <= ?". Murmur3 never gives a key
// the minimum token, so the first range's open lower bound loses nothing.
func TokenRange(i, n int) (lo, hi int64) {
	step := uint64(math.MaxUint64) / uint64(n)
	lo = math.MinInt64 + int64(uint64(i)*step)
	hi = math.MinInt64 + int64(uint64(i+1)*step)
	if i == n-1 {
		hi = math.MaxInt64
	}
	return lo, hi
}
