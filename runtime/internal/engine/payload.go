package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// PayloadHash fingerprints a command for an idempotency key: a SHA-256 of
// every statement's CQL and bound values, each value tagged with its kind,
// so that "1" and 1, or ["a","b"] and ["ab"], differ. Maps are hashed in
// key order and pointers by what they point to, so the hash depends on
// values only, never on addresses or map iteration order.
func PayloadHash(qs []cqldriver.Query) []byte {
	var p payloadHasher
	for _, q := range qs {
		p.str(q.Stmt.CQL)
		p.int(uint64(len(q.Values)))
		for _, v := range q.Values {
			p.value(reflect.ValueOf(v))
		}
	}
	sum := sha256.Sum256(p.buf.Bytes())
	return sum[:]
}

type payloadHasher struct{ buf bytes.Buffer }

func (p *payloadHasher) tag(t byte) { p.buf.WriteByte(t) }

func (p *payloadHasher) int(n uint64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	p.buf.Write(b[:])
}

func (p *payloadHasher) str(s string) {
	p.int(uint64(len(s)))
	p.buf.WriteString(s)
}

func (p *payloadHasher) value(v reflect.Value) {
	if !v.IsValid() {
		p.tag('0') // nil: null
		return
	}
	if v.CanInterface() && cqldriver.IsUnset(v.Interface()) {
		p.tag('u')
		return
	}
	if v.Type() == timeType {
		t := v.Interface().(time.Time)
		p.tag('t')
		p.int(uint64(t.Unix()))
		p.int(uint64(t.Nanosecond()))
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			p.tag('0')
			return
		}
		// Types with hidden state, such as *big.Int and *inf.Dec for
		// varint and decimal, say their value through String.
		if s, ok := v.Interface().(fmt.Stringer); ok && v.Kind() == reflect.Pointer && hasUnexported(v.Elem()) {
			p.tag('S')
			p.str(s.String())
			return
		}
		p.value(v.Elem())
	case reflect.String:
		p.tag('s')
		p.str(v.String())
	case reflect.Bool:
		p.tag('b')
		if v.Bool() {
			p.int(1)
		} else {
			p.int(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		p.tag('i')
		p.int(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		p.tag('n')
		p.int(v.Uint())
	case reflect.Float32, reflect.Float64:
		p.tag('f')
		p.int(math.Float64bits(v.Float()))
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			p.tag('y')
			b := make([]byte, v.Len())
			reflect.Copy(reflect.ValueOf(b), v)
			p.str(string(b))
			return
		}
		if v.Kind() == reflect.Slice && v.IsNil() {
			p.tag('0')
			return
		}
		p.tag('l')
		p.int(uint64(v.Len()))
		for i := range v.Len() {
			p.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			p.tag('0')
			return
		}
		// Each entry hashed on its own, then sorted: the order of a set
		// or map is not part of its value.
		entries := make([][]byte, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			var e payloadHasher
			e.value(it.Key())
			e.value(it.Value())
			entries = append(entries, e.buf.Bytes())
		}
		slices.SortFunc(entries, func(a, b []byte) int { return bytes.Compare(a, b) })
		p.tag('m')
		p.int(uint64(len(entries)))
		for _, e := range entries {
			p.str(string(e))
		}
	case reflect.Struct:
		if hasUnexported(v) {
			// Not a UDT or tuple struct: fmt shows unexported state too.
			p.tag('S')
			p.str(fmt.Sprint(v.Interface()))
			return
		}
		p.tag('r')
		p.str(v.Type().String())
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				p.value(v.Field(i))
			}
		}
	default:
		// Channels, functions: never a CQL value; hash what fmt shows.
		p.tag('?')
		p.str(fmt.Sprint(v))
	}
}

func hasUnexported(v reflect.Value) bool {
	if v.Kind() != reflect.Struct {
		return false
	}
	for i := range v.NumField() {
		if !v.Type().Field(i).IsExported() {
			return true
		}
	}
	return false
}
