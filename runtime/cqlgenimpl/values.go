package cqlgenimpl

import (
	"bytes"
	"fmt"
	"time"

	"github.com/gocql/gocql"
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
// bytes with the CQL type typeOf(i) of each: equal as Cassandra stores
// them. Values it cannot encode count as different.
func sameEncoded(a, b []any, typeOf func(i int) string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		info, err := typeInfo(typeOf(i))
		if err != nil {
			return false
		}
		x, err1 := gocql.Marshal(info, a[i])
		y, err2 := gocql.Marshal(info, b[i])
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

// CompareUUID is UUIDType's order: by version (the high nibble of byte
// 6) first; version 1 uuids by their timestamp, others by their first 8
// bytes, unsigned; then by the last 8 bytes, unsigned.
func CompareUUID(a, b [16]byte) int {
	va, vb := a[6]>>4, b[6]>>4
	if va != vb {
		return sign(int(va) - int(vb))
	}
	if va == 1 {
		if c := compareUint(uuidTime(a), uuidTime(b)); c != 0 {
			return c
		}
		return bytes.Compare(a[8:], b[8:])
	}
	return bytes.Compare(a[:], b[:])
}

// CompareTimeUUID is TimeUUIDType's order, which differs from UUIDType's
// for equal timestamps (CASSANDRA-8730): by timestamp, then the clock
// sequence and node bytes as signed bytes, one by one.
func CompareTimeUUID(a, b [16]byte) int {
	if c := compareUint(uuidTime(a), uuidTime(b)); c != 0 {
		return c
	}
	for i := 8; i < 16; i++ {
		if x, y := int8(a[i]), int8(b[i]); x != y {
			return sign(int(x) - int(y))
		}
	}
	return 0
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func uuidTime(u [16]byte) uint64 {
	low := uint64(u[0])<<24 | uint64(u[1])<<16 | uint64(u[2])<<8 | uint64(u[3])
	mid := uint64(u[4])<<8 | uint64(u[5])
	hi := uint64(u[6]&0x0f)<<8 | uint64(u[7])
	return hi<<48 | mid<<32 | low
}

// TimeOfUUID is the time embedded in a timeuuid, for time buckets.
func TimeOfUUID(u [16]byte) time.Time { return gocql.UUID(u).Time() }

// ScanDuration scans a CQL duration column into a time.Duration. A
// duration with months cannot be one, and fails the scan.
func ScanDuration(d *time.Duration) any { return durationScanner{d} }

type durationScanner struct{ d *time.Duration }

func (s durationScanner) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	var v gocql.Duration
	if err := gocql.Unmarshal(info, data, &v); err != nil {
		return err
	}
	if v.Months != 0 {
		return fmt.Errorf("cqlgen: duration of %d months has no fixed length", v.Months)
	}
	*s.d = time.Duration(v.Days)*24*time.Hour + time.Duration(v.Nanoseconds)
	return nil
}

// IsZeroUUID reports the zero uuid, which is no key.
func IsZeroUUID(u [16]byte) bool { return u == [16]byte{} }

// ScanSet scans a CQL set into a Go map of empty structs, the mapping
// cqlgen documents for sets, which gocql can write but not read.
func ScanSet[K comparable](m *map[K]struct{}) any { return setScanner[K]{m} }

type setScanner[K comparable] struct{ m *map[K]struct{} }

func (s setScanner[K]) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	var elems []K
	if err := gocql.Unmarshal(info, data, &elems); err != nil {
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
