package model

import (
	"go/token"
	"go/types"
	"testing"
)

// goTypes builds, with go/types, the types the tests describe.
type goTypes struct {
	time, shop *types.Package
}

func newGoTypes() goTypes {
	return goTypes{time: types.NewPackage("time", "time"), shop: types.NewPackage("example.com/shop", "shop")}
}

func (g goTypes) named(pkg *types.Package, name string, under types.Type) *types.Named {
	return types.NewNamed(types.NewTypeName(token.NoPos, pkg, name, nil), under, nil)
}

func TestGoTypeOf(t *testing.T) {
	g := newGoTypes()
	str := types.Typ[types.String]
	tm := g.named(g.time, "Time", types.NewStruct(nil, nil))
	dur := g.named(g.time, "Duration", types.Typ[types.Int64])
	status := g.named(g.shop, "Status", str)
	empty := types.NewStruct(nil, nil)
	tags := g.named(g.shop, "Tags", types.NewMap(str, empty))
	alias := types.NewAlias(types.NewTypeName(token.NoPos, g.shop, "Label", nil), status)
	list := g.named(g.shop, "List", nil)
	list.SetUnderlying(types.NewSlice(list)) // type List []List
	for _, c := range []struct {
		t                             types.Type
		str                           string
		kind                          GoKind
		ptr, slice, set               bool
		isStr, isInt, isFloat, isBool bool
		time, dur                     bool
	}{
		{t: str, str: "string", kind: GoBasic, isStr: true},
		{t: types.Typ[types.Int32], str: "int32", kind: GoBasic, isInt: true},
		{t: types.Typ[types.Float64], str: "float64", kind: GoBasic, isFloat: true},
		{t: types.Typ[types.Bool], str: "bool", kind: GoBasic, isBool: true},
		{t: tm, str: "time.Time", kind: GoNamed, time: true},
		{t: dur, str: "time.Duration", kind: GoNamed, isInt: true, dur: true},
		{t: types.NewPointer(tm), str: "*time.Time", kind: GoPointer, ptr: true},
		{t: status, str: "example.com/shop.Status", kind: GoNamed, isStr: true},
		{t: alias, str: "example.com/shop.Status", kind: GoNamed, isStr: true},
		{t: types.NewSlice(alias), str: "[]example.com/shop.Status", kind: GoSlice, slice: true},
		{t: types.NewArray(types.Universe.Lookup("byte").Type(), 16), str: "[16]byte", kind: GoArray},
		{t: types.NewMap(str, empty), str: "map[string]struct{}", kind: GoMap, set: true},
		{t: types.NewMap(str, types.Typ[types.Int]), str: "map[string]int", kind: GoMap},
		{t: tags, str: "example.com/shop.Tags", kind: GoNamed, set: true},
		{t: list, str: "example.com/shop.List", kind: GoNamed, slice: true},
		{t: types.Universe.Lookup("error").Type(), str: "error", kind: GoNamed},
		{t: types.NewSignatureType(nil, nil, nil, nil, nil, false), str: "func()", kind: GoOther},
	} {
		d := GoTypeOf(c.t)
		if d.String() != c.str || d.Kind != c.kind {
			t.Errorf("%s: described as %s, kind %d; want %s, kind %d", c.t, d, d.Kind, c.str, c.kind)
		}
		got := [...]bool{d.IsPointer(), d.IsSlice(), d.IsStructSet(), d.IsString(), d.IsInteger(), d.IsFloat(), d.IsBool(), d.Is("time", "Time"), d.Is("time", "Duration")}
		want := [...]bool{c.ptr, c.slice, c.set, c.isStr, c.isInt, c.isFloat, c.isBool, c.time, c.dur}
		if got != want {
			t.Errorf("%s: pointer, slice, set, string, integer, float, bool, time, duration: %v, want %v", c.t, got, want)
		}
	}
	if GoTypeOf(nil) != nil {
		t.Error("GoTypeOf(nil) is not nil")
	}
	// The recursive type's element is the type itself.
	if d := GoTypeOf(list); d.Under.Elem != d {
		t.Error("type List []List: the element is not the type itself")
	}
	if d := GoTypeOf(types.NewPointer(status)); d.Deref().String() != "example.com/shop.Status" || d.Deref().IsPointer() {
		t.Errorf("Deref of *Status: %s", d.Deref())
	}
}

func TestGoTypeOfGeneric(t *testing.T) {
	g := newGoTypes()
	tp := types.NewTypeParam(types.NewTypeName(token.NoPos, g.shop, "T", nil), types.Universe.Lookup("any").Type())
	box := g.named(g.shop, "Box", nil)
	box.SetTypeParams([]*types.TypeParam{tp})
	box.SetUnderlying(types.NewStruct([]*types.Var{types.NewField(token.NoPos, g.shop, "V", tp, false)}, nil))
	inst, err := types.Instantiate(nil, box, []types.Type{types.Typ[types.Int]}, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := GoTypeOf(inst); d.String() != types.TypeString(inst, nil) || len(d.Args) != 1 {
		t.Errorf("Box[int] described as %s with %d arguments; go/types writes %s", d, len(d.Args), types.TypeString(inst, nil))
	}
}
