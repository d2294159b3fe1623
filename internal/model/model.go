// Package model is the generator's intermediate form: pure data built from
// the loaded structs and their tags, with every name resolved, every Go
// identifier precomputed, and everything in a deterministic order. The
// validate stage checks it; the emit stage only reads it.
package model

import (
	"fmt"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/load"
)

// Package is one Go package's entities.
type Package struct {
	Path     string // import path
	Name     string // package name
	Dir      string
	Keyspace *Keyspace
	Tenant   *Tenant
	// Cassandra is the version the package targets (//cqlgen:cassandra;
	// DefaultCassandra without one): it decides the operators a read
	// may use. CassandraPos is the directive's position.
	Cassandra    string
	CassandraPos token.Position
	Entities     []*Entity // in source order
	// UDTs are the user-defined types the entities' fields hold, each
	// after the types its own fields hold.
	UDTs []*UDT
	// Declared are the package-level names the package's own Go files
	// declare, and where: generated names must not collide with them.
	Declared map[string]token.Position
	// Driver is the import path of the Go driver whose interfaces
	// (UDTMarshaler, UDTUnmarshaler) the generated methods of the
	// user-defined types implement: GocqlPath or GocqlV2Path. The rest of
	// the generated code is the same for both.
	Driver string
}

// Tenant is the optional //cqlgen:tenant directive: the column every
// table's partition key must start with.
type Tenant struct {
	Column string
	Pos    token.Position
}

// Keyspace is the optional //cqlgen:keyspace directive.
type Keyspace struct {
	Name        string
	Replication string // the CQL map literal, as written
	Pos         token.Position
}

// Tables returns every table of the package, in source order.
func (p *Package) Tables() []*Table {
	var ts []*Table
	for _, e := range p.Entities {
		ts = append(ts, e.Tables...)
	}
	return ts
}

// Entity is one Go struct and the tables that serve its access patterns.
type Entity struct {
	GoName string
	Pos    token.Position
	Doc    string
	Fields []*Field
	Tables []*Table
	// Canonical is the source-of-truth table: the one marked canonical, or
	// the only one. Nil when the model does not say (validation reports it).
	Canonical *Table
	Names     EntityNames
	// Immutable: the canonical pattern says the entity is written once
	// and never changed (table:"...,canonical,immutable").
	Immutable    bool
	ImmutablePos token.Position
	// Transactional: the canonical pattern says each write of the entity
	// is one Accord transaction (table:"...,canonical,transactional"),
	// and every table of it is in transactional_mode 'full'.
	Transactional    bool
	TransactionalPos token.Position
	// Indexes are the entity's index patterns, in source order.
	Indexes []*Index
	// Filters are the entity's filter patterns, in source order: reads
	// that combine several indexed columns.
	Filters []*Filter
}

// Identity returns the fields that tell two entities apart: the canonical
// pattern's id option when given, else a column of its primary key that
// is unique on its own, else its primary key (bucket aside).
func (e *Entity) Identity() []*Field {
	c := e.Canonical
	if c == nil {
		return nil
	}
	if len(c.ID) > 0 {
		return resolved(c.ID)
	}
	// A column unique on its own in the key identifies the entity alone.
	for _, f := range append(resolved(c.PK), c.clusteringFields()...) {
		if f.Unique {
			return []*Field{f}
		}
	}
	fs := resolved(c.PK)
	for _, r := range c.CK {
		if r.Field != nil {
			fs = append(fs, r.Field)
		}
	}
	return fs
}

// clusteringFields are the fields of t's clustering columns.
func (t *Table) clusteringFields() []*Field {
	var fs []*Field
	for _, r := range t.CK {
		if r.Field != nil {
			fs = append(fs, r.Field)
		}
	}
	return fs
}

// Field is one field of an entity: one column in each table that stores it.
type Field struct {
	GoName   string
	Column   string
	Pos      token.Position // the field's name
	ColPos   token.Position // the db tag value, or the field's name when defaulted
	Type     *Type          // nil when the Go type has no mapping
	Nullable bool           // a pointer field: nil is bound as unset
	Go       types.Type     // the Go type, for building and checking the model
	// GoType is the Go type as the emitters print it and decide its
	// binding by, described once at build time; nil when the type is not
	// known (a load error).
	GoType *GoType
	// Unique: cql:"type,unique" says no two entities share a value of the
	// column (a uuid or timeuuid made fresh for each), so a key holding it
	// tells entities apart by itself. UniquePos is where the option is.
	Unique    bool
	UniquePos token.Position
	// Quoted: db:"name,quoted" opts in to a column name CQL reads only
	// in double quotes (from, createdAt), for the columns of a table that
	// already exists. Every statement, the DDL and the review page quote
	// it (cqlspec.Quote). QuotedPos is where the option is.
	Quoted    bool
	QuotedPos token.Position
	// Constants counts the constants declared of the field's named type in
	// its package: an enum's values, for cardinality checks. 0 when none.
	Constants int
	// Embedded is the Go name of the embedded struct the field is promoted
	// from, "" for a field of the struct itself.
	Embedded string
	// Mask is the column's dynamic data mask (mask:"..."), as the DDL
	// writes it after MASKED WITH: mask_inner(1, 1). "" for none.
	Mask    string
	MaskPos token.Position
	// TTL and Writetime: cqlgen:"ttl, writetime" asks the entity's
	// GetTimes for the column's TTL() and WRITETIME(); the positions are
	// the options'.
	TTL, Writetime       bool
	TTLPos, WritetimePos token.Position
	// OpenListPos is where a cql:"list<...>" tag declares a non-frozen
	// list column, whose elements a rewrite at the same timestamp adds
	// again (validate warns); zero for every other field.
	OpenListPos token.Position

	path        []int // field indexes from the struct that holds the field
	defaultList bool  // a slice mapped to list<T> with no tag: a column freezes it
	enum        []EnumConst
}

// Type is a CQL type.
type Type struct {
	Name   string // text, int, list, map, set, ..., or a user-defined type's name
	Params []*Type
	Frozen bool
	UDT    *UDT // the user-defined type Name names; nil for the others
	Dim    int  // the dimension of a vector: vector<float, Dim>
}

// IsVector reports a vector<float, N>, a Cassandra 5 vector.
func (t *Type) IsVector() bool { return t.Name == "vector" }

func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	if t.Frozen {
		b.WriteString("frozen<")
	}
	b.WriteString(t.Name)
	if len(t.Params) > 0 {
		b.WriteByte('<')
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			p.write(b)
		}
		if t.IsVector() {
			b.WriteString(", " + itoa(int64(t.Dim)))
		}
		b.WriteByte('>')
	}
	if t.Frozen {
		b.WriteByte('>')
	}
}

// Spec writes the type for the runtime (cqlgenimpl's TableSpec and
// comparisons), which has no schema to look a user-defined type up in:
// as String, but a user-defined type spelled out whole, as
// udt<name, field type, ...>.
func (t *Type) Spec() string {
	if t.UDT == nil && !t.holdsUDT() {
		return t.String()
	}
	var b strings.Builder
	if t.Frozen {
		b.WriteString("frozen<")
	}
	if u := t.UDT; u != nil {
		b.WriteString("udt<" + u.Name)
		for _, f := range u.Fields {
			b.WriteString(", " + f.Column + " ")
			if f.Type != nil {
				b.WriteString(f.Type.Spec())
			}
		}
		b.WriteByte('>')
	} else {
		b.WriteString(t.Name + "<")
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(p.Spec())
		}
		b.WriteByte('>')
	}
	if t.Frozen {
		b.WriteByte('>')
	}
	return b.String()
}

func (t *Type) holdsUDT() bool {
	for _, p := range t.Params {
		if p.UDT != nil || p.holdsUDT() {
			return true
		}
	}
	return false
}

// IsCollection reports a list, set or map.
func (t *Type) IsCollection() bool {
	return t.Name == "list" || t.Name == "set" || t.Name == "map"
}

// Ref is a column named in a pattern tag.
type Ref struct {
	Name  string
	Pos   token.Position
	Field *Field // nil when no field has that column
}

// KeyRef is a clustering column reference and its order.
type KeyRef struct {
	Ref
	Desc bool
}

// BucketKind tells how a bucket column is derived.
type BucketKind int

const (
	HashBucket  BucketKind = iota + 1 // hash(col) % N
	HourBucket                        // UTC hour
	DayBucket                         // UTC day
	WeekBucket                        // ISO week, Monday, UTC
	MonthBucket                       // UTC month
	DaysBucket                        // N-day ranges from 1970-01-01
)

// IsTime reports a bucket derived from a point in time.
func (k BucketKind) IsTime() bool { return k != HashBucket }

// BucketDescriptor is everything that differs between kinds of bucket. It
// is the one place a kind is described: the DDL, the generated Go and the
// docs all read it.
type BucketDescriptor struct {
	Name    string // as written in a tag: hash, hour, day, week, month, days
	Type    string // the CQL type of the bucket column
	Seconds int64  // the width of a time bucket (a month counts 31 days); per unit of N for days
	Runtime string // the cqlgenimpl identifier of a time bucket's derivation
	Width   bool   // the expression takes a count: hash(col) % N, days(col, N)
	Words   string // how a read walks the buckets, for generated docs
}

var bucketDescriptors = map[BucketKind]BucketDescriptor{
	HashBucket:  {Name: "hash", Type: "int", Width: true, Words: "all %d hash buckets read in parallel and merged in clustering order"},
	HourBucket:  {Name: "hour", Type: "timestamp", Seconds: 3600, Runtime: "HourBuckets", Words: timeWords},
	DayBucket:   {Name: "day", Type: "date", Seconds: 86400, Runtime: "DayBuckets", Words: timeWords},
	WeekBucket:  {Name: "week", Type: "date", Seconds: 7 * 86400, Runtime: "WeekBuckets", Words: timeWords},
	MonthBucket: {Name: "month", Type: "date", Seconds: 31 * 86400, Runtime: "MonthBuckets", Words: timeWords},
	DaysBucket:  {Name: "days", Type: "date", Seconds: 86400, Runtime: "DaysBuckets", Width: true, Words: timeWords},
}

const timeWords = "time buckets from the newest back, each in clustering order"

// Descriptor describes the kind.
func (k BucketKind) Descriptor() BucketDescriptor { return bucketDescriptors[k] }

// Bucket is the derived column a pattern adds to its partition key.
type Bucket struct {
	Kind      BucketKind
	Source    Ref
	N         int64 // modulus of a hash bucket, width in days of a days bucket
	NPos      token.Position
	Column    string
	ColumnPos token.Position // where the name is written, or the expression when defaulted
	Pos       token.Position // the expression

	// Start is where a week or days bucket begins: the first day of the
	// week as a time.Weekday (Monday, ISO 8601, unless the tag says), or
	// the day, since 1970-01-01, that N-day ranges are counted from (0
	// unless the tag says). StartSet tells that the tag said.
	Start    int64
	StartSet bool
}

// Type is the CQL type of the bucket column.
func (b *Bucket) Type() *Type { return &Type{Name: b.Kind.Descriptor().Type} }

// Expr renders the bucket as it reads in a tag.
func (b *Bucket) Expr() string {
	d := b.Kind.Descriptor()
	switch {
	case b.Kind == HashBucket:
		return d.Name + "(" + b.Source.Name + ") % " + itoa(b.N)
	case d.Width && b.StartSet:
		return d.Name + "(" + b.Source.Name + ", " + itoa(b.N) + ", '" + b.StartDate() + "')"
	case d.Width:
		return d.Name + "(" + b.Source.Name + ", " + itoa(b.N) + ")"
	case b.StartSet:
		return d.Name + "(" + b.Source.Name + ", " + strings.ToLower(b.FirstDay().String()) + ")"
	}
	return d.Name + "(" + b.Source.Name + ")"
}

// FirstDay is the day a week bucket starts on.
func (b *Bucket) FirstDay() time.Weekday {
	if b.Kind == WeekBucket && b.StartSet {
		return time.Weekday(b.Start)
	}
	return time.Monday
}

// StartDate is the day a days bucket's ranges are counted from, as
// YYYY-MM-DD.
func (b *Bucket) StartDate() string {
	return time.Unix(0, 0).UTC().AddDate(0, 0, int(b.Start)).Format("2006-01-02")
}

// ReadWords says how a read of the bucketed pattern walks its buckets.
func (b *Bucket) ReadWords() string {
	d := b.Kind.Descriptor()
	if b.Kind == HashBucket {
		return fmt.Sprintf(d.Words, b.N)
	}
	return d.Words
}

// BucketSeconds is the width of a time bucket in seconds (a month counts
// 31 days), or 0 for a hash bucket.
func (b *Bucket) BucketSeconds() int64 {
	d := b.Kind.Descriptor()
	if d.Width {
		return d.Seconds * b.N
	}
	return d.Seconds
}

// HashFunc is how generated code derives a hash bucket from a column of
// one CQL type: a cqlgenimpl function, and the Go conversion its argument
// needs ("" for none).
type HashFunc struct{ Func, Conv string }

var hashFuncs = map[string]HashFunc{
	"text": {"HashText", "string"}, "varchar": {"HashText", "string"}, "ascii": {"HashText", "string"},
	"bigint": {"HashBigint", "int64"}, "int": {"HashInt", "int32"}, "smallint": {"HashSmallint", "int16"},
	"tinyint": {"HashTinyint", "int8"}, "boolean": {"HashBoolean", "bool"}, "blob": {"HashBlob", "[]byte"},
	"uuid": {"HashUUID", ""}, "timeuuid": {"HashUUID", ""}, "timestamp": {"HashTimestamp", ""}, "date": {"HashDate", ""},
}

// HashOf is the hash derivation of a column type; ok is false for a type
// no hash bucket can take (validation refuses those).
func HashOf(t *Type) HashFunc { return hashFuncs[t.Name] }

// Hashable reports a type a hash bucket can take.
func Hashable(t *Type) bool { _, ok := hashFuncs[t.Name]; return ok }

// Size holds a pattern's optional size hints; zero means not given.
type Size struct {
	Rows       int64 // rows per partition key value
	RowBytes   int64 // average bytes of a row
	Keys       int64 // distinct partition key values sharing Total rows
	Total      int64
	Rate       int64 // rows a partition key value gains every RatePer seconds
	RatePer    int64
	LimitRows  int64 // per-table thresholds; 0 takes the defaults
	LimitBytes int64
	Pos        token.Position
}

// CondOp is how a condition of a sparse table tests its column.
type CondOp int

const (
	CondEq  CondOp = iota + 1 // col = v
	CondIn                    // col in (v1, v2, ...)
	CondSet                   // col is set: not nil, not empty, not zero
)

// Cond is one condition of a sparse table's where key.
type Cond struct {
	Ref
	Op     CondOp
	Values []CondValue // one for CondEq, one or more for CondIn
}

// CondValue is a value a condition compares its column with, as written.
type CondValue struct {
	Text   string // a quoted string's value, without its quotes
	Quoted bool
	Pos    token.Position
}

// String renders the condition as CQL would read it.
func (c Cond) String() string {
	return c.render(func(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" })
}

// GoString renders the condition with its strings as Go writes them, for
// comments in Go, where gofmt would turn a CQL ” into a typographic quote.
func (c Cond) GoString() string { return c.render(strconv.Quote) }

func (c Cond) render(quote func(string) string) string {
	lit := func(v CondValue) string {
		if c.Field != nil && c.Field.Type != nil && c.Field.Type.Name != "boolean" && !isInteger(c.Field.Type) {
			return quote(v.Text)
		}
		return strings.ToLower(v.Text)
	}
	switch c.Op {
	case CondEq:
		return c.Name + " = " + lit(c.Values[0])
	case CondIn:
		vs := make([]string, len(c.Values))
		for i, v := range c.Values {
			vs[i] = lit(v)
		}
		return c.Name + " IN (" + strings.Join(vs, ", ") + ")"
	}
	return c.Name + " is set"
}

func isInteger(t *Type) bool {
	switch t.Name {
	case "tinyint", "smallint", "int", "bigint", "varint", "counter":
		return true
	}
	return false
}

// Sparse reports a table that holds only some of its entity's rows.
func (t *Table) Sparse() bool { return len(t.Where) > 0 }

// WhereWords renders the table's predicate: "status = 'OPEN' AND agent_id
// is set".
func (t *Table) WhereWords() string { return t.where(Cond.String) }

// WhereGo renders the predicate with Go strings: status = "OPEN" AND ...
func (t *Table) WhereGo() string { return t.where(Cond.GoString) }

func (t *Table) where(render func(Cond) string) string {
	cs := make([]string, len(t.Where))
	for i, c := range t.Where {
		cs[i] = render(c)
	}
	return strings.Join(cs, " AND ")
}

// Ignore silences one diagnostic code on one table, for a stated reason.
type Ignore struct {
	Code   string
	Reason string
	Pos    token.Position
}

// Table is one access pattern and the table that serves it.
type Table struct {
	Entity    *Entity
	Name      string
	Pos       token.Position // the table name in the tag
	Canonical bool
	// Immutable is the table option immutable; it is meaningful on the
	// canonical pattern only (validation says so elsewhere).
	Immutable    bool
	ImmutablePos token.Position
	// Transactional is the table option transactional; it is meaningful
	// on the canonical pattern only (validation says so elsewhere).
	Transactional    bool
	TransactionalPos token.Position
	// Unique is the table option unique: no two entities may share the
	// table's primary key, an alternate key claimed by conditional writes.
	Unique    bool
	UniquePos token.Position
	// Quoted: db:"name,quoted" opts in to a column name CQL reads only
	// in double quotes (from, createdAt), for the columns of a table that
	// already exists. Every statement, the DDL and the review page quote
	// it (cqlspec.Quote). QuotedPos is where the option is.
	Quoted    bool
	QuotedPos token.Position
	Method    string // Go name of the read method
	MethodPos token.Position
	Doc       string // the access pattern in words
	PK        []Ref
	PKPos     token.Position
	CK        []KeyRef
	// Prefix lists the clustering columns, from the first, that the read
	// method may fix by equality, each then bounding the next one.
	Prefix    []Ref
	PrefixPos token.Position
	Bucket    *Bucket
	TTL       int64 // seconds, 0 for none
	TTLPos    token.Position
	Cols      []Ref // nil means every field
	Static    []Ref
	ID        []Ref
	IDPos     token.Position
	Size      *Size
	Ignores   []Ignore
	// Where is the predicate of a sparse table, which holds only the
	// entities that meet every condition; nil for a table of them all.
	Where    []Cond
	WherePos token.Position
	Options  TableOptions
	// Columns is the table's layout: partition key (bucket last),
	// clustering columns, then the other columns in field order.
	Columns []*Column
	Names   TableNames

	// Deprecated is the table option deprecated: the table is on its way
	// out, still written, its read method deprecated; ReplacedBy is the
	// table of the entity that takes its place (replaced_by), or nil.
	Deprecated     bool
	DeprecatedPos  token.Position
	ReplacedBy     *Table
	ReplacedByName string // as given; empty when not given
	ReplacedByPos  token.Position

	// Scan is the table option scan: the repository gets a typed read of
	// the whole table over token ranges (Names.ScanMethod).
	Scan    bool
	ScanPos token.Position

	// Built from the fields above when first asked for; the generator's
	// cache keys (internal/gencache) leave them out, as they say nothing
	// the fields do not.
	once     sync.Once           `cache:"-"`
	rendered []cqlspec.Statement `cache:"-"` // built by Rendered
	stmts    []*Statement        `cache:"-"` // built by Statements
}

// ColumnKind is a column's role in its table.
type ColumnKind int

const (
	PartitionKey ColumnKind = iota
	Clustering
	Static
	Regular
	Version // the canonical table's version column
	Deleted // the canonical table's mark of a deleted entity
	Pending // the canonical table's record of a change in flight
	Claim   // a unique table's token of the claim of its key
	// StaticVersion is the canonical table's version of its partition's
	// static columns, itself static: the version of the last change of
	// them (see cqlspec.StaticVersionColumn).
	StaticVersion
	Writes // the canonical table's record of the last changes
)

// Maintained reports whether the entity's repository can verify, repair
// and backfill its tables: it is stored in several tables, written through
// the write protocol or declared immutable.
func (e *Entity) Maintained() bool {
	return len(e.Tables) > 1 && e.Canonical != nil && (e.Versioned() || e.Immutable)
}

// Versioned reports whether writes of the entity go through the write
// protocol: it is stored in more than one table, is not declared
// immutable, and has no counters (a counter table holds nothing but
// counters).
func (e *Entity) Versioned() bool {
	if len(e.Tables) < 2 || e.Canonical == nil || e.Immutable {
		return false
	}
	for _, f := range e.Fields {
		if f.Type != nil && f.Type.Name == "counter" {
			return false
		}
	}
	return true
}

// BucketOnly reports a table whose partition key is its time bucket
// alone: one partition a period for the whole table, which takes every
// write of that period (a feed of the whole system, newest first).
func (t *Table) BucketOnly() bool {
	return len(t.PK) == 0 && t.Bucket != nil && t.Bucket.Kind.IsTime()
}

// HasCounters reports a counter table: one that stores a counter column
// (validation holds it to counters only, outside its primary key).
func (t *Table) HasCounters() bool { return len(t.CounterColumns()) > 0 }

// CounterColumns are t's counter columns, in table order.
func (t *Table) CounterColumns() []*Column {
	var cs []*Column
	for _, c := range t.Columns {
		if (c.Kind == Regular || c.Kind == Static) && c.Type != nil && c.Type.Name == "counter" {
			cs = append(cs, c)
		}
	}
	return cs
}

// Counting reports an entity whose source of truth is a counter table: its
// repository adds to counters rather than inserting rows.
func (e *Entity) Counting() bool { return e.Canonical != nil && e.Canonical.HasCounters() }

// Column is one column of one table.
type Column struct {
	Name   string
	Type   *Type
	Kind   ColumnKind
	Desc   bool    // clustering order
	Field  *Field  // nil for a bucket or version column
	Bucket *Bucket // for the bucket column
}

// PartitionKey returns the partition key columns, bucket included.
func (t *Table) PartitionKey() []*Column { return t.columns(PartitionKey) }

// Clustering returns the clustering columns in order.
func (t *Table) Clustering() []*Column { return t.columns(Clustering) }

// PrefixDepth is how many clustering columns, from the first, the read
// method may fix by equality (the prefix key): 0 without one.
func (t *Table) PrefixDepth() int { return len(t.Prefix) }

func (t *Table) columns(kind ColumnKind) []*Column {
	var cs []*Column
	for _, c := range t.Columns {
		if c.Kind == kind {
			cs = append(cs, c)
		}
	}
	return cs
}

// HasStatics reports whether t has static columns of the entity's fields.
func (t *Table) HasStatics() bool {
	for _, c := range t.Columns {
		if c.Kind == Static && c.Field != nil {
			return true
		}
	}
	return false
}

// ColumnOf is t's column of field f; nil when t does not store it.
func (t *Table) ColumnOf(f *Field) *Column {
	for _, c := range t.Columns {
		if f != nil && c.Field == f {
			return c
		}
	}
	return nil
}

func resolved(refs []Ref) []*Field {
	var fs []*Field
	for _, r := range refs {
		if r.Field != nil {
			fs = append(fs, r.Field)
		}
	}
	return fs
}

// HumanDuration writes seconds the way a person would: 90 days, 12 hours
// (cqlspec.HumanDuration).
var HumanDuration = cqlspec.HumanDuration

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// The runtime's import paths: the user API, which declares Pattern, and
// the support package of generated code.
const (
	RuntimePath = load.RuntimePath
	ImplPath    = "github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// Partial reports a table that stores only some of its entity's fields.
func (t *Table) Partial() bool {
	stored := map[*Field]bool{}
	for _, c := range t.Columns {
		if c.Field != nil {
			stored[c.Field] = true
		}
	}
	for _, f := range t.Entity.Fields {
		if !stored[f] {
			return true
		}
	}
	return false
}
