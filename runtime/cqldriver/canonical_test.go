package cqldriver_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/cqlgen/cqlgen/internal/ordercases"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/gocql/gocql"

	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1" // the codec Marshal uses
)

// count and parts build encoded values: a collection is its count, then
// each part with its length; a nil part is null.
func count(n int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(n)) }

func parts(head []byte, ps ...[]byte) []byte {
	b := append([]byte(nil), head...)
	for _, p := range ps {
		if p == nil {
			b = binary.BigEndian.AppendUint32(b, math.MaxUint32)
			continue
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b
}

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func mustType(t *testing.T, cql string) *cqldriver.Type {
	t.Helper()
	typ, err := cqldriver.ParseType(cql)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}

// Every set and map, at any depth, comes out in Cassandra's order with
// its repeated elements dropped; lists keep their order, null fields stay
// null, and a value without sets or maps, or one that does not parse, is
// the value given.
func TestCanonical(t *testing.T) {
	a, b, z := []byte("a"), []byte("b"), []byte{}
	for _, tc := range []struct {
		name, typ string
		in, want  []byte
	}{
		{"map entries by key", "frozen<map<int, text>>",
			parts(count(2), i32(0), z, i32(-1), z), parts(count(2), i32(-1), z, i32(0), z)},
		{"set sorted, repeats dropped", "frozen<set<int>>",
			parts(count(3), i32(1), i32(1), i32(0)), parts(count(2), i32(0), i32(1))},
		{"a map's repeated key: the last value wins", "map<int, text>",
			parts(count(3), i32(1), a, i32(0), z, i32(1), b), parts(count(2), i32(0), z, i32(1), b)},
		{"set of text, by bytes", "set<text>",
			parts(count(3), []byte("é"), b, a), parts(count(3), a, b, []byte("é"))},
		{"list order kept, the maps in it sorted", "frozen<list<frozen<map<int, text>>>>",
			parts(count(2), parts(count(2), i32(5), z, i32(4), z), parts(count(1), i32(0), z)),
			parts(count(2), parts(count(2), i32(4), z, i32(5), z), parts(count(1), i32(0), z))},
		{"a set inside a map's value", "frozen<map<int, frozen<set<int>>>>",
			parts(count(1), i32(7), parts(count(2), i32(1), i32(0))),
			parts(count(1), i32(7), parts(count(2), i32(0), i32(1)))},
		{"a map inside a user-defined type, a null field kept", "frozen<udt<u, n int, m frozen<map<int, text>>, o int>>",
			parts(nil, i32(3), parts(count(2), i32(0), z, i32(-1), z), nil),
			parts(nil, i32(3), parts(count(2), i32(-1), z, i32(0), z), nil)},
		{"a list of ints is as it was", "frozen<list<int>>",
			parts(count(2), i32(1), i32(0)), parts(count(2), i32(1), i32(0))},
		{"a malformed value is as it was", "frozen<set<int>>",
			append(parts(count(2), i32(1), i32(0)), 9), append(parts(count(2), i32(1), i32(0)), 9)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]byte(nil), tc.in...)
			got := cqldriver.Canonical(mustType(t, tc.typ), in)
			if !bytes.Equal(got, tc.want) {
				t.Errorf("Canonical(%s, %x) = %x, want %x", tc.typ, tc.in, got, tc.want)
			}
			if !bytes.Equal(in, tc.in) {
				t.Errorf("Canonical changed its input to %x", in)
			}
			if again := cqldriver.Canonical(mustType(t, tc.typ), got); !bytes.Equal(again, got) {
				t.Errorf("not idempotent: %x, then %x", got, again)
			}
		})
	}
}

// descending is a map that gocql encodes with its entries by descending
// key, as a Go map's random iteration order may.
type descending map[int32]string

func (d descending) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	var ps [][]byte
	for k := int32(10); k >= -10; k-- {
		if v, ok := d[k]; ok {
			ps = append(ps, i32(k), []byte(v))
		}
	}
	return parts(count(len(ps)/2), ps...), nil
}

// Marshal hands out the canonical encoding whatever order the driver
// writes a map's entries in.
func TestMarshalIsCanonical(t *testing.T) {
	typ := mustType(t, "frozen<map<int, text>>")
	got, err := cqldriver.Marshal(typ, descending{0: "", -1: ""})
	if err != nil {
		t.Fatal(err)
	}
	if want := parts(count(2), i32(-1), []byte{}, i32(0), []byte{}); !bytes.Equal(got, want) {
		t.Errorf("Marshal = %x, want %x", got, want)
	}
	set := mustType(t, "set<text>")
	got, err = cqldriver.Marshal(set, []string{"b", "a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if want := parts(count(2), []byte("a"), []byte("b")); !bytes.Equal(got, want) {
		t.Errorf("Marshal of a set from [b a b] = %x, want %x", got, want)
	}
}

// Compare orders the edge values of every type a clustering column can
// have as the node does (ordercases lists them so; the integration suite
// checks the list against a node). The runtime orders by the same
// function: there is no second copy to agree with.
func TestCompareOrdersEachType(t *testing.T) {
	for _, oc := range ordercases.Cases {
		typ := mustType(t, oc.Type)
		enc := make([][]byte, len(oc.Values))
		for i, v := range oc.Values {
			b, err := cqldriver.Marshal(typ, v)
			if err != nil {
				t.Fatalf("%s: %v: %v", oc.Type, v, err)
			}
			enc[i] = b
		}
		for i := range enc {
			for j := range enc {
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got := cqldriver.Compare(typ, enc[i], enc[j]); got != want {
					t.Errorf("%s: Compare(%v, %v) = %d, want %d", oc.Type, show(oc.Values[i]), show(oc.Values[j]), got, want)
				}
			}
		}
	}
}

func show(v any) string {
	if r, ok := v.(ordercases.Raw); ok {
		return fmt.Sprintf("raw %x", []byte(r))
	}
	return fmt.Sprint(v)
}

// The values an adapter must bind canonical are told apart from the
// scalars it binds as they are, which take no reflection.
func TestMayHoldUnordered(t *testing.T) {
	type udt struct{ M map[string]int }
	for v, want := range map[string]struct {
		v    any
		want bool
	}{
		"map": {map[int]string{}, true}, "slice": {[]string{"a"}, true}, "struct": {udt{}, true},
		"pointer to struct": {&udt{}, true}, "string": {"a", false}, "bytes": {[]byte("a"), false},
		"int": {3, false}, "uuid": {gocql.UUID{}, false}, "nil": {nil, false},
	} {
		if got := cqldriver.MayHoldUnordered(want.v); got != want.want {
			t.Errorf("MayHoldUnordered(%s) = %v, want %v", v, got, want.want)
		}
	}
}

// Two keys of a Go map that are one value to Cassandra (1.0 and 1.00,
// or two times of one day as dates) leave one entry, the same whatever
// order the map gave them in: the differential run found a map<date,
// timestamp> whose winner changed from one encoding to the next.
func TestCanonicalMapOfEqualKeysIsOrderFree(t *testing.T) {
	typ, err := cqldriver.ParseType("map<decimal, int>")
	if err != nil {
		t.Fatal(err)
	}
	one0 := []byte{0, 0, 0, 1, 10}   // 1.0: scale 1, unscaled 10
	one00 := []byte{0, 0, 0, 2, 100} // 1.00
	v1, v2 := []byte{0, 0, 0, 1}, []byte{0, 0, 0, 2}
	encode := func(entries ...[]byte) []byte {
		out := binary.BigEndian.AppendUint32(nil, uint32(len(entries)/2))
		for _, e := range entries {
			out = append(binary.BigEndian.AppendUint32(out, uint32(len(e))), e...)
		}
		return out
	}
	a := cqldriver.Canonical(typ, encode(one0, v1, one00, v2))
	b := cqldriver.Canonical(typ, encode(one00, v2, one0, v1))
	if !bytes.Equal(a, b) {
		t.Errorf("the kept entry depends on the order: %x, %x", a, b)
	}
	if n := binary.BigEndian.Uint32(a); n != 1 {
		t.Errorf("%d entries kept, want 1", n)
	}
}
