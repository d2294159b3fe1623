package cqltest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// raw binds bytes as they are, for values gocql cannot build here
// (decimals, non-minimal varints).
type raw []byte

func (r raw) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

func decimal(unscaled int64, scale int32) raw {
	b := binary.BigEndian.AppendUint32(nil, uint32(scale))
	return append(b, twosComplement(big.NewInt(unscaled))...)
}

// twosComplement is the minimal big-endian two's complement encoding.
func twosComplement(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	n := (v.BitLen() + 8) / 8
	m := new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), uint(n*8)))
	b := m.FillBytes(make([]byte, n))
	return b
}

func uuidWith(version byte, msb, lsb uint64) gocql.UUID {
	var u gocql.UUID
	binary.BigEndian.PutUint64(u[:8], msb)
	binary.BigEndian.PutUint64(u[8:], lsb)
	u[6] = u[6]&0x0f | version<<4
	return u
}

// timeUUID is a version 1 uuid of a 60-bit timestamp and the given last
// 8 bytes.
func timeUUID(ts uint64, lsb uint64) gocql.UUID {
	msb := (ts&0xffffffff)<<32 | (ts>>32&0xffff)<<16 | 0x1000 | ts>>48&0x0fff
	return uuidWith(1, msb, lsb)
}

func date(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// orderCases lists, per type, values in Cassandra's ascending order for
// the type, each strictly above the one before. The rule behind each is
// in compareValues.
var orderCases = []struct {
	typ    string
	values []any
}{
	{"tinyint", []any{int8(math.MinInt8), int8(-1), int8(0), int8(1), int8(math.MaxInt8)}},
	{"smallint", []any{int16(math.MinInt16), int16(-256), int16(-1), int16(0), int16(255), int16(math.MaxInt16)}},
	{"int", []any{int32(math.MinInt32), int32(-65536), int32(-1), int32(0), int32(1), int32(128), int32(math.MaxInt32)}},
	{"bigint", []any{int64(math.MinInt64), int64(-1) << 40, int64(-1), int64(0), int64(1), int64(1) << 40, int64(math.MaxInt64)}},
	{"timestamp", []any{time.UnixMilli(-1e12), date(1969, 12, 31), time.UnixMilli(-1), time.UnixMilli(0), time.UnixMilli(1), date(2038, 1, 20)}},
	{"date", []any{date(1000, 1, 1), date(1900, 1, 1), date(1969, 12, 31), date(1970, 1, 1), date(1970, 1, 2), date(2100, 1, 1)}},
	{"time", []any{time.Duration(0), time.Nanosecond, time.Hour, 24*time.Hour - time.Nanosecond}},
	{"boolean", []any{false, true}},
	{"float", []any{float32(math.Inf(-1)), float32(-math.MaxFloat32), float32(-1), float32(-math.SmallestNonzeroFloat32),
		float32(math.Copysign(0, -1)), float32(0), float32(math.SmallestNonzeroFloat32), float32(1), float32(math.MaxFloat32),
		float32(math.Inf(1)), float32(math.NaN())}},
	{"double", []any{math.Inf(-1), -math.MaxFloat64, -1.5, -math.SmallestNonzeroFloat64, math.Copysign(0, -1),
		0.0, math.SmallestNonzeroFloat64, 1.5, math.MaxFloat64, math.Inf(1), math.NaN()}},
	{"varint", []any{new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 70)), big.NewInt(-256), big.NewInt(-129), big.NewInt(-128),
		big.NewInt(-1), big.NewInt(0), big.NewInt(1), big.NewInt(127), big.NewInt(128), big.NewInt(255), big.NewInt(256),
		new(big.Int).Lsh(big.NewInt(1), 70)}},
	{"decimal", []any{decimal(-1, -3), decimal(-15, 1), decimal(-1, 2), decimal(0, 0), decimal(1, math.MaxInt32),
		decimal(1, 3), decimal(10, 1), decimal(2, 0), decimal(1, -20), decimal(1, math.MinInt32)}},
	{"text", []any{"", "A", "Z", "a", "ab", "b", "é", "中", "😀"}},
	{"varchar", []any{"", "Ab", "a", "ä"}},
	{"ascii", []any{"", "A", "a", "~"}},
	{"blob", []any{[]byte{}, []byte{0}, []byte{0, 0}, []byte{1}, []byte{0x7f}, []byte{0x80}, []byte{0xff}, []byte{0xff, 0}}},
	{"inet", []any{net.ParseIP("0.0.0.0"), net.ParseIP("::1"), net.ParseIP("10.0.0.1"), net.ParseIP("255.255.255.255"), net.ParseIP("ffff:ffff::1")}},
	{"uuid", []any{
		gocql.UUID{}, // version 0: the lowest version
		// version 1 by timestamp, not by bytes: time_low is highest first
		timeUUID(0x0000_0001_ffff_ffff, 0x8000_0000_0000_0000),
		timeUUID(0x0000_0002_0000_0000, 0x8000_0000_0000_0000),
		// same timestamp: the last 8 bytes, unsigned
		timeUUID(0x0000_0002_0000_0000, 0xbfff_0000_0000_0000),
		timeUUID(0x0fff_0000_0000_0000, 0x8000_0000_0000_0000),
		// version 4: unsigned, most then least significant half
		uuidWith(4, 0x0000_0000_0000_4000, 0xffff_ffff_ffff_ffff),
		uuidWith(4, 0x8000_0000_0000_4000, 0),
		uuidWith(4, 0x8000_0000_0000_4000, 0x8000_0000_0000_0000),
	}},
	{"timeuuid", []any{
		timeUUID(0, 0x8000_0000_0000_0000), // 1582-10-15
		gocql.UUIDFromTime(date(1960, 1, 1)),
		timeUUID(0x01b2_1dd2_1381_4000, 0x8000_0000_0000_0000), // 1970-01-01
		// equal timestamps: the last 8 bytes as signed bytes, so 0x80 sorts before 0x00 and 0x7f
		timeUUID(0x01e0_0000_0000_0000, 0x8080_0000_0000_0000),
		timeUUID(0x01e0_0000_0000_0000, 0x8000_8000_0000_0000),
		timeUUID(0x01e0_0000_0000_0000, 0x8000_0000_0000_0000),
		timeUUID(0x01e0_0000_0000_0000, 0x807f_0000_0000_0000),
		timeUUID(0x01e0_0000_0000_0000, 0x8100_0000_0000_0000),
		gocql.UUIDFromTime(date(2025, 1, 1)),
	}},
	{"frozen<list<int>>", []any{[]int32{}, []int32{-1}, []int32{-1, 0}, []int32{0}, []int32{1}, []int32{1, math.MinInt32}}},
	{"frozen<set<text>>", []any{[]string{}, []string{"a"}, []string{"a", "b"}, []string{"b"}}},
	{"frozen<map<text, int>>", []any{map[string]int32{}, map[string]int32{"a": -1}, map[string]int32{"a": 1},
		map[string]int32{"a": 1, "b": 0}, map[string]int32{"b": 0}}},
	{"frozen<list<frozen<set<double>>>>", []any{[][]float64{{-1}}, [][]float64{{math.Copysign(0, -1)}}, [][]float64{{0}}, [][]float64{{0}, {}}}},
}

func testType(t *testing.T, name string) *cqlType {
	t.Helper()
	p, err := newParser(name)
	if err != nil {
		t.Fatal(err)
	}
	typ, err := parseType(p, topLevel)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return typ
}

func marshal(t *testing.T, typ *cqlType, v any) []byte {
	t.Helper()
	b, err := gocql.Marshal(typ.info, v)
	if err != nil {
		t.Fatalf("%s: marshal %v: %v", typ.name, v, err)
	}
	if err := typ.validate(b); err != nil {
		t.Fatalf("%s: %v: %v", typ.name, v, err)
	}
	return typ.normalize(b)
}

func TestCompareValuesOrdersEachType(t *testing.T) {
	for _, tc := range orderCases {
		typ := testType(t, tc.typ)
		vals := make([][]byte, len(tc.values))
		for i, v := range tc.values {
			vals[i] = marshal(t, typ, v)
		}
		for i := range vals {
			for j := range vals {
				got := compareValues(typ, vals[i], vals[j])
				if want := sign(i - j); got != want {
					t.Errorf("%s: compare(%v, %v) = %d, want %d", tc.typ, tc.values[i], tc.values[j], got, want)
				}
			}
		}
	}
}

func TestCompareValuesEqualities(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		a, b []byte
	}{
		// DecimalType compares values: 1.0 = 1.00, 0 = 0E+5.
		{"decimal", decimal(10, 1), decimal(100, 2)},
		{"decimal", decimal(0, 0), decimal(0, -5)},
		// IntegerType compares values: a redundant sign byte changes nothing.
		{"varint", []byte{0x01}, []byte{0x00, 0x01}},
		{"varint", []byte{0xff}, []byte{0xff, 0xff}},
		// Float.compare makes every NaN equal.
		{"double", binary.BigEndian.AppendUint64(nil, 0x7ff8000000000001), binary.BigEndian.AppendUint64(nil, 0xfff0000000000001)},
		// Any non-zero byte is true.
		{"boolean", []byte{1}, []byte{0x80}},
	} {
		if c := compareValues(testType(t, tc.typ), tc.a, tc.b); c != 0 {
			t.Errorf("%s: compare(%x, %x) = %d, want 0", tc.typ, tc.a, tc.b, c)
		}
	}
	// An empty value (not null) sorts first, whatever the type.
	for _, name := range []string{"int", "bigint", "double", "uuid", "timeuuid", "decimal", "boolean", "text", "frozen<list<int>>"} {
		typ := testType(t, name)
		var some []byte
		for _, tc := range orderCases {
			if tc.typ == name {
				some = marshal(t, typ, tc.values[0])
			}
		}
		if some == nil {
			some = marshal(t, typ, []int32{})
		}
		if len(some) == 0 {
			continue
		}
		if compareValues(typ, []byte{}, some) != -1 || compareValues(typ, some, []byte{}) != 1 || compareValues(typ, []byte{}, []byte{}) != 0 {
			t.Errorf("%s: the empty value does not sort first", name)
		}
	}
}

// TestClusteringOrderEachType stores every value of each type as a
// clustering key, in a random order, and reads the partition back in both
// clustering orders.
func TestClusteringOrderEachType(t *testing.T) {
	var schema strings.Builder
	for i, tc := range orderCases {
		for _, dir := range []string{"ASC", "DESC"} {
			fmt.Fprintf(&schema, "CREATE TABLE t%d_%s (k int, c %s, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c %s);\n", i, dir, tc.typ, dir)
		}
	}
	s := newSession(t, schema.String())
	rng := rand.New(rand.NewPCG(1, 2))
	for i, tc := range orderCases {
		typ := testType(t, tc.typ)
		for _, dir := range []string{"ASC", "DESC"} {
			table := fmt.Sprintf("t%d_%s", i, dir)
			for _, j := range rng.Perm(len(tc.values)) {
				mustExec(t, s, "INSERT INTO "+table+" (k, c, v) VALUES (?, ?, ?)", 0, tc.values[j], j)
			}
			rows := selectAll(t, s, 0, 2, "SELECT c, v FROM "+table+" WHERE k = ?", 0)
			if len(rows) != len(tc.values) {
				t.Fatalf("%s %s: %d rows, want %d", tc.typ, dir, len(rows), len(tc.values))
			}
			for n, row := range rows {
				want := n
				if dir == "DESC" {
					want = len(tc.values) - 1 - n
				}
				if got := int(int32(binary.BigEndian.Uint32(row[1]))); got != want {
					t.Errorf("%s %s: row %d holds value %d (%v), want %d (%v)", tc.typ, dir, n, got, tc.values[got], want, tc.values[want])
				}
				if !bytes.Equal(row[0], marshal(t, typ, tc.values[want])) {
					t.Errorf("%s %s: row %d: key %x", tc.typ, dir, n, row[0])
				}
			}
		}
	}
}

// Clustering keys that the type's comparator finds equal are one row, as
// in Cassandra's memtable; partition keys are told apart by their bytes.
func TestEqualKeysAreOneRow(t *testing.T) {
	s := newSession(t, "CREATE TABLE d (k decimal, c decimal, v int, PRIMARY KEY (k, c))")
	mustExec(t, s, "INSERT INTO d (k, c, v) VALUES (?, ?, ?)", decimal(1, 0), decimal(10, 1), 1)
	mustExec(t, s, "INSERT INTO d (k, c, v) VALUES (?, ?, ?)", decimal(1, 0), decimal(100, 2), 2)
	mustExec(t, s, "INSERT INTO d (k, c, v) VALUES (?, ?, ?)", decimal(10, 1), decimal(1, 0), 3)
	rows := selectAll(t, s, 0, 1, "SELECT v FROM d WHERE k = ?", decimal(1, 0))
	if len(rows) != 1 || rows[0][0][3] != 2 {
		t.Errorf("partition 1: %v, want one row holding 2", rows)
	}
	if rows := selectAll(t, s, 0, 1, "SELECT v FROM d WHERE k = ?", decimal(10, 1)); len(rows) != 1 || rows[0][0][3] != 3 {
		t.Errorf("partition 1.0: %v, want one row holding 3", rows)
	}
}
