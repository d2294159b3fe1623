package cqldriver

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"slices"
	"time"
)

// One CQL value, many encodings: a set's elements and a map's entries may
// come in any order, and a set may repeat an element. Drivers write a Go
// map's entries in the map's iteration order, which is random, and a set
// bound from a Go slice as the slice has it. Cassandra 5.0 rebuilds the
// value in its own order (sorted, duplicates dropped) only when the column's
// type is itself a collection, in ascending order: a frozen collection in a
// descending clustering column, and any set or map inside a frozen
// user-defined type, are kept as they were sent, and the stored bytes are
// then what the node compares, orders rows by, and hashes a partition key
// from. The same key would so be two rows, or two partitions, and a read by
// key would miss the row. Canonical gives every value one encoding, and the
// driver adapters bind every value that may hold a set or a map through it.

// Canonical returns b, a non-null value of type t as CQL encodes it, with
// every set's elements and every map's entries (by key) at any depth in
// Cassandra's order, as Compare orders them, and a set's repeated elements
// (a map's repeated keys: the last entry of the key wins) dropped, as
// Cassandra does with a collection column. A value of a type that cannot
// hold a set or a map is returned as it is, as is one that does not parse
// as its type (Cassandra refuses it). b is not modified.
func Canonical(t *Type, b []byte) []byte {
	if b == nil || !HoldsUnordered(t) {
		return b
	}
	if c, ok := canonical(t, b); ok {
		return c
	}
	return b
}

func canonical(t *Type, b []byte) ([]byte, bool) {
	if !HoldsUnordered(t) {
		return b, true
	}
	switch t.Kind {
	case TypeList, TypeSet, TypeMap:
		isMap := t.Kind == TypeMap
		es, ok := elements(b, isMap)
		if !ok {
			return nil, false
		}
		for i, e := range es {
			if e == nil {
				continue // a null element: Cassandra refuses it
			}
			sub := t.Elem
			if isMap && i%2 == 0 {
				sub = t.Key
			}
			if es[i], ok = canonical(sub, e); !ok {
				return nil, false
			}
		}
		n := len(es)
		switch t.Kind {
		case TypeSet:
			// Stable, so that of equal elements (1.0 and 1.00) the first
			// is kept, as a Java TreeSet keeps the first it is given.
			slices.SortStableFunc(es, func(x, y []byte) int { return Compare(t.Elem, x, y) })
			es = slices.CompactFunc(es, func(x, y []byte) bool { return Compare(t.Elem, x, y) == 0 })
			n = len(es)
		case TypeMap:
			type entry struct{ k, v []byte }
			ents := make([]entry, len(es)/2)
			for i := range ents {
				ents[i] = entry{es[2*i], es[2*i+1]}
			}
			slices.SortStableFunc(ents, func(x, y entry) int { return Compare(t.Key, x.k, y.k) })
			es = es[:0]
			for i, e := range ents {
				if i > 0 && Compare(t.Key, ents[i-1].k, e.k) == 0 {
					// Two keys that are one value to Cassandra (two
					// times in one date, 1.0 and 1.00): one entry is
					// kept, the same whatever order a Go map gave them
					// in, the greater by bytes (key, then value).
					last := len(es) - 2
					if c := bytes.Compare(e.k, es[last]); c > 0 || c == 0 && bytes.Compare(e.v, es[last+1]) > 0 {
						es[last], es[last+1] = e.k, e.v
					}
					continue
				}
				es = append(es, e.k, e.v)
			}
			n = len(es) / 2
		}
		out := binary.BigEndian.AppendUint32(make([]byte, 0, len(b)), uint32(n))
		return appendFields(out, es), true
	case TypeUDT:
		fs, ok := splitEncoded(b, 0)
		if !ok {
			return nil, false
		}
		for i, f := range fs {
			if f == nil || i >= len(t.Fields) {
				continue
			}
			if fs[i], ok = canonical(t.Fields[i].Type, f); !ok {
				return nil, false
			}
		}
		return appendFields(make([]byte, 0, len(b)), fs), true
	}
	return b, true
}

// appendFields appends each of es with its 4-byte length; nil is null
// (length -1).
func appendFields(out []byte, es [][]byte) []byte {
	for _, e := range es {
		if e == nil {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32)
			continue
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
		out = append(out, e...)
	}
	return out
}

// HoldsUnordered reports whether a value of type t may hold a set or a
// map, and so have more than one encoding.
func HoldsUnordered(t *Type) bool {
	if t == nil {
		return false
	}
	switch t.Kind {
	case TypeSet, TypeMap:
		return true
	case TypeList:
		return HoldsUnordered(t.Elem)
	case TypeUDT:
		for _, f := range t.Fields {
			if HoldsUnordered(f.Type) {
				return true
			}
		}
	}
	return false
}

// elements splits an encoded collection: a 4-byte count, then each
// element as a 4-byte length and its bytes, a map's keys and values
// alternating. A negative length is null (nil). It reports false when b
// is malformed.
func elements(b []byte, isMap bool) ([][]byte, bool) {
	n := -1
	if isMap {
		n = -2
	}
	return splitEncoded(b, n)
}

// splitEncoded splits b into length-prefixed parts: with count -1 (-2 for
// a map's pairs) a collection's, after its count; with count 0 a
// user-defined type's fields, to the end.
func splitEncoded(b []byte, count int) ([][]byte, bool) {
	var n int
	switch count {
	case -1, -2:
		if len(b) < 4 {
			return nil, false
		}
		n = int(int32(binary.BigEndian.Uint32(b)))
		b = b[4:]
		if n < 0 || n > len(b)/4 {
			return nil, false
		}
		n *= -count
	}
	var out [][]byte
	for i := 0; count == 0 && len(b) > 0 || i < n; i++ {
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
		out = append(out, b[:l:l])
		b = b[l:]
	}
	return out, len(b) == 0
}

// Compare orders two non-null encoded values of type t as Cassandra 5.0's
// comparator for the type does (org.apache.cassandra.db.marshal): what
// Canonical sorts a set's elements and a map's keys by. An empty value
// (zero bytes, not null) sorts first.
func Compare(t *Type, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b))
	}
	switch t.Kind {
	case TypeBoolean:
		return cmp.Compare(bit(a[0] != 0), bit(b[0] != 0))
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeCounter, TypeTimestamp, TypeTime:
		if c := cmp.Compare(int8(a[0]), int8(b[0])); c != 0 {
			return c
		}
		return bytes.Compare(a[1:], b[1:])
	case TypeFloat:
		if len(a) == 4 && len(b) == 4 {
			return CompareFloat64(float64(math.Float32frombits(binary.BigEndian.Uint32(a))), float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		}
	case TypeDouble:
		if len(a) == 8 && len(b) == 8 {
			return CompareFloat64(math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case TypeVarint:
		return twos(a).Cmp(twos(b))
	case TypeDecimal:
		if len(a) >= 4 && len(b) >= 4 {
			return compareDecimal(a, b)
		}
	case TypeUUID, TypeTimeUUID:
		if len(a) == 16 && len(b) == 16 {
			return compareUUID(t.Kind == TypeTimeUUID, a, b)
		}
	case TypeList, TypeSet, TypeMap:
		return compareCollection(t, a, b)
	case TypeUDT:
		return compareUDT(t, a, b)
	}
	// ascii, text, blob, inet, date (days + 2^31): unsigned bytes.
	return bytes.Compare(a, b)
}

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CompareFloat64 is Java's Double.compare, DoubleType's order: numeric,
// but -0.0 < 0.0 and every NaN equal to any other and above +Inf.
func CompareFloat64(x, y float64) int {
	switch xn, yn := math.IsNaN(x), math.IsNaN(y); {
	case xn || yn:
		return cmp.Compare(bit(xn), bit(yn))
	case x == 0 && y == 0:
		return cmp.Compare(bit(!math.Signbit(x)), bit(!math.Signbit(y)))
	}
	return cmp.Compare(x, y)
}

// CompareFloat32 is Java's Float.compare, FloatType's order (see
// CompareFloat64: a float32 widens to the same order).
func CompareFloat32(x, y float32) int { return CompareFloat64(float64(x), float64(y)) }

// CompareUUID is UUIDType's order on a uuid's 16 bytes (see compareUUID).
func CompareUUID(a, b [16]byte) int { return compareUUID(false, a[:], b[:]) }

// CompareTimeUUID is TimeUUIDType's order, which differs from UUIDType's
// for equal timestamps (CASSANDRA-8730).
func CompareTimeUUID(a, b [16]byte) int { return compareUUID(true, a[:], b[:]) }

// Varint decodes a varint: a big-endian two's complement integer of any
// length.
func Varint(b []byte) *big.Int { return twos(b) }

// twos reads a big-endian two's complement integer of any length.
func twos(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// compareDecimal orders decimals (a 4-byte scale, then the unscaled
// varint) by value, as BigDecimal.compareTo: 1.0 equals 1.00.
func compareDecimal(a, b []byte) int {
	ua, ub := twos(a[4:]), twos(b[4:])
	if s := cmp.Compare(ua.Sign(), ub.Sign()); s != 0 || ua.Sign() == 0 {
		return s
	}
	sa, sb := int64(int32(binary.BigEndian.Uint32(a))), int64(int32(binary.BigEndian.Uint32(b)))
	ma, mb := new(big.Int).Abs(ua), new(big.Int).Abs(ub)
	// |x| is in [10^(digits-1-scale), 10^(digits-scale)): the leading
	// powers first, so a huge scale never needs a huge power of ten.
	c := cmp.Compare(int64(len(ma.String()))-sa, int64(len(mb.String()))-sb)
	if c == 0 {
		if sa < sb {
			ma.Mul(ma, new(big.Int).Exp(big.NewInt(10), big.NewInt(sb-sa), nil))
		} else if sb < sa {
			mb.Mul(mb, new(big.Int).Exp(big.NewInt(10), big.NewInt(sa-sb), nil))
		}
		c = ma.Cmp(mb)
	}
	return c * ua.Sign()
}

// compareUUID is UUIDType's order (by version; a version 1 uuid by its
// timestamp, then its other bytes; any other by its bytes, unsigned) or,
// for timeuuid, TimeUUIDType's (timestamp, then the clock sequence and
// node as signed bytes, one by one: CASSANDRA-8730).
func compareUUID(timeOnly bool, a, b []byte) int {
	if !timeOnly {
		va, vb := a[6]>>4, b[6]>>4
		if va != vb {
			return cmp.Compare(va, vb)
		}
		if va != 1 {
			return bytes.Compare(a, b)
		}
	}
	if c := cmp.Compare(uuidTime(a), uuidTime(b)); c != 0 {
		return c
	}
	if !timeOnly {
		return bytes.Compare(a[8:], b[8:])
	}
	for i := 8; i < 16; i++ {
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}

// uuidTime is a version 1 uuid's 60-bit timestamp.
func uuidTime(u []byte) uint64 {
	return uint64(binary.BigEndian.Uint16(u[6:])&0x0fff)<<48 | uint64(binary.BigEndian.Uint16(u[4:]))<<32 | uint64(binary.BigEndian.Uint32(u))
}

// TimeOfUUID is the time a version 1 uuid (a timeuuid) holds: its
// timestamp counts 100 ns intervals since the Gregorian calendar's
// start. A uuid of another version holds no time: the zero time.
func TimeOfUUID(u [16]byte) time.Time {
	if u[6]>>4 != 1 {
		return time.Time{}
	}
	t := int64(uuidTime(u[:])) // 60 bits: never negative
	return time.Unix(gregorianStart+t/1e7, t%1e7*100).UTC()
}

// gregorianStart is when version 1 uuids count from, in Unix seconds.
var gregorianStart = time.Date(1582, time.October, 15, 0, 0, 0, 0, time.UTC).Unix()

// compareCollection orders frozen collections element by element (a
// map's key, then its value), a prefix first, each in its canonical form
// (Cassandra compares what it stores, sorted where it sorts).
func compareCollection(t *Type, a, b []byte) int {
	if ca, ok := canonical(t, a); ok {
		a = ca
	}
	if cb, ok := canonical(t, b); ok {
		b = cb
	}
	isMap := t.Kind == TypeMap
	ea, oka := elements(a, isMap)
	eb, okb := elements(b, isMap)
	if !oka || !okb {
		return bytes.Compare(a, b)
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		sub := t.Elem
		if isMap && i%2 == 0 {
			sub = t.Key
		}
		if c := compareNullable(sub, ea[i], eb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ea), len(eb))
}

// compareUDT orders frozen user-defined types field by field, a null
// field first; a value's missing trailing fields count as nulls.
func compareUDT(t *Type, a, b []byte) int {
	fa, oka := splitEncoded(a, 0)
	fb, okb := splitEncoded(b, 0)
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
		sub := blobType
		if i < len(t.Fields) {
			sub = t.Fields[i].Type
		}
		if c := compareNullable(sub, x, y); c != 0 {
			return c
		}
	}
	return 0
}

// compareNullable is Compare with null (nil) before any value.
func compareNullable(t *Type, x, y []byte) int {
	if x == nil || y == nil {
		return cmp.Compare(bit(x != nil), bit(y != nil))
	}
	return Compare(t, x, y)
}

var blobType = &Type{Kind: TypeBlob, CQL: "blob"}

// MayHoldUnordered reports whether v, a Go value bound to a statement, may
// encode as a set or a map or hold one: a map, a slice or array other than
// bytes, or a struct (a user-defined type), or a pointer to one. A driver
// adapter binds such a value through Canonical, with the type the driver
// gives it (the column's, from the prepared statement), so that it has one
// encoding whatever the Go map's iteration order or the slice's (a []string
// may be a list's, left as it is, or a set's). The common scalar types are
// answered without reflection.
func MayHoldUnordered(v any) bool {
	switch v.(type) {
	case nil, string, []byte, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, time.Time, time.Duration:
		return false
	}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return true
	case reflect.Slice, reflect.Array:
		return t.Elem().Kind() != reflect.Uint8
	}
	return false
}
