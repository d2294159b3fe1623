package cqltest

import (
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// compareValues orders two non-null values of type t as Cassandra 5.0's
// comparator for the type does (org.apache.cassandra.db.marshal.*Type),
// which decides the clustering order of rows, the order of set elements
// and map keys, and conditions such as IF c < ?.
//
// For every type, an empty value (zero bytes, which is not null) sorts
// before any other (AbstractType.compare and each compareCustom).
func compareValues(t *cqlType, a, b []byte) int {
	return cqlgenimpl.CompareEncoded(t.cql, a, b)
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}
