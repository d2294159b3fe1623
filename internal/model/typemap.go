package model

import (
	"fmt"
	"go/types"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/tag"
)

// typeError is a type that cannot be mapped, with the reason.
type typeError struct {
	msg      string
	override bool // the override is at fault, not the Go type
}

func (e *typeError) Error() string { return e.msg }

func unsupported(format string, args ...any) *typeError {
	return &typeError{msg: fmt.Sprintf(format, args...)}
}

func badOverride(format string, args ...any) *typeError {
	return &typeError{msg: fmt.Sprintf(format, args...), override: true}
}

var (
	integerTypes = []string{"tinyint", "smallint", "int", "bigint", "varint", "counter"}
	stringTypes  = []string{"text", "varchar", "ascii"}
)

// udtFunc maps a named struct type to its user-defined type.
type udtFunc func(*types.Named) (*Type, *typeError)

// mapType maps the Go type of a field, and its optional cql:"..."
// override, to a CQL type. nullable is true for a pointer field. Named
// struct types map to user-defined types through udt.
func mapType(t types.Type, o *tag.TypeExpr, udt udtFunc) (ct *Type, nullable bool, err *typeError) {
	t = types.Unalias(t) // type Stamp = time.Time maps as time.Time
	if isNamed(t, "math/big", "Int") || isNamed(t, "gopkg.in/inf.v0", "Dec") {
		return nil, false, unsupported("%s must be used through a pointer (*%s), as gocql expects", types.TypeString(t, shortQualifier), types.TypeString(t, shortQualifier))
	}
	if p, ok := t.(*types.Pointer); ok && !isNamed(p.Elem(), "math/big", "Int") && !isNamed(p.Elem(), "gopkg.in/inf.v0", "Dec") {
		if _, ok := p.Elem().Underlying().(*types.Pointer); ok {
			return nil, false, unsupported("pointer to pointer type %s has no CQL mapping", types.TypeString(t, shortQualifier))
		}
		ct, _, err := mapType(p.Elem(), o, udt)
		if err == nil && ct.IsVector() {
			return nil, false, unsupported("%s: a vector needs no pointer, a nil []float32 is stored as null", types.TypeString(t, shortQualifier))
		}
		if err == nil && ct.Name == "duration" && isNamed(p.Elem(), "time", "Duration") {
			return nil, false, unsupported("*time.Duration cannot be read from a CQL duration; use time.Duration or *gocql.Duration")
		}
		return ct, true, err
	}
	ct, err = mapValue(t, o, 0, udt)
	return ct, false, err
}

func mapValue(t types.Type, o *tag.TypeExpr, depth int, udt udtFunc) (*Type, *typeError) {
	t = types.Unalias(t)
	name := types.TypeString(t, shortQualifier)
	if o != nil && o.Name == "frozen" {
		if len(o.Params) != 1 {
			return nil, badOverride("frozen takes one type: frozen<list<text>>")
		}
		ct, err := mapValue(t, o.Params[0], depth, udt)
		if err != nil {
			return nil, err
		}
		if !ct.IsCollection() {
			return nil, badOverride("only a collection can be frozen here, not %s", ct)
		}
		ct.Frozen = true
		return ct, nil
	}
	if implementsMarshaler(t) {
		if o == nil {
			return nil, unsupported("%s implements gocql.Marshaler; give its CQL type with cql:\"...\", e.g. cql:\"text\"", name)
		}
		if !implementsUnmarshaler(t) {
			return nil, unsupported("%s implements gocql.Marshaler but *%s does not implement gocql.Unmarshaler, so rows could not be read back", name, name)
		}
		return overrideType(o)
	}
	switch {
	case isNamed(t, "time", "Time"):
		return scalar("timestamp", o, name, "timestamp", "date")
	case isNamed(t, "time", "Duration"):
		return scalar("bigint", o, name, "bigint", "duration", "time")
	case isDriverType(t, "UUID"):
		return scalar("uuid", o, name, "uuid", "timeuuid")
	case isDriverType(t, "Duration"):
		return scalar("duration", o, name, "duration")
	case isNamed(t, "net", "IP"):
		return scalar("inet", o, name, "inet")
	}
	if p, ok := t.(*types.Pointer); ok {
		switch {
		case isNamed(p.Elem(), "math/big", "Int"):
			return scalar("varint", o, name, "varint")
		case isNamed(p.Elem(), "gopkg.in/inf.v0", "Dec"):
			return scalar("decimal", o, name, "decimal")
		}
		return nil, unsupported("pointer type %s inside a collection has no CQL mapping", name)
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return mapBasic(u, o, name)
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return scalar("blob", o, name, "blob", "text", "varchar", "ascii")
		}
		if o != nil && o.Name == "vector" {
			return mapVector(u, o, name, depth)
		}
		return mapCollection(t, u.Elem(), nil, o, depth, udt)
	case *types.Array:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte && u.Len() == 16 {
			return scalar("uuid", o, name, "uuid", "timeuuid")
		}
		return nil, unsupported("array type %s has no CQL mapping; use a slice", name)
	case *types.Map:
		if s, ok := u.Elem().Underlying().(*types.Struct); ok && s.NumFields() == 0 {
			return mapCollection(t, u.Key(), nil, o, depth, udt) // map[T]struct{} is a set
		}
		return mapCollection(t, u.Key(), u.Elem(), o, depth, udt)
	case *types.Struct:
		named, ok := t.(*types.Named)
		if !ok {
			return nil, unsupported("struct type %s has no name, and a user-defined type takes its name from its Go type: declare a named struct type", name)
		}
		if o != nil {
			return nil, badOverride("%s is stored as a user-defined type; leave out the cql tag (name the type with a //cqlgen:udt line in its doc comment)", name)
		}
		return udt(named)
	case *types.Interface:
		return nil, unsupported("interface type %s has no CQL mapping; use a concrete type", name)
	}
	return nil, unsupported("type %s has no CQL mapping", name)
}

func mapBasic(b *types.Basic, o *tag.TypeExpr, name string) (*Type, *typeError) {
	switch b.Kind() {
	case types.String:
		return scalar("text", o, name, stringTypes...)
	case types.Bool:
		return scalar("boolean", o, name, "boolean")
	case types.Int8:
		return scalar("tinyint", o, name, integerTypes...)
	case types.Int16, types.Uint8:
		return scalar("smallint", o, name, integerTypes...)
	case types.Int32, types.Uint16:
		return scalar("int", o, name, integerTypes...)
	case types.Int64, types.Int, types.Uint32:
		return scalar("bigint", o, name, integerTypes...)
	case types.Uint64, types.Uint:
		return scalar("varint", o, name, integerTypes...)
	case types.Float32:
		return scalar("float", o, name, "float", "double")
	case types.Float64:
		return scalar("double", o, name, "double", "float")
	}
	return nil, unsupported("type %s has no CQL mapping", name)
}

// mapCollection maps a slice (val == nil, not a set), a set (key only) or
// a map. Collections inside collections are frozen, as CQL requires.
func mapCollection(t, key, val types.Type, o *tag.TypeExpr, depth int, udt udtFunc) (*Type, *typeError) {
	name := types.TypeString(t, shortQualifier)
	_, isMap := t.Underlying().(*types.Map)
	kind := "list"
	switch {
	case isMap && val != nil:
		kind = "map"
	case isMap:
		kind = "set"
	}
	var params []*tag.TypeExpr
	if o != nil {
		ok := o.Name == kind || (kind == "list" && o.Name == "set")
		if !ok {
			return nil, badOverride("%s cannot be stored as %s; it maps to a %s", name, o, kind)
		}
		kind, params = o.Name, o.Params
		want := 1
		if kind == "map" {
			want = 2
		}
		if len(params) != 0 && len(params) != want {
			return nil, badOverride("%s takes %d type parameter(s), not %d", kind, want, len(params))
		}
	}
	if depth > 4 {
		return nil, unsupported("type %s nests collections too deeply", name)
	}
	param := func(i int) *tag.TypeExpr {
		if i < len(params) {
			return params[i]
		}
		return nil
	}
	elem := func(et types.Type, eo *tag.TypeExpr) (*Type, *typeError) {
		if _, isPtr := et.(*types.Pointer); isPtr && !isNamed(et.(*types.Pointer).Elem(), "math/big", "Int") && !isNamed(et.(*types.Pointer).Elem(), "gopkg.in/inf.v0", "Dec") {
			return nil, unsupported("%s holds pointers; a collection cannot hold nulls", name)
		}
		ct, err := mapValue(et, eo, depth+1, udt)
		if err != nil {
			return nil, err
		}
		if ct.IsCollection() {
			ct.Frozen = true
		}
		if ct.Name == "counter" {
			return nil, badOverride("a collection cannot hold counters")
		}
		return ct, nil
	}
	first, err := elem(key, param(0))
	if err != nil {
		return nil, err
	}
	ct := &Type{Name: kind, Params: []*Type{first}}
	if kind == "map" {
		second, err := elem(val, param(1))
		if err != nil {
			return nil, err
		}
		ct.Params = append(ct.Params, second)
	}
	return ct, nil
}

// scalar returns def, or the override when it is one of allowed.
func scalar(def string, o *tag.TypeExpr, goName string, allowed ...string) (*Type, *typeError) {
	if o == nil {
		return &Type{Name: def}, nil
	}
	if len(o.Params) > 0 || !slices.Contains(allowed, o.Name) {
		return nil, badOverride("%s cannot be stored as %s; it can be %s", goName, o, strings.Join(allowed, ", "))
	}
	return &Type{Name: o.Name}, nil
}

// cqlScalars are the CQL types an override may name for a Marshaler.
var cqlScalars = []string{
	"ascii", "bigint", "blob", "boolean", "counter", "date", "decimal", "double", "duration",
	"float", "inet", "int", "smallint", "text", "time", "timestamp", "timeuuid", "tinyint",
	"uuid", "varchar", "varint",
}

// overrideType turns an override into a type as written, for Go types that
// marshal themselves.
func overrideType(o *tag.TypeExpr) (*Type, *typeError) {
	switch o.Name {
	case "list", "set", "map", "frozen":
		want := 1
		if o.Name == "map" {
			want = 2
		}
		if len(o.Params) != want {
			return nil, badOverride("%s takes %d type parameter(s)", o.Name, want)
		}
		ct := &Type{Name: o.Name}
		for _, p := range o.Params {
			pt, err := overrideType(p)
			if err != nil {
				return nil, err
			}
			ct.Params = append(ct.Params, pt)
		}
		if o.Name == "frozen" {
			inner := ct.Params[0]
			if !inner.IsCollection() {
				return nil, badOverride("only a collection can be frozen here, not %s", inner)
			}
			inner.Frozen = true
			return inner, nil
		}
		return ct, nil
	}
	if len(o.Params) > 0 || !slices.Contains(cqlScalars, o.Name) {
		return nil, badOverride("unknown CQL type %s", o)
	}
	return &Type{Name: o.Name}, nil
}

func isNamed(t types.Type, pkg, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	obj := n.Obj()
	return obj.Pkg() != nil && obj.Pkg().Path() == pkg && obj.Name() == name
}

// implementsMarshaler reports whether T or *T has MarshalCQL, the method
// of gocql.Marshaler, with its signature.
func implementsMarshaler(t types.Type) bool {
	return hasMethod(t, "MarshalCQL", 1, 2) || hasMethod(types.NewPointer(t), "MarshalCQL", 1, 2)
}

// implementsUnmarshaler reports whether *T has UnmarshalCQL.
func implementsUnmarshaler(t types.Type) bool {
	return hasMethod(types.NewPointer(t), "UnmarshalCQL", 2, 1)
}

func hasMethod(t types.Type, name string, params, results int) bool {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return false
	}
	obj, _, _ := types.LookupFieldOrMethod(t, true, nil, name)
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	return sig.Params().Len() == params && sig.Results().Len() == results
}

// shortQualifier writes package names rather than paths in messages.
func shortQualifier(p *types.Package) string { return p.Name() }

// MaxVectorDim bounds a vector's dimension: Cassandra 5.0's
// storage-attached index takes up to 8192.
const MaxVectorDim = 8192

// mapVector maps a []float32 declared cql:"vector<float, N>", a
// Cassandra 5 vector of N floats, as embeddings are stored for
// similarity search. Only float vectors: they are what an ANN index
// reads.
func mapVector(u *types.Slice, o *tag.TypeExpr, name string, depth int) (*Type, *typeError) {
	b, ok := u.Elem().(*types.Basic)
	switch {
	case depth > 0:
		return nil, unsupported("a vector cannot be held in a collection or user-defined type here; make %s a field of its own", name)
	case !ok || b.Kind() != types.Float32:
		return nil, badOverride("%s cannot be stored as %s; a vector is a []float32", name, o)
	case len(o.Params) != 1 || o.Params[0].Name != "float" || len(o.Params[0].Params) > 0 || o.DimOff == 0:
		return nil, badOverride("%s: a vector is written vector<float, N>, N its dimension, such as vector<float, 384>", o)
	case o.Dim < 1 || o.Dim > MaxVectorDim:
		return nil, badOverride("%s: the dimension must be between 1 and %d", o, MaxVectorDim)
	}
	return &Type{Name: "vector", Params: []*Type{{Name: "float"}}, Dim: int(o.Dim)}, nil
}
