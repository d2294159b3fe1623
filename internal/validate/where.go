package validate

import (
	"go/types"
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/suggest"
)

// where checks the predicate of a sparse table: it sits on a table other
// than the source of truth (which must keep every entity, for the other
// tables to be derived from it), and each condition compares a column
// with values its Go type can hold.
func (c *checker) where(e *model.Entity, t *model.Table) {
	if !t.Sparse() {
		return
	}
	if t == e.Canonical {
		fix := "put the predicate on a table derived from it"
		if len(e.Tables) == 1 {
			fix = "declare the table that holds only some of them beside a canonical one that holds them all"
		}
		c.diags.Errorf(t.WherePos, diag.BadWhere, "table %s is the source of truth of %s, which holds every %s: a where would lose the others; %s", t.Name, e.GoName, e.GoName, fix)
		return
	}
	for _, cond := range t.Where {
		if !c.ref(t, cond.Ref, "where") || cond.Field.Type == nil {
			continue
		}
		f := cond.Field
		kind := model.CondKindOf(f)
		if cond.Op == model.CondSet {
			if _, ptr := f.Go.(*types.Pointer); !ptr && !canBeUnset(f, kind) {
				c.diags.Errorf(cond.Pos, diag.BadWhere, "where: %s is of type %s, which is never unset (0 and false are values); make the field a pointer to let it be absent, or compare it with =", f.Column, f.Type)
			}
			continue
		}
		if kind == model.CondOther {
			c.diags.Errorf(cond.Pos, diag.BadWhere, "where: %s is of type %s; a condition compares strings, enums and booleans (=, in) or tests that a column is set", f.Column, f.Type)
			continue
		}
		if kind == model.CondBool && cond.Op == model.CondIn {
			c.diags.Errorf(cond.Pos, diag.BadWhere, "where: %s is a boolean; compare it with = true or = false", f.Column)
			continue
		}
		consts := f.EnumConsts()
		for _, v := range cond.Values {
			c.whereValue(f, kind, consts, v)
		}
	}
}

// canBeUnset reports a type with an empty value the generated key checks
// also treat as absent: a string, a blob or collection, a time, a uuid.
func canBeUnset(f *model.Field, kind model.CondKind) bool {
	switch f.Type.Name {
	case "blob", "timestamp", "date", "uuid", "timeuuid":
		return true
	}
	return kind == model.CondString || f.Type.IsCollection()
}

func (c *checker) whereValue(f *model.Field, kind model.CondKind, consts []model.EnumConst, v model.CondValue) {
	switch kind {
	case model.CondBool:
		if v.Quoted || (v.Text != "true" && v.Text != "false") {
			c.diags.Errorf(v.Pos, diag.BadWhere, "where: %s is a boolean; compare it with true or false, not %s", f.Column, quoteValue(v))
		}
		return
	case model.CondInt:
		if _, err := strconv.ParseInt(v.Text, 10, 64); v.Quoted || err != nil {
			c.diags.Errorf(v.Pos, diag.BadWhere, "where: %s is of type %s; compare it with a whole number, not %s", f.Column, f.Type, quoteValue(v))
			return
		}
	}
	if len(consts) == 0 {
		return
	}
	var values, names []string
	for _, k := range consts {
		if k.Value == v.Text {
			return
		}
		values = append(values, k.Value)
		names = append(names, k.Name)
	}
	msg := "where: %s is never %s: no constant of its type %s has that value (the constants are %s)"
	args := []any{f.Column, quoteValue(v), types.TypeString(f.Go, func(*types.Package) string { return "" }), strings.Join(names, ", ")}
	if s := suggest.Closest(v.Text, values); s != "" {
		msg += "; did you mean %s?"
		args = append(args, s)
	}
	c.diags.Errorf(v.Pos, diag.BadWhere, msg, args...)
}

func quoteValue(v model.CondValue) string {
	if v.Quoted {
		return "'" + strings.ReplaceAll(v.Text, "'", "''") + "'"
	}
	return v.Text
}
