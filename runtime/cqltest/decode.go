package cqltest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"net"
	"reflect"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// Duration is a CQL duration as Rows and ExecCASMap return it: months,
// days and nanoseconds, each signed, as the protocol encodes them.
type Duration struct {
	Months, Days int32
	Nanoseconds  int64
}

// Decimal is a CQL decimal as Rows and ExecCASMap return it: Unscaled ×
// 10^-Scale, as the protocol encodes it.
type Decimal struct {
	Unscaled *big.Int
	Scale    int32
}

// decode turns a stored value into a Go value that depends on no driver,
// as Rows and ExecCASMap return values: text and ascii as string, bigint
// and counter as int64, int as int, smallint as int16, tinyint as int8,
// float as float32, double as float64, boolean as bool, blob as []byte,
// timestamp and date as time.Time (UTC), time as time.Duration, uuid and
// timeuuid as [16]byte (which either driver's UUID converts from),
// varint as *big.Int, decimal as Decimal, inet as net.IP, duration as
// Duration, vector<float, n> as []float32; a list or set as a slice, a map as a map, a user-defined
// type as a map[string]any by field name (nil for a null field). A null
// value (nil b) is the type's zero value.
func decode(t *cqlType, b []byte) (any, error) {
	v, err := decodeValue(t, b)
	if err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

// readVint reads an unsigned variable-length integer as Cassandra's
// VIntCoding writes it (a duration's fields, zig-zag encoded): the first
// byte's leading 1 bits count the bytes that follow, and the value is
// the first byte's other bits then those bytes, big-endian. n is the
// bytes read, 0 when b is too short. (Not protobuf's varint, which
// binary.Uvarint reads: the two agree on values below 128 only.)
func readVint(b []byte) (u uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	extra := 0
	for extra < 8 && b[0]&(0x80>>extra) != 0 {
		extra++
	}
	if len(b) < 1+extra {
		return 0, 0
	}
	if extra < 8 {
		u = uint64(b[0] & (0xff >> (extra + 1)))
	}
	for _, c := range b[1 : 1+extra] {
		u = u<<8 | uint64(c)
	}
	return u, 1 + extra
}

// goTypes are the Go types decode gives native CQL types.
var goTypes = map[cqldriver.TypeKind]reflect.Type{
	cqldriver.TypeAscii: reflect.TypeFor[string](), cqldriver.TypeVarchar: reflect.TypeFor[string](),
	cqldriver.TypeBigInt: reflect.TypeFor[int64](), cqldriver.TypeCounter: reflect.TypeFor[int64](),
	cqldriver.TypeInt: reflect.TypeFor[int](), cqldriver.TypeSmallInt: reflect.TypeFor[int16](),
	cqldriver.TypeTinyInt: reflect.TypeFor[int8](), cqldriver.TypeFloat: reflect.TypeFor[float32](),
	cqldriver.TypeDouble: reflect.TypeFor[float64](), cqldriver.TypeBoolean: reflect.TypeFor[bool](),
	cqldriver.TypeBlob: reflect.TypeFor[[]byte](), cqldriver.TypeTimestamp: reflect.TypeFor[time.Time](),
	cqldriver.TypeDate: reflect.TypeFor[time.Time](), cqldriver.TypeTime: reflect.TypeFor[time.Duration](),
	cqldriver.TypeUUID: reflect.TypeFor[[16]byte](), cqldriver.TypeTimeUUID: reflect.TypeFor[[16]byte](),
	cqldriver.TypeVarint: reflect.TypeFor[*big.Int](), cqldriver.TypeDecimal: reflect.TypeFor[Decimal](),
	cqldriver.TypeInet: reflect.TypeFor[net.IP](), cqldriver.TypeDuration: reflect.TypeFor[Duration](),
}

func goType(t *cqlType) reflect.Type {
	switch {
	case t.kind == cqldriver.TypeList, t.kind == cqldriver.TypeSet:
		return reflect.SliceOf(goType(t.elem))
	case t.kind == cqldriver.TypeMap:
		return reflect.MapOf(goType(t.key), goType(t.elem))
	case t.isUDT():
		return reflect.TypeFor[map[string]any]()
	case t.isVector():
		return reflect.TypeFor[[]float32]()
	}
	return goTypes[t.kind]
}

func decodeValue(t *cqlType, b []byte) (reflect.Value, error) {
	gt := goType(t)
	if gt == nil {
		return reflect.Value{}, fmt.Errorf("cqltest: no Go type for %s", t.name)
	}
	if b == nil {
		return reflect.Zero(gt), nil
	}
	switch {
	case t.isCollection():
		elems, err := t.elements(b)
		if err != nil {
			return reflect.Value{}, err
		}
		if t.kind == cqldriver.TypeMap {
			m := reflect.MakeMapWithSize(gt, len(elems)/2)
			for i := 0; i < len(elems); i += 2 {
				k, err := decodeValue(t.key, elems[i])
				if err != nil {
					return reflect.Value{}, err
				}
				v, err := decodeValue(t.elem, elems[i+1])
				if err != nil {
					return reflect.Value{}, err
				}
				m.SetMapIndex(k, v)
			}
			return m, nil
		}
		s := reflect.MakeSlice(gt, 0, len(elems))
		for _, e := range elems {
			v, err := decodeValue(t.elem, e)
			if err != nil {
				return reflect.Value{}, err
			}
			s = reflect.Append(s, v)
		}
		return s, nil
	case t.isVector():
		v := make([]float32, t.dims)
		for i := range v {
			v[i] = math.Float32frombits(binary.BigEndian.Uint32(b[4*i:]))
		}
		return reflect.ValueOf(v), nil
	case t.isUDT():
		vals, err := t.udtValues(b)
		if err != nil {
			return reflect.Value{}, err
		}
		m := make(map[string]any, len(vals))
		for i, f := range t.fields {
			if vals[i] == nil {
				m[f.name] = nil
				continue
			}
			v, err := decode(f.typ, vals[i])
			if err != nil {
				return reflect.Value{}, err
			}
			m[f.name] = v
		}
		return reflect.ValueOf(m), nil
	}
	v, err := decodeNative(t.kind, b)
	if err != nil {
		return reflect.Value{}, err
	}
	return reflect.ValueOf(v).Convert(gt), nil
}

// decodeNative decodes a native value, valid for its type (validate).
func decodeNative(kind cqldriver.TypeKind, b []byte) (any, error) {
	if len(b) == 0 {
		return reflect.Zero(goTypes[kind]).Interface(), nil
	}
	switch kind {
	case cqldriver.TypeAscii, cqldriver.TypeVarchar:
		return string(b), nil
	case cqldriver.TypeBlob:
		return append([]byte{}, b...), nil
	case cqldriver.TypeBoolean:
		return b[0] != 0, nil
	case cqldriver.TypeTinyInt, cqldriver.TypeSmallInt, cqldriver.TypeInt, cqldriver.TypeBigInt, cqldriver.TypeCounter:
		return reflect.ValueOf(signedInt(b)).Convert(goTypes[kind]).Interface(), nil
	case cqldriver.TypeFloat:
		return math.Float32frombits(binary.BigEndian.Uint32(b)), nil
	case cqldriver.TypeDouble:
		return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
	case cqldriver.TypeTimestamp:
		return time.UnixMilli(signedInt(b)).UTC(), nil
	case cqldriver.TypeDate:
		days := int64(binary.BigEndian.Uint32(b)) - 1<<31
		return time.Unix(days*86400, 0).UTC(), nil
	case cqldriver.TypeTime:
		return time.Duration(signedInt(b)), nil
	case cqldriver.TypeUUID, cqldriver.TypeTimeUUID:
		return [16]byte(b), nil
	case cqldriver.TypeVarint:
		return twosComplementInt(b), nil
	case cqldriver.TypeDecimal:
		return Decimal{Unscaled: twosComplementInt(b[4:]), Scale: int32(binary.BigEndian.Uint32(b))}, nil
	case cqldriver.TypeInet:
		return net.IP(append([]byte{}, b...)), nil
	case cqldriver.TypeDuration:
		var d Duration
		r := b
		for i, dst := range []*int64{new(int64), new(int64), &d.Nanoseconds} {
			u, n := readVint(r)
			if n <= 0 {
				return nil, fmt.Errorf("cqltest: malformed duration")
			}
			r = r[n:]
			*dst = int64(u>>1) ^ -int64(u&1) // zig-zag
			switch i {
			case 0:
				d.Months = int32(*dst)
			case 1:
				d.Days = int32(*dst)
			}
		}
		return d, nil
	}
	return nil, fmt.Errorf("cqltest: cannot decode type %d", kind)
}
