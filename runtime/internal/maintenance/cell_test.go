package maintenance

import (
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// An empty value (an empty string or blob, which CQL encodes as zero
// bytes) is a value, not a null, in the rows Verify reads as in the rows
// it expects. A cell turned it into null, so every row of a projection
// with an empty text column (a ticket nobody is assigned to) was counted
// stale, and Repair rewrote it on every run.
func TestCellKeepsEmptyApartFromNull(t *testing.T) {
	var empty value.Cell
	if err := empty.UnmarshalCQLValue(nil, []byte{}); err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("an empty value read as %#v, %v; want an empty, non-nil cell", empty, err)
	}
	null := value.Cell("left over")
	if err := null.UnmarshalCQLValue(nil, nil); err != nil || null != nil {
		t.Errorf("a null read as %#v, %v; want nil", null, err)
	}

	table := desc.NewTable(desc.TableSpec{
		Name:         "people",
		PartitionKey: []desc.Column{{Name: "id", Type: "int"}},
		Columns:      []desc.Column{{Name: "name", Type: "text"}, {Name: "photo", Type: "blob"}, {Name: "nick", Type: "text"}},
	})
	var nick *string // null
	want, err := encodeRow(table, []any{int32(1), "", []byte{}, nick, int64(0)})
	if err != nil {
		t.Fatal(err)
	}
	// The row as a driver hands it over: each value's bytes, a null as nil.
	got := &row{cols: make([][]byte, len(want.cols)), nkey: want.nkey}
	for i, b := range want.cols {
		var c value.Cell
		if err := c.UnmarshalCQLValue(&cqldriver.Type{}, b); err != nil {
			t.Fatal(err)
		}
		got.cols[i] = c
	}
	if want.cols[1] == nil || want.cols[3] != nil {
		t.Fatalf("the expected row encodes the empty name as %#v and the null nick as %#v", want.cols[1], want.cols[3])
	}
	if got.hash() != want.hash() {
		t.Errorf("a row read with an empty name and photo hashes apart from the row expected: %#v, %#v", got.cols, want.cols)
	}
}
