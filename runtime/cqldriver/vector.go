package cqldriver

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Vector is the value of a vector<float, N> column, as a []float32 that
// encodes itself as Cassandra does: the N floats, 4 bytes each,
// big-endian, with no length (the column's type says how many). Not every
// driver knows Cassandra 5's vector type (gocql v1 does not), so
// generated code binds and scans a vector field through Vector, and so
// can a query of your own: Query{Values: []any{Vector(v)}}.
type Vector []float32

// MarshalCQLValue implements ValueMarshaler: it encodes the
// vector; nil is null.
func (v Vector) MarshalCQLValue(*Type) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.BigEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b, nil
}

// UnmarshalCQLValue implements ValueUnmarshaler: it decodes a
// vector; null is nil.
func (v *Vector) UnmarshalCQLValue(_ *Type, data []byte) error {
	if data == nil {
		*v = nil
		return nil
	}
	if len(data)%4 != 0 {
		return fmt.Errorf("cqldriver: a vector of floats of %d bytes, not a multiple of 4", len(data))
	}
	out := make(Vector, len(data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.BigEndian.Uint32(data[4*i:]))
	}
	*v = out
	return nil
}
