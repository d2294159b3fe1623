package gocqlv2

import (
	"bytes"
	"math/big"
	"net"
	"reflect"
	"slices"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"gopkg.in/inf.v0"
)

// mustType parses a CQL type as generated code writes it.
func mustType(t *testing.T, cql string) *cqldriver.Type {
	t.Helper()
	typ, err := cqldriver.ParseType(cql)
	if err != nil {
		t.Fatalf("ParseType(%q): %v", cql, err)
	}
	return typ
}

// driverInfo is the TypeInfo the driver's own parser makes of a type
// name, to check the adapter's against.
func driverInfo(t *testing.T, name string) gocql.TypeInfo {
	t.Helper()
	info, err := parseInfo(name)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// roundTrip encodes v as cql through cqldriver.Marshal, which must pick this
// package's codec, checks the bytes against the driver's own encoding
// with the type its parser makes of driverName (when not ""), and decodes
// them into a new value of dst's type through cqldriver.Unmarshal.
func roundTrip(t *testing.T, cql, driverName string, v any, dst any) []byte {
	t.Helper()
	typ := mustType(t, cql)
	b, err := cqldriver.Marshal(typ, v)
	if err != nil {
		t.Fatalf("%s: Marshal(%v): %v", cql, v, err)
	}
	if driverName != "" {
		want, err := gocql.Marshal(driverInfo(t, driverName), v)
		if err != nil {
			t.Fatalf("%s: the driver's Marshal: %v", cql, err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: encoded %x, the driver encodes %x", cql, b, want)
		}
	}
	if err := cqldriver.Unmarshal(typ, b, dst); err != nil {
		t.Fatalf("%s: Unmarshal(%x): %v", cql, b, err)
	}
	return b
}

func TestNativeTypesRoundTrip(t *testing.T) {
	u := gocql.MustRandomUUID()
	tu := gocql.UUIDFromTime(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123e6, time.UTC)
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	dec := inf.NewDec(-12345, 3)
	vi, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	cases := []struct {
		cql  string
		v    any
		dst  any // a pointer to a new value
		want []byte
	}{
		{"ascii", "abc", new(string), []byte("abc")},
		{"bigint", int64(-2), new(int64), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}},
		{"blob", []byte{1, 2, 3}, new([]byte), []byte{1, 2, 3}},
		{"boolean", true, new(bool), []byte{1}},
		{"counter", int64(7), new(int64), []byte{0, 0, 0, 0, 0, 0, 0, 7}},
		{"date", day, new(time.Time), nil},
		{"decimal", dec, new(*inf.Dec), nil},
		{"double", 1.5, new(float64), []byte{0x3f, 0xf8, 0, 0, 0, 0, 0, 0}},
		{"duration", gocql.Duration{Months: 1, Days: 2, Nanoseconds: 3}, new(gocql.Duration), []byte{2, 4, 6}},
		{"float", float32(2.5), new(float32), []byte{0x40, 0x20, 0, 0}},
		{"inet", net.ParseIP("10.0.0.1").To4(), new(net.IP), []byte{10, 0, 0, 1}},
		{"int", int32(42), new(int32), []byte{0, 0, 0, 42}},
		{"smallint", int16(-1), new(int16), []byte{0xff, 0xff}},
		{"text", "héllo", new(string), []byte("héllo")},
		{"time", 3*time.Hour + time.Nanosecond, new(time.Duration), nil},
		{"timestamp", ts, new(time.Time), nil},
		{"timeuuid", tu, new(gocql.UUID), tu[:]},
		{"tinyint", int8(-3), new(int8), []byte{0xfd}},
		{"uuid", u, new(gocql.UUID), u[:]},
		{"varchar", "x", new(string), []byte("x")},
		{"varint", vi, new(*big.Int), nil},
	}
	seen := map[cqldriver.TypeKind]bool{}
	for _, c := range cases {
		t.Run(c.cql, func(t *testing.T) {
			seen[mustType(t, c.cql).Kind] = true
			b := roundTrip(t, c.cql, c.cql, c.v, c.dst)
			if c.want != nil && !bytes.Equal(b, c.want) {
				t.Errorf("encoded %x, want %x", b, c.want)
			}
			got := reflect.ValueOf(c.dst).Elem().Interface()
			if !same(got, c.v) {
				t.Errorf("decoded %v (%T), want %v (%T)", got, got, c.v, c.v)
			}
		})
	}
	// Every native kind cqlgen knows, text and varchar being one.
	for k := range nativeNames {
		if k != cqldriver.TypeText && !seen[k] {
			t.Errorf("no round trip for %s", nativeNames[k])
		}
	}
}

// same compares a decoded value with the one encoded, by the type's own
// equality where reflect.DeepEqual would compare representations.
func same(got, want any) bool {
	switch w := want.(type) {
	case time.Time:
		g, ok := got.(time.Time)
		return ok && g.Equal(w)
	case *inf.Dec:
		g, ok := got.(*inf.Dec)
		return ok && g.Cmp(w) == 0
	case *big.Int:
		g, ok := got.(*big.Int)
		return ok && g.Cmp(w) == 0
	case net.IP:
		g, ok := got.(net.IP)
		return ok && g.Equal(w)
	}
	return reflect.DeepEqual(got, want)
}

func TestCollectionsRoundTrip(t *testing.T) {
	// Maps of one entry: the encoding of more follows Go's random order,
	// and the bytes are compared with the driver's.
	u1 := gocql.MustRandomUUID()
	cases := []struct {
		cql, driverName string
		v, dst          any
	}{
		{"list<int>", "list<int>", []int{1, 2, 3}, new([]int)},
		{"set<text>", "set<text>", []string{"a", "b"}, new([]string)},
		{"map<text, bigint>", "map<text, bigint>", map[string]int64{"a": -2}, new(map[string]int64)},
		{"frozen<list<frozen<set<int>>>>", "list<frozen<set<int>>>", [][]int{{1, 2}, {3}}, new([][]int)},
		{"map<uuid, frozen<list<text>>>", "map<uuid, frozen<list<text>>>", map[gocql.UUID][]string{u1: {"y", "z"}}, new(map[gocql.UUID][]string)},
		{"map<text, int>", "", map[string]int{"a": 1, "b": 2, "c": 3}, new(map[string]int)},
		{"list<duration>", "list<duration>", []gocql.Duration{{Months: 1}, {Nanoseconds: 5}}, new([]gocql.Duration)},
	}
	for _, c := range cases {
		t.Run(c.cql, func(t *testing.T) {
			roundTrip(t, c.cql, c.driverName, c.v, c.dst)
			if got := reflect.ValueOf(c.dst).Elem().Interface(); !reflect.DeepEqual(got, c.v) {
				t.Errorf("decoded %v, want %v", got, c.v)
			}
		})
	}
	// The collection's kind survives the stand-in elements it was
	// parsed with: a set is still a set, a map still has its key.
	for cql, kind := range map[string]gocql.Type{"list<int>": gocql.TypeList, "set<int>": gocql.TypeSet, "map<int, text>": gocql.TypeMap} {
		info, err := typeInfo(mustType(t, cql))
		if err != nil {
			t.Fatal(err)
		}
		c, ok := info.(gocql.CollectionType)
		if !ok || c.Type() != kind || c.Elem == nil || c.Elem.Type() == gocql.TypeBlob {
			t.Errorf("%s: %#v", cql, info)
		}
		if kind == gocql.TypeMap && (c.Key == nil || c.Key.Type() != gocql.TypeInt) {
			t.Errorf("%s: key %v", cql, c.Key)
		}
	}
}

// point is stored as the user-defined type point, with hand-written
// methods of the kind cqlgen generates for a model on this driver.
type point struct {
	X     int
	Label string
	Tags  []string
}

func (p point) MarshalUDT(name string, info gocql.TypeInfo) ([]byte, error) {
	switch name {
	case "x":
		return gocql.Marshal(info, p.X)
	case "label":
		return gocql.Marshal(info, p.Label)
	case "tags":
		return gocql.Marshal(info, p.Tags)
	}
	return nil, nil
}

func (p *point) UnmarshalUDT(name string, info gocql.TypeInfo, data []byte) error {
	switch name {
	case "x":
		return gocql.Unmarshal(info, data, &p.X)
	case "label":
		return gocql.Unmarshal(info, data, &p.Label)
	case "tags":
		return gocql.Unmarshal(info, data, &p.Tags)
	}
	return nil
}

const pointCQL = "udt<point, x int, label text, tags list<text>>"

func TestUDTRoundTrip(t *testing.T) {
	p := point{X: 7, Label: "home", Tags: []string{"a", "b"}}
	var got point
	b := roundTrip(t, pointCQL, "", p, &got)
	if !reflect.DeepEqual(got, p) {
		t.Errorf("decoded %+v, want %+v", got, p)
	}
	// Each field is its length and its bytes, in the type's order: the
	// adapter's type info carries the fields the methods are asked for.
	wantPrefix := []byte{0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 4, 'h', 'o', 'm', 'e'}
	if !bytes.HasPrefix(b, wantPrefix) {
		t.Errorf("encoded %x, want it to start %x", b, wantPrefix)
	}
	// User-defined types inside collections, which the driver's parser
	// could not build from a name.
	ps := []point{p, {X: -1, Label: "x"}}
	var gotList []point
	roundTrip(t, "list<frozen<"+pointCQL+">>", "", ps, &gotList)
	if !reflect.DeepEqual(gotList, ps) {
		t.Errorf("list: decoded %+v, want %+v", gotList, ps)
	}
	byName := map[string]point{"p": p}
	gotMap := map[string]point{}
	roundTrip(t, "map<text, frozen<"+pointCQL+">>", "", byName, &gotMap)
	if !reflect.DeepEqual(gotMap, byName) {
		t.Errorf("map: decoded %+v, want %+v", gotMap, byName)
	}
}

func TestVectorRoundTrip(t *testing.T) {
	v := []float32{1, -2.5, 3}
	var got []float32
	b := roundTrip(t, "vector<float, 3>", "vector<float, 3>", v, &got)
	want := []byte{0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0, 0x40, 0x40, 0, 0}
	if !bytes.Equal(b, want) {
		t.Errorf("encoded %x, want %x", b, want)
	}
	if !slices.Equal(got, v) {
		t.Errorf("decoded %v, want %v", got, v)
	}
	// The dimension is the type's: a vector of another length is refused.
	if _, err := cqldriver.Marshal(mustType(t, "vector<float, 3>"), []float32{1, 2}); err == nil {
		t.Error("a vector of 2 floats encoded as vector<float, 3>")
	}
}

// The driver's own types encode through cqldriver.Marshal once this package
// is linked, as the runtime does for the keys it keeps; no other codec is
// linked into this test, so this one must do it.
func TestDriverTypesThroughRuntime(t *testing.T) {
	u := gocql.MustRandomUUID()
	b, err := cqldriver.MarshalType("uuid", u)
	if err != nil || !bytes.Equal(b, u[:]) {
		t.Fatalf("uuid: %x, %v", b, err)
	}
	var gu gocql.UUID
	if err := cqldriver.Unmarshal(mustType(t, "uuid"), b, &gu); err != nil || gu != u {
		t.Errorf("uuid back: %v, %v", gu, err)
	}
	d := gocql.Duration{Months: 14, Days: -3, Nanoseconds: 1500}
	b, err = cqldriver.MarshalType("duration", d)
	if err != nil {
		t.Fatal(err)
	}
	var gd gocql.Duration
	if err := cqldriver.Unmarshal(mustType(t, "duration"), b, &gd); err != nil || gd != d {
		t.Errorf("duration back: %+v, %v", gd, err)
	}
	// A value neither codec knows is an error, not a silent null.
	if _, err := cqldriver.MarshalType("uuid", struct{}{}); err == nil {
		t.Error("a struct{} encoded as a uuid")
	}
}

// The codec is registered under "gocql-v2": a second registration of the
// name panics.
func TestCodecRegistered(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering gocql-v2 again did not panic: the package did not register it")
		}
	}()
	cqldriver.RegisterCodec("gocql-v2", codec{})
}

// cqlType reads back what typeInfo builds, and what the driver parses
// from result metadata, in ParseType's form.
func TestCQLTypeOfTypeInfo(t *testing.T) {
	for _, cql := range []string{
		"int", "text", "uuid", "list<int>", "set<timeuuid>", "map<text, list<bigint>>",
		"vector<float, 4>", pointCQL, "list<" + pointCQL + ">",
	} {
		info, err := typeInfo(mustType(t, cql))
		if err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
		got := cqlType(info)
		if got.CQL != mustType(t, cql).CQL {
			t.Errorf("%s: read back as %q", cql, got.CQL)
		}
		if back := mustType(t, got.CQL); !reflect.DeepEqual(back, got) {
			t.Errorf("%s: %+v, ParseType makes %+v", cql, got, back)
		}
	}
	// As the driver describes a column: a frozen collection, and a
	// user-defined type with its keyspace.
	if got := cqlType(driverInfo(t, "map<text, frozen<list<int>>>")); got.CQL != "map<text, list<int>>" || got.Key.Kind != cqldriver.TypeVarchar {
		t.Errorf("driver's map: %+v", got)
	}
	udt := gocql.UDTTypeInfo{Keyspace: "ks", Name: "point", Elements: []gocql.UDTField{
		{Name: "x", Type: driverInfo(t, "int")}, {Name: "label", Type: driverInfo(t, "text")}, {Name: "tags", Type: driverInfo(t, "list<text>")},
	}}
	if got := cqlType(udt); got.CQL != pointCQL || got.Kind != cqldriver.TypeUDT || len(got.Fields) != 3 || got.Fields[2].Type.Elem.Kind != cqldriver.TypeVarchar {
		t.Errorf("driver's UDT: %+v", got)
	}
	if got := cqlType(driverInfo(t, "vector<float, 8>")); !got.IsVector() || got.Dimensions != 8 || got.Elem.Kind != cqldriver.TypeFloat {
		t.Errorf("driver's vector: %+v", got)
	}
}

func TestUnsupportedTypes(t *testing.T) {
	for _, typ := range []*cqldriver.Type{
		{Kind: cqldriver.TypeTuple, CQL: "tuple<int>"},
		{Kind: cqldriver.TypeCustom, Name: "org.example.Thing", CQL: "org.example.Thing"},
		{Kind: cqldriver.TypeList, CQL: "list<?>"},
		{Kind: 0x99, CQL: "nothing"},
	} {
		if info, err := typeInfo(typ); err == nil {
			t.Errorf("%s: built %#v", typ.CQL, info)
		}
	}
	// The driver's parser panics on a name it cannot read; the adapter
	// returns an error.
	if _, err := parseInfo("list<nosuchtype>"); err == nil {
		t.Error("parseInfo of an unknown type did not fail")
	}
}

// vec is a value that encodes itself, as the runtime's Vector does, and
// records the type the driver gave it.
type vec struct {
	v    []float32
	seen *cqldriver.Type
}

func (v *vec) MarshalCQLValue(t *cqldriver.Type) ([]byte, error) {
	v.seen = t
	var b []byte
	for _, f := range v.v {
		e, err := cqldriver.Marshal(t.Elem, f)
		if err != nil {
			return nil, err
		}
		b = append(b, e...)
	}
	return b, nil
}

func (v *vec) UnmarshalCQLValue(t *cqldriver.Type, data []byte) error {
	v.seen = t
	v.v = v.v[:0]
	for len(data) >= 4 {
		var f float32
		if err := cqldriver.Unmarshal(t.Elem, data[:4], &f); err != nil {
			return err
		}
		v.v, data = append(v.v, f), data[4:]
	}
	return nil
}

// The runtime's neutral values become the driver's, and the driver gives
// the values that encode themselves the column's type as cqlgen's.
func TestNeutralValues(t *testing.T) {
	if Value(cqldriver.Unset) != gocql.UnsetValue {
		t.Errorf("Value(Unset) = %#v", Value(cqldriver.Unset))
	}
	for _, v := range []any{1, "x", nil, []byte{1}} {
		if !reflect.DeepEqual(Value(v), v) {
			t.Errorf("Value(%v) = %v", v, Value(v))
		}
	}
	// Encoded is bound as it is, whatever the column's type.
	enc := cqldriver.Encoded{0, 0, 0, 9}
	b, err := gocql.Marshal(driverInfo(t, "text"), Value(enc))
	if err != nil || !bytes.Equal(b, enc) {
		t.Errorf("Encoded bound as %x, %v", b, err)
	}
	// A ValueMarshaler sees the driver's vector type as cqlgen's.
	v := &vec{v: []float32{1, 2, 3}}
	info := gocql.VectorType{SubType: driverInfo(t, "float"), Dimensions: 3}
	b, err = gocql.Marshal(info, Value(v))
	if err != nil || len(b) != 12 {
		t.Fatalf("ValueMarshaler bound as %x, %v", b, err)
	}
	if v.seen == nil || !v.seen.IsVector() || v.seen.Dimensions != 3 || v.seen.Elem.Kind != cqldriver.TypeFloat {
		t.Errorf("ValueMarshaler was given %+v", v.seen)
	}
	// A ValueUnmarshaler, as a scan destination.
	w := &vec{}
	if err := gocql.Unmarshal(info, b, Dest(w)); err != nil || !slices.Equal(w.v, v.v) || w.seen == nil || !w.seen.IsVector() {
		t.Errorf("ValueUnmarshaler read %v with %+v: %v", w.v, w.seen, err)
	}
	var plain int
	if Dest(&plain) != any(&plain) {
		t.Error("Dest changed a plain destination")
	}

	// values and dests copy a slice only to change it, and never change
	// the caller's.
	in := []any{1, "a"}
	if out := values(in); &out[0] != &in[0] {
		t.Error("values copied a slice it did not change")
	}
	in = []any{1, cqldriver.Unset, enc}
	out := values(in)
	if &out[0] == &in[0] || out[1] != gocql.UnsetValue || !cqldriver.IsUnset(in[1]) {
		t.Errorf("values: %v from %v", out, in)
	}
	if _, ok := out[2].(gocql.Marshaler); !ok {
		t.Errorf("values left Encoded as %T", out[2])
	}
	ds := []any{&plain, w}
	got := dests(ds)
	if _, ok := got[1].(gocql.Unmarshaler); !ok || ds[1] != any(w) || got[0] != any(&plain) {
		t.Errorf("dests: %v from %v", got, ds)
	}
	if same := dests(ds[:1]); &same[0] != &ds[0] {
		t.Error("dests copied a slice it did not change")
	}
}

type place struct {
	Name string           `cql:"name"`
	Tags map[int32]string `cql:"tags"`
}

// A value that may hold a set or a map reaches Cassandra in its canonical
// encoding, however the driver wrote it: Cassandra keeps a descending
// key's bytes, and a user-defined type's, as sent, so a Go map's random
// iteration order, or a set bound from an unsorted slice, would make one
// key two rows.
func TestValueBindsCanonically(t *testing.T) {
	tags := map[int32]string{}
	for k := range int32(16) {
		tags[k-8] = "x"
	}
	for _, tc := range []struct {
		typ string
		v   any
	}{
		{"frozen<map<int, text>>", tags},
		{"frozen<set<int>>", []int32{3, 1, 2, 1}},
		{"frozen<udt<place, name text, tags frozen<map<int, text>>>>", place{"p", tags}},
		{"frozen<list<frozen<map<int, text>>>>", []map[int32]string{tags, {1: "a"}}},
	} {
		typ := mustType(t, tc.typ)
		info, err := typeInfo(typ)
		if err != nil {
			t.Fatal(err)
		}
		got, err := gocql.Marshal(info, Value(tc.v)) // as the driver binds a statement's value
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if want := cqldriver.Canonical(typ, got); !bytes.Equal(got, want) {
			t.Errorf("%s: bound as %x, not canonical (%x)", tc.typ, got, want)
		}
	}
	if got, err := gocql.Marshal(must(typeInfo(mustType(t, "set<int>"))), Value([]int32{3, 1, 3})); err != nil || !bytes.Equal(got, must(cqldriver.MarshalType("set<int>", []int32{1, 3}))) {
		t.Errorf("set from [3 1 3] bound as %x (%v)", got, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A null uuid reads as zeros into a [16]byte, as into a gocql.UUID: the
// driver refused it, and a deleted entity's grave (null columns) failed
// every read of a model with a [16]byte field (found by TestDifferential
// on gocql v1; v2 refuses it alike).
func TestNullUUIDReadsAsZeros(t *testing.T) {
	typ, err := cqldriver.ParseType("uuid")
	if err != nil {
		t.Fatal(err)
	}
	raw := [16]byte{1, 2, 3}
	if err := (codec{}).Unmarshal(typ, nil, &raw); err != nil || raw != ([16]byte{}) {
		t.Errorf("null uuid: %v, %v; want zeros", raw, err)
	}
	want := [16]byte{15: 9}
	if err := (codec{}).Unmarshal(typ, want[:], &raw); err != nil || raw != want {
		t.Errorf("uuid: %v, %v; want %v", raw, err, want)
	}
}
