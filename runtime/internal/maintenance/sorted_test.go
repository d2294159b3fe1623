package maintenance

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// policyType is a user-defined type that holds a set and a map, as a
// frozen column declares it.
const policyType = "frozen<udt<policy, name text, labels set<text>, limits map<text, int>>>"

// unorderedValues are values whose Go form is a map, of types that hold a
// set or map at the top, in a list and in a user-defined type: a driver
// encodes each in the map's iteration order, which changes from one
// encoding to the next.
func unorderedValues() map[string]any {
	labels := map[string]struct{}{}
	limits := map[string]int{}
	for i := range 24 {
		labels[fmt.Sprintf("l%02d", i)] = struct{}{}
		limits[fmt.Sprintf("k%02d", i)] = i
	}
	return map[string]any{
		"set<text>":               labels,
		"map<text, int>":          limits,
		"list<frozen<set<text>>>": []map[string]struct{}{labels, labels},
		policyType:                map[string]any{"name": "p", "labels": labels, "limits": limits},
	}
}

// One value of every such type compares the same as itself however its
// maps iterate: sameEncoded (which decides whether an Update changed a
// table's row, and whether a write sent again finds its own result),
// sameRowValues (InsertIfAbsent's) and the rows Verify derives from the
// source of truth. Before sets and maps were sorted, each of these
// encoded a 24-element set in a new order almost every time: Verify
// counted a row holding a set inside a user-defined type as stale about
// half the time on the real node, and Repair could never settle it.
func TestSameValueWhateverTheMapOrder(t *testing.T) {
	for cqlType, v := range unorderedValues() {
		typ, err := cqldriver.ParseType(cqlType)
		if err != nil {
			t.Fatal(err)
		}
		first, err := value.MarshalSorted(typ, v)
		if err != nil {
			t.Fatalf("%s: %v", cqlType, err)
		}
		for range 20 {
			again, err := value.MarshalSorted(typ, v)
			if err != nil || !bytes.Equal(again, first) {
				t.Fatalf("%s: encoded twice, two encodings:\n%x\n%x", cqlType, first, again)
			}
			if !value.SameEncoded([]any{v}, []any{v}, func(int) string { return cqlType }) {
				t.Fatalf("%s: sameEncoded says a value differs from itself", cqlType)
			}
			if !protocol.SameRowValues([]any{v, int64(1)}, []any{v, int64(2)}, []desc.Column{{Name: "c", Type: cqlType}}) {
				t.Fatalf("%s: sameRowValues says a value differs from itself", cqlType)
			}
		}
	}
}

// A set inside a user-defined type is kept by Cassandra in the order it
// was sent in: the row Verify reads holds it in any order, and the row it
// expects must still hash the same.
func TestVerifyRowsIgnoreTheOrderOfNestedSets(t *testing.T) {
	table := desc.NewTable(desc.TableSpec{
		Name:         "policies",
		PartitionKey: []desc.Column{{Name: "id", Type: "int"}},
		Columns:      []desc.Column{{Name: "policy", Type: policyType}},
	})
	v := unorderedValues()[policyType]
	want, err := encodeRow(table, []any{int32(7), v, int64(0)})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := encodeRow(table, []any{int32(7), v, int64(0)})
		if err != nil || again.hash() != want.hash() {
			t.Fatalf("the expected row hashes two ways: %v", err)
		}
	}

	// The row as stored after a client sent its set's elements, and its
	// map's entries, from last to first.
	typ, _ := cqldriver.ParseType(policyType)
	sorted, err := value.MarshalSorted(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	fields, ok := testParts(sorted, 0)
	if !ok || len(fields) != 3 {
		t.Fatalf("the policy's fields: %x", sorted)
	}
	reversed := func(b []byte, isMap bool) []byte {
		n := 1
		if isMap {
			n = 2
		}
		es, ok := testParts(b, n)
		if !ok {
			t.Fatalf("not a collection: %x", b)
		}
		step := 1
		if isMap {
			step = 2
		}
		out := append([]byte(nil), b[:4]...)
		for i := len(es) - step; i >= 0; i -= step {
			for _, e := range es[i : i+step] {
				out = binary.BigEndian.AppendUint32(out, uint32(len(e)))
				out = append(out, e...)
			}
		}
		return out
	}
	stored := slices.Clone(fields)
	stored[1], stored[2] = reversed(fields[1], false), reversed(fields[2], true)
	var cell []byte
	for _, f := range stored {
		cell = binary.BigEndian.AppendUint32(cell, uint32(len(f)))
		cell = append(cell, f...)
	}
	if bytes.Equal(cell, sorted) {
		t.Fatal("the stored cell is in Cassandra's order already: the test proves nothing")
	}
	key, _ := cqldriver.MarshalType("int", int32(7))
	got := &row{cols: [][]byte{sortedCell("int", key), sortedCell(policyType, cell)}, nkey: 1}
	if got.key() != want.key() || got.hash() != want.hash() {
		t.Errorf("a stored row whose nested set and map came in another order differs from the expected row:\n%x\n%x", got.cols[1], want.cols[1])
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
