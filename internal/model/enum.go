package model

import (
	"go/constant"
	"go/types"
	"strconv"
)

// EnumConst is a package-level constant of a field's named type: one
// value of an enum.
type EnumConst struct {
	Name  string
	Pkg   string // the import path of the package that declares it
	Value string // as a where condition writes it: a string's value, a number, true or false
}

// EnumConsts lists the constants declared of the field's named type (a
// pointer's element type for a nullable field), in name order; nil when
// the type is not named or has none. They are read once, when the model
// is built.
func (f *Field) EnumConsts() []EnumConst { return f.enum }

// enumConsts reads the constants declared of t's named type from its
// package's scope.
func (b *builder) enumConsts(t types.Type) []EnumConst {
	if t == nil {
		return nil
	}
	named, ok := types.Unalias(deref(t)).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return nil
	}
	pkg := named.Obj().Pkg()
	var cs []EnumConst
	for _, c := range b.pkgConsts(pkg) {
		if types.Identical(c.Type(), named) {
			cs = append(cs, EnumConst{Name: c.Name(), Pkg: pkg.Path(), Value: constValue(c.Val())})
		}
	}
	return cs
}

func constValue(v constant.Value) string {
	if v.Kind() == constant.String {
		return constant.StringVal(v)
	}
	if v.Kind() == constant.Bool {
		return strconv.FormatBool(constant.BoolVal(v))
	}
	return v.ExactString()
}

func deref(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// CondKind is what a where condition compares, by the field's Go type.
type CondKind int

const (
	CondOther  CondKind = iota // nothing a condition can compare
	CondString                 // a string, or a type whose underlying type is one
	CondBool
	CondInt
)

// CondKindOf classifies the field's Go type, a pointer's element type for
// a nullable field.
func CondKindOf(f *Field) CondKind {
	g := f.GoType.Deref()
	switch {
	case g == nil:
		return CondOther
	case g.IsString():
		return CondString
	case g.IsBool():
		return CondBool
	case g.IsInteger():
		return CondInt
	}
	return CondOther
}
