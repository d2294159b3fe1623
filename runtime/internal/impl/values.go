package impl

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// SameKey reports whether two primary keys of t (values in key order,
// bucket included) are equal as Cassandra stores them: both are encoded
// with the columns' CQL types, so a timestamp that differs only below a
// millisecond is the same key. Keys it cannot encode count as different,
// which is safe: the row is then deleted and inserted again.
func SameKey(t *Table, a, b []any) bool {
	if len(a) != len(t.Spec.PartitionKey)+len(t.Spec.Clustering) {
		return false
	}
	return sameEncoded(a, b, func(i int) string { return t.keyColumn(i).Type })
}

// sameEncoded reports whether a and b, value by value, encode to the same
// bytes with the CQL type typeOf(i) of each, sets and maps in Cassandra's
// order: equal as Cassandra stores them. Values it cannot encode count as
// different.
func sameEncoded(a, b []any, typeOf func(i int) string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		typ, err := cqldriver.ParseType(typeOf(i))
		if err != nil {
			return false
		}
		x, err1 := marshalSorted(typ, a[i])
		y, err2 := marshalSorted(typ, b[i])
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// CompareBool orders false before true, as Cassandra does.
func CompareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// CompareBytes orders blobs as Cassandra does: byte by byte, unsigned.
func CompareBytes(a, b []byte) int { return bytes.Compare(a, b) }

// ScanDuration scans a CQL duration column into a time.Duration. A
// duration with months cannot be one, and fails the scan.
func ScanDuration(d *time.Duration) any { return durationScanner{d} }

type durationScanner struct{ d *time.Duration }

// UnmarshalCQLValue implements cqldriver.ValueUnmarshaler. It decodes the
// duration itself, so that the scan does not depend on a driver's
// duration type; null is 0.
func (s durationScanner) UnmarshalCQLValue(_ *cqldriver.Type, data []byte) error {
	if len(data) == 0 {
		*s.d = 0
		return nil
	}
	months, days, nanos, err := decodeDuration(data)
	if err != nil {
		return err
	}
	if months != 0 {
		return fmt.Errorf("cqlgen: duration of %d months has no fixed length", months)
	}
	*s.d = time.Duration(days)*24*time.Hour + time.Duration(nanos)
	return nil
}

// decodeDuration decodes a CQL duration: its months, days and
// nanoseconds, each a signed vint, in that order.
func decodeDuration(b []byte) (months, days int32, nanos int64, err error) {
	m, b, ok1 := readVint(b)
	d, b, ok2 := readVint(b)
	n, b, ok3 := readVint(b)
	switch {
	case !ok1 || !ok2 || !ok3 || len(b) != 0:
		return 0, 0, 0, errors.New("cqlgen: malformed duration")
	case m != int64(int32(m)) || d != int64(int32(d)):
		return 0, 0, 0, errors.New("cqlgen: duration months or days out of range")
	}
	return int32(m), int32(d), n, nil
}

// readVint reads a signed vint, the protocol's variable-length integer,
// from the front of b: the number of leading one bits of the first byte
// is how many bytes follow; the first byte's other bits, then those
// bytes, are the value, big-endian, zigzag-encoded so that small
// negative numbers are short too (0, -1, 1, -2 ... are 0, 1, 2, 3 ...).
func readVint(b []byte) (v int64, rest []byte, ok bool) {
	if len(b) == 0 {
		return 0, nil, false
	}
	extra := bits.LeadingZeros8(^b[0])
	if len(b) < 1+extra {
		return 0, nil, false
	}
	u := uint64(b[0]) & (0xff >> extra)
	for _, c := range b[1 : 1+extra] {
		u = u<<8 | uint64(c)
	}
	return int64(u>>1) ^ -int64(u&1), b[1+extra:], true
}

// IsZeroUUID reports the zero uuid, which is no key.
func IsZeroUUID(u [16]byte) bool { return u == [16]byte{} }

// ScanSet scans a CQL set into a Go map of empty structs, the mapping
// cqlgen documents for sets, which drivers can write but not read.
func ScanSet[K comparable](m *map[K]struct{}) any { return setScanner[K]{m} }

type setScanner[K comparable] struct{ m *map[K]struct{} }

// UnmarshalCQLValue implements cqldriver.ValueUnmarshaler: the driver's
// codec decodes the set, as the column's type t says, into a slice.
func (s setScanner[K]) UnmarshalCQLValue(t *cqldriver.Type, data []byte) error {
	var elems []K
	if err := cqldriver.Unmarshal(t, data, &elems); err != nil {
		return err
	}
	if data == nil {
		*s.m = nil
		return nil
	}
	m := make(map[K]struct{}, len(elems))
	for _, e := range elems {
		m[e] = struct{}{}
	}
	*s.m = m
	return nil
}

// Present wraps dst, the scan target of the first clustering column of a
// table with static columns, recording in ok whether the row held a
// value: a partition holding its statics alone, with no row, reads as one
// row whose clustering columns are null, which generated scans skip.
func Present(dst any, ok *bool) any { return presence{dst, ok} }

type presence struct {
	dst any
	ok  *bool
}

// UnmarshalCQLValue implements cqldriver.ValueUnmarshaler.
func (p presence) UnmarshalCQLValue(t *cqldriver.Type, data []byte) error {
	if *p.ok = data != nil; !*p.ok {
		return nil
	}
	return cqldriver.Unmarshal(t, data, p.dst)
}
