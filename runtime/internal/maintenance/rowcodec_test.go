package maintenance

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
)

// The values encoded in place are encoded as the driver's codec encodes
// them; any other value is left to the codec.
func TestAppendNativeIsTheCodecs(t *testing.T) {
	type status string
	for _, c := range []struct {
		typ string
		v   any
	}{
		{"text", "Board 7"}, {"text", ""}, {"varchar", "é"}, {"ascii", "abc"},
		{"bigint", int64(-3)}, {"bigint", int64(math.MaxInt64)}, {"counter", int64(12)},
		{"int", int32(-7)}, {"int", int32(math.MinInt32)},
		{"boolean", true}, {"boolean", false},
		{"double", 1.5}, {"double", math.Inf(-1)}, {"float", float32(-0.25)},
	} {
		typ, err := cqldriver.ParseType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendNative([]byte{0xaa}, typ, c.v)
		want, err := cqldriver.MarshalType(c.typ, c.v)
		if !ok || err != nil || !bytes.Equal(got[1:], want) || got[0] != 0xaa {
			t.Errorf("%s %#v: in place %x (%v), codec %x (%v)", c.typ, c.v, got, ok, want, err)
		}
	}
	for _, c := range []struct {
		typ string
		v   any
	}{
		{"text", status("open")}, {"bigint", 3}, {"int", int64(3)}, {"timestamp", time.Unix(1, 0)}, {"blob", []byte("x")}, {"text", (*string)(nil)},
	} {
		typ, _ := cqldriver.ParseType(c.typ)
		if _, ok := appendNative(nil, typ, c.v); ok {
			t.Errorf("%s %#v (%T) encoded in place; want it left to the codec", c.typ, c.v, c.v)
		}
	}
}

var codecTable = desc.NewTable(desc.TableSpec{
	Name:         "tickets_by_team",
	PartitionKey: []desc.Column{{Name: "team", Type: "text"}},
	Clustering:   []desc.Column{{Name: "points", Type: "bigint"}, {Name: "id", Type: "int"}},
	Columns: []desc.Column{
		{Name: "tags", Type: "set<text>"}, {Name: "title", Type: "text"}, {Name: "nick", Type: "text"},
		{Name: "open", Type: "boolean"}, {Name: "ratio", Type: "double"}, {Name: "opened", Type: "timestamp"},
	},
})

func codecRow(team string, points int64, tags map[string]struct{}, title string) []any {
	var nick *string
	return []any{team, points, int32(7), tags, title, nick, true, 0.5, time.Unix(1700000000, 0).UTC(), int64(99)}
}

// One encoder encodes row after row into the same memory: each row is
// the one encoded alone, column by column, whether a column was encoded
// in place or by the codec between two that were.
func TestEncoderReusesItsRowWhole(t *testing.T) {
	rows := [][]any{
		codecRow("red", 10, map[string]struct{}{"b": {}, "a": {}}, "a title long enough to grow the buffer past its first size, and longer still: "+string(bytes.Repeat([]byte("x"), 300))),
		codecRow("", -1, nil, ""),
		codecRow("blue", 3, map[string]struct{}{"z": {}}, "short"),
	}
	enc := new(rowEncoder)
	for i, values := range rows {
		got, err := enc.encode(codecTable, values)
		if err != nil {
			t.Fatal(err)
		}
		want := &row{nkey: 3}
		for j, c := range codecTable.Row {
			b, err := cqldriver.MarshalType(c.Type, values[j])
			if err != nil {
				t.Fatal(err)
			}
			if isCollection(c.Type) && emptyCollection(b) {
				b = nil
			}
			want.cols = append(want.cols, b)
		}
		if got.nkey != want.nkey || len(got.cols) != len(want.cols) {
			t.Fatalf("row %d: %d columns, %d of the key; want %d, %d", i, len(got.cols), got.nkey, len(want.cols), want.nkey)
		}
		for j := range want.cols {
			if !bytes.Equal(got.cols[j], want.cols[j]) || (got.cols[j] == nil) != (want.cols[j] == nil) {
				t.Errorf("row %d, column %s: %x, want %x", i, codecTable.Row[j].Name, got.cols[j], want.cols[j])
			}
		}
		if got.hash() != want.hash() || got.key() != want.key() {
			t.Errorf("row %d hashes apart from the row encoded alone", i)
		}
		fresh, err := encodeRow(codecTable, values)
		if err != nil || fresh.hash() != got.hash() {
			t.Errorf("row %d: encodeRow hashes apart (%v)", i, err)
		}
	}
}

// cellsIter hands over rows of encoded cells, as a driver does to a
// ValueUnmarshaler.
type cellsIter struct{ rows [][][]byte }

func (it *cellsIter) Scan(dest ...any) bool {
	if len(it.rows) == 0 {
		return false
	}
	r := it.rows[0]
	it.rows = it.rows[1:]
	for i, d := range dest {
		if err := d.(cqldriver.ValueUnmarshaler).UnmarshalCQLValue(nil, r[i]); err != nil {
			panic(err)
		}
	}
	return true
}
func (it *cellsIter) PageState() []byte { return nil }
func (it *cellsIter) Close() error      { return nil }

// A reader reads each row into the same memory, as readProjection reads
// it alone: an empty collection is no value, the write timestamp is the
// latest, and a partition's statics alone are no row.
func TestProjectionReaderReadsRowAfterRow(t *testing.T) {
	enc := func(values []any) [][]byte {
		var out [][]byte
		for j, c := range codecTable.Row {
			b, err := cqldriver.MarshalType(c.Type, values[j])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	wt := func(us ...int64) [][]byte {
		var out [][]byte
		for _, u := range us {
			if u < 0 {
				out = append(out, nil)
				continue
			}
			out = append(out, binary.BigEndian.AppendUint64(nil, uint64(u)))
		}
		return out
	}
	a := codecRow("red", 10, map[string]struct{}{"a": {}}, "first, and the longer of the two")
	b := codecRow("blue", 3, nil, "second")
	static := enc(a)
	static[1], static[2] = nil, nil
	rows := [][][]byte{
		append(enc(a), wt(5, 9)...),
		append(static, wt(-1, -1)...),
		append(enc(b), wt(-1, 4)...),
	}
	// b's empty set, as a driver may hand it over: a count of 0.
	rows[2][3] = []byte{0, 0, 0, 0}
	want := []struct {
		values []any
		wt     int64
	}{{a, 9}, {nil, 0}, {b, 4}}

	rd := newProjectionReader(codecTable, 2)
	it := &cellsIter{rows: rows}
	alone := &cellsIter{rows: append([][][]byte(nil), rows...)}
	for i, w := range want {
		got, ok := rd.read(it)
		one, ok1 := readProjection(alone, codecTable, 2)
		if !ok || !ok1 {
			t.Fatalf("row %d: the reader ended early", i)
		}
		if w.values == nil {
			if got != nil || one != nil {
				t.Fatalf("row %d, a partition's statics alone, read as a row", i)
			}
			continue
		}
		exp, err := encodeRow(codecTable, w.values)
		if err != nil {
			t.Fatal(err)
		}
		if got.hash() != exp.hash() || got.key() != exp.key() || got.writetime != w.wt {
			t.Errorf("row %d: read %x at %d; want %x at %d", i, got.cols, got.writetime, exp.cols, w.wt)
		}
		if one.hash() != got.hash() || one.writetime != got.writetime {
			t.Errorf("row %d: readProjection reads it apart from the reader", i)
		}
	}
	if _, ok := rd.read(it); ok {
		t.Fatal("the reader read past the end")
	}
}
