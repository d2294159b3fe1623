// Package ordercases lists edge values of every CQL type a clustering
// column can have, each type's values in the ascending order Cassandra's
// comparator gives them. Three checks share it: the integration suite
// (TestOracleOrderMatchesCassandra) stores them on a node and in cqltest
// and compares the orders read back; cqltest's unit tests check its own
// comparator against the listed order; and they check the runtime's
// comparator against cqltest's on every pair.
//
// The order written here is what the node returned; a value that the
// node would order elsewhere fails the integration test.
package ordercases

import (
	"encoding/binary"
	"math"
	"math/big"
	"net"
	"time"

	"github.com/gocql/gocql"
)

// Case is one CQL type and its values, strictly ascending: no two are
// equal by the type's comparator, so each is a row of its own.
type Case struct {
	Type   string
	Values []any
}

// Raw binds bytes as they are, for values gocql cannot build (decimals of
// any scale, empty values of fixed-size types, extreme dates).
type Raw []byte

// MarshalCQL returns r unchanged.
func (r Raw) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

// Empty is the empty value (zero bytes, not null): Cassandra accepts it
// for most types and sorts it before any other value.
var Empty = Raw{}

// Decimal is unscaled × 10^-scale.
func Decimal(unscaled *big.Int, scale int32) Raw {
	b := binary.BigEndian.AppendUint32(nil, uint32(scale))
	return append(b, TwosComplement(unscaled)...)
}

func dec(unscaled int64, scale int32) Raw { return Decimal(big.NewInt(unscaled), scale) }

// TwosComplement is the minimal big-endian two's complement encoding.
func TwosComplement(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	n := (v.BitLen() + 8) / 8
	m := new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(n*8)))
	return m.FillBytes(make([]byte, n))
}

// UUID is a uuid of the given version with the given halves (the version
// nibble overwritten).
func UUID(version byte, msb, lsb uint64) gocql.UUID {
	var u gocql.UUID
	binary.BigEndian.PutUint64(u[:8], msb)
	binary.BigEndian.PutUint64(u[8:], lsb)
	u[6] = u[6]&0x0f | version<<4
	return u
}

// TimeUUID is a version 1 uuid of a 60-bit timestamp (100 ns units since
// 1582-10-15) and the given last 8 bytes.
func TimeUUID(ts uint64, lsb uint64) gocql.UUID {
	msb := (ts&0xffffffff)<<32 | (ts>>32&0xffff)<<16 | ts>>48&0x0fff
	return UUID(1, msb, lsb)
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func pow2(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

func neg(v *big.Int) *big.Int { return new(big.Int).Neg(v) }

func add(v *big.Int, d int64) *big.Int { return new(big.Int).Add(v, big.NewInt(d)) }

func u32(v uint32) Raw { return binary.BigEndian.AppendUint32(nil, v) }

func nan32(bits uint32) Raw { return u32(bits) }

func nan64(bits uint64) Raw { return binary.BigEndian.AppendUint64(nil, bits) }

// Cases lists every type's edge values in Cassandra's ascending order.
var Cases = []Case{
	{"tinyint", []any{int8(math.MinInt8), int8(-1), int8(0), int8(1), int8(math.MaxInt8)}},
	{"smallint", []any{int16(math.MinInt16), int16(-256), int16(-1), int16(0), int16(255), int16(math.MaxInt16)}},
	{"int", []any{Empty, int32(math.MinInt32), int32(-65536), int32(-1), int32(0), int32(1), int32(128), int32(math.MaxInt32)}},
	{"bigint", []any{Empty, int64(math.MinInt64), int64(-1) << 40, int64(-1), int64(0), int64(1), int64(1) << 40, int64(math.MaxInt64)}},
	// Milliseconds since 1970, signed: dates before 1970 come first.
	{"timestamp", []any{Empty, int64(math.MinInt64), int64(-1e12), day(1969, 12, 31), int64(-1), int64(0), int64(1), day(2038, 1, 20), int64(math.MaxInt64)}},
	// Days since 1970 plus 2^31, unsigned.
	{"date", []any{u32(0), day(1000, 1, 1), day(1900, 1, 1), day(1969, 12, 31), day(1970, 1, 1), day(1970, 1, 2), day(2100, 1, 1), u32(math.MaxUint32)}},
	{"time", []any{time.Duration(0), time.Nanosecond, time.Hour, 24*time.Hour - time.Nanosecond}},
	{"boolean", []any{Empty, false, true}},
	// Java's Float.compare: -0 below 0, NaN (any NaN) above +Inf.
	{"float", []any{Empty, float32(math.Inf(-1)), float32(-math.MaxFloat32), float32(-1), float32(-math.SmallestNonzeroFloat32),
		float32(math.Copysign(0, -1)), float32(0), float32(math.SmallestNonzeroFloat32), float32(1), float32(math.MaxFloat32),
		float32(math.Inf(1)), nan32(0xffc00001)}},
	{"double", []any{Empty, math.Inf(-1), -math.MaxFloat64, -1.5, -math.SmallestNonzeroFloat64, math.Copysign(0, -1),
		0.0, math.SmallestNonzeroFloat64, 1.5, math.MaxFloat64, math.Inf(1), nan64(0xfff0000000000001)}},
	// By value, whatever the encoding's length.
	{"varint", []any{Empty, neg(pow2(70)), add(neg(pow2(63)), -1), neg(pow2(63)), big.NewInt(-256), big.NewInt(-129), big.NewInt(-128),
		big.NewInt(-1), big.NewInt(0), big.NewInt(1), big.NewInt(127), big.NewInt(128), big.NewInt(255), big.NewInt(256),
		add(pow2(63), -1), pow2(63), pow2(70)}},
	// By value, whatever the scale: 1.0 = 1.00 (so only one of them here).
	{"decimal", []any{Empty, dec(-1, math.MinInt32), dec(-1, -3), dec(-15, 1), dec(-1, 2), dec(0, 0), dec(1, math.MaxInt32),
		dec(1, 3), dec(999, 3), dec(10, 1), dec(100000001, 8), dec(2, 0), dec(1, -20), Decimal(pow2(100), 0), dec(1, math.MinInt32)}},
	// UTF-8 bytes, unsigned: upper before lower case, code points in order.
	{"text", []any{"", "A", "Z", "a", "ab", "b", "\u007f", "é", "ÿ", "Ā", "中", "\uffff", "😀"}},
	{"varchar", []any{"", "Ab", "a", "ä"}},
	{"ascii", []any{"", " ", "A", "a", "~"}},
	{"blob", []any{[]byte{}, []byte{0}, []byte{0, 0}, []byte{1}, []byte{0x7f}, []byte{0x80}, []byte{0xff}, []byte{0xff, 0}}},
	// Bytes, unsigned: an IPv4 address (4 bytes) before an IPv6 one it
	// prefixes.
	{"inet", []any{Empty, net.IPv4(0, 0, 0, 0).To4(), net.IPv6zero, net.ParseIP("::1"), net.ParseIP("10.0.0.1").To4(),
		net.ParseIP("127.0.0.1").To4(), net.ParseIP("255.255.255.255").To4(), net.ParseIP("ffff:ffff::1")}},
	{"uuid", []any{
		Empty,
		gocql.UUID{}, // version 0: versions come first
		// version 1 by timestamp, not by bytes: time_low is stored first
		TimeUUID(0x0000_0001_ffff_ffff, 0x8000_0000_0000_0000),
		TimeUUID(0x0000_0002_0000_0000, 0x8000_0000_0000_0000),
		// same timestamp: the last 8 bytes, unsigned
		TimeUUID(0x0000_0002_0000_0000, 0x8000_0000_0000_0000|0x7f),
		TimeUUID(0x0000_0002_0000_0000, 0x8000_0000_0000_0000|0x80),
		TimeUUID(0x0000_0002_0000_0000, 0x8080_0000_0000_0000),
		TimeUUID(0x0000_0002_0000_0000, 0xbfff_0000_0000_0000),
		TimeUUID(0x0fff_0000_0000_0000, 0x8000_0000_0000_0000),
		UUID(3, 0xffff_ffff_ffff_ffff, 0),
		// version 4: unsigned, first then last 8 bytes
		UUID(4, 0x0000_0000_0000_4000, 0xffff_ffff_ffff_ffff),
		UUID(4, 0x7fff_ffff_ffff_4fff, 0),
		UUID(4, 0x8000_0000_0000_4000, 0),
		UUID(4, 0x8000_0000_0000_4000, 0x8000_0000_0000_0000),
		UUID(4, 0x8000_0000_0000_4000, 0x8000_0000_0000_0080),
		UUID(5, 0, 0),
		UUID(7, 0x0000_0000_0000_7000, 0),
		UUID(7, 0x0190_0000_0000_7000, 0),
	}},
	{"timeuuid", []any{
		Empty,
		TimeUUID(0, 0x8000_0000_0000_0000), // 1582-10-15
		gocql.UUIDFromTime(day(1960, 1, 1)),
		TimeUUID(0x01b2_1dd2_1381_4000, 0x8000_0000_0000_0000), // 1970-01-01
		// equal timestamps: the last 8 bytes as signed bytes, so 0x80 sorts before 0x00 and 0x7f
		TimeUUID(0x01e0_0000_0000_0000, 0x8080_0000_0000_0000),
		TimeUUID(0x01e0_0000_0000_0000, 0x8000_8000_0000_0000),
		TimeUUID(0x01e0_0000_0000_0000, 0x8000_0000_0000_0000),
		TimeUUID(0x01e0_0000_0000_0000, 0x8000_0000_0000_007f),
		TimeUUID(0x01e0_0000_0000_0000, 0x807f_0000_0000_0000),
		TimeUUID(0x01e0_0000_0000_0000, 0x8100_0000_0000_0000),
		TimeUUID(0x01e0_0000_0000_0000, 0xbf00_0000_0000_0000),
		gocql.UUIDFromTime(day(2025, 1, 1)),
		TimeUUID(0x0fff_ffff_ffff_ffff, 0x8000_0000_0000_0000),
	}},
	// Frozen collections: element by element (a map's key, then value);
	// a prefix sorts first.
	{"frozen<list<int>>", []any{[]int32{}, []int32{-1}, []int32{-1, 0}, []int32{0}, []int32{1}, []int32{1, math.MinInt32}}},
	{"frozen<list<text>>", []any{[]string{}, []string{""}, []string{"", ""}, []string{"", "a"}, []string{"a"}, []string{"é"}}},
	{"frozen<set<text>>", []any{[]string{}, []string{"a"}, []string{"a", "b"}, []string{"b"}}},
	{"frozen<set<int>>", []any{[]int32{}, []int32{math.MinInt32}, []int32{-1}, []int32{-1, 5}, []int32{0, 1}, []int32{7}}},
	{"frozen<map<text, int>>", []any{map[string]int32{}, map[string]int32{"a": -1}, map[string]int32{"a": 1},
		map[string]int32{"a": 1, "b": 0}, map[string]int32{"b": 0}}},
	{"frozen<map<int, text>>", []any{map[int32]string{}, map[int32]string{-5: "z"}, map[int32]string{-1: ""}, map[int32]string{-1: "", 0: ""}, map[int32]string{-1: "a"}, map[int32]string{3: ""}}},
	{"frozen<list<frozen<set<double>>>>", []any{[][]float64{{-1}}, [][]float64{{math.Copysign(0, -1)}}, [][]float64{{0}}, [][]float64{{0}, {}}}},
}
