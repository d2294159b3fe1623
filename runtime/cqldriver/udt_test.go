package cqldriver_test

import (
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/gocql/gocql"
)

// A user-defined type spelled out as generated code writes it parses to
// the type the node would describe, nested types included: the runtime
// encodes and orders key values of such types by it.
func TestParseTypeReadsUserDefinedTypes(t *testing.T) {
	l, err := cqldriver.ParseType("list<frozen<udt<address, street text, tags map<text, int>, at frozen<udt<geo, lat double, lon double>>>>>")
	if err != nil {
		t.Fatal(err)
	}
	if l.Kind != cqldriver.TypeList {
		t.Fatalf("got %v, want a list", l.CQL)
	}
	u := l.Elem
	if u.Kind != cqldriver.TypeUDT || u.Name != "address" || len(u.Fields) != 3 {
		t.Fatalf("element: %#v", u)
	}
	if u.Fields[0].Name != "street" || u.Fields[0].Type.Kind != cqldriver.TypeVarchar ||
		u.Fields[1].Name != "tags" || u.Fields[1].Type.Kind != cqldriver.TypeMap {
		t.Errorf("fields: %v", u.Fields)
	}
	geo := u.Fields[2].Type
	if geo.Kind != cqldriver.TypeUDT || geo.Name != "geo" || len(geo.Fields) != 2 || geo.Fields[1].Name != "lon" || geo.Fields[1].Type.Kind != cqldriver.TypeDouble {
		t.Errorf("nested type: %#v", geo)
	}
	for _, bad := range []string{"udt", "udt<", "udt<a, b>", "udt<a, b text", "udt<a, b text c>", "udt<a, b nosuch>"} {
		if _, err := cqldriver.ParseType(bad); err == nil {
			t.Errorf("ParseType(%q) accepted", bad)
		}
	}
	if u, err := cqldriver.ParseType("udt<empty>"); err != nil || u.Kind != cqldriver.TypeUDT || u.Name != "empty" {
		t.Errorf("a type without fields: %v, %v", u, err)
	}
}

// Frozen user-defined types order as Cassandra's UserType: field by
// field by each field's own order, a null field first, missing trailing
// fields as nulls.
func TestCompareOrdersUserDefinedTypes(t *testing.T) {
	info, err := cqldriver.ParseType("frozen<udt<geo, lat double, name text>>")
	if err != nil {
		t.Fatal(err)
	}
	enc := func(fields ...[]byte) []byte {
		var b []byte
		for _, f := range fields {
			if f == nil {
				b = append(b, 0xff, 0xff, 0xff, 0xff)
				continue
			}
			b = append(b, byte(len(f)>>24), byte(len(f)>>16), byte(len(f)>>8), byte(len(f)))
			b = append(b, f...)
		}
		return b
	}
	dbl := func(f float64) []byte {
		b, _ := gocql.Marshal(gocql.NewNativeType(4, gocql.TypeDouble, ""), f)
		return b
	}
	ordered := [][]byte{
		enc(nil, []byte("z")),     // a null first field first
		enc(dbl(-2)),              // then by the double's order, negatives first
		enc(dbl(-2), []byte("a")), // a missing trailing field is a null
		enc(dbl(1), nil),          // null before any text
		enc(dbl(1), []byte("a")),
		enc(dbl(1), []byte("b")),
		enc(dbl(10), []byte("a")),
	}
	for i := range ordered {
		for j := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := cqldriver.Compare(info, ordered[i], ordered[j]); got != want {
				t.Errorf("cqldriver.Compare(#%d, #%d) = %d, want %d", i, j, got, want)
			}
		}
	}
	if got := cqldriver.Compare(info, enc(dbl(1)), enc(dbl(1), nil)); got != 0 {
		t.Errorf("a missing field and a null one: %d, want 0", got)
	}
}
