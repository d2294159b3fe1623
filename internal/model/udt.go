package model

import (
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/load"
	"github.com/cqlgen/cqlgen/internal/tag"
)

// UDT is a CQL user-defined type: a named struct type of the package that
// a field of an entity, or of another user-defined type, holds. Its
// fields map by db tag (or snake case) with the same types as columns.
type UDT struct {
	Name    string         // the CQL type name
	NamePos token.Position // the //cqlgen:udt line that names it, or the type's name
	GoName  string
	Pos     token.Position // the type's name
	Go      *types.Named
	Fields  []*Field
}

// UDTMethods are the methods the generated file declares on every struct
// type stored as a user-defined type: gocql.UDTMarshaler's and
// gocql.UDTUnmarshaler's, which read the type's fields by their CQL names.
var UDTMethods = []string{"MarshalUDT", "UnmarshalUDT"}

// udtType is the CQL type of a column, or of a field, that holds u: always
// frozen, so that it can be a key and is written whole, as every write of
// a generated repository writes a row whole anyway.
func udtType(u *UDT) *Type { return &Type{Name: u.Name, UDT: u, Frozen: true} }

// udt maps a named struct type to its user-defined type, reading the type
// on first use. Types used by other types come first in p.UDTs.
func (b *builder) udt(named *types.Named) (*Type, *typeError) {
	obj := named.Obj()
	name := types.TypeString(named, shortQualifier)
	if obj.Pkg() == nil || obj.Pkg().Path() != b.lp.Path || b.lp.Structs[obj.Name()] == nil {
		return nil, unsupported("struct type %s is declared in another package; a user-defined type must be declared in the package of its entities, where cqlgen writes the methods gocql reads and writes it with: declare it here, or split it into fields", name)
	}
	if named.TypeArgs().Len() > 0 || named.TypeParams().Len() > 0 {
		return nil, unsupported("struct type %s has type parameters; a user-defined type must be a plain struct", name)
	}
	if u, ok := b.udts[obj]; ok {
		if b.reading[u] {
			return nil, unsupported("struct type %s holds itself, and a user-defined type cannot: CQL types are finite; store the nested values in a table of their own", name)
		}
		return udtType(u), nil
	}
	ls := b.lp.Structs[obj.Name()]
	u := &UDT{GoName: obj.Name(), Pos: ls.Pos, NamePos: ls.Pos, Go: named}
	if ls.UDT != "" {
		u.Name, u.NamePos = ls.UDT, ls.UDTPos
	} else {
		col, ok := SnakeCase(obj.Name())
		if !ok {
			return nil, unsupported("struct type %s has no ASCII type name; name its user-defined type with a //cqlgen:udt name line in its doc comment", name)
		}
		u.Name = col
	}
	b.udts[obj] = u
	b.reading[u] = true
	for _, m := range UDTMethods {
		if fn, _, _ := types.LookupFieldOrMethod(types.NewPointer(named), true, obj.Pkg(), m); fn != nil {
			b.diags.Errorf(b.lp.Fset.Position(fn.Pos()), diag.DuplicateName, "%s.%s: cqlgen declares %s on %s, which it stores as the user-defined type %s, to read and write its fields by their db names; remove this one", u.GoName, m, m, u.GoName, u.Name)
		}
	}
	byName := map[string]*Field{}
	for _, f := range b.reachable(b.fields(ls.Fields, named), named) {
		if prev, dup := byName[f.Column]; dup {
			b.diags.Errorf(f.ColPos, diag.DuplicateColumn, "fields %s and %s of %s both map to field %q of the user-defined type %s", prev.GoName, f.GoName, u.GoName, f.Column, u.Name)
			continue
		}
		if f.Type != nil && f.Type.Name == "counter" {
			b.diags.Errorf(f.Pos, diag.BadTypeOverride, "field %s of %s: a user-defined type cannot hold a counter", f.GoName, u.GoName)
			continue
		}
		if f.Mask != "" {
			b.diags.Errorf(f.MaskPos, diag.BadMask, "field %s of %s: Cassandra masks columns, not the fields of a user-defined type; mask the column that holds %s", f.GoName, u.GoName, u.GoName)
			continue
		}
		if f.Type != nil && f.Type.IsVector() {
			b.diags.Errorf(f.Pos, diag.UnsupportedType, "field %s of %s: cqlgen stores a vector as a column of its own, not in a user-defined type; move it to the entity", f.GoName, u.GoName)
			continue
		}
		byName[f.Column] = f
		u.Fields = append(u.Fields, f)
	}
	b.reading[u] = false
	b.order = append(b.order, u)
	return udtType(u), nil
}

// fields reads the fields of a struct, entity or user-defined type, the
// fields of embedded structs flattened in: owner is the struct's type,
// through which generated code reaches each field by its name.
func (b *builder) fields(lfs []*load.Field, owner types.Type) []*Field {
	var out []*Field
	for i, lf := range lfs {
		if lf.Marker {
			continue
		}
		if lf.Embedded {
			for _, f := range b.embedded(lf, owner) {
				f.path = append([]int{i}, f.path...)
				out = append(out, f)
			}
			continue
		}
		if f := b.field(lf); f != nil {
			f.path = []int{i}
			out = append(out, f)
		}
	}
	return out
}

// embedded flattens an embedded struct into its fields, as gocqlx maps
// them: each is a column of the struct that embeds it, reached through
// Go's promotion (e.CreatedAt).
func (b *builder) embedded(lf *load.Field, owner types.Type) []*Field {
	var ft tag.Field
	if lf.Tag != "" {
		var errs []*tag.Error
		ft, errs = tag.ParseField(lf.Tag)
		b.tagErrors(lf, errs)
	}
	switch {
	case ft.Skip:
		return nil
	case lf.Type == nil:
		b.diags.Errorf(lf.Pos, diag.Load, "field %s: %s", lf.Name, lf.TypeErr)
		return nil
	case ft.Column != nil || ft.Type != nil:
		b.diags.Errorf(b.tagPos(lf, 1), diag.UnsupportedField, "embedded field %s has a db or cql tag, but an embedded struct is no column: its fields become columns of their own; remove the tag, or name the field (%s %s) to store it as a user-defined type", lf.Name, lf.Name, lf.Name)
		return nil
	}
	t := types.Unalias(lf.Type)
	if p, ok := t.(*types.Pointer); ok {
		b.diags.Errorf(lf.Pos, diag.UnsupportedField, "embedded field *%s is a pointer: its columns could not be read into a nil one; embed %s by value", types.TypeString(types.Unalias(p.Elem()), shortQualifier), lf.Name)
		return nil
	}
	named, _ := t.(*types.Named)
	st, isStruct := t.Underlying().(*types.Struct)
	if named == nil || !isStruct || mappedStruct(named) {
		b.diags.Errorf(lf.Pos, diag.UnsupportedField, "embedded field %s of type %s: only a struct of fields is flattened into columns; name the field to store it in one column", lf.Name, types.TypeString(t, shortQualifier))
		return nil
	}
	var inner []*load.Field
	if obj := named.Obj(); obj.Pkg() != nil && obj.Pkg().Path() == b.lp.Path && b.lp.Structs[obj.Name()] != nil {
		inner = b.lp.Structs[obj.Name()].Fields
	} else {
		inner = b.foreignFields(st, lf)
	}
	out := b.fields(inner, named)
	for _, f := range out {
		if f.Embedded == "" {
			f.Embedded = lf.Name
		}
	}
	return out
}

// reachable drops, with a diagnostic, the fields of embedded structs that
// Go's promotion does not reach by their own names from owner: a field
// or method of the same name nearer the top hides one, and two at one
// depth hide each other. Generated code reaches every field as e.Name.
func (b *builder) reachable(fs []*Field, owner types.Type) []*Field {
	if owner == nil {
		return fs
	}
	var out []*Field
	for _, f := range fs {
		if f.Embedded == "" {
			out = append(out, f)
			continue
		}
		obj, index, _ := types.LookupFieldOrMethod(owner, true, b.pkg(owner), f.GoName)
		if v, ok := obj.(*types.Var); ok && v.IsField() && slices.Equal(index, f.path) {
			out = append(out, f)
			continue
		}
		why := "two embedded structs at one depth both have a field of that name"
		if obj != nil {
			why = "a field or method of that name is nearer the top, at " + diag.Short(b.lp.Fset.Position(obj.Pos()))
		}
		b.diags.Errorf(f.Pos, diag.UnsupportedField, "field %s of embedded %s cannot be reached as %s, as generated code reaches it: %s; rename one, or skip one with db:\"-\"", f.GoName, f.Embedded, f.GoName, why)
	}
	return out
}

// pkg is the package that declares a named type, for lookups that must
// see its unexported names; nil for others.
func (b *builder) pkg(t types.Type) *types.Package {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return n.Obj().Pkg()
	}
	return nil
}

// foreignFields reads the fields of a struct declared in another package,
// from its type: their positions are that package's, and their tags, which
// have no position here, are reported at the embedding field.
func (b *builder) foreignFields(st *types.Struct, at *load.Field) []*load.Field {
	var out []*load.Field
	for i := range st.NumFields() {
		v := st.Field(i)
		f := &load.Field{Name: v.Name(), Pos: at.Pos, Type: v.Type(), Embedded: v.Embedded()}
		if p := b.lp.Fset.Position(v.Pos()); p.IsValid() {
			f.Pos = p
		}
		if tg := st.Tag(i); tg != "" {
			f.Tag = "`" + tg + "`"
			if strings.Contains(tg, "`") {
				f.Tag = strconv.Quote(tg)
			}
		}
		out = append(out, f)
	}
	return out
}

// mappedStruct reports a struct type that maps to a CQL type of its own,
// not a user-defined type.
func mappedStruct(named *types.Named) bool {
	return isNamed(named, "time", "Time") || isNamed(named, "math/big", "Int") || isNamed(named, "gopkg.in/inf.v0", "Dec") ||
		isDriverType(named, "UUID") || isDriverType(named, "Duration") ||
		implementsMarshaler(named)
}

// udtDirective checks a //cqlgen:udt line: it names the user-defined type
// of the struct type whose doc comment holds it, and stands nowhere else.
func (b *builder) udtDirective(d load.Directive) {
	for _, s := range b.lp.Structs {
		if s.UDTPos != d.Pos {
			continue
		}
		if d.Args == "" || strings.ContainsAny(d.Args, " \t,") {
			b.diags.Errorf(d.Pos, diag.BadDirective, "//cqlgen:udt wants one name, the CQL name of %s's user-defined type, e.g. //cqlgen:udt %s", s.Name, snakeOr(s.Name))
		}
		return
	}
	b.diags.Errorf(d.Pos, diag.BadDirective, "//cqlgen:udt names the user-defined type of a struct, so it goes in the doc comment of a struct type declaration")
}

// snakeOr is name in snake case, or name itself when it has none.
func snakeOr(name string) string {
	if s, ok := SnakeCase(name); ok {
		return s
	}
	return name
}
