package engine

import (
	"math/big"
	"reflect"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// EstimateBatchBytes estimates the serialized size of the bound values of
// a batch's statements, as the native protocol carries them: each value's
// bytes plus its 4-byte length. Cassandra's batch_size_warn_threshold and
// batch_size_fail_threshold measure the mutations the batch becomes, which
// are the same values plus a few bytes per cell, so a batch under the
// estimate's limit is, within a few percent, under Cassandra's.
//
// The common Go types of generated code (strings, byte slices, integers,
// floats, booleans, times, UUIDs and pointers to them) are sized without
// reflection or allocation; collections, user-defined types and anything
// else fall back to reflection.
func EstimateBatchBytes(qs []cqldriver.Query) int {
	n := 0
	for i := range qs {
		for _, v := range qs[i].Values {
			n += 4 + valueBytes(v)
		}
	}
	return n
}

// valueBytes is the serialized size of one bound value, without its
// length prefix.
func valueBytes(v any) int {
	switch v := v.(type) {
	case nil:
		return 0
	case string:
		return len(v)
	case []byte:
		return len(v)
	case cqldriver.Encoded:
		return len(v)
	case bool, int8, uint8:
		return 1
	case int16, uint16:
		return 2
	case int32, uint32, float32:
		return 4
	case int, int64, uint, uint64, float64, time.Duration:
		return 8
	case time.Time:
		return 8
	case [16]byte:
		return 16
	case *string:
		if v == nil {
			return 0
		}
		return len(*v)
	case *[]byte:
		if v == nil {
			return 0
		}
		return len(*v)
	case *bool:
		return ptrSize(v == nil, 1)
	case *int32:
		return ptrSize(v == nil, 4)
	case *int:
		return ptrSize(v == nil, 8)
	case *int64:
		return ptrSize(v == nil, 8)
	case *float64:
		return ptrSize(v == nil, 8)
	case *time.Time:
		return ptrSize(v == nil, 8)
	case *big.Int: // varint
		if v == nil {
			return 0
		}
		return v.BitLen()/8 + 1
	case interface{ UnscaledBig() *big.Int }: // decimal: *inf.Dec
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return 0
		}
		return 4 + v.UnscaledBig().BitLen()/8 + 1
	}
	if cqldriver.IsUnset(v) {
		return 0
	}
	return reflectBytes(reflect.ValueOf(v))
}

var timeType = reflect.TypeFor[time.Time]()

func ptrSize(isNil bool, n int) int {
	if isNil {
		return 0
	}
	return n
}

// reflectBytes sizes what valueBytes does not know: collections (an
// element count, then each element with its length), tuples and UDTs (each
// field with its length), named types over the basic kinds.
func reflectBytes(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Invalid:
		return 0
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		return reflectBytes(v.Elem())
	case reflect.String:
		return v.Len()
	case reflect.Bool, reflect.Int8, reflect.Uint8:
		return 1
	case reflect.Int16, reflect.Uint16:
		return 2
	case reflect.Int32, reflect.Uint32, reflect.Float32:
		return 4
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64, reflect.Float64, reflect.Uintptr:
		return 8
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Len() // blob, or a fixed-size id such as a UUID
		}
		n := 4
		for i := range v.Len() {
			n += 4 + reflectBytes(v.Index(i))
		}
		return n
	case reflect.Map:
		n := 4
		for it := v.MapRange(); it.Next(); {
			n += 8 + reflectBytes(it.Key()) + reflectBytes(it.Value())
		}
		return n
	case reflect.Struct:
		if v.Type() == timeType {
			return 8
		}
		n := 0
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += 4 + reflectBytes(v.Field(i))
			}
		}
		return n
	}
	return 8
}
