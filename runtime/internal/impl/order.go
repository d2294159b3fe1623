package impl

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
	"slices"
	"unicode/utf8"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// Cassandra's order of values, which decides the clustering order of rows
// and so the order in which hash buckets must be merged. CompareEncoded is
// the reference, on values as CQL encodes them; the typed functions below
// are its fast paths for the types generated code compares most, and
// CompareAs serves every other type through the encoding.

// CompareEncoded orders two non-null encoded values of a CQL type as
// Cassandra 5.0's comparator for the type does
// (org.apache.cassandra.db.marshal.*Type). An empty value (zero bytes,
// which is not null) sorts before any other.
func CompareEncoded(t *cqldriver.Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return CompareBool(len(a) != 0, len(b) != 0)
	}
	switch t.Kind {
	case cqldriver.TypeAscii, cqldriver.TypeVarchar, cqldriver.TypeText, cqldriver.TypeBlob, cqldriver.TypeInet,
		cqldriver.TypeDate, cqldriver.TypeTime:
		// AsciiType, UTF8Type, BytesType, InetAddressType, SimpleDateType
		// and TimeType compare the bytes, unsigned: a date is days since
		// the epoch plus 2^31, a time a non-negative count of nanoseconds,
		// and an IPv4 address (4 bytes) sorts before an IPv6 one that
		// starts with the same bytes.
		return bytes.Compare(a, b)
	case cqldriver.TypeBoolean:
		return CompareBool(a[0] != 0, b[0] != 0)
	case cqldriver.TypeTinyInt, cqldriver.TypeSmallInt, cqldriver.TypeInt, cqldriver.TypeBigInt,
		cqldriver.TypeCounter, cqldriver.TypeTimestamp:
		// Signed two's complement.
		if int8(a[0]) != int8(b[0]) {
			return sign(int(int8(a[0])) - int(int8(b[0])))
		}
		return bytes.Compare(a[1:], b[1:])
	case cqldriver.TypeFloat:
		return CompareFloat32(math.Float32frombits(binary.BigEndian.Uint32(a)), math.Float32frombits(binary.BigEndian.Uint32(b)))
	case cqldriver.TypeDouble:
		return CompareFloat64(math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b)))
	case cqldriver.TypeVarint:
		return varint(a).Cmp(varint(b))
	case cqldriver.TypeDecimal:
		return compareDecimal(a, b)
	case cqldriver.TypeUUID:
		return CompareUUID([16]byte(a), [16]byte(b))
	case cqldriver.TypeTimeUUID:
		return CompareTimeUUID([16]byte(a), [16]byte(b))
	case cqldriver.TypeList, cqldriver.TypeSet, cqldriver.TypeMap:
		return compareCollection(t, a, b)
	case cqldriver.TypeUDT:
		return compareUDT(t, a, b)
	}
	return bytes.Compare(a, b)
}

// compareUDT orders frozen user-defined types as UserType (a TupleType)
// does: field by field, a null field before any value; when one value
// runs out of fields, its missing ones count as nulls.
func compareUDT(t *cqldriver.Type, a, b []byte) int {
	fa, oka := udtFields(a)
	fb, okb := udtFields(b)
	if !oka || !okb {
		return bytes.Compare(a, b)
	}
	for i := 0; i < max(len(fa), len(fb)); i++ {
		var x, y []byte
		if i < len(fa) {
			x = fa[i]
		}
		if i < len(fb) {
			y = fb[i]
		}
		switch {
		case x == nil && y == nil:
			continue
		case x == nil || y == nil:
			return CompareBool(x != nil, y != nil)
		}
		sub := blobType
		if i < len(t.Fields) {
			sub = t.Fields[i].Type
		}
		if c := CompareEncoded(sub, x, y); c != 0 {
			return c
		}
	}
	return 0
}

// udtFields splits an encoded user-defined type into its fields, each a
// 4-byte length and its bytes; a negative length is a null field (nil).
func udtFields(b []byte) ([][]byte, bool) {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if l < 0 {
			out = append(out, nil)
			continue
		}
		if l > len(b) {
			return nil, false
		}
		out = append(out, append([]byte{}, b[:l]...))
		b = b[l:]
	}
	return out, true
}

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
	return CompareEncoded(typ, x, y)
}

// blobType orders the fields of a user-defined type beyond those its
// type lists (a field added since) by their bytes.
var blobType = &cqldriver.Type{Kind: cqldriver.TypeBlob, CQL: "blob"}

// CompareFloat32 is Java's Float.compare, FloatType's order: numerical,
// then by bits with every NaN one, so -0.0 < 0.0 and NaN is above +Inf
// and equal to itself.
func CompareFloat32(a, b float32) int {
	return compareJava(float64(a), float64(b), int64(int32(canonicalFloat32(a))), int64(int32(canonicalFloat32(b))))
}

// CompareFloat64 is Java's Double.compare, DoubleType's order.
func CompareFloat64(a, b float64) int {
	return compareJava(a, b, int64(canonicalFloat64(a)), int64(canonicalFloat64(b)))
}

func compareJava(x, y float64, xbits, ybits int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case xbits < ybits:
		return -1
	case xbits > ybits:
		return 1
	}
	return 0
}

func canonicalFloat32(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

func canonicalFloat64(f float64) uint64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// varint decodes a big-endian two's complement integer of any length.
func varint(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return v
}

// compareDecimal orders two decimals (a 4-byte scale, then a varint
// unscaled value) by value, as BigDecimal.compareTo does: 1.0 = 1.00.
func compareDecimal(a, b []byte) int {
	if len(a) < 4 || len(b) < 4 {
		return bytes.Compare(a, b)
	}
	sa, ua := int64(int32(binary.BigEndian.Uint32(a))), varint(a[4:])
	sb, ub := int64(int32(binary.BigEndian.Uint32(b))), varint(b[4:])
	if c := ua.Sign() - ub.Sign(); c != 0 || ua.Sign() == 0 {
		return sign(c)
	}
	// Same sign, both non-zero: the decimal exponents first, so that a
	// huge scale difference never needs a huge power of ten.
	da, db := int64(len(new(big.Int).Abs(ua).String())), int64(len(new(big.Int).Abs(ub).String()))
	if ea, eb := da-sa, db-sb; ea != eb {
		c := 1
		if ea < eb {
			c = -1
		}
		return c * ua.Sign()
	}
	x, y := new(big.Int).Set(ua), new(big.Int).Set(ub)
	if sa > sb {
		y.Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(sa-sb), nil))
	} else if sb > sa {
		x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(sb-sa), nil))
	}
	return x.Cmp(y)
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

// compareCollection orders frozen collections as ListType, SetType and
// MapType do: element by element (a map's key, then its value), the
// shorter first when one is a prefix of the other.
func compareCollection(t *cqldriver.Type, a, b []byte) int {
	ea, oka := collectionElements(a, t.Kind == cqldriver.TypeMap)
	eb, okb := collectionElements(b, t.Kind == cqldriver.TypeMap)
	if !oka || !okb {
		return bytes.Compare(a, b)
	}
	// Cassandra keeps a set's elements and a map's keys sorted, whatever
	// order a client sent them in (drivers send a Go map's in random order).
	if t.Kind != cqldriver.TypeList {
		sortElements(t, ea)
		sortElements(t, eb)
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		sub := t.Elem
		if t.Kind == cqldriver.TypeMap && i%2 == 0 {
			sub = t.Key
		}
		if c := CompareEncoded(sub, ea[i], eb[i]); c != 0 {
			return c
		}
	}
	return sign(len(ea) - len(eb))
}

// collectionElements splits an encoded collection (protocol v4: a 4-byte
// count, then each element as a 4-byte length and its bytes; a map's
// keys and values alternate).
func collectionElements(b []byte, isMap bool) ([][]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if isMap {
		n *= 2
	}
	if n < 0 || n > len(b) {
		return nil, false
	}
	out := make([][]byte, 0, n)
	r := b[4:]
	for range n {
		if len(r) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(r)))
		r = r[4:]
		if l < 0 || l > len(r) {
			return nil, false
		}
		out = append(out, r[:l])
		r = r[l:]
	}
	return out, len(r) == 0
}

// sortElements sorts a set's elements, or a map's entries by key, in
// place.
func sortElements(t *cqldriver.Type, es [][]byte) {
	if t.Kind == cqldriver.TypeSet {
		slices.SortFunc(es, func(x, y []byte) int { return CompareEncoded(t.Elem, x, y) })
		return
	}
	pairs := make([][2][]byte, len(es)/2)
	for i := range pairs {
		pairs[i] = [2][]byte{es[2*i], es[2*i+1]}
	}
	slices.SortFunc(pairs, func(x, y [2][]byte) int { return CompareEncoded(t.Key, x[0], y[0]) })
	for i, p := range pairs {
		es[2*i], es[2*i+1] = p[0], p[1]
	}
}

// Normalized binds a frozen set or map in a primary key with its elements
// (a map's entries, by key) in Cassandra's order. Cassandra sorts them
// itself for an ascending clustering column but not for a descending one,
// where a set sent as {b, a} and one sent as {a, b} become two rows; and
// drivers send a Go map's entries in random order.
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
	b, err := cqldriver.Marshal(t, n.v)
	if err != nil || b == nil {
		return b, err
	}
	if t.Kind != cqldriver.TypeSet && t.Kind != cqldriver.TypeMap {
		return b, nil
	}
	es, ok := collectionElements(b, t.Kind == cqldriver.TypeMap)
	if !ok {
		return b, nil
	}
	sortElements(t, es)
	out := append([]byte(nil), b[:4]...)
	for _, e := range es {
		out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
		out = append(out, e...)
	}
	return out, nil
}

// marshalSorted encodes v as a value of type t with the elements of
// every set, and the entries of every map, in Cassandra's order, at any
// depth: what the runtime compares when it asks whether two values are
// the same as Cassandra stores them. A driver writes a Go map's elements
// in the map's iteration order, which is random, so one value has many
// encodings; and Cassandra sorts a set or map column, but not a set or
// map inside a frozen user-defined type, which it keeps as it was sent.
func marshalSorted(t *cqldriver.Type, v any) ([]byte, error) {
	b, err := cqldriver.Marshal(t, v)
	if err != nil {
		return nil, err
	}
	return sortedEncoding(t, b), nil
}

// sortedEncoding is b, a value of type t as CQL encodes it, with its sets
// and maps in Cassandra's order (see marshalSorted). A value without any,
// or one it cannot parse, is returned as it is.
func sortedEncoding(t *cqldriver.Type, b []byte) []byte {
	if b == nil || !unordered(t) {
		return b
	}
	switch t.Kind {
	case cqldriver.TypeList, cqldriver.TypeSet, cqldriver.TypeMap:
		es, ok := collectionElements(b, t.Kind == cqldriver.TypeMap)
		if !ok {
			return b
		}
		for i, e := range es {
			sub := t.Elem
			if t.Kind == cqldriver.TypeMap && i%2 == 0 {
				sub = t.Key
			}
			es[i] = sortedEncoding(sub, e)
		}
		if t.Kind != cqldriver.TypeList {
			sortElements(t, es)
		}
		out := append([]byte(nil), b[:4]...)
		for _, e := range es {
			out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
			out = append(out, e...)
		}
		return out
	case cqldriver.TypeUDT:
		fs, ok := udtFields(b)
		if !ok {
			return b
		}
		var out []byte
		for i, f := range fs {
			if f == nil {
				out = binary.BigEndian.AppendUint32(out, math.MaxUint32) // null: length -1
				continue
			}
			if i < len(t.Fields) {
				f = sortedEncoding(t.Fields[i].Type, f)
			}
			out = binary.BigEndian.AppendUint32(out, uint32(len(f)))
			out = append(out, f...)
		}
		return out
	}
	return b
}

// unordered reports whether a value of type t may hold a set or a map.
func unordered(t *cqldriver.Type) bool {
	switch t.Kind {
	case cqldriver.TypeSet, cqldriver.TypeMap:
		return true
	case cqldriver.TypeList:
		return t.Elem != nil && unordered(t.Elem)
	case cqldriver.TypeUDT:
		for _, f := range t.Fields {
			if unordered(f.Type) {
				return true
			}
		}
	}
	return false
}

// validEncoding reports whether b is a value of type t as Cassandra
// validates one: the size of a fixed-size type, UTF-8 text, ASCII ascii,
// a decimal's scale, an inet's 4 or 16 bytes, a timeuuid's version, and a
// collection's elements, each valid.
func validEncoding(t *cqldriver.Type, b []byte) bool {
	if n, ok := fixedSize[t.Kind]; ok && len(b) != n {
		return false
	}
	switch t.Kind {
	case cqldriver.TypeVarchar, cqldriver.TypeText:
		return utf8.Valid(b)
	case cqldriver.TypeAscii:
		for _, c := range b {
			if c > 0x7f {
				return false
			}
		}
	case cqldriver.TypeTimeUUID:
		return b[6]>>4 == 1
	case cqldriver.TypeDecimal:
		return len(b) >= 4
	case cqldriver.TypeInet:
		return len(b) == 4 || len(b) == 16
	case cqldriver.TypeList, cqldriver.TypeSet, cqldriver.TypeMap:
		es, ok := collectionElements(b, t.Kind == cqldriver.TypeMap)
		if !ok {
			return false
		}
		for i, e := range es {
			sub := t.Elem
			if t.Kind == cqldriver.TypeMap && i%2 == 0 {
				sub = t.Key
			}
			if !validEncoding(sub, e) {
				return false
			}
		}
	}
	return true
}

// fixedSize is the size of each type whose values all have one.
var fixedSize = map[cqldriver.TypeKind]int{
	cqldriver.TypeTinyInt: 1, cqldriver.TypeBoolean: 1, cqldriver.TypeSmallInt: 2, cqldriver.TypeInt: 4, cqldriver.TypeFloat: 4,
	cqldriver.TypeDate: 4, cqldriver.TypeBigInt: 8, cqldriver.TypeCounter: 8, cqldriver.TypeTimestamp: 8, cqldriver.TypeTime: 8,
	cqldriver.TypeDouble: 8, cqldriver.TypeUUID: 16, cqldriver.TypeTimeUUID: 16,
}
