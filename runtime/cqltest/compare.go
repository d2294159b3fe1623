package cqltest

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"

	"github.com/gocql/gocql"
)

// compareValues orders two non-null values of type t as Cassandra 5.0's
// comparator for the type does (org.apache.cassandra.db.marshal.*Type),
// which decides the clustering order of rows, the order of set elements
// and map keys, and conditions such as IF c < ?.
//
// For every type, an empty value (zero bytes, which is not null) sorts
// before any other (AbstractType.compare and each compareCustom).
func compareValues(t *cqlType, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return compareBool(len(a) != 0, len(b) != 0)
	}
	switch t.kind {
	case gocql.TypeAscii, gocql.TypeVarchar, gocql.TypeText, gocql.TypeBlob, gocql.TypeInet:
		// AsciiType, UTF8Type, BytesType, InetAddressType: BYTE_ORDER, an
		// unsigned byte-wise comparison (so an IPv4 address, 4 bytes,
		// sorts before an IPv6 address that starts with the same bytes).
		return bytes.Compare(a, b)
	case gocql.TypeDate, gocql.TypeTime:
		// SimpleDateType and TimeType: BYTE_ORDER as well. A date is
		// stored as days since the epoch plus 2^31, so unsigned order is
		// date order, dates before 1970 included; a time is a
		// non-negative count of nanoseconds.
		return bytes.Compare(a, b)
	case gocql.TypeBoolean:
		// BooleanType: false (0) before true (any other byte).
		return compareBool(a[0] != 0, b[0] != 0)
	case gocql.TypeTinyInt, gocql.TypeSmallInt, gocql.TypeInt, gocql.TypeBigInt,
		gocql.TypeCounter, gocql.TypeTimestamp:
		// ByteType, ShortType, Int32Type, LongType, CounterColumnType,
		// TimestampType: signed two's complement.
		return compareSigned(a, b)
	case gocql.TypeFloat:
		// FloatType: Float.compare, so -0.0 < 0.0 and NaN above +Inf.
		return compareJava(float64(math.Float32frombits(binary.BigEndian.Uint32(a))),
			float64(math.Float32frombits(binary.BigEndian.Uint32(b))),
			int64(int32(canonicalFloat32(a))), int64(int32(canonicalFloat32(b))))
	case gocql.TypeDouble:
		// DoubleType: Double.compare.
		x, y := math.Float64frombits(binary.BigEndian.Uint64(a)), math.Float64frombits(binary.BigEndian.Uint64(b))
		return compareJava(x, y, int64(canonicalFloat64(x)), int64(canonicalFloat64(y)))
	case gocql.TypeVarint:
		// IntegerType: numerically, whatever the length of the encoding.
		return varint(a).Cmp(varint(b))
	case gocql.TypeDecimal:
		// DecimalType: BigDecimal.compareTo, numerically, so 1.0 and 1.00
		// are equal (and the same clustering key).
		return compareDecimal(a, b)
	case gocql.TypeUUID:
		return compareUUID(a, b)
	case gocql.TypeTimeUUID:
		return compareTimeUUID(a, b)
	case gocql.TypeList, gocql.TypeSet, gocql.TypeMap:
		return compareCollection(t, a, b)
	}
	// duration has no order; equality is all a condition may ask of it.
	return bytes.Compare(a, b)
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// compareSigned orders two big-endian two's complement integers of the
// same length.
func compareSigned(a, b []byte) int {
	if int8(a[0]) != int8(b[0]) {
		if int8(a[0]) < int8(b[0]) {
			return -1
		}
		return 1
	}
	return bytes.Compare(a[1:], b[1:])
}

// compareJava is Java's Float.compare and Double.compare: numerical order,
// then the bits (with every NaN made one), which puts -0.0 before 0.0 and
// NaN after everything, +Inf included, and makes NaN equal to itself.
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

// canonicalFloat32 is Float.floatToIntBits: the bits, with one NaN.
func canonicalFloat32(b []byte) uint32 {
	f := math.Float32frombits(binary.BigEndian.Uint32(b))
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

// canonicalFloat64 is Double.doubleToLongBits: the bits, with one NaN.
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

// compareDecimal orders two decimals, each a 4-byte scale and a varint
// unscaled value standing for unscaled × 10^-scale, by value.
func compareDecimal(a, b []byte) int {
	sa, ua := int64(int32(binary.BigEndian.Uint32(a))), varint(a[4:])
	sb, ub := int64(int32(binary.BigEndian.Uint32(b))), varint(b[4:])
	if c := ua.Sign() - ub.Sign(); c != 0 || ua.Sign() == 0 {
		return sign(c)
	}
	// Same sign, both non-zero: compare magnitudes by their decimal
	// exponent first (digits - scale), so that a huge scale difference
	// never needs a huge power of ten.
	da, db := digits(ua), digits(ub)
	if ea, eb := da-sa, db-sb; ea != eb {
		c := 1
		if ea < eb {
			c = -1
		}
		return c * ua.Sign()
	}
	// Same exponent: the scales differ by at most the digit counts.
	x, y := new(big.Int).Set(ua), new(big.Int).Set(ub)
	if sa > sb {
		y.Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(sa-sb), nil))
	} else if sb > sa {
		x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(sb-sa), nil))
	}
	return x.Cmp(y)
}

// digits counts the decimal digits of |v|, v non-zero.
func digits(v *big.Int) int64 {
	return int64(len(new(big.Int).Abs(v).String()))
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

// uuidTimestamp reorders the most significant half of a version 1 uuid
// (time_low, time_mid, version and time_hi) so that it sorts by time:
// time_hi (with the version nibble above it), time_mid, time_low, as
// TimeUUIDType.reorderTimestampBytes does.
func uuidTimestamp(msb uint64) uint64 {
	return msb<<48 | (msb<<16)&0xFFFF00000000 | msb>>32
}

// compareUUID is UUIDType's order: by version (the high nibble of byte 6)
// first; version 1 uuids by their timestamp, others by their most
// significant 8 bytes, unsigned; then by the least significant 8 bytes,
// unsigned.
func compareUUID(a, b []byte) int {
	ma, mb := binary.BigEndian.Uint64(a), binary.BigEndian.Uint64(b)
	va, vb := (ma>>12)&0xf, (mb>>12)&0xf
	if va != vb {
		return sign(int(va) - int(vb))
	}
	if va == 1 {
		ma, mb = uuidTimestamp(ma), uuidTimestamp(mb)
	}
	if ma != mb {
		return compareUint(ma, mb)
	}
	return bytes.Compare(a[8:], b[8:])
}

// compareTimeUUID is TimeUUIDType's order, which differs from UUIDType's
// for equal timestamps (CASSANDRA-8730): by timestamp, then the clock
// sequence and node bytes compared as signed bytes, one by one.
func compareTimeUUID(a, b []byte) int {
	ma, mb := uuidTimestamp(binary.BigEndian.Uint64(a)), uuidTimestamp(binary.BigEndian.Uint64(b))
	if ma != mb {
		return compareUint(ma, mb)
	}
	for i := 8; i < 16; i++ {
		if x, y := int8(a[i]), int8(b[i]); x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareCollection orders frozen collections as ListType, SetType and
// MapType do: element by element (a map's key, then its value), and when
// one is a prefix of the other, the shorter first. Values are valid here:
// they were validated when bound.
func compareCollection(t *cqlType, a, b []byte) int {
	ea, erra := t.elements(a)
	eb, errb := t.elements(b)
	if erra != nil || errb != nil {
		return bytes.Compare(a, b)
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		sub := t.elem
		if t.kind == gocql.TypeMap && i%2 == 0 {
			sub = t.key
		}
		if c := compareValues(sub, ea[i], eb[i]); c != 0 {
			return c
		}
	}
	return sign(len(ea) - len(eb))
}
