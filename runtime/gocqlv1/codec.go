package gocqlv1

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/gocql/gocql"
)

func init() {
	cqldriver.RegisterCodec("gocql", codec{})
	cqldriver.RegisterClassifier(classify)
}

// codec is gocql's marshaller as a cqldriver.Codec.
type codec struct{}

func (codec) Marshal(t *cqldriver.Type, v any) ([]byte, error) {
	info, err := typeInfo(t)
	if err != nil {
		return nil, err
	}
	return gocql.Marshal(info, Value(v))
}

func (codec) Unmarshal(t *cqldriver.Type, data []byte, dst any) error {
	info, err := typeInfo(t)
	if err != nil {
		return err
	}
	return gocql.Unmarshal(info, data, Dest(dst))
}

// protoVersion is the protocol version type infos are built for; only
// protocol 2 and older encode collections differently.
const protoVersion = 4

var infos sync.Map // *cqldriver.Type → gocql.TypeInfo

// typeInfo is gocql's TypeInfo for t.
func typeInfo(t *cqldriver.Type) (gocql.TypeInfo, error) {
	if i, ok := infos.Load(t); ok {
		return i.(gocql.TypeInfo), nil
	}
	i, err := buildInfo(t)
	if err != nil {
		return nil, err
	}
	infos.Store(t, i)
	return i, nil
}

func buildInfo(t *cqldriver.Type) (gocql.TypeInfo, error) {
	switch t.Kind {
	case cqldriver.TypeList, cqldriver.TypeSet, cqldriver.TypeMap:
		elem, err := buildInfo(t.Elem)
		if err != nil {
			return nil, err
		}
		c := gocql.CollectionType{NativeType: gocql.NewNativeType(protoVersion, gocql.Type(t.Kind), ""), Elem: elem}
		if t.Kind == cqldriver.TypeMap {
			if c.Key, err = buildInfo(t.Key); err != nil {
				return nil, err
			}
		}
		return c, nil
	case cqldriver.TypeUDT:
		u := gocql.UDTTypeInfo{NativeType: gocql.NewNativeType(protoVersion, gocql.TypeUDT, ""), Name: t.Name}
		for _, f := range t.Fields {
			fi, err := buildInfo(f.Type)
			if err != nil {
				return nil, err
			}
			u.Elements = append(u.Elements, gocql.UDTField{Name: f.Name, Type: fi})
		}
		return u, nil
	case cqldriver.TypeTuple:
		return nil, fmt.Errorf("cqlgen/gocqlv1: tuples are not supported")
	case cqldriver.TypeCustom:
		// vector<float, n>: gocql v1.7.0 knows no vectors; the values
		// that go in one (cqlgenimpl.Vector) encode themselves.
		return gocql.NewNativeType(protoVersion, gocql.TypeCustom, t.CQL), nil
	}
	return gocql.NewNativeType(protoVersion, gocql.Type(t.Kind), ""), nil
}

// cqlType is the cqldriver.Type of a gocql TypeInfo, for the values that
// decode themselves (cqldriver.ValueUnmarshaler). It goes through
// cqldriver.ParseType, so that each type has one *cqldriver.Type, which infos
// caches once.
func cqlType(info gocql.TypeInfo) *cqldriver.Type {
	// A native type, the most common, by its kind alone: a scan decodes
	// every cell of every row through here.
	native, isNative := info.(gocql.NativeType)
	k := info.Type()
	if isNative && k != gocql.TypeCustom && int(k) < len(nativeTypes) {
		if t := nativeTypes[k].Load(); t != nil {
			return t
		}
		if t, err := cqldriver.ParseType(native.Type().String()); err == nil {
			nativeTypes[k].Store(t)
			return t
		}
	}
	s := cqlString(info)
	if t, err := cqldriver.ParseType(s); err == nil {
		return t
	}
	// A type ParseType does not read (a tuple): described, not cached.
	return &cqldriver.Type{Kind: cqldriver.TypeKind(info.Type()), CQL: s}
}

// nativeTypes are the native types cqlType has parsed, by kind.
var nativeTypes [0x40]atomic.Pointer[cqldriver.Type]

// cqlString writes info the way cqldriver.ParseType reads types.
func cqlString(info gocql.TypeInfo) string {
	switch x := info.(type) {
	case gocql.CollectionType:
		switch x.Type() {
		case gocql.TypeMap:
			return "map<" + cqlString(x.Key) + ", " + cqlString(x.Elem) + ">"
		case gocql.TypeSet:
			return "set<" + cqlString(x.Elem) + ">"
		}
		return "list<" + cqlString(x.Elem) + ">"
	case gocql.UDTTypeInfo:
		s := "udt<" + x.Name
		for _, e := range x.Elements {
			s += ", " + e.Name + " " + cqlString(e.Type)
		}
		return s + ">"
	case nil:
		return "custom"
	}
	if info.Type() == gocql.TypeCustom {
		return info.Custom()
	}
	return info.Type().String()
}

// Value is v as gocql binds it: the runtime's own values (cqldriver.Unset,
// cqldriver.Encoded, a cqldriver.ValueMarshaler) become gocql's; a value that
// may hold a set or a map (cqldriver.MayHoldUnordered) is encoded by gocql
// and then put in its canonical form (cqldriver.Canonical), since gocql
// writes a Go map in its random iteration order and Cassandra keeps a
// descending key's or a user-defined type's bytes as sent. Other values
// are returned as they are.
func Value(v any) any {
	switch x := v.(type) {
	case cqldriver.Encoded:
		return encoded(x)
	case cqldriver.ValueMarshaler:
		return marshaler{x}
	}
	if cqldriver.IsUnset(v) {
		return gocql.UnsetValue
	}
	if cqldriver.MayHoldUnordered(v) {
		return canonical{v}
	}
	return v
}

// values converts vs with Value, copying the slice only when a value
// changes.
func values(vs []any) []any { return cqldriver.ConvertValues(vs, Value) }

// Dest is dst as gocql scans into it: a cqldriver.ValueUnmarshaler becomes a
// gocql.Unmarshaler.
func Dest(dst any) any {
	switch x := dst.(type) {
	case cqldriver.ValueUnmarshaler:
		return unmarshaler{x}
	case *net.IP:
		return inetDest{x}
	case *[16]byte:
		return uuidDest{x}
	}
	return dst
}

// uuidDest reads a uuid into a [16]byte, a null one as zeros, as into a
// gocql.UUID: gocql refuses a null uuid into a [16]byte ("can not
// unmarshal X uuid"), so a row with a null one (a deleted entity's grave,
// whose columns are null) failed every read, and the write protocol took
// the failure for a lost reply.
type uuidDest struct{ p *[16]byte }

func (d uuidDest) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if len(data) == 0 {
		*d.p = [16]byte{}
		return nil
	}
	return gocql.Unmarshal(info, data, d.p)
}

// inetDest reads an inet into a net.IP, a null one as nil: gocql v1
// refuses a null inet ("invalid sized IP: got 0 bytes"), so an entity
// whose net.IP field was nil could be written and never read back (the
// ASF driver v2 reads it as nil).
type inetDest struct{ p *net.IP }

func (d inetDest) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if len(data) == 0 {
		*d.p = nil
		return nil
	}
	return gocql.Unmarshal(info, data, d.p)
}

// dests converts ds with Dest, copying the slice only when one changes.
func dests(ds []any) []any { return cqldriver.ConvertWhere(ds, needsDest, Dest) }

// needsDest reports the destinations Dest converts.
func needsDest(d any) bool {
	switch d.(type) {
	case cqldriver.ValueUnmarshaler, *net.IP, *[16]byte:
		return true
	}
	return false
}

type encoded []byte

func (e encoded) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return e, nil }

type marshaler struct{ m cqldriver.ValueMarshaler }

func (m marshaler) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	return m.m.MarshalCQLValue(cqlType(info))
}

// canonical binds a value in its canonical encoding, with the type the
// driver gives it: the column's, from the prepared statement.
type canonical struct{ v any }

func (c canonical) MarshalCQL(info gocql.TypeInfo) ([]byte, error) {
	b, err := gocql.Marshal(info, c.v)
	if err != nil || b == nil {
		return b, err
	}
	return cqldriver.Canonical(cqlType(info), b), nil
}

type unmarshaler struct{ u cqldriver.ValueUnmarshaler }

func (u unmarshaler) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	return u.u.UnmarshalCQLValue(cqlType(info), data)
}
