// Package diag holds the diagnostics every stage of the generator reports:
// a position in the user's source, a severity, a stable code and a message
// written for people.
package diag

import (
	"cmp"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
)

// Severity tells whether a diagnostic stops generation.
type Severity int

const (
	// Error stops generation: nothing is written.
	Error Severity = iota
	// Warning is printed; generation goes on.
	Warning
	// Notice is information a CI may show beside the code, such as an
	// additive schema change; it never fails a command.
	Notice
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "notice"
}

// A Code names a kind of diagnostic. Codes are stable: they are part of the
// tool's interface, so that a team can refer to them, and silence a
// partition check per table with a reason (ignore:"code: reason").
type Code string

// The codes of the model checks.
const (
	Load                Code = "load"                 // the package could not be loaded or type-checked
	TagSyntax           Code = "tag-syntax"           // a struct tag does not follow the key:"value" convention
	UnknownKey          Code = "unknown-key"          // a pattern tag uses a key cqlgen does not know
	BadValue            Code = "bad-value"            // a tag value does not follow its grammar
	BadTTL              Code = "bad-ttl"              // a TTL that cannot be parsed or is out of range
	BadBucket           Code = "bad-bucket"           // a bucket expression, source column or width that cannot work
	BadSize             Code = "bad-size"             // a size hint that cannot be parsed
	BadWhere            Code = "bad-where"            // a sparse table's predicate that cannot select rows
	BadIdentifier       Code = "bad-identifier"       // a table or column name CQL cannot take unquoted
	ReservedWord        Code = "reserved-word"        // a CQL reserved keyword used as a name
	UnsupportedType     Code = "unsupported-type"     // a Go type with no CQL mapping
	BadTypeOverride     Code = "bad-type-override"    // a cql:"..." override the Go type cannot carry
	UnsupportedField    Code = "unsupported-field"    // an embedded or otherwise unusable field
	DuplicateColumn     Code = "duplicate-column"     // two fields map to one column
	DuplicateTable      Code = "duplicate-table"      // two patterns declare one table name
	DuplicateType       Code = "duplicate-type"       // two Go types map to one user-defined type name
	DuplicateName       Code = "duplicate-name"       // two generated declarations, or one and the package's own, would share a Go name
	UnknownColumn       Code = "unknown-column"       // a name in a pattern that is no column of the entity
	NoPartitionKey      Code = "no-partition-key"     // a pattern with an empty partition key
	RepeatedKey         Code = "repeated-key"         // a column twice in one primary key
	CollectionKey       Code = "collection-key"       // a collection (unfrozen semantics) in a primary key
	CounterKey          Code = "counter-key"          // a counter in a primary key
	KeyType             Code = "key-type"             // a type Cassandra refuses in a primary key (duration)
	NullableKey         Code = "nullable-key"         // a pointer field in a primary key
	CounterTable        Code = "counter-table"        // counters mixed with other regular columns
	BadStatic           Code = "bad-static"           // a static column that cannot be static, or that another table stores per row
	BadPrefix           Code = "bad-prefix"           // a prefix that is not a leading part of the clustering key
	NoCanonical         Code = "no-canonical"         // several patterns and no source of truth named
	TwoCanonical        Code = "two-canonical"        // more than one source of truth
	BadID               Code = "bad-id"               // an id option that cannot identify the entity
	NotUnique           Code = "not-unique"           // a table whose key cannot tell two entities apart
	BadUnique           Code = "bad-unique"           // unique on a column that is not a uuid or timeuuid
	CanonicalIncomplete Code = "canonical-incomplete" // a source of truth without a column another table stores
	BadDirective        Code = "bad-directive"        // a //cqlgen: comment that cannot be parsed
	TenantKey           Code = "tenant-key"           // a partition key that does not start with the //cqlgen:tenant column
	BuildConstraint     Code = "build-constraint"     // an entity in a file that not every build includes
	GeneratedSize       Code = "generated-size"       // a package whose generated file would slow every build
	BadIndex            Code = "bad-index"            // an index pattern that cannot work, or cannot help
	UnsupportedOperator Code = "unsupported-operator" // an operator the target Cassandra version's indexes do not serve
	BadMask             Code = "bad-mask"             // a mask:"..." that is no masking function, or does not fit the column's type
	TableOption         Code = "table-option"         // a warning: a compaction strategy that does not fit the table
	GCGrace             Code = "gc-grace"             // a warning: a gc_grace short enough to bring deleted rows back
	OpenList            Code = "open-list"            // a warning: a non-frozen list column, whose elements a rewrite at the same timestamp duplicates
	DriverMix           Code = "driver-mix"           // fields of both Go drivers' types in one package, or of the other driver than -driver names

	// Partition checks: warnings, each of which a table can silence with
	// ignore:"code: reason", but for too-many-cells, an error.
	GrowthUnknown      Code = "growth-unknown"      // no TTL, no bucket and no size hint
	UnboundedPartition Code = "unbounded-partition" // rows keep coming and nothing bounds them
	LargePartition     Code = "large-partition"     // over the row or byte limit
	TooManyCells       Code = "too-many-cells"      // over Cassandra's 2 billion cells
	LowCardinality     Code = "low-cardinality"     // a partition key of few values: hot partitions
	ConstantPartition  Code = "constant-partition"  // a partition key of one value: one partition
	HotPartition       Code = "hot-partition"       // a time bucket alone as the partition key: every write on one replica set

	// Findings of check and diff, which are no model checks but are
	// reported in the same formats.
	Stale          Code = "stale"           // check: a generated file is stale, missing or orphaned
	BreakingChange Code = "breaking-change" // diff: a change that cannot be applied in place
	AdditiveChange Code = "additive-change" // diff: a change a migration applies
	ContractChange Code = "contract"        // diff: a deprecated table declared no more, to drop by hand
	UnmanagedTable Code = "unmanaged-table" // diff -live: a table of the keyspace the package does not declare
	KindChange     Code = "kind-change"     // diff: an entity kept in one table now in several, or the reverse: its methods and write costs change
)

// A Diagnostic is one finding, at one position.
type Diagnostic struct {
	Pos      token.Position
	Severity Severity
	Code     Code
	Msg      string
	// End, when known, is the position just after the text the
	// diagnostic is about, on Pos's line.
	End token.Position
	// Suggestion, when there is one, is the text that should replace
	// the one from Pos to End ("user_id" for "UserID").
	Suggestion string
	// Help is advice of several lines, printed apart from the message
	// (diff's way through a breaking change).
	Help string
}

// String formats d as "file:line:col: message [code]", the form editors and
// CI logs link to; warnings carry "warning: " before the message.
func (d Diagnostic) String() string { return d.Format("") }

// Short writes pos as file:line:col with the file's base name, for
// pointing from one diagnostic to a related place.
func Short(pos token.Position) string {
	return fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column)
}

// Format is String with the file name made relative to dir when it lies
// below it, so that output does not depend on where the checkout lives.
func (d Diagnostic) Format(dir string) string {
	var b strings.Builder
	if d.Pos.Filename != "" {
		b.WriteString(relative(dir, d.Pos.Filename))
		if d.Pos.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", d.Pos.Line, d.Pos.Column)
		}
		b.WriteString(": ")
	}
	if d.Severity != Error {
		b.WriteString(d.Severity.String() + ": ")
	}
	b.WriteString(d.Msg)
	if d.Code != "" {
		fmt.Fprintf(&b, " [%s]", d.Code)
	}
	return b.String()
}

func relative(dir, file string) string {
	if dir == "" {
		return file
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return file
	}
	return rel
}

// List collects diagnostics from every stage, so one run reports them all.
type List []Diagnostic

// Errorf adds an error at pos.
func (l *List) Errorf(pos token.Position, code Code, format string, args ...any) {
	*l = append(*l, Diagnostic{Pos: pos, Severity: Error, Code: code, Msg: fmt.Sprintf(format, args...)})
}

// Warnf adds a warning at pos.
func (l *List) Warnf(pos token.Position, code Code, format string, args ...any) {
	*l = append(*l, Diagnostic{Pos: pos, Severity: Warning, Code: code, Msg: fmt.Sprintf(format, args...)})
}

// Add adds d.
func (l *List) Add(d Diagnostic) { *l = append(*l, d) }

// HasErrors reports whether any diagnostic in l is an error.
func (l List) HasErrors() bool {
	return slices.ContainsFunc(l, func(d Diagnostic) bool { return d.Severity == Error })
}

// Sort orders l by file, line and column, then by message, and removes exact
// duplicates, so output is the same on every run.
func (l List) Sort() List {
	slices.SortFunc(l, func(a, b Diagnostic) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			cmp.Compare(a.Severity, b.Severity),
			cmp.Compare(a.Msg, b.Msg),
		)
	})
	return slices.Compact(l)
}

// Format renders l one diagnostic a line, file names relative to dir.
func (l List) Format(dir string) string {
	var b strings.Builder
	for _, d := range l {
		b.WriteString(d.Format(dir))
		b.WriteByte('\n')
	}
	return b.String()
}
