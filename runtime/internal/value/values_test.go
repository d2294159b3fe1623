package value

import (
	"bytes"
	"encoding/binary"
	"math"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// decodeDuration reads what gocql v1 writes for a gocql.Duration, signed
// vints of every length included.
func TestDecodeDurationMatchesGocql(t *testing.T) {
	info := gocql.NewNativeType(4, gocql.TypeDuration, "")
	for _, d := range []gocql.Duration{
		{},
		{Months: 1, Days: 2, Nanoseconds: 3},
		{Months: -1, Days: -2, Nanoseconds: -3},
		{Days: 63, Nanoseconds: 64}, // the last one-byte vint, the first two-byte one
		{Days: -64, Nanoseconds: -65},
		{Nanoseconds: int64(90 * time.Minute)},
		{Nanoseconds: -int64(36500 * 24 * time.Hour)},
		{Months: math.MaxInt32, Days: math.MinInt32, Nanoseconds: math.MaxInt64},
		{Nanoseconds: math.MinInt64},
	} {
		b, err := gocql.Marshal(info, d)
		if err != nil {
			t.Fatal(err)
		}
		m, days, n, err := decodeDuration(b)
		if err != nil || m != d.Months || days != d.Days || n != d.Nanoseconds {
			t.Errorf("%+v (%x): decoded %d months %d days %d ns, %v", d, b, m, days, n, err)
		}
	}
	for _, bad := range [][]byte{
		{},
		{0x02, 0x04},                         // two of the three
		{0x02, 0x04, 0x06, 0x00},             // one too many
		{0x02, 0x04, 0xc0, 0x01},             // the third announces two more bytes, has one
		{0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, // 2^31 months, beyond an int32
	} {
		if m, d, n, err := decodeDuration(bad); err == nil {
			t.Errorf("%x decoded as %d, %d, %d", bad, m, d, n)
		}
	}
}

// ScanDuration gives a time.Duration for days and nanoseconds, and refuses
// months, which have no fixed length; null is 0.
func TestScanDuration(t *testing.T) {
	info := gocql.NewNativeType(4, gocql.TypeDuration, "")
	typ, err := cqldriver.ParseType("duration")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := gocql.Marshal(info, gocql.Duration{Days: 1, Nanoseconds: int64(90 * time.Second)})
	d := time.Minute
	if err := cqldriver.Unmarshal(typ, b, ScanDuration(&d)); err != nil || d != 24*time.Hour+90*time.Second {
		t.Errorf("1 day 90 s scanned as %v, %v", d, err)
	}
	// Through gocql, as the adapter scans it.
	d = 0
	if err := gocql.Unmarshal(info, b, gocqlv1.Dest(ScanDuration(&d))); err != nil || d != 24*time.Hour+90*time.Second {
		t.Errorf("through gocql: %v, %v", d, err)
	}
	if err := cqldriver.Unmarshal(typ, nil, ScanDuration(&d)); err != nil || d != 0 {
		t.Errorf("null scanned as %v, %v", d, err)
	}
	b, _ = gocql.Marshal(info, gocql.Duration{Months: 2})
	if err := cqldriver.Unmarshal(typ, b, ScanDuration(&d)); err == nil {
		t.Errorf("2 months scanned as %v", d)
	}
}

// ScanSet reads a set into a map of its elements through the codec; null
// is a nil map.
func TestScanSet(t *testing.T) {
	typ, err := cqldriver.ParseType("set<int>")
	if err != nil {
		t.Fatal(err)
	}
	b, err := cqldriver.Marshal(typ, []int{3, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	var m map[int]struct{}
	if err := cqldriver.Unmarshal(typ, b, ScanSet(&m)); err != nil || len(m) != 3 {
		t.Fatalf("scanned %v, %v", m, err)
	}
	for _, k := range []int{1, 2, 3} {
		if _, ok := m[k]; !ok {
			t.Errorf("%d missing from %v", k, m)
		}
	}
	if err := cqldriver.Unmarshal(typ, nil, ScanSet(&m)); err != nil || m != nil {
		t.Errorf("null scanned as %v, %v", m, err)
	}
}

// Normalized encodes a set's elements and a map's entries in Cassandra's
// order whatever the order they come in, bound through the adapter too.
func TestNormalized(t *testing.T) {
	set, _ := cqldriver.ParseType("frozen<set<text>>")
	want, _ := cqldriver.Marshal(set, []string{"a", "b", "c"})
	got, err := cqldriver.Marshal(set, Normalized("frozen<set<text>>", []string{"c", "a", "b"}))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("set: %x, %v; want %x", got, err, want)
	}
	info := gocql.CollectionType{NativeType: gocql.NewNativeType(4, gocql.TypeSet, ""), Elem: gocql.NewNativeType(4, gocql.TypeVarchar, "")}
	if got, err := gocql.Marshal(info, gocqlv1.Value(Normalized("frozen<set<text>>", []string{"b", "c", "a"}))); err != nil || !bytes.Equal(got, want) {
		t.Errorf("set through the adapter: %x, %v; want %x", got, err, want)
	}

	// A map's entries by key, in the key type's order: -1 before 2.
	m := map[int]string{2: "two", -1: "minus one", 10: "ten"}
	mt, _ := cqldriver.ParseType("frozen<map<int, text>>")
	for range 10 { // Go maps iterate in random order
		b, err := cqldriver.Marshal(mt, Normalized("frozen<map<int, text>>", m))
		if err != nil {
			t.Fatal(err)
		}
		es, ok := testParts(b, 2)
		var keys []int32
		for i := 0; ok && i < len(es); i += 2 {
			keys = append(keys, int32(uint32(es[i][0])<<24|uint32(es[i][1])<<16|uint32(es[i][2])<<8|uint32(es[i][3])))
		}
		if !slices.Equal(keys, []int32{-1, 2, 10}) {
			t.Fatalf("map keys encoded in the order %v", keys)
		}
	}

	// A list keeps its order.
	lt, _ := cqldriver.ParseType("frozen<list<int>>")
	want, _ = cqldriver.Marshal(lt, []int{3, 1})
	if got, _ := cqldriver.Marshal(lt, Normalized("frozen<list<int>>", []int{3, 1})); !bytes.Equal(got, want) {
		t.Errorf("list: %x, want %x", got, want)
	}
}

// CompareAs orders values by Cassandra's comparator for the type, through
// their encoding: a set by its sorted elements, a varint by value.
func TestCompareAs(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		a, b any
		want int
	}{
		{"int", int32(-2), int32(1), -1},
		{"frozen<set<int>>", []int{5, 1}, []int{2, 1}, 1}, // {1, 5} > {1, 2}
		{"frozen<set<int>>", []int{1}, []int{1, 2}, -1},   // a prefix first
		{"frozen<map<text, int>>", map[string]int{"b": 1, "a": 9}, map[string]int{"a": 9, "b": 1}, 0},
		{"timeuuid", gocql.UUIDFromTime(time.Unix(1, 0)), gocql.UUIDFromTime(time.Unix(2, 0)), -1},
	} {
		if got := CompareAs(tc.typ, tc.a, tc.b); got != tc.want {
			t.Errorf("CompareAs(%s, %v, %v) = %d, want %d", tc.typ, tc.a, tc.b, got, tc.want)
		}
		if got := CompareAs(tc.typ, tc.b, tc.a); got != -tc.want {
			t.Errorf("CompareAs(%s, %v, %v) = %d, want %d", tc.typ, tc.b, tc.a, got, -tc.want)
		}
	}
}

// A verification report renders key values as a person reads them, the
// same whatever the driver.
func TestRenderEncoded(t *testing.T) {
	enc := func(typ string, v any) []byte {
		t.Helper()
		b, err := cqldriver.MarshalType(typ, v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	u, _ := gocql.ParseUUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	for _, tc := range []struct {
		typ  string
		b    []byte
		want string
	}{
		{"text", enc("text", "ada"), "ada"},
		{"ascii", enc("ascii", ""), ""},
		{"int", enc("int", -7), "-7"},
		{"bigint", enc("bigint", int64(math.MinInt64)), "-9223372036854775808"},
		{"smallint", enc("smallint", int16(300)), "300"},
		{"tinyint", enc("tinyint", int8(-1)), "-1"},
		{"varint", enc("varint", int64(-129)), "-129"},
		{"boolean", enc("boolean", true), "true"},
		{"double", enc("double", 0.25), "0.25"},
		{"float", enc("float", float32(1.5)), "1.5"},
		{"uuid", enc("uuid", u), "0f8fad5b-d9cb-469f-a165-70867728950e"},
		{"timestamp", enc("timestamp", time.Date(2025, 3, 1, 12, 0, 0, 5e6, time.UTC)), "2025-03-01T12:00:00.005Z"},
		{"date", enc("date", time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC)), "1969-07-20"},
		{"time", enc("time", 90*time.Minute), "1h30m0s"},
		{"inet", enc("inet", net.ParseIP("10.0.0.1")), "10.0.0.1"},
		{"blob", enc("blob", []byte{1, 0xab}), "0x01ab"},
		{"int", []byte{1, 2}, "0102"}, // not an int: its bytes
		{"frozen<list<int>>", enc("frozen<list<int>>", []int{1}), "000000010000000400000001"},
		{"nosuch", []byte{0xff}, "ff"},
	} {
		if got := RenderEncoded(tc.typ, tc.b); got != tc.want {
			t.Errorf("renderEncoded(%s, %x) = %q, want %q", tc.typ, tc.b, got, tc.want)
		}
	}
}

// testParts splits an encoded value into its length-prefixed parts: with
// perElement 0 a user-defined type's fields, else a collection's
// elements (2 a map's entry: key, then value) after its count.
func testParts(b []byte, perElement int) ([][]byte, bool) {
	n := -1
	if perElement > 0 {
		if len(b) < 4 {
			return nil, false
		}
		n, b = int(binary.BigEndian.Uint32(b))*perElement, b[4:]
	}
	var out [][]byte
	for i := 0; n < 0 && len(b) > 0 || i < n; i++ {
		if len(b) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(b)))
		if b = b[4:]; l < 0 || l > len(b) {
			return nil, false
		}
		out, b = append(out, b[:l]), b[l:]
	}
	return out, len(b) == 0
}
