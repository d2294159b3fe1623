// Package gencache keeps the generator's output between runs, keyed by
// the model it was made from: an entity whose model did not change gets
// its code back without the emitter building it again.
//
// A key is a SHA-256 of the generator's build (Version) and of the model
// (Hasher), never of generated text. An entry on disk carries its key, a
// checksum and the length of its content, and is read back only when all
// match: a corrupt, truncated or foreign file is a miss, never output.
// Entries are written to a temporary file and renamed, so concurrent runs
// never see half an entry.
package gencache

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"go/token"
	"go/types"
	"math"
	"reflect"
	"slices"
	"strings"
)

// A Hasher writes values of the model into a SHA-256, by reflection over
// every field, exported or not, so that a field added to the model later
// is part of every key without anyone remembering to add it. Three things
// are left out:
//
//   - token.Position values: where a thing is written in the user's
//     source. No emitter writes a position into a generated file (a test
//     of the cache checks it), and leaving them out keeps an entity's key
//     the same when an entity above it in the file grows. SumAll puts
//     them back in, for what does depend on them (diagnostics).
//   - fields tagged cache:"-": values derived from the other fields on
//     first use (a table's rendered statements), and the sync.Once that
//     guards them.
//   - nothing else: a go/types type is written as types.TypeString with
//     full package paths, and a value the Hasher cannot write (a func, a
//     channel, a map keyed by something else than a string or an integer)
//     is an error, for which the caller does without the cache.
//
// A pointer met a second time is written as a reference to its first
// visit, so shared fields and back pointers (a table's entity) are
// written once and cycles end.
type Hasher struct {
	buf  []byte
	pos  []byte // the positions left out of buf, for SumAll
	seen map[ref]int
	err  error
	// What stays true from one key to the next: each type's typeInfo,
	// and the TypeString of each go/types type met.
	infos map[reflect.Type]*typeInfo
	names map[types.Type]string
}

// ref is a pointer met, by address and type: a struct and its first field
// share an address.
type ref struct {
	p uintptr
	t reflect.Type
}

// NewHasher returns a Hasher that starts with the given strings.
func NewHasher(prefix ...string) *Hasher {
	h := &Hasher{seen: map[ref]int{}, infos: map[reflect.Type]*typeInfo{}, names: map[types.Type]string{}}
	for _, s := range prefix {
		h.str(s)
	}
	return h
}

// Reset empties h and starts it again with the given strings, keeping
// its memory for the next key.
func (h *Hasher) Reset(prefix ...string) {
	h.buf, h.pos, h.err = h.buf[:0], h.pos[:0], nil
	clear(h.seen)
	for _, s := range prefix {
		h.str(s)
	}
}

// Add writes v, a value of the model (usually a pointer).
func (h *Hasher) Add(v any) { h.value(reflect.ValueOf(v)) }

// Sum returns the hash of everything written, or the first error.
func (h *Hasher) Sum() (Key, error) {
	if h.err != nil {
		return Key{}, h.err
	}
	return sha256.Sum256(h.buf), nil
}

// SumAll is Sum with the positions in: the key of something that says
// where things are written, as diagnostics do.
func (h *Hasher) SumAll() (Key, error) {
	if h.err != nil {
		return Key{}, h.err
	}
	d := sha256.New()
	d.Write(h.buf)
	d.Write([]byte{0xff})
	d.Write(h.pos)
	var k Key
	d.Sum(k[:0])
	return k, nil
}

// Key is a cache key.
type Key [sha256.Size]byte

func (k Key) String() string { return fmt.Sprintf("%x", k[:]) }

var (
	positionType = reflect.TypeFor[token.Position]()
	typesType    = reflect.TypeFor[types.Type]()
)

func (h *Hasher) u64(x uint64) { h.buf = binary.LittleEndian.AppendUint64(h.buf, x) }

func (h *Hasher) str(s string) {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(s)))
	h.buf = append(h.buf, s...)
}

func (h *Hasher) fail(format string, args ...any) {
	if h.err == nil {
		h.err = fmt.Errorf("gencache: "+format, args...)
	}
}

func (h *Hasher) value(v reflect.Value) {
	if h.err != nil {
		return
	}
	if !v.IsValid() {
		h.buf = append(h.buf, 0)
		return
	}
	t := v.Type()
	k := t.Kind()
	if k == reflect.Pointer || k == reflect.Interface {
		if h.goTypes(v, t) {
			return
		}
	}
	switch k {
	case reflect.Bool:
		if v.Bool() {
			h.buf = append(h.buf, 1)
		} else {
			h.buf = append(h.buf, 0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		h.u64(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		h.u64(v.Uint())
	case reflect.Float32, reflect.Float64:
		h.u64(math.Float64bits(v.Float()))
	case reflect.String:
		h.str(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			h.buf = append(h.buf, 0)
			return
		}
		if h.infoOf(t).foreign {
			h.fail("a %s in the model", t)
			return
		}
		r := ref{v.Pointer(), t}
		if n, ok := h.seen[r]; ok {
			h.buf = append(h.buf, 2)
			h.u64(uint64(n))
			return
		}
		h.seen[r] = len(h.seen)
		h.buf = append(h.buf, 1)
		h.value(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			h.buf = append(h.buf, 0)
			return
		}
		h.buf = append(h.buf, 1)
		h.str(v.Elem().Type().String())
		h.value(v.Elem())
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			h.buf = append(h.buf, 0)
			return
		}
		h.buf = append(h.buf, 1)
		h.u64(uint64(v.Len()))
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			h.buf = append(h.buf, v.Bytes()...)
			return
		}
		for i := range v.Len() {
			h.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			h.buf = append(h.buf, 0)
			return
		}
		h.buf = append(h.buf, 1)
		h.u64(uint64(v.Len()))
		keys := v.MapKeys()
		switch t.Key().Kind() {
		case reflect.String:
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			slices.SortFunc(keys, func(a, b reflect.Value) int { return cmpInt(a.Int(), b.Int()) })
		default:
			h.fail("a map keyed by %s in the model", t.Key())
			return
		}
		for _, k := range keys {
			h.value(k)
			h.value(v.MapIndex(k))
		}
	case reflect.Struct:
		if t == positionType {
			// Into the side buffer, in the order met.
			// (Field by field: v may be an unexported field.)
			file := v.Field(0).String() // Filename, Offset, Line, Column
			h.pos = binary.AppendUvarint(h.pos, uint64(len(file)))
			h.pos = append(h.pos, file...)
			for i := 1; i < 4; i++ {
				h.pos = binary.AppendVarint(h.pos, v.Field(i).Int())
			}
			return
		}
		for _, i := range h.infoOf(t).fields {
			h.value(v.Field(i))
		}
	default:
		h.fail("a %s in the model", t)
	}
}

// goTypes writes v when it is a go/types type, as its TypeString, and
// reports whether it was one.
func (h *Hasher) goTypes(v reflect.Value, t reflect.Type) bool {
	if !h.infoOf(t).goTypes {
		return false
	}
	switch {
	case v.IsNil():
		h.buf = append(h.buf, 0)
	case !v.CanInterface():
		h.fail("an unexported go/types value in %s", t)
	default:
		h.buf = append(h.buf, 1)
		gt := v.Interface().(types.Type)
		name, ok := h.names[gt]
		if !ok {
			name = types.TypeString(gt, nil)
			h.names[gt] = name
		}
		h.str(name)
	}
	return true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// typeInfo is what a Hasher needs to know of a type, worked out once.
type typeInfo struct {
	goTypes bool  // a go/types type, written as its TypeString
	foreign bool  // a pointer to some other go/... value, which no key can take
	fields  []int // a struct's fields but those tagged cache:"-"
}

// infoOf returns t's typeInfo.
func (h *Hasher) infoOf(t reflect.Type) *typeInfo {
	if info, ok := h.infos[t]; ok {
		return info
	}
	info := &typeInfo{}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		info.goTypes = t.Implements(typesType)
		info.foreign = t.Kind() == reflect.Pointer && strings.HasPrefix(t.Elem().PkgPath(), "go/")
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("cache") != "-" {
				info.fields = append(info.fields, i)
			}
		}
	}
	h.infos[t] = info
	return info
}
