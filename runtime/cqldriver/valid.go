package cqldriver

import "unicode/utf8"

// Valid reports whether b, a non-null value, is a value of type t as
// Cassandra validates one: the size of a fixed-size type, UTF-8 text,
// ASCII ascii, a decimal's scale, an inet's 4 or 16 bytes, a timeuuid's
// version, and a collection's elements, each valid.
func Valid(t *Type, b []byte) bool {
	if n, ok := FixedSize(t.Kind); ok && len(b) != n {
		return false
	}
	switch t.Kind {
	case TypeVarchar, TypeText:
		return utf8.Valid(b)
	case TypeAscii:
		for _, c := range b {
			if c > 0x7f {
				return false
			}
		}
	case TypeTimeUUID:
		return b[6]>>4 == 1
	case TypeDecimal:
		return len(b) >= 4
	case TypeInet:
		return len(b) == 4 || len(b) == 16
	case TypeList, TypeSet, TypeMap:
		isMap := t.Kind == TypeMap
		es, ok := elements(b, isMap)
		if !ok {
			return false
		}
		for i, e := range es {
			sub := t.Elem
			if isMap && i%2 == 0 {
				sub = t.Key
			}
			if e == nil || !Valid(sub, e) {
				return false
			}
		}
	}
	return true
}

// FixedSize is the size of every value of a type whose values all have
// one, and reports whether kind is such a type.
func FixedSize(kind TypeKind) (int, bool) {
	n, ok := fixedSize[kind]
	return n, ok
}

var fixedSize = map[TypeKind]int{
	TypeTinyInt: 1, TypeBoolean: 1, TypeSmallInt: 2, TypeInt: 4, TypeFloat: 4,
	TypeDate: 4, TypeBigInt: 8, TypeCounter: 8, TypeTimestamp: 8, TypeTime: 8,
	TypeDouble: 8, TypeUUID: 16, TypeTimeUUID: 16,
}
