package reads

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// TestVectorEncoding pins Cassandra's encoding of vector<float, N>: N
// big-endian IEEE 754 floats, no length; nil is null both ways.
func TestVectorEncoding(t *testing.T) {
	v := value.Vector{1, -2.5, float32(math.Inf(1))}
	b, err := v.MarshalCQLValue(nil)
	want := []byte{0x3f, 0x80, 0, 0, 0xc0, 0x20, 0, 0, 0x7f, 0x80, 0, 0}
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("MarshalCQLValue = %x, %v; want %x", b, err, want)
	}
	var back value.Vector
	if err := back.UnmarshalCQLValue(nil, b); err != nil || len(back) != 3 || back[1] != -2.5 || !math.IsInf(float64(back[2]), 1) {
		t.Fatalf("UnmarshalCQLValue = %v, %v", back, err)
	}
	if b, _ := value.Vector(nil).MarshalCQLValue(nil); b != nil {
		t.Errorf("nil vector encodes as %x, want null", b)
	}
	if err := back.UnmarshalCQLValue(nil, nil); err != nil || back != nil {
		t.Errorf("null decodes as %v, %v", back, err)
	}
	if err := back.UnmarshalCQLValue(nil, []byte{1, 2, 3}); err == nil {
		t.Error("3 bytes decoded as a vector of floats")
	}
	if !cqldriver.IsUnset(value.VectorOrUnset(nil, true)) {
		t.Error("an empty vector on Insert is not unset")
	}
	if x, ok := value.VectorOrUnset(nil, false).(value.Vector); !ok || x != nil {
		t.Error("an empty vector on Update is not null")
	}
	typ, err := cqldriver.ParseType("vector<float, 3>")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := cqldriver.Marshal(typ, v); err != nil || !bytes.Equal(b, want) {
		t.Errorf("cqldriver.Marshal through the vector's type: %x, %v", b, err)
	}
	// Bound through the gocql v1 adapter, which knows no vectors, the
	// vector still encodes itself; and it scans back the same way.
	custom := gocql.NewNativeType(4, gocql.TypeCustom, "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType, 3)")
	if b, err := gocql.Marshal(custom, gocqlv1.Value(v)); err != nil || !bytes.Equal(b, want) {
		t.Errorf("gocql.Marshal through the adapter: %x, %v", b, err)
	}
	back = nil
	if err := gocql.Unmarshal(custom, want, gocqlv1.Dest(&back)); err != nil || len(back) != 3 || back[0] != 1 {
		t.Errorf("gocql.Unmarshal through the adapter: %v, %v", back, err)
	}
}

// TestCheckVector refuses a vector of another length than the column's,
// and lets an empty one (no embedding) pass.
func TestCheckVector(t *testing.T) {
	if err := value.CheckVector("t", "v", make([]float32, 4), 4); err != nil {
		t.Error(err)
	}
	if err := value.CheckVector("t", "v", nil, 4); err != nil {
		t.Error(err)
	}
	err := value.CheckVector("t", "v", make([]float32, 5), 4)
	var de *cqlgen.InputError
	if !(errors.As(err, &de) && de.Err == cqlgen.ErrVectorDimension) || de.Reason != "the column holds vectors of 4 floats; this one has 5" || !errors.Is(err, cqlgen.ErrVectorDimension) {
		t.Errorf("5 floats for 4: %v", err)
	}
	for typ, n := range map[string]int{"vector<float, 384>": 384, "vector<float,3>": 3, "list<float>": 0, "vector<float>": 0} {
		if got := value.VectorDim(typ); got != n {
			t.Errorf("vectorDim(%q) = %d, want %d", typ, got, n)
		}
	}
}
