package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/model"
)

// holdsFunc writes the predicate of a sparse table: whether the table
// holds an entity's row.
func holdsFunc(f *jen.File, t *model.Table) {
	var conds []jen.Code
	for _, c := range t.Where {
		conds = append(conds, condition(c, len(t.Where) > 1))
	}
	all := conds[0]
	for _, c := range conds[1:] {
		all = jen.Add(all).Op("&&").Add(c)
	}
	f.Func().Id(t.Names.Holds).Params(jen.Id("e").Op("*").Id(t.Entity.GoName)).Bool().Block(jen.Return(all))
}

// condition is the Go expression of one condition on e; grouped wraps a
// disjunction in parentheses for use beside others.
func condition(c model.Cond, grouped bool) jen.Code {
	f := c.Field
	v := field("e", f)
	ptr := f.GoType.IsPointer()
	if c.Op == model.CondSet {
		if ptr {
			return v.Op("!=").Nil()
		}
		return isSet(v, f)
	}
	val := v
	if ptr {
		val = jen.Op("*").Add(v)
	}
	var alts []jen.Code
	for _, x := range c.Values {
		alts = append(alts, equals(f, val.Clone(), x))
	}
	expr := alts[0]
	for _, a := range alts[1:] {
		expr = jen.Add(expr).Op("||").Add(a)
	}
	if len(alts) > 1 && (grouped || ptr) {
		expr = jen.Parens(expr)
	}
	if ptr {
		return v.Clone().Op("!=").Nil().Op("&&").Add(expr)
	}
	return expr
}

// equals is val == x, with the constant of the field's type that has the
// value where there is exactly one.
func equals(f *model.Field, val *jen.Statement, x model.CondValue) jen.Code {
	if model.CondKindOf(f) == model.CondBool {
		if x.Text == "true" {
			return val
		}
		return jen.Op("!").Add(val)
	}
	var match []model.EnumConst
	for _, k := range f.EnumConsts() {
		if k.Value == x.Text {
			match = append(match, k)
		}
	}
	if len(match) == 1 {
		return val.Op("==").Qual(match[0].Pkg, match[0].Name)
	}
	if model.CondKindOf(f) == model.CondInt {
		return val.Op("==").Op(x.Text)
	}
	return val.Op("==").Lit(x.Text)
}

// isSet is the condition that a value is not empty: the opposite of the
// key checks' empty.
func isSet(v *jen.Statement, f *model.Field) jen.Code {
	switch model.KeyCheckOf(f) {
	case model.KeyIsZero:
		return jen.Op("!").Add(v.Clone().Dot("IsZero").Call())
	case model.KeyZeroUUID:
		return jen.Op("!").Qual(impl, "IsZeroUUID").Call(v)
	case model.KeyEmptyLen:
		return jen.Len(v).Op(">").Lit(0)
	}
	return v.Clone().Op("!=").Lit("")
}
