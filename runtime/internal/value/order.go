package value

import (
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// Cassandra's order of values, which decides the clustering order of rows
// and so the order in which hash buckets must be merged, and the one
// encoding of a value that may hold a set or a map, are cqldriver's
// (Compare, Canonical): the adapters bind through the same functions.

// CompareAs orders two Go values of a clustering column of the given CQL
// type (as the DDL writes it) as Cassandra does, through their encoding.
// A value it cannot encode sorts by its encoding error's absence, so
// that the order stays total.
func CompareAs(cqlType string, a, b any) int {
	typ, err := cqldriver.ParseType(cqlType)
	if err != nil {
		return 0
	}
	x, errx := cqldriver.Marshal(typ, a)
	y, erry := cqldriver.Marshal(typ, b)
	if errx != nil || erry != nil {
		return CompareBool(errx == nil, erry == nil)
	}
	return cqldriver.Compare(typ, x, y)
}

// Normalized binds a frozen set or map in a primary key in its canonical
// form (cqldriver.Canonical): Cassandra sorts a set's elements (a map's
// entries, by key) itself for an ascending clustering column but not for
// a descending one, where a set sent as {b, a} and one sent as {a, b}
// become two rows; and drivers send a Go map's entries in random order.
func Normalized(cqlType string, v any) any { return normalized{cqlType, v} }

type normalized struct {
	cqlType string
	v       any
}

// MarshalCQLValue implements cqldriver.ValueMarshaler. It encodes with the
// CQL type Normalized was given, the column's as the generated code
// writes it, rather than the type the driver passes: that is the same
// column's, as the driver translated it.
func (n normalized) MarshalCQLValue(*cqldriver.Type) ([]byte, error) {
	t, err := cqldriver.ParseType(n.cqlType)
	if err != nil {
		return nil, err
	}
	return MarshalSorted(t, n.v)
}

// MarshalSorted encodes v as a value of type t in its canonical form
// (cqldriver.Canonical): what the runtime compares when it asks whether
// two values are the same as Cassandra stores them.
func MarshalSorted(t *cqldriver.Type, v any) ([]byte, error) {
	b, err := cqldriver.Marshal(t, v)
	if err != nil {
		return nil, err
	}
	return cqldriver.Canonical(t, b), nil
}

// CompareEncoded is cqldriver.Compare under the name generated code calls
// through the façade.
func CompareEncoded(t *cqldriver.Type, a, b []byte) int { return cqldriver.Compare(t, a, b) }
