package model

// The questions the emitters ask of the model, answered here so that each
// emitter prints what the model decided rather than deciding it again.

// ReadIndexes are e's index patterns that name one of its tables, in
// source order: the ones the repository reads through (the others are
// reported by validation, and generate nothing).
func (e *Entity) ReadIndexes() []*Index {
	var ixs []*Index
	for _, ix := range e.Indexes {
		if ix.On != nil {
			ixs = append(ixs, ix)
		}
	}
	return ixs
}

// IndexReads are the reads through ix's index: ix, the pattern that
// declares it, then each later pattern that names the same index, in
// source order.
func (ix *Index) IndexReads() []*Index {
	reads := []*Index{ix}
	for _, r := range ix.Entity.Indexes {
		if r.Declared == ix {
			reads = append(reads, r)
		}
	}
	return reads
}

// ReadMethod is the repository method that serves t's access pattern: its
// read method, or Get where that already reads the pattern's one row.
func (t *Table) ReadMethod() string {
	if t.HasRead() {
		return t.Method
	}
	return "Get"
}

// ValueGoType is the Go type of the value a read through ix binds: the
// element of a slice or of a map's keys for a set or list, else the
// field's type, pointer dereferenced.
func (ix *Index) ValueGoType() *GoType {
	g := ix.Column.Field.GoType.Deref()
	if g == nil || !ix.Contains() && !ix.Keys {
		return g
	}
	return member(g)
}

// member is the type of what CONTAINS (a slice's element) or CONTAINS
// KEY (a map's key) reads in a collection of type g; g itself otherwise.
func member(g *GoType) *GoType {
	switch u := g.Underlying(); u.Kind {
	case GoSlice:
		return u.Elem
	case GoMap:
		return u.Key
	}
	return g
}

// Unsettable reports a column an insert may leave unset: a nil pointer or
// an empty collection (or vector) of a field, outside the primary key.
func (c *Column) Unsettable() bool {
	if c.Field == nil || c.Kind == PartitionKey || c.Kind == Clustering {
		return false
	}
	return c.Field.Nullable || c.Type.IsCollection() || c.Type.IsVector()
}

// HasUnsettable reports a table with a column an insert may leave unset.
func (t *Table) HasUnsettable() bool {
	for _, c := range t.Columns {
		if c.Unsettable() {
			return true
		}
	}
	return false
}

// RowTakesUnset reports whether the function that binds t's insert takes
// the flag that leaves nil pointers and empty collections unset: when t
// has such a column, or when the runtime calls the function (the write
// protocol, an entity's Row in cqlgenimpl.NewEntity), which always passes it.
func (t *Table) RowTakesUnset() bool {
	return t.HasUnsettable() || t.Entity.Maintained() || t.Entity.Single()
}

// NeedsKey reports whether an update compares t's primary key before and
// after a change (to delete the old row where it moved): every table of a
// versioned entity but its source of truth.
func (t *Table) NeedsKey() bool {
	return t.Entity.Versioned() && t != t.Entity.Canonical
}

// HoldsGraves reports the source of truth of a versioned entity, whose
// deleted entities stay as graves that a read skips.
func (t *Table) HoldsGraves() bool {
	return t.Entity.Versioned() && t == t.Entity.Canonical
}

// StaticsAlone is, on a table with static columns, its first clustering
// column: null in the row that a partition holding its statics alone reads
// as, which is no row. Nil for another table.
func (t *Table) StaticsAlone() *Column {
	if ck := t.Clustering(); t.HasStatics() && len(ck) > 0 {
		return ck[0]
	}
	return nil
}

// RequiresSet reports whether t's predicate holds only entities whose
// field f is set, which makes a check that f is not empty there needless.
func (t *Table) RequiresSet(f *Field) bool {
	for _, c := range t.Where {
		if c.Op == CondSet && c.Field == f {
			return true
		}
	}
	return false
}

// Scanner is how a value of a field is read from a row.
type Scanner int

const (
	ScanField    Scanner = iota // into the field itself
	ScanDuration                // a duration into a time.Duration: cqlgenimpl.ScanDuration
	ScanSet                     // a set into a map of empty structs: cqlgenimpl.ScanSet
	ScanVector                  // a vector: through *cqlgenimpl.Vector
)

// ScannerOf is how a value of f, of CQL type t (the field's, or an
// element's), is read: into the field, or through one of the runtime's
// scanners where gocql cannot read it alone.
func ScannerOf(f *Field, t *Type) Scanner {
	switch {
	case t.Name == "duration" && f.GoType.Is("time", "Duration"):
		return ScanDuration
	case t.Name == "set" && f.GoType.IsStructSet():
		return ScanSet
	case t.IsVector():
		return ScanVector
	}
	return ScanField
}

// KeyCheck is how generated code tells that a key value of a field is
// empty (and, negated, that a sparse table's field is set).
type KeyCheck int

const (
	KeyAlwaysSet   KeyCheck = iota // every value is a valid key: numbers, booleans
	KeyIsZero                      // a time.Time: IsZero()
	KeyZeroUUID                    // a uuid or timeuuid: cqlgenimpl.IsZeroUUID
	KeyEmptyLen                    // a blob or collection: len() == 0
	KeyEmptyString                 // a string: == ""
)

// KeyCheckOf is how an empty value of f is told: the key checks' empty,
// which where.go's isSet negates.
func KeyCheckOf(f *Field) KeyCheck {
	switch {
	case f.GoType.Is("time", "Time"):
		return KeyIsZero
	case f.Type.Name == "uuid" || f.Type.Name == "timeuuid":
		return KeyZeroUUID
	case f.Type.Name == "blob" || f.Type.IsCollection():
		return KeyEmptyLen
	case f.GoType.IsString():
		return KeyEmptyString
	}
	return KeyAlwaysSet
}

// Comparison is how generated code compares the values of a clustering
// column in Go, as Cassandra orders them, to merge the rows of several
// partitions.
type Comparison int

const (
	CompareEncoded  Comparison = iota // through the CQL encoding: cqlgenimpl.CompareAs
	CompareMethod                     // a.Compare(b): a time.Time
	CompareBool                       // cqlgenimpl.CompareBool
	CompareBytes                      // cqlgenimpl.CompareBytes
	CompareUUID                       // cqlgenimpl.CompareUUID
	CompareTimeUUID                   // cqlgenimpl.CompareTimeUUID
	CompareFloat32                    // cqlgenimpl.CompareFloat32
	CompareFloat64                    // cqlgenimpl.CompareFloat64
	CompareCmp                        // a.Cmp(b): a *big.Int or *inf.Dec, which a nil value panics
	CompareOrdered                    // cmp.Compare: Go's order is Cassandra's
)

// ComparisonOf is how c's values compare: in Go where Go's order is
// Cassandra's, through a runtime function where it is not (uuids,
// floats), and through the CQL encoding for the rest.
func (c *Column) ComparisonOf() Comparison {
	g := c.Field.GoType
	switch c.Type.Name {
	case "timestamp", "date":
		if g.Is("time", "Time") {
			return CompareMethod
		}
	case "boolean":
		if g.IsBool() {
			return CompareBool
		}
	case "blob":
		return CompareBytes
	case "uuid":
		return CompareUUID
	case "timeuuid":
		return CompareTimeUUID
	case "float":
		if g.IsFloat() {
			return CompareFloat32
		}
	case "double":
		if g.IsFloat() {
			return CompareFloat64
		}
	case "varint", "decimal":
		if g.IsPointer() {
			return CompareCmp
		}
	case "text", "varchar", "ascii":
		if g.IsString() {
			return CompareOrdered
		}
	case "tinyint", "smallint", "int", "bigint", "time":
		if g.IsInteger() {
			return CompareOrdered
		}
	}
	return CompareEncoded
}

// Cheap reports a comparison that cannot fail on any value and costs
// little, so that it may run even when an earlier column decided: not
// through the encoding, not a method of a pointer.
func (k Comparison) Cheap() bool { return k != CompareEncoded && k != CompareCmp }
