package cqldriver

import (
	"errors"
	"sync"
	"sync/atomic"
)

// A Codec encodes and decodes single CQL values, as a driver does. The
// runtime encodes some values itself (the keys of cursors, of the write
// protocol's pending records and of unique claims, and values it compares
// in Cassandra's order) and uses the codecs of the drivers linked into the
// program for that, so that a key encodes exactly as the driver sends it.
//
// Driver adapters register theirs in an init function, as database/sql
// drivers do: importing github.com/cqlgen/cqlgen/runtime/gocqlv1 (or the
// gocqlv2 module) is what makes Marshal work. Several may be registered:
// CQL's encoding is the protocol's, the same whatever the driver, so each
// value goes to the first codec that knows its Go type (a gocql v1 UUID to
// the v1 codec, a v2 UUID to the v2 one).
type Codec interface {
	// Marshal encodes v as a value of type t; nil (or a nil pointer) is
	// null, encoded as nil.
	Marshal(t *Type, v any) ([]byte, error)
	// Unmarshal decodes data, a value of type t, into dst, a pointer.
	Unmarshal(t *Type, data []byte, dst any) error
}

var (
	codecsMu sync.Mutex
	codecs   atomic.Pointer[[]namedCodec] // copied on write
)

type namedCodec struct {
	name string
	c    Codec
}

// RegisterCodec makes a driver's codec available to Marshal and
// Unmarshal. Adapters call it from init; registering a name twice panics,
// as sql.Register does.
func RegisterCodec(name string, c Codec) {
	codecsMu.Lock()
	defer codecsMu.Unlock()
	old := codecList()
	for _, nc := range old {
		if nc.name == name {
			panic("cqlgen: RegisterCodec called twice for " + name)
		}
	}
	next := append(append([]namedCodec(nil), old...), namedCodec{name, c})
	codecs.Store(&next)
}

func codecList() []namedCodec {
	if l := codecs.Load(); l != nil {
		return *l
	}
	return nil
}

// ErrNoCodec is the error of Marshal and Unmarshal in a program that links
// no driver adapter.
var ErrNoCodec = errors.New("cqlgen: no driver adapter is linked into this program: import github.com/cqlgen/cqlgen/runtime/gocqlv1 or github.com/cqlgen/cqlgen/runtime/gocqlv2")

// Marshal encodes v as a value of the CQL type t, with the first
// registered codec that can, in its one canonical encoding (Canonical:
// sets and maps in Cassandra's order). Values the runtime defines
// (Encoded, a ValueMarshaler) are encoded without one, as they are.
func Marshal(t *Type, v any) ([]byte, error) {
	switch x := v.(type) {
	case Encoded:
		return x, nil
	case ValueMarshaler:
		return x.MarshalCQLValue(t)
	}
	l := codecList()
	if len(l) == 0 {
		return nil, ErrNoCodec
	}
	var first error
	for _, nc := range l {
		b, err := nc.c.Marshal(t, v)
		if err == nil {
			return Canonical(t, b), nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

// Unmarshal decodes data, a value of the CQL type t, into dst with the
// first registered codec that can.
func Unmarshal(t *Type, data []byte, dst any) error {
	if u, ok := dst.(ValueUnmarshaler); ok {
		return u.UnmarshalCQLValue(t, data)
	}
	l := codecList()
	if len(l) == 0 {
		return ErrNoCodec
	}
	var first error
	for _, nc := range l {
		err := nc.c.Unmarshal(t, data, dst)
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// MarshalType is Marshal for a type given as CQL (see ParseType).
func MarshalType(cqlType string, v any) ([]byte, error) {
	t, err := ParseType(cqlType)
	if err != nil {
		return nil, err
	}
	return Marshal(t, v)
}

// Encoded is a value already in CQL's encoding (Marshal's result), bound
// as it is: cursors bind the keys they carry this way.
type Encoded []byte

// ValueMarshaler is implemented by values that encode themselves, the
// same way whatever the driver: the runtime's Vector, for one. Driver
// adapters bind them through their driver's own Marshaler interface.
type ValueMarshaler interface {
	MarshalCQLValue(t *Type) ([]byte, error)
}

// ValueUnmarshaler is implemented by scan destinations that decode
// themselves; t is the column's type as the driver reports it.
type ValueUnmarshaler interface {
	UnmarshalCQLValue(t *Type, data []byte) error
}

// unset is the type of Unset.
type unset struct{}

func (unset) String() string { return "cqlgen.Unset" }

// Unset, bound to a column, leaves it as it is: the statement writes
// nothing to it (protocol v4's unset value). Driver adapters bind their
// driver's UnsetValue in its place.
var Unset any = unset{}

// IsUnset reports whether v is Unset.
func IsUnset(v any) bool { _, ok := v.(unset); return ok }

// IsOwnValue reports the values the runtime binds that no driver knows:
// Unset, Encoded and ValueMarshalers. Adapters convert them to their
// driver's own (ConvertValues), as they do the values that may hold a set
// or a map (MayHoldUnordered).
func IsOwnValue(v any) bool {
	switch v.(type) {
	case Encoded, ValueMarshaler:
		return true
	}
	return IsUnset(v)
}

// ConvertValues returns vs with convert applied to each of the runtime's
// own values (IsOwnValue) and each value that may hold a set or a map
// (MayHoldUnordered), for an adapter to bind. It copies the slice only
// when there is one: most statements' values go to the driver as they
// are, without an allocation.
func ConvertValues(vs []any, convert func(any) any) []any {
	return ConvertWhere(vs, needsConverting, convert)
}

func needsConverting(v any) bool { return IsOwnValue(v) || MayHoldUnordered(v) }

// ConvertDests returns ds with convert applied to each scan destination
// that is a ValueUnmarshaler, copying the slice only when there is one.
func ConvertDests(ds []any, convert func(any) any) []any {
	return ConvertWhere(ds, isValueUnmarshaler, convert)
}

func isValueUnmarshaler(d any) bool { _, ok := d.(ValueUnmarshaler); return ok }

// ConvertWhere returns vs with convert applied to each value that needs
// reports, copying the slice only when there is one. ConvertValues and
// ConvertDests are its common uses; an adapter whose driver needs more of
// its scan destinations converted (a driver that cannot scan a null into
// some type, say) gives its own needs.
func ConvertWhere(vs []any, needs func(any) bool, convert func(any) any) []any {
	var out []any
	for i, v := range vs {
		if !needs(v) {
			continue
		}
		if out == nil {
			out = append([]any(nil), vs...)
		}
		out[i] = convert(v)
	}
	if out == nil {
		return vs
	}
	return out
}
