// Package cqlspec is the one contract between cqlgen's generator and its
// runtime: the description of a table that generated code declares, the
// columns and constants of the write protocol, the statement kinds with
// the order of their placeholders, and the one renderer of every
// statement's text from a table's description (Render). The generator
// renders it for the review page; the runtime renders it at init, for
// the wire. Nothing here is spelled twice.
package cqlspec

import "strings"

// The columns cqlgen adds to the tables of an entity for its write
// protocol (docs/repositories.md). Names starting with cqlgen_ are
// reserved.
const (
	// VersionColumn orders the entity's changes: every change sets it, with
	// a conditional write on its old value, so concurrent writers take
	// turns, and its value is the write timestamp of the change's rows in
	// the other tables.
	VersionColumn = "cqlgen_version"
	// DeletedColumn marks a deleted entity: its canonical row stays, as a
	// grave with the last version, for a while (GraveTTLSeconds), so that
	// an entity created again writes after its deletion whatever the
	// clocks say.
	DeletedColumn = "cqlgen_deleted"
	// PendingColumn records the rows of the other tables that the last
	// change must delete, written in the same conditional write as the
	// change: whoever writes the entity next finishes that work first.
	PendingColumn = "cqlgen_pending"
	// WritesColumn records the last few changes of the entity (each one's
	// version, the version it replaced and a random id), written by each
	// change in the same conditional write: how a writer whose reply was
	// lost learns later whether its change applied, even after others.
	WritesColumn = "cqlgen_writes"
	// ClaimColumn is, in a unique table, the version of the change that
	// claimed the row's key for its owner: how a writer tells a claim in
	// flight (whose change may still land) from one left behind.
	ClaimColumn = "cqlgen_claim"
	// StaticVersionColumn is, in a source of truth with static columns,
	// the version of the change that last set them, a static column too:
	// a static belongs to the partition, not to the row whose write set
	// it, so the protocol's writes condition on it beside the row's
	// version, and the version a reader sees is the greater of the two.
	StaticVersionColumn = "cqlgen_static_version"
)

// GraveTTLSeconds is how long the canonical row of a deleted entity stays
// as a grave: Cassandra's default gc_grace_seconds, ten days.
const GraveTTLSeconds = 10 * 24 * 3600

// Column is a column of a table: its name, its CQL type as in the DDL
// (text, bigint, frozen<list<text>>, ...), its clustering order, and
// whether it is static.
type Column struct {
	Name   string
	Type   string
	Desc   bool
	Static bool
}

// Bucket is how a table's partitions are split: the bucket column is the
// partition key's last.
type Bucket uint8

const (
	BucketNone Bucket = iota
	BucketOne         // a hash bucket of one: a bucket column, never scattered
	BucketHash        // several hash buckets, read at once (scatter)
	BucketTime        // time buckets, older ones read at once from their first rows
)

// Table describes a table of an access pattern: all its renderer and its
// runtime need. Its columns are, in table order, PartitionKey, Clustering,
// Columns, then those the protocol implies: on a Versioned table
// cqlgen_version, cqlgen_deleted, cqlgen_pending, cqlgen_writes (and
// cqlgen_static_version with a static column); on a Unique table
// cqlgen_claim.
type Table struct {
	Name    string
	Pattern string // the access pattern's read method, for observers and cursors
	// PartitionKey lists the partition key columns in order, the bucket
	// column last if there is one.
	PartitionKey []Column
	Clustering   []Column
	// Columns lists the other columns of the entity's fields, in table
	// order.
	Columns []Column

	// Canonical marks the entity's source of truth; Versioned, the source
	// of truth of an entity written through the write protocol.
	Canonical, Versioned bool
	// Single marks the one table of an entity stored in one table (not a
	// counter table): it gets InsertTTL and Create.
	Single bool
	// Maintained marks a table of an entity that verify, repair and
	// backfill maintain: it gets Scan.
	Maintained bool
	// Scanned marks a table declared with the table option scan: it gets
	// ScanRows, the typed full-table read over token ranges.
	Scanned bool
	// Fenced marks the source of truth of an entity with unique tables.
	Fenced bool
	// Unique marks a unique table: its rows are claims of its key.
	Unique bool
	// Transactional marks a table of an entity in the transactional mode
	// (Cassandra 6): it gets the parts of a transaction (see Transaction)
	// and is in transactional_mode 'full'.
	Transactional bool
	// Prefix is how many clustering columns, from the first, a read may
	// fix by equality.
	Prefix int
	Bucket Bucket
	// TTL is the table's default time to live in seconds (0: none): a
	// grave lives no longer.
	TTL int64

	// Times, on the source of truth, are the TTL() and WRITETIME()
	// selectors (ttl(c), writetime(c)) the entity's GetTimes reads after
	// Get's columns (SlotTimes); nil for none.
	Times []string

	// Index, on the description of a read through a storage-attached
	// index, is that index; the table then has the index's statements
	// alone. Values lists the types of the values such a read binds
	// after the partition key (see cqlgenimpl.ReadIndex).
	Index  *Index
	Values []Column
}

// Index is a storage-attached index a read goes through, or, with
// Conds, the several indexes a filter read combines.
type Index struct {
	Column   string // the indexed column
	Contains bool   // a collection's element: CONTAINS ?
	Keys     bool   // a map's key, through an index on KEYS(col): CONTAINS KEY ?
	Range    bool   // a range: >= ? AND < ?
	ANN      bool   // a vector's nearest rows: ORDER BY ANN OF ? LIMIT ?
	Scatter  bool   // over the whole table, not within a partition
	// Conds are a filter read's conditions, ANDed in this order, each on
	// an indexed column; Column, Contains and Range are then unset.
	Conds []Cond
	// Score, on an ANN read, is the similarity function (cosine,
	// dot_product, euclidean) whose value each row is read with, selected
	// last as similarity_<Score>(column, ?); empty: none.
	Score string
	// Filter, on an ANN read, is a column with an index of its own that
	// narrows the rows searched: Filter = ?, or CONTAINS ? when
	// FilterContains. Its value is bound after the partition key.
	Filter         string
	FilterContains bool
}

// Cond is a condition of a filter read: a column and its operator, as
// the tag names it (eq, range, contains, contains key, between).
type Cond struct {
	Column string
	Op     string
}

// FilterOps are the CQL operators of a filter's one-value conditions, by
// the tag's name.
var FilterOps = map[string]string{"eq": "=", "contains": "CONTAINS", "contains key": "CONTAINS KEY", "in": "IN", "not in": "NOT IN", "like": "LIKE"}

// Bounded reports a condition that binds two values: range or between.
func (c Cond) Bounded() bool { return c.Op == "range" || c.Op == "between" }

// GraveTTL is the TTL of a grave in t: GraveTTLSeconds, or the table's
// own TTL when shorter.
func (t *Table) GraveTTL() int64 {
	if t.TTL > 0 && t.TTL < GraveTTLSeconds {
		return t.TTL
	}
	return GraveTTLSeconds
}

// Kind is a column's role, as the renderer sees it.
type Kind uint8

const (
	KindPartition Kind = iota
	KindClustering
	KindRegular
	KindStatic
	KindVersion
	KindDeleted
	KindPending
	KindWrites
	KindStaticVersion
	KindClaim
)

// Col is a column of a table with its role; Field tells whether it holds
// a field of the entity (the bucket and the protocol's columns do not).
type Col struct {
	Column
	Kind  Kind
	Field bool
}

// All lists t's columns in table order, those the protocol implies
// included.
func (t *Table) All() []Col {
	var out []Col
	for i, c := range t.PartitionKey {
		out = append(out, Col{Column: c, Kind: KindPartition, Field: !(t.Bucket != BucketNone && i == len(t.PartitionKey)-1)})
	}
	for _, c := range t.Clustering {
		out = append(out, Col{Column: c, Kind: KindClustering, Field: true})
	}
	static := false
	for _, c := range t.Columns {
		k := KindRegular
		if c.Static {
			k, static = KindStatic, true
		}
		out = append(out, Col{Column: c, Kind: k, Field: true})
	}
	if t.Versioned {
		out = append(out, ProtocolCols(static)...)
	}
	if t.Unique {
		out = append(out, ClaimCol)
	}
	return out
}

// ProtocolCols are the columns the write protocol adds to a versioned
// source of truth, with their types, in table order: the version, the
// grave's mark, the pending record and the record of the last changes,
// then, when the table has static columns, the statics' version.
func ProtocolCols(static bool) []Col {
	cols := []Col{
		{Column: Column{Name: VersionColumn, Type: "bigint"}, Kind: KindVersion},
		{Column: Column{Name: DeletedColumn, Type: "boolean"}, Kind: KindDeleted},
		{Column: Column{Name: PendingColumn, Type: "blob"}, Kind: KindPending},
		{Column: Column{Name: WritesColumn, Type: "blob"}, Kind: KindWrites},
	}
	if static {
		cols = append(cols, Col{Column: Column{Name: StaticVersionColumn, Type: "bigint", Static: true}, Kind: KindStaticVersion})
	}
	return cols
}

// ClaimCol is the column a unique table adds after its own.
var ClaimCol = Col{Column: Column{Name: ClaimColumn, Type: "bigint"}, Kind: KindClaim}

// Slot names a statement's role in a table.
type Slot string

const (
	SlotInsert    Slot = "Insert"
	SlotInsertTTL Slot = "InsertTTL" // Insert with a TTL of the call's, on an entity stored in one table
	// Create: on an entity stored in one table, Insert if no row has the
	// key (IF NOT EXISTS), with a TTL; on the source of truth of an entity
	// under the write protocol (without statics or buckets), Change on "no
	// row", whose reply when it does not apply is the row as State reads
	// it, the key's columns aside.
	SlotCreate      Slot = "Create"
	SlotAdd         Slot = "Add" // a counter table's update, in place of Insert
	SlotDelete      Slot = "Delete"
	SlotGet         Slot = "Get"
	SlotGetMany     Slot = "GetMany" // the canonical rows of several keys: the last partition key column IN ?
	SlotState       Slot = "State"
	SlotPartition   Slot = "Partition" // State's columns from the first row of a partition, for its statics
	SlotChange      Slot = "Change"
	SlotRemove      Slot = "Remove"
	SlotFenceLive   Slot = "FenceLive"
	SlotFenceGrave  Slot = "FenceGrave"
	SlotTake        Slot = "Take"
	SlotRelease     Slot = "Release"
	SlotScan        Slot = "Scan"
	SlotScanRows    Slot = "ScanRows" // the typed full-table read: a read's columns over a token range, paged by the driver
	SlotFirst       Slot = "First"
	SlotFirstFrom   Slot = "FirstFrom"
	SlotFirstTo     Slot = "FirstTo"
	SlotFirstFromTo Slot = "FirstFromTo"
	SlotAfter       Slot = "After" // one per run of clustering columns of one direction; Level is where it starts
	SlotAfterTo     Slot = "AfterTo"
	SlotAtOrAfter   Slot = "AtOrAfter"
	SlotAtOrAfterTo Slot = "AtOrAfterTo"
	SlotNext        Slot = "Next"    // an index's scatter read after the partition of a row
	SlotNearest     Slot = "Nearest" // an ANN read
	SlotTimes       Slot = "Times"   // Get's columns, then the TTL() and WRITETIME() of Table.Times
)

// SlotClearPending clears the pending record of a change carried out, IF
// the row still has that change's version. Its value stays "Settle", the
// name it had, because the generator writes it (the constants
// <table>SettleCQL, schema.md's listing) and generated code must not change
// for a rename; "settle" is what is done to a lost write
// (docs/protocol.md, glossary).
const SlotClearPending Slot = "Settle"

// BindKind tells what a placeholder binds.
type BindKind int

const (
	BindColumn       BindKind = iota // the column's value (a version column: the write timestamp)
	BindTimestamp                    // the write timestamp (USING TIMESTAMP)
	BindOldVersion                   // the version the row had when read (null: no row)
	BindPending                      // the record of the change's rows to delete elsewhere
	BindWrites                       // the record of the last changes, this one included
	BindFrom                         // the read's From bound
	BindTo                           // the read's To bound
	BindTokenLo                      // a scan's lower token, excluded
	BindTokenHi                      // a scan's upper token, included
	BindHeld                         // a unique table's owner column, as read
	BindChange                       // the version of the change that gives a claim up
	BindDelta                        // the amount a counter update adds to Column
	BindKeys                         // the list of Column's values a multi-get reads (IN ?)
	BindTTL                          // the time to live of the write, in seconds (USING TTL)
	BindPerPartition                 // the most rows a scatter read takes of each bucket (PER PARTITION LIMIT ?)
	BindStaticTS                     // the new version of the partition's statics (unset: unchanged)
	BindOldStatic                    // the version of the partition's statics when read (null: none)
	BindValue        BindKind = 100  // the value an index read looks for
	BindLimit        BindKind = 101  // the most rows a read returns (LIMIT ?)
)

// Bind is one placeholder: its kind and the name of the column it binds
// or restricts ("" for none).
type Bind struct {
	Kind   BindKind
	Column string
}

// Statement is one statement of a table: its role, its text one clause a
// line, and its placeholders in order.
type Statement struct {
	Slot Slot
	// Depth is, for a page statement, how many clustering columns, from
	// the first, it fixes by equality.
	Depth int
	// Scatter marks the form of a page statement that reads every bucket
	// of a partition at once: the bucket column IN ?, the bucket column
	// selected last, PER PARTITION LIMIT ?.
	Scatter bool
	// Level is, for After, the clustering column where its run starts.
	Level   int
	Clauses []string
	Binds   []Bind
}

// String writes c as Cols reads it back: its name, its type, then desc
// and static when they hold.
func (c Column) String() string {
	s := c.Name + " " + c.Type
	if c.Desc {
		s += " desc"
	}
	if c.Static {
		s += " static"
	}
	return s
}

// Cols reads columns written by Column.String: "name type [desc]
// [static]", the type as in the DDL (it may hold spaces, never at its
// end).
func Cols(cols ...string) []Column {
	out := make([]Column, len(cols))
	for i, s := range cols {
		c := &out[i]
		if rest, ok := strings.CutSuffix(s, " static"); ok {
			c.Static, s = true, rest
		}
		if rest, ok := strings.CutSuffix(s, " desc"); ok {
			c.Desc, s = true, rest
		}
		c.Name, c.Type, _ = strings.Cut(s, " ")
	}
	return out
}
