package cqltest

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"math/big"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// compareValues orders two non-null values of type t as Cassandra 5.0's
// comparator for the type does (org.apache.cassandra.db.marshal.*Type),
// which decides the clustering order of rows, the order of set elements
// and map keys, and conditions such as IF c < ?.
//
// This ordering is the oracle's own: it is written from Cassandra's
// documented semantics, apart from the runtime's comparator, so that an
// ordering mistake in the client is not repeated here (the integration
// suite's TestOracleOrderMatchesCassandra checks it against a node, and
// TestOracleAgreesWithRuntime checks the runtime's against it).
//
// For every type, an empty value (zero bytes, which is not null) sorts
// before any other, and two empty values are equal.
func compareValues(t *cqlType, a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b))
	}
	switch t.kind {
	case cqldriver.TypeList, cqldriver.TypeSet, cqldriver.TypeMap:
		return compareCollections(t, a, b)
	case cqldriver.TypeUDT:
		return compareUDTs(t, a, b)
	case cqldriver.TypeTinyInt, cqldriver.TypeSmallInt, cqldriver.TypeInt, cqldriver.TypeBigInt,
		cqldriver.TypeCounter, cqldriver.TypeTimestamp, cqldriver.TypeTime:
		// Fixed-size two's complement, big-endian: as signed integers.
		// A timestamp is milliseconds since 1970, negative before it;
		// a time is nanoseconds since midnight.
		return cmp.Compare(signedInt(a), signedInt(b))
	case cqldriver.TypeVarint:
		return twosComplementInt(a).Cmp(twosComplementInt(b))
	case cqldriver.TypeDecimal:
		return compareDecimals(a, b)
	case cqldriver.TypeFloat:
		return compareFloats(float64(math.Float32frombits(binary.BigEndian.Uint32(a))),
			float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
	case cqldriver.TypeDouble:
		return compareFloats(math.Float64frombits(binary.BigEndian.Uint64(a)),
			math.Float64frombits(binary.BigEndian.Uint64(b)))
	case cqldriver.TypeBoolean:
		// false is a zero byte, true any other.
		return cmp.Compare(boolRank(a), boolRank(b))
	case cqldriver.TypeUUID:
		return compareUUIDs(a, b)
	case cqldriver.TypeTimeUUID:
		return compareTimeUUIDs(a, b)
	}
	// ascii, text/varchar, blob, inet (4 or 16 bytes: an IPv4 address is a
	// shorter string), and date (days since 1970 plus 2^31, unsigned) are
	// ordered as unsigned byte strings.
	return bytes.Compare(a, b)
}

// signedInt reads a big-endian two's complement integer of 1 to 8 bytes.
func signedInt(b []byte) int64 {
	v := int64(int8(b[0]))
	for _, c := range b[1:] {
		v = v<<8 | int64(c)
	}
	return v
}

// twosComplementInt reads a varint: big-endian two's complement of any
// length; redundant sign bytes change nothing.
func twosComplementInt(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// compareDecimals orders decimals (a 4-byte scale, then a varint unscaled
// value u, for u × 10^-scale) by value, as BigDecimal.compareTo: 1.0 and
// 1.00 are equal. Scales run over the whole int32 range, so the values
// are not expanded: their magnitudes are told apart by their leading
// digit's power of ten first.
func compareDecimals(a, b []byte) int {
	if len(a) < 4 || len(b) < 4 { // not stored: validate refuses them first
		return bytes.Compare(a, b)
	}
	ua, ub := twosComplementInt(a[4:]), twosComplementInt(b[4:])
	if s := cmp.Compare(ua.Sign(), ub.Sign()); s != 0 || ua.Sign() == 0 {
		return s
	}
	sa, sb := int64(int32(binary.BigEndian.Uint32(a))), int64(int32(binary.BigEndian.Uint32(b)))
	ma, mb := new(big.Int).Abs(ua), new(big.Int).Abs(ub)
	da, db := int64(len(ma.String())), int64(len(mb.String()))
	// |x| lies in [10^(digits-1-scale), 10^(digits-scale)).
	c := cmp.Compare(da-sa, db-sb)
	if c == 0 {
		// Same leading power: the scales differ by at most the digit
		// counts, so bring both to the larger scale.
		if sa < sb {
			ma.Mul(ma, new(big.Int).Exp(big.NewInt(10), big.NewInt(sb-sa), nil))
		} else if sb < sa {
			mb.Mul(mb, new(big.Int).Exp(big.NewInt(10), big.NewInt(sa-sb), nil))
		}
		c = ma.Cmp(mb)
	}
	return c * ua.Sign()
}

// compareFloats is Java's Float.compare and Double.compare: numeric
// order, except that -0.0 is below 0.0 and every NaN is equal to any
// other and above +Inf.
func compareFloats(x, y float64) int {
	switch xn, yn := math.IsNaN(x), math.IsNaN(y); {
	case xn || yn:
		return boolCompare(xn, yn)
	case x == 0 && y == 0:
		return boolCompare(!math.Signbit(x), !math.Signbit(y))
	}
	return cmp.Compare(x, y)
}

func boolCompare(x, y bool) int { return cmp.Compare(boolInt(x), boolInt(y)) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func boolRank(b []byte) int { return boolInt(b[0] != 0) }

func uuidVersion(u []byte) byte { return u[6] >> 4 }

// uuidTime is a version 1 uuid's 60-bit timestamp: time_hi (without the
// version), time_mid, then time_low, which the layout stores the other
// way round.
func uuidTime(u []byte) uint64 {
	hi := uint64(binary.BigEndian.Uint16(u[6:8]) & 0x0fff)
	mid := uint64(binary.BigEndian.Uint16(u[4:6]))
	low := uint64(binary.BigEndian.Uint32(u[0:4]))
	return hi<<48 | mid<<32 | low
}

// compareUUIDs is UUIDType's order: by version first; version 1 uuids by
// their timestamp, others by their first 8 bytes as an unsigned number;
// then by their last 8 bytes, unsigned.
func compareUUIDs(a, b []byte) int {
	if c := cmp.Compare(uuidVersion(a), uuidVersion(b)); c != 0 {
		return c
	}
	if uuidVersion(a) == 1 {
		if c := cmp.Compare(uuidTime(a), uuidTime(b)); c != 0 {
			return c
		}
	} else if c := bytes.Compare(a[:8], b[:8]); c != 0 {
		return c
	}
	return bytes.Compare(a[8:], b[8:])
}

// compareTimeUUIDs is TimeUUIDType's order: by timestamp, then by the
// last 8 bytes compared one by one as signed bytes (so 0x80 sorts before
// 0x00).
func compareTimeUUIDs(a, b []byte) int {
	if c := cmp.Compare(uuidTime(a), uuidTime(b)); c != 0 {
		return c
	}
	for i := 8; i < 16; i++ {
		if c := cmp.Compare(int8(a[i]), int8(b[i])); c != 0 {
			return c
		}
	}
	return 0
}

// compareCollections orders frozen lists and sets element by element, and
// frozen maps entry by entry (key, then value); when one runs out first,
// the shorter sorts first. Sets and maps are stored sorted (normalize),
// so their elements line up.
func compareCollections(t *cqlType, a, b []byte) int {
	ea, errA := t.elements(a)
	eb, errB := t.elements(b)
	if errA != nil || errB != nil { // not stored: validate refuses them first
		return bytes.Compare(a, b)
	}
	for i := 0; i < len(ea) && i < len(eb); i++ {
		sub := t.elem
		if t.kind == cqldriver.TypeMap && i%2 == 0 {
			sub = t.key
		}
		if c := compareValues(sub, ea[i], eb[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(ea), len(eb))
}

// compareUDTs orders frozen user-defined type values as Cassandra's
// TupleType does: field by field in the type's order, a null field before
// any value.
func compareUDTs(t *cqlType, a, b []byte) int {
	fa, errA := t.udtValues(a)
	fb, errB := t.udtValues(b)
	if errA != nil || errB != nil {
		return bytes.Compare(a, b)
	}
	for i, f := range t.fields {
		switch {
		case fa[i] == nil && fb[i] == nil:
			continue
		case fa[i] == nil:
			return -1
		case fb[i] == nil:
			return 1
		}
		if c := compareValues(f.typ, fa[i], fb[i]); c != 0 {
			return c
		}
	}
	return 0
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
