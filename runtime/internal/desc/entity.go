package desc

import (
	"reflect"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/bucket"
)

const (
	OpInsert Op = iota + 1 // create, or replace keeping what e leaves unset
	OpUpdate               // replace an entity that exists
	OpDelete               // delete, leaving a grave
	// OpTouch writes a live entity again, unchanged, at a new version:
	// repair's way to rewrite its rows in every table at a timestamp that
	// wins over any write made outside the protocol before it.
	OpTouch
	// OpModify is OpUpdate for Modify, whose change is relative to what it
	// read (a count plus one): finding the entity at another version with
	// the very values it would write is a conflict all the same, since
	// those values may be another writer's same step from the same start.
	OpModify
)

// State is the canonical row of an entity, as the protocol reads it.
type State[T any] struct {
	Row     T
	Version int64
	Deleted bool
	Pending []byte
	// StaticVersion is, where the canonical table has static columns, the
	// version of the change that last set them (cqlgen_static_version);
	// 0 for none. The version the entity is seen at is the greater of it
	// and Version: a change of the partition's statics by another row's
	// write is a change of this entity too.
	StaticVersion int64
	Writes        []byte // the record of the last changes (see settle.go)
}

// Seen is the version of a live entity as readers and IfVersion see it.
func Seen[P any](st *State[P]) int64 {
	if v := max(st.Version, st.StaticVersion); v != 0 {
		return v
	}
	return unversioned
}

// unversioned is the seen version of a row written outside the write
// protocol (before cqlgen, or by another program): its cqlgen_version is
// null. No change of the protocol has version 1 (a version is at least
// the time in µs), so IfVersion and Modify tell such a row from any
// change of it, and 0 keeps meaning "expect nothing".
const unversioned int64 = 1

// Condition is the version a conditional write on a row read at version
// v conditions on: v, or null for a row written outside the protocol,
// whose cqlgen_version is null (IF cqlgen_version = null), as for no row.
// That is how a row written before cqlgen becomes an entity: its first
// change is a conditional write like any other, which gives it a version.
func Condition(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

// Change is what a conditional write of the canonical row binds beside
// the entity's values.
type Change struct {
	TS      int64  // the new version
	Old     any    // the version read: an int64, or nil where there is no row
	Pending []byte // the record of the change in flight (see encodePending)
	Writes  []byte // the record of the last changes, this one last (see settle.go)
	Unset   bool   // bind nil pointers and empty collections as unset (creating)
	// Where the canonical table has static columns: the statics' new
	// version (TS when the change sets them, else cqldriver.Unset), and
	// their version read (an int64, or nil where there is none), which
	// the write conditions on beside Old.
	Static, OldStatic any
}

// Projection is a table other than the canonical one, as the protocol
// writes it. It is ProjectionOf[*T], as Entity is EntityOf[*T]: see Entity.
type Projection[T any] = ProjectionOf[*T]

type ProjectionOf[P any] struct {
	Table *Table
	// Holds reports whether the table holds e's row: the predicate of a
	// sparse table (where:"..."); nil for a table that holds every entity.
	// A change that makes it false deletes the row, as a change of its key
	// moves it.
	Holds func(e P) bool
	// Unique marks a unique table (table:"...,unique"): its rows are
	// claims, which the protocol writes by conditional writes before the
	// change and releases after it (see claim), never by the fan-out.
	Unique bool
	// Key is the primary key of e's row, bucket included.
	Key func(e P) []any
	// Row binds the Insert of e's row at ts.
	Row func(e P, ts int64, unset bool) []any
	// BucketOf names the column of the source of truth a bucketed
	// table's bucket derives from, by HashBuckets hash buckets or by
	// TimeBuckets: where Row is nil, NewEntity derives Row and Key with
	// it.
	BucketOf    string
	HashBuckets int
	TimeBuckets *TimeBuckets
	// Writetimes is how many write timestamps the table's Scan selects,
	// last: one for each regular column of one cell. Their greatest is
	// when the row was last written.
	Writetimes int
	// Owner lists, in the order of the canonical primary key, the indexes
	// in Table.Row of the canonical key's columns: how a row of the
	// table names its entity. Nil when the table does not store them all.
	Owner []int

	// Scan and Clustering are, where every column the table's reads
	// select holds a field of the source of truth, the Scan and Key of
	// its reads (a ReadSpec with Of): derived by NewEntity from Fields
	// and Values (readFuncs); nil otherwise.
	Scan       func(cqldriver.Iter, P) bool
	Clustering func(P) []any
}

// Holds reports whether p holds e's row.
func Holds[P any](p *ProjectionOf[P], e P) bool { return p.Holds == nil || p.Holds(e) }

// Entity is an entity's write protocol, declared by generated code.
//
// It is EntityOf[*T]: the protocol's code is generic over P, a pointer to
// the entity, and never over the entity's struct type T, so that the
// compiler builds it once for every entity (one GC shape, a pointer)
// instead of once for each entity's struct in the user's package. What
// needs T itself (a new row, a copy, the generated ScanState and Merge,
// which return State[T] and T) is closed over by NewEntity, once, into
// the unexported funcs below; docs/architecture.md says how to write new
// code in this shape.
type Entity[T any] = EntityOf[*T]

// EntityOf is Entity by the pointer to its struct, P = *T: the methods of
// an entity (Insert, Update, ...) are functions generic over P, not
// methods of Entity[T], so that the user's package compiles none of them
// again for each of its entities.
type EntityOf[P any] struct {
	// Name is the entity's, for observers and reports.
	Name string
	// Check refuses an entity whose partition key values are empty, in
	// any table that holds it (or whose vectors are not of their
	// dimension); CheckKey, one whose source of truth's are.
	Check, CheckKey func(P) error
	// Canonical is the source of truth; its Data lists, in order,
	// the columns Data returns.
	Canonical *Table
	// Immutable marks an entity written once, without the protocol: only
	// verify, repair and backfill use its description, and a State's
	// Version + 1µs is its canonical row's write timestamp.
	Immutable bool
	// Values is, where given, e's values in the source of truth's
	// columns, in table order, bound as Change binds them: with unset,
	// nil pointers and empty collections are left unset. Fields appends
	// to dst where a row of it scans to, in the same order. NewEntity
	// derives State, ScanState, Data, Change, Remove and Settle from
	// them.
	Values func(e P, unset bool) []any
	// Row is, for an entity written without the protocol (in one table,
	// immutable, or counters), in place of Values, e's row in the source
	// of truth as its Insert binds it: every column in table order (a
	// bucket column's value too), then the write timestamp ts; with
	// unset, nil pointers and empty collections are left unset. NewEntity
	// derives what every statement of the entity binds from it and
	// Fields (see plain.go).
	Row    func(e P, ts int64, unset bool) []any
	Fields func(e P, dst []any) []any
	// State binds CQL.State and Settle's key: the canonical primary key.
	State func(e P) []any
	// ScanState, where generated, reads the canonical row into v, whose
	// Row is a new zero row; NewEntity derives it otherwise.
	ScanState func(it cqldriver.Iter, v *State[P]) bool
	// Data is every column of e's canonical row, in Data order:
	// equal data means there is nothing to change.
	Data func(e P) []any
	// Merge returns e with the columns it leaves unset (nil pointers,
	// empty collections) taken from cur: an Insert over a live entity. Nil
	// when the entity has no such column.
	Merge func(cur, e P) P
	// Change, Remove and Settle bind those statements.
	Change, Remove func(e P, c Change) []any
	Settle         func(e P, version int64) []any
	// Create binds the Canonical table's Create, Change on "no row" (see
	// createDirect); NewEntity derives it where the table has one (no statics,
	// no buckets). Nil: every write reads first.
	Create      func(e P, c Change) []any
	Projections []ProjectionOf[P]

	Keys int // how many of the fields scanState scans first are the canonical key's

	// Set by NewEntity: a new zero row, a copy of src to dst, and the row
	// of the canonical table as the protocol reads it (with Row never
	// nil).
	NewRow        func() P
	copyRow       func(dst, src P)
	ScanCanonical func(cqldriver.Iter) (State[P], bool)
	zero          P // a zero row, never written
	// Live scans a row of the source of truth as Get and its reads read
	// it (see ScanLive), and LiveKey is its clustering values, where
	// NewEntity derives them from Fields and Values (or Row).
	Live    func(cqldriver.Iter, P) bool
	LiveKey func(P) []any
	// Plain is, for an entity written without the protocol (stored in
	// one table, immutable, or counters), what its writes and reads bind
	// and scan (see plain.go); NewEntity sets it.
	Plain *Plain[P]

	// Txn is, for an entity in the transactional mode (its canonical
	// table's Spec.Transactional), the parts of its transactions (see
	// txn.go); NewEntity sets it.
	Txn *TxnEntity
}

// NewRowOf is new(T) where P is *T, for code generic over P alone: one
// allocation, as new(T) is.
func NewRowOf[P any]() P {
	var p P
	return reflect.New(reflect.TypeOf(p).Elem()).Interface().(P)
}

// Op is a write of the protocol.
type Op uint8

// TimeBuckets is the time buckets of a bucket tag.
type TimeBuckets = bucket.TimeBuckets
