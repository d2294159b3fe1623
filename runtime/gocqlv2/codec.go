package gocqlv2

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

func init() {
	cqldriver.RegisterCodec("gocql-v2", codec{})
	cqldriver.RegisterClassifier(classify)
}

// codec is the v2 driver's marshaller as a cqldriver.Codec.
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

// protoVersion is the protocol version type infos are built for: v2
// encodes every value the same way from protocol 3, the oldest it speaks,
// up.
const protoVersion = 5

// infos caches type infos by the type's CQL, which names it whole
// (ParseType's form); keying by the *cqldriver.Type would grow without bound
// for the types cqlType makes afresh for every value decoded.
var infos sync.Map // string → gocql.TypeInfo

// typeInfo is the v2 driver's TypeInfo for t.
func typeInfo(t *cqldriver.Type) (gocql.TypeInfo, error) {
	if t == nil {
		return nil, fmt.Errorf("cqlgen/gocqlv2: no type")
	}
	if t.CQL == "" {
		return buildInfo(t)
	}
	if i, ok := infos.Load(t.CQL); ok {
		return i.(gocql.TypeInfo), nil
	}
	i, err := buildInfo(t)
	if err != nil {
		return nil, err
	}
	infos.Store(t.CQL, i)
	return i, nil
}

func buildInfo(t *cqldriver.Type) (gocql.TypeInfo, error) {
	switch t.Kind {
	case cqldriver.TypeList, cqldriver.TypeSet, cqldriver.TypeMap:
		return collectionInfo(t)
	case cqldriver.TypeUDT:
		u := gocql.UDTTypeInfo{Name: t.Name, Elements: make([]gocql.UDTField, 0, len(t.Fields))}
		for _, f := range t.Fields {
			fi, err := buildInfo(f.Type)
			if err != nil {
				return nil, err
			}
			u.Elements = append(u.Elements, gocql.UDTField{Name: f.Name, Type: fi})
		}
		return u, nil
	case cqldriver.TypeTuple:
		return nil, fmt.Errorf("cqlgen/gocqlv2: tuples are not supported")
	case cqldriver.TypeCustom:
		if !t.IsVector() || t.Elem == nil || t.Dimensions <= 0 {
			return nil, fmt.Errorf("cqlgen/gocqlv2: unsupported custom type %q", t.CQL)
		}
		// v2 knows vectors: a vector of a fixed-size type is its elements
		// back to back, of another type each prefixed by its length.
		sub, err := buildInfo(t.Elem)
		if err != nil {
			return nil, err
		}
		return gocql.VectorType{SubType: sub, Dimensions: t.Dimensions}, nil
	}
	name, ok := nativeNames[t.Kind]
	if !ok {
		return nil, fmt.Errorf("cqlgen/gocqlv2: unknown CQL type %q (kind %#x)", t.CQL, uint16(t.Kind))
	}
	return parseInfo(name)
}

// collectionInfo builds a list, set or map. v2's CollectionType keeps
// which of the three it is in an unexported field, set only by the
// driver's own type parser: the collection is parsed with blob elements
// as a stand-in, and its exported Elem and Key are then replaced by the
// element types built here, which may be user-defined types the parser
// could not read from a name.
func collectionInfo(t *cqldriver.Type) (gocql.TypeInfo, error) {
	if t.Elem == nil || (t.Kind == cqldriver.TypeMap && t.Key == nil) {
		return nil, fmt.Errorf("cqlgen/gocqlv2: collection type %q without its element types", t.CQL)
	}
	shape := map[cqldriver.TypeKind]string{cqldriver.TypeList: "list<blob>", cqldriver.TypeSet: "set<blob>", cqldriver.TypeMap: "map<blob, blob>"}[t.Kind]
	info, err := parseInfo(shape)
	if err != nil {
		return nil, err
	}
	c, ok := info.(gocql.CollectionType)
	if !ok {
		return nil, fmt.Errorf("cqlgen/gocqlv2: the driver parsed %s as %T, not a collection", shape, info)
	}
	if c.Elem, err = buildInfo(t.Elem); err != nil {
		return nil, err
	}
	if t.Kind == cqldriver.TypeMap {
		if c.Key, err = buildInfo(t.Key); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// parseInfo has the driver parse a type by its CQL name. NewNativeType is
// the one exported way in; it panics on a name it cannot read, and the
// panic comes back as an error.
func parseInfo(name string) (info gocql.TypeInfo, err error) {
	defer func() {
		if r := recover(); r != nil {
			info, err = nil, fmt.Errorf("cqlgen/gocqlv2: the driver cannot read the type %q: %v", name, r)
		}
	}()
	return gocql.NewNativeType(protoVersion, gocql.TypeCustom, name), nil
}

// nativeNames are the CQL names of the native types, by kind.
var nativeNames = map[cqldriver.TypeKind]string{
	cqldriver.TypeAscii: "ascii", cqldriver.TypeBigInt: "bigint", cqldriver.TypeBlob: "blob",
	cqldriver.TypeBoolean: "boolean", cqldriver.TypeCounter: "counter", cqldriver.TypeDecimal: "decimal",
	cqldriver.TypeDouble: "double", cqldriver.TypeFloat: "float", cqldriver.TypeInt: "int",
	cqldriver.TypeText: "text", cqldriver.TypeTimestamp: "timestamp", cqldriver.TypeUUID: "uuid",
	cqldriver.TypeVarchar: "varchar", cqldriver.TypeVarint: "varint", cqldriver.TypeTimeUUID: "timeuuid",
	cqldriver.TypeInet: "inet", cqldriver.TypeDate: "date", cqldriver.TypeTime: "time",
	cqldriver.TypeSmallInt: "smallint", cqldriver.TypeTinyInt: "tinyint", cqldriver.TypeDuration: "duration",
}

// cqlType is the cqldriver.Type of a v2 TypeInfo, as the values that decode
// or encode themselves (cqldriver.ValueUnmarshaler, cqldriver.ValueMarshaler)
// are given it. Its CQL is in ParseType's form.
func cqlType(info gocql.TypeInfo) *cqldriver.Type {
	switch x := info.(type) {
	case nil:
		return &cqldriver.Type{Kind: cqldriver.TypeCustom}
	case gocql.CollectionType:
		t := &cqldriver.Type{Kind: cqldriver.TypeKind(x.Type()), Elem: cqlType(x.Elem)}
		switch t.Kind {
		case cqldriver.TypeMap:
			t.Key = cqlType(x.Key)
			t.CQL = "map<" + t.Key.CQL + ", " + t.Elem.CQL + ">"
		case cqldriver.TypeSet:
			t.CQL = "set<" + t.Elem.CQL + ">"
		default:
			t.CQL = "list<" + t.Elem.CQL + ">"
		}
		return t
	case gocql.UDTTypeInfo:
		t := &cqldriver.Type{Kind: cqldriver.TypeUDT, Name: x.Name}
		var b strings.Builder
		b.WriteString("udt<" + x.Name)
		for _, e := range x.Elements {
			ft := cqlType(e.Type)
			t.Fields = append(t.Fields, cqldriver.TypeField{Name: e.Name, Type: ft})
			b.WriteString(", " + e.Name + " " + ft.CQL)
		}
		b.WriteString(">")
		t.CQL = b.String()
		return t
	case gocql.VectorType:
		elem := cqlType(x.SubType)
		return &cqldriver.Type{
			Kind: cqldriver.TypeCustom, Name: "vector", Elem: elem, Dimensions: x.Dimensions,
			CQL: "vector<" + elem.CQL + ", " + strconv.Itoa(x.Dimensions) + ">",
		}
	case gocql.TupleTypeInfo:
		return &cqldriver.Type{Kind: cqldriver.TypeTuple, CQL: "tuple"}
	}
	k := cqldriver.TypeKind(info.Type())
	if int(k) < len(nativeTypes) && nativeTypes[k] != nil {
		// A scan decodes every cell of every row through here: one
		// Type for each native kind, made once.
		return nativeTypes[k]
	}
	return &cqldriver.Type{Kind: k, CQL: fmt.Sprintf("%T", info)}
}

// nativeTypes are the Types of the native kinds cqlType gives. Cassandra
// reports text columns as varchar; ParseType reads both names as the
// one kind, and generated code writes text.
var nativeTypes = func() (ts [0x40]*cqldriver.Type) {
	for k, name := range nativeNames {
		if k == cqldriver.TypeText || k == cqldriver.TypeVarchar {
			k, name = cqldriver.TypeVarchar, "text"
		}
		ts[k] = &cqldriver.Type{Kind: k, CQL: name}
	}
	ts[cqldriver.TypeText] = ts[cqldriver.TypeVarchar]
	return ts
}()

// Value is v as the v2 driver binds it: the runtime's own values
// (cqldriver.Unset, cqldriver.Encoded, a cqldriver.ValueMarshaler) become the
// driver's; a value that may hold a set or a map (cqldriver.MayHoldUnordered)
// is encoded by the driver and then put in its canonical form
// (cqldriver.Canonical), since the driver writes a Go map in its random
// iteration order and Cassandra keeps a descending key's or a
// user-defined type's bytes as sent. Other values are returned as they
// are.
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

// Dest is dst as the v2 driver scans into it: a cqldriver.ValueUnmarshaler
// becomes a gocql.Unmarshaler.
func Dest(dst any) any {
	switch x := dst.(type) {
	case cqldriver.ValueUnmarshaler:
		return unmarshaler{x}
	case *[16]byte:
		return uuidDest{x}
	}
	return dst
}

// uuidDest reads a uuid into a [16]byte, a null one as zeros, as into a
// gocql.UUID: the driver refuses a null uuid into a [16]byte, so a row
// with a null one (a deleted entity's grave, whose columns are null)
// failed every read.
type uuidDest struct{ p *[16]byte }

func (d uuidDest) UnmarshalCQL(info gocql.TypeInfo, data []byte) error {
	if len(data) == 0 {
		*d.p = [16]byte{}
		return nil
	}
	return gocql.Unmarshal(info, data, d.p)
}

// dests converts ds with Dest, copying the slice only when one changes.
func dests(ds []any) []any { return cqldriver.ConvertWhere(ds, needsDest, Dest) }

// needsDest reports the destinations Dest converts.
func needsDest(d any) bool {
	switch d.(type) {
	case cqldriver.ValueUnmarshaler, *[16]byte:
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
