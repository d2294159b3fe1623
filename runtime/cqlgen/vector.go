package cqlgen

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// Vector binds and scans a vector<float, N> column from a []float32
// field: not every driver knows Cassandra 5's vector type (gocql v1
// does not), so generated code converts the field to Vector (and so can
// a query of your own), which encodes itself as Cassandra does: the N floats, 4 bytes each,
// big-endian, with no length (the column's type says how many).
type Vector []float32

// MarshalCQLValue implements cqldriver.ValueMarshaler: it encodes the
// vector; nil is null.
func (v Vector) MarshalCQLValue(*cqldriver.Type) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.BigEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b, nil
}

// UnmarshalCQLValue implements cqldriver.ValueUnmarshaler: it decodes a
// vector; null is nil.
func (v *Vector) UnmarshalCQLValue(_ *cqldriver.Type, data []byte) error {
	if data == nil {
		*v = nil
		return nil
	}
	if len(data)%4 != 0 {
		return fmt.Errorf("cqlgen: a vector of floats of %d bytes, not a multiple of 4", len(data))
	}
	out := make(Vector, len(data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.BigEndian.Uint32(data[4*i:]))
	}
	*v = out
	return nil
}
