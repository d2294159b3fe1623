package impl

import (
	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
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

// Bucket is how a table's partitions are split over buckets.
type Bucket = cqlspec.Bucket

// How a table's partitions are split over buckets (TableSpec.Bucket).
const (
	BucketOne  = cqlspec.BucketOne
	BucketHash = cqlspec.BucketHash
	BucketTime = cqlspec.BucketTime
)

// tableCQL is the text of a table's statements, as cqlspec.Render gives
// them by slot; "" for those it does not have. The page statements are
// bound by ReadPage in cqlspec's order: the partition key values (bucket
// last), then the clustering values the statement names, in clustering
// order, then the From bound, then the To bound.
type tableCQL struct {
	Insert string // a whole row
	Delete string // a row by its primary key
	Get    string // a row by its primary key
	// GetMany reads the rows of several partitions of a table whose
	// partitions hold one row: equal on the partition key's columns but
	// the last, and the last IN ? (see GetMany).
	GetMany string

	// InsertTTL is Insert with a TTL: USING TTL ? AND TIMESTAMP ?, the
	// TTL bound before the timestamp. Create is Insert if no row has the
	// key: IF NOT EXISTS USING TTL ?, without the timestamp, which
	// Cassandra refuses on a conditional write. Only the table of an
	// entity stored in one table has them.
	InsertTTL, Create string

	// Add is a counter table's update: every counter plus a bound amount
	// (UPDATE ... SET c = c + ?), the amounts first, then the primary key.
	// A counter table has no Insert. Add is never retried (see NewTable).
	Add string

	// The write protocol's statements on the canonical table of an entity
	// stored in several tables (see Write): the row's state, and the
	// conditional writes that change it, remove it (leaving a grave) and
	// clear its pending record.
	State, Change, Remove, Settle string
	// Partition, on a canonical table with static columns, reads State's
	// columns from the first row of a partition (WHERE the partition key,
	// LIMIT 1): the partition's statics and their version, which a write
	// of a row not there yet conditions on.
	Partition string
	// FenceLive and FenceGrave, on the canonical table of an entity with
	// unique tables, move on the version of an entity (live, or a grave or
	// no row at all) whose claim another writer takes over, so that a
	// change of it still in flight cannot land (see claim).
	FenceLive, FenceGrave string
	// Take and Release, on a unique table: a claim moved to another owner
	// (or renewed) if its owner and version are the ones read, and a claim
	// given up if it is its owner's and older than the change that gives
	// it up. A unique table's Insert is the claim itself, IF NOT EXISTS.
	Take, Release string

	// Scan reads a token range of the table for verify, repair and
	// backfill: token(partition key) > ? AND <= ?. On the canonical table
	// it selects State's columns; elsewhere the Insert's columns, then
	// possibly the write timestamp of a regular column.
	Scan string
	// ScanRows is the typed full-table read of a table declared with the
	// table option scan: the read's columns over a token range, paged by
	// the driver (see ScanRows).
	ScanRows string

	// A partition from its first row, unbounded or bounded on the first
	// clustering column: From inclusive, To exclusive, in clustering order
	// (a read that asks for other bounds runs them with the bound's
	// operator changed, see withBounds).
	First, FirstFrom, FirstTo, FirstFromTo string
	// After[k] continues after a row, for the k-th run of clustering
	// columns of one direction (Clustering's Desc): equal on the columns
	// before the run, strictly after the row on the run's columns, as one
	// multi-column slice. A table ordered one way throughout has one.
	// AfterTo is After[0] with the To bound.
	After   []string
	AfterTo string
	// AtOrAfter is the last of After at or after the row. AtOrAfterTo is
	// AtOrAfter with the To bound, for a table with one run.
	AtOrAfter, AtOrAfterTo string

	// Next continues a scatter read through an index after the partition
	// of a row: token(partition key) > token(?), then the index's
	// restriction (see ReadIndex).
	Next string

	// Nearest reads the rows nearest a vector through an ANN index: the
	// partition key (unless a scatter), the vector, the limit (see
	// ReadNearest).
	Nearest string

	// Parts are, on a table in the transactional mode, the parts of its
	// entity's transactions (cqlspec.SlotTxn...), never sent alone: see
	// txn.go.
	Parts []string

	// Prefix[k-1] holds the page statements of a read that fixes the
	// first k clustering columns by equality (a pattern's prefix key):
	// the same as First... and After... above, with those columns'
	// equalities after the partition key, bounds on column k, and runs
	// counted from column k. ReadPage binds the k values after the
	// partition key.
	Prefix []pageCQL

	// Scatter[k], on a table split over hash buckets, holds the page
	// statements of depth k (0: those above, k: Prefix[k-1]'s) in the
	// form that reads every bucket in one request: the bucket column IN
	// ? (bound to the list of buckets, in place of the bucket), the bucket
	// column selected after the others, and PER PARTITION LIMIT ? bound
	// last. A table without them reads one bucket per request (see
	// cqlgen.ScatterClient).
	Scatter []pageCQL
}

// pageCQL is the text of the page statements of a read at one depth of
// a prefix key; its fields are those of tableCQL of the same names.
type pageCQL struct {
	First, FirstFrom, FirstTo, FirstFromTo string
	After                                  []string
	AfterTo, AtOrAfter, AtOrAfterTo        string
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

	// pages[k] are the page statements of a read that fixes the first k
	// clustering columns: pages[0] those of CQL, the others Prefix's.
	pages []pages
	// scatter[k] are the scatter forms of pages[k] (see CQL.Scatter).
	scatter []pages
	next    *cqldriver.Statement
	nearest *cqldriver.Statement
	// bounds are the variants of the statements for bounds other than
	// From inclusive and To exclusive (see withBounds).
	bounds *boundVariants
	cql    tableCQL // the text of the statements, for the bound variants
}

// pages are the page statements of one depth of a prefix key.
type pages struct {
	first                  [4]*cqldriver.Statement // by from | to<<1
	after                  []*cqldriver.Statement
	runs                   []int // where each run of After starts, among all the clustering columns
	afterTo                *cqldriver.Statement
	atOrAfter, atOrAfterTo *cqldriver.Statement
}

// newPages wraps the page statements of the read that fixes the first
// depth clustering columns.
func (t *Table) newPages(c pageCQL, depth int) pages {
	var p pages
	for i, cql := range []string{c.First, c.FirstFrom, c.FirstTo, c.FirstFromTo} {
		p.first[i] = t.stmt(cql, cqlgen.Read)
	}
	for _, cql := range c.After {
		p.after = append(p.after, t.stmt(cql, cqlgen.Read))
	}
	for _, start := range t.Spec.Runs(depth) {
		p.runs = append(p.runs, depth+start)
	}
	p.afterTo = t.stmt(c.AfterTo, cqlgen.Read)
	p.atOrAfter = t.stmt(c.AtOrAfter, cqlgen.Read)
	p.atOrAfterTo = t.stmt(c.AtOrAfterTo, cqlgen.Read)
	return p
}

// NewTable renders the statements of spec and wraps each: it gets the
// table, the pattern, and the kind and idempotence of its slot.
func NewTable(spec TableSpec) *Table {
	return newTable(spec, renderCQL(&spec))
}

// renderCQL is every statement of spec, by slot.
func renderCQL(spec *TableSpec) tableCQL {
	var c tableCQL
	for _, s := range cqlspec.Render(spec) {
		text := s.CQL()
		if s.Depth > 0 || s.Scatter {
			pages := &c.Prefix
			k := s.Depth - 1
			if s.Scatter {
				pages, k = &c.Scatter, s.Depth
			}
			for len(*pages) <= k {
				*pages = append(*pages, pageCQL{})
			}
			p := &(*pages)[k]
			switch s.Slot {
			case cqlspec.SlotFirst:
				p.First = text
			case cqlspec.SlotFirstFrom:
				p.FirstFrom = text
			case cqlspec.SlotFirstTo:
				p.FirstTo = text
			case cqlspec.SlotFirstFromTo:
				p.FirstFromTo = text
			case cqlspec.SlotAfter:
				p.After = append(p.After, text)
			case cqlspec.SlotAfterTo:
				p.AfterTo = text
			case cqlspec.SlotAtOrAfter:
				p.AtOrAfter = text
			case cqlspec.SlotAtOrAfterTo:
				p.AtOrAfterTo = text
			}
			continue
		}
		switch s.Slot {
		case cqlspec.SlotInsert:
			c.Insert = text
		case cqlspec.SlotInsertTTL:
			c.InsertTTL = text
		case cqlspec.SlotCreate:
			c.Create = text
		case cqlspec.SlotAdd:
			c.Add = text
		case cqlspec.SlotDelete:
			c.Delete = text
		case cqlspec.SlotGet:
			c.Get = text
		case cqlspec.SlotGetMany:
			c.GetMany = text
		case cqlspec.SlotState:
			c.State = text
		case cqlspec.SlotPartition:
			c.Partition = text
		case cqlspec.SlotChange:
			c.Change = text
		case cqlspec.SlotRemove:
			c.Remove = text
		case cqlspec.SlotClearPending:
			c.Settle = text
		case cqlspec.SlotFenceLive:
			c.FenceLive = text
		case cqlspec.SlotFenceGrave:
			c.FenceGrave = text
		case cqlspec.SlotTake:
			c.Take = text
		case cqlspec.SlotRelease:
			c.Release = text
		case cqlspec.SlotScan:
			c.Scan = text
		case cqlspec.SlotScanRows:
			c.ScanRows = text
		case cqlspec.SlotFirst:
			c.First = text
		case cqlspec.SlotFirstFrom:
			c.FirstFrom = text
		case cqlspec.SlotFirstTo:
			c.FirstTo = text
		case cqlspec.SlotFirstFromTo:
			c.FirstFromTo = text
		case cqlspec.SlotAfter:
			c.After = append(c.After, text)
		case cqlspec.SlotAfterTo:
			c.AfterTo = text
		case cqlspec.SlotAtOrAfter:
			c.AtOrAfter = text
		case cqlspec.SlotAtOrAfterTo:
			c.AtOrAfterTo = text
		case cqlspec.SlotNext:
			c.Next = text
		case cqlspec.SlotNearest:
			c.Nearest = text
		case cqlspec.SlotTxnRead, cqlspec.SlotTxnChange, cqlspec.SlotTxnClaimRead, cqlspec.SlotTxnInsert, cqlspec.SlotTxnDelete:
			c.Parts = append(c.Parts, text)
		}
	}
	return c
}

// newTable wraps the statements c of spec.
func newTable(spec TableSpec, c tableCQL) *Table {
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
	t.Insert = t.stmt(c.Insert, insert)
	t.InsertTTL = t.stmt(c.InsertTTL, cqlgen.Write)
	t.Create = t.stmt(c.Create, cqlgen.Conditional)
	t.Delete = t.stmt(c.Delete, cqlgen.Write)
	t.Get = t.stmt(c.Get, cqlgen.Read)
	t.GetMany = t.stmt(c.GetMany, cqlgen.Read)
	t.State = t.stmt(c.State, cqlgen.Read)
	t.PreRead = t.stmt(c.State, cqlgen.PreRead)
	t.SerialRead = t.stmt(c.State, cqlgen.SerialRead)
	t.Partition = t.stmt(c.Partition, cqlgen.PreRead)
	t.Change = t.stmt(c.Change, cqlgen.Conditional)
	t.Remove = t.stmt(c.Remove, cqlgen.Conditional)
	t.Settle = t.stmt(c.Settle, cqlgen.Conditional)
	t.FenceLive = t.stmt(c.FenceLive, cqlgen.Conditional)
	t.FenceGrave = t.stmt(c.FenceGrave, cqlgen.Conditional)
	t.Take = t.stmt(c.Take, cqlgen.Conditional)
	t.Release = t.stmt(c.Release, cqlgen.Conditional)
	t.Scan = t.stmt(c.Scan, cqlgen.Read)
	t.ScanRows = t.stmt(c.ScanRows, cqlgen.Read)
	if t.Add = t.stmt(c.Add, cqlgen.Write); t.Add != nil {
		// Adding twice counts twice: neither cqlgen's session nor the driver
		// may send it again.
		t.Add.Idempotent = false
	}
	t.pages = append(t.pages, t.newPages(pageCQL{
		First: c.First, FirstFrom: c.FirstFrom, FirstTo: c.FirstTo, FirstFromTo: c.FirstFromTo,
		After: c.After, AfterTo: c.AfterTo, AtOrAfter: c.AtOrAfter, AtOrAfterTo: c.AtOrAfterTo,
	}, 0))
	for k, p := range c.Prefix {
		t.pages = append(t.pages, t.newPages(p, k+1))
	}
	for k, p := range c.Scatter {
		t.scatter = append(t.scatter, t.newPages(p, k))
	}
	t.next = t.stmt(c.Next, cqlgen.Read)
	t.nearest = t.stmt(c.Nearest, cqlgen.Read)
	t.Parts = c.Parts
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

// keyColumn is the type of the i-th primary key column: the partition
// key, then the clustering columns.
func (t *Table) keyColumn(i int) Column {
	if i < len(t.Spec.PartitionKey) {
		return t.Spec.PartitionKey[i]
	}
	return t.Spec.Clustering[i-len(t.Spec.PartitionKey)]
}
