package value

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"net"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// SameEncoded reports whether a and b, value by value, encode to the same
// bytes with the CQL type typeOf(i) of each, sets and maps in Cassandra's
// order: equal as Cassandra stores them. Values it cannot encode count as
// different.
func SameEncoded(a, b []any, typeOf func(i int) string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		typ, err := cqldriver.ParseType(typeOf(i))
		if err != nil {
			return false
		}
		x, err1 := MarshalSorted(typ, a[i])
		y, err2 := MarshalSorted(typ, b[i])
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

// Vector is cqldriver.Vector, which generated code binds and scans
// vector columns through.
type Vector = cqldriver.Vector

// VectorOrUnset binds a vector field: the vector, or, when it is empty,
// unset if unset is true (an Insert writes nothing) and null if not (an
// Update clears it).
func VectorOrUnset(v []float32, unset bool) any {
	if len(v) == 0 {
		if unset {
			return cqldriver.Unset
		}
		return Vector(nil)
	}
	return Vector(v)
}

// CheckVector refuses a vector whose length is not the column's
// dimension, before anything is sent: Cassandra would refuse the write
// anyway, but after the other statements of a logical write may have
// gone out. An empty vector (no embedding yet) is null and passes.
func CheckVector(table, column string, v []float32, dim int) error {
	if len(v) != 0 && len(v) != dim {
		return &cqlgen.InputError{Err: cqlgen.ErrVectorDimension, Table: table, Name: column, Reason: fmt.Sprintf("the column holds vectors of %d floats; this one has %d", dim, len(v))}
	}
	return nil
}

// VectorDim is N of vector<float, N>; 0 when the type is none.
func VectorDim(typ string) int {
	i, j := strings.LastIndexByte(typ, ','), strings.LastIndexByte(typ, '>')
	if !strings.HasPrefix(typ, "vector<") || i < 0 || j < i {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(typ[i+1 : j]))
	if err != nil {
		return 0
	}
	return n
}

// OrUnset binds a pointer field: its value, or when nil, unset (writing
// nothing) if unset is true and null (clearing the column) if not. Null
// is the nil pointer itself, not an untyped nil: drivers write a nil
// pointer as null for every type, but gocql refuses an untyped nil for a
// user-defined type.
func OrUnset[T any](p *T, unset bool) any {
	if p != nil {
		return *p
	}
	if unset {
		return cqldriver.Unset
	}
	return p
}

// SliceOrUnset binds a list or set field: the slice, or unset when it is
// empty and unset is true.
func SliceOrUnset[S ~[]E, E any](s S, unset bool) any {
	if len(s) == 0 && unset {
		return cqldriver.Unset
	}
	return s
}

// MapOrUnset binds a map or set field: the map, or unset when it is empty
// and unset is true.
func MapOrUnset[M ~map[K]V, K comparable, V any](m M, unset bool) any {
	if len(m) == 0 && unset {
		return cqldriver.Unset
	}
	return m
}

// Cell is a column's value as Cassandra sent it.
type Cell []byte

// UnmarshalCQLValue implements cqldriver.ValueUnmarshaler: it keeps the
// bytes. An empty value (an empty string or blob) stays empty, not nil:
// nil is a null, which the row Verify expects would not hold.
func (c *Cell) UnmarshalCQLValue(_ *cqldriver.Type, data []byte) error {
	if data == nil {
		*c = nil
		return nil
	}
	*c = append((*c)[:0], data...)
	if *c == nil {
		*c = Cell{}
	}
	return nil
}

// RenderEncoded renders an encoded key value of a column of the given CQL
// type for a person to read: decoded here rather than by a driver, so
// that a report reads the same whatever the driver. Types a key rarely
// has (decimals, durations, collections, user-defined types) and values
// that do not decode show as hex.
func RenderEncoded(cqlType string, b []byte) string {
	t, err := cqldriver.ParseType(cqlType)
	if err != nil || (len(b) == 0 && t.Kind != cqldriver.TypeVarchar && t.Kind != cqldriver.TypeAscii && t.Kind != cqldriver.TypeBlob) {
		return hex.EncodeToString(b)
	}
	if n, ok := cqldriver.FixedSize(t.Kind); ok && len(b) != n {
		return hex.EncodeToString(b)
	}
	signed := func() int64 { return cqldriver.Varint(b).Int64() }
	switch t.Kind {
	case cqldriver.TypeAscii, cqldriver.TypeVarchar, cqldriver.TypeText:
		if utf8.Valid(b) {
			return string(b)
		}
	case cqldriver.TypeBlob:
		return "0x" + hex.EncodeToString(b)
	case cqldriver.TypeBoolean:
		return strconv.FormatBool(b[0] != 0)
	case cqldriver.TypeTinyInt, cqldriver.TypeSmallInt, cqldriver.TypeInt, cqldriver.TypeBigInt, cqldriver.TypeCounter:
		return strconv.FormatInt(signed(), 10)
	case cqldriver.TypeVarint:
		return cqldriver.Varint(b).String()
	case cqldriver.TypeFloat:
		return strconv.FormatFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 'g', -1, 32)
	case cqldriver.TypeDouble:
		return strconv.FormatFloat(math.Float64frombits(binary.BigEndian.Uint64(b)), 'g', -1, 64)
	case cqldriver.TypeTimestamp:
		return time.UnixMilli(signed()).UTC().Format(time.RFC3339Nano)
	case cqldriver.TypeDate:
		// Days since the epoch, plus 2^31 so that the bytes sort.
		days := int64(binary.BigEndian.Uint32(b)) - 1<<31
		return time.Unix(days*24*60*60, 0).UTC().Format(time.DateOnly)
	case cqldriver.TypeTime:
		return time.Duration(signed()).String()
	case cqldriver.TypeUUID, cqldriver.TypeTimeUUID:
		h := hex.EncodeToString(b)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	case cqldriver.TypeInet:
		if len(b) == 4 || len(b) == 16 {
			return net.IP(b).String()
		}
	}
	return hex.EncodeToString(b)
}

// IntOf is an integer of any Go integer type, as a conversion to int64
// gives it.
func IntOf(v any) int64 {
	r := reflect.ValueOf(v)
	if r.CanUint() {
		return int64(r.Uint())
	}
	return r.Int()
}

// UuidOf is a uuid of any Go type whose underlying type is [16]byte.
func UuidOf(v any) (u [16]byte) {
	reflect.Copy(reflect.ValueOf(u[:]), reflect.ValueOf(v))
	return u
}

// Unnormalized is v without Normalized's wrapper.
func Unnormalized(v any) any {
	if n, ok := v.(normalized); ok {
		return n.v
	}
	return v
}

// EmptyValue reports whether v, a value of a column of CQL type typ, is
// empty as a partition key value: an empty string, a zero time, the
// zero UUID, an empty blob or collection. Numbers and booleans are never
// empty.
func EmptyValue(typ string, v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case time.Time:
		return v.IsZero()
	case []byte:
		return typ == "blob" && len(v) == 0
	case int, int8, int16, int32, int64, bool, float32, float64:
		return false
	}
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return false
	case typ == "uuid" || typ == "timeuuid":
		return rv.Kind() == reflect.Array && rv.IsZero()
	case rv.Kind() == reflect.String:
		return rv.Len() == 0
	case typ == "blob" || anyCollection(typ):
		return (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map) && rv.Len() == 0
	}
	return false
}

// EmptyField reports whether v, a field bound to a column of CQL type
// typ, is empty as a partition key value, as EmptyValue says of its
// value: an empty string, a zero time, the zero UUID, an empty blob or
// collection. Numbers and booleans are never empty.
func EmptyField(typ string, v reflect.Value) bool {
	switch {
	case v.Kind() == reflect.String:
		return v.Len() == 0
	case v.Type() == TimeType:
		return v.Addr().Interface().(*time.Time).IsZero()
	case typ == "uuid" || typ == "timeuuid":
		return v.Kind() == reflect.Array && v.IsZero()
	case typ == "blob" || anyCollection(typ):
		return (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.Len() == 0
	}
	return false
}

// TimeType is time.Time's reflect.Type.
var TimeType = reflect.TypeFor[time.Time]()

// Latest is the greatest of the write timestamps a scan read, the nulls
// (cells never written) aside; 0 when there is none.
func Latest(wts ...*int64) int64 {
	var m int64
	for _, wt := range wts {
		if wt != nil && *wt > m {
			m = *wt
		}
	}
	return m
}

func anyCollection(typ string) bool {
	typ = strings.TrimPrefix(typ, "frozen<")
	return strings.HasPrefix(typ, "list<") || strings.HasPrefix(typ, "set<") || strings.HasPrefix(typ, "map<")
}

// None is P's nil.
func None[P any]() (zero P) { return }

// IsNil reports whether p is nil. Every P of this package is a pointer
// (P = *T): its type parameters are of pointer shape only, constrained by
// any, so that each is compiled once for every T (a constraint such as
// comparable would give each pointer type a shape of its own), and so
// the nil test cannot be p == nil.
func IsNil[P any](p P) bool { return *(*unsafe.Pointer)(unsafe.Pointer(&p)) == nil }

// Uvarint reads an unsigned varint off the front of *r and moves *r past
// it; false when *r does not start with one. The runtime's own records
// (a cursor, the record of the last changes) are read with it and Varint.
func Uvarint(r *[]byte) (uint64, bool) {
	v, n := binary.Uvarint(*r)
	if n <= 0 {
		return 0, false
	}
	*r = (*r)[n:]
	return v, true
}

// Varint reads a signed varint off the front of *r, as Uvarint does.
func Varint(r *[]byte) (int64, bool) {
	v, n := binary.Varint(*r)
	if n <= 0 {
		return 0, false
	}
	*r = (*r)[n:]
	return v, true
}

// Encoded binds values already encoded (read from a row, or decoded from a
// cursor) as they are: each a cqldriver.Encoded.
func Encoded(bs [][]byte) []any {
	vs := make([]any, len(bs))
	for i, b := range bs {
		vs[i] = cqldriver.Encoded(b)
	}
	return vs
}
