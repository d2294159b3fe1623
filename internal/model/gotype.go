package model

import (
	"go/types"
	"strconv"
	"strings"
)

// GoKind is the kind of a Go type, as GoType describes it.
type GoKind int

const (
	GoOther   GoKind = iota // anything else (a func, a chan, an interface): Text spells it
	GoBasic                 // a predeclared basic type: string, int64, bool, ...
	GoNamed                 // a defined type: time.Time, a package's own types, error
	GoPointer               // *Elem
	GoSlice                 // []Elem
	GoArray                 // [Len]Elem
	GoMap                   // map[Key]Elem
	GoStruct                // a struct literal type: struct{...}
)

// BasicInfo says what a basic type holds, as go/types' BasicInfo does.
type BasicInfo int

const (
	GoBool BasicInfo = 1 << iota
	GoInteger
	GoFloat
	GoString
)

// GoType is a field's Go type as the Go emitter prints it and decides how
// to bind, scan, compare and test it: built once from go/types when the
// model is built, so that no emitter looks at go/types. Aliases are
// resolved throughout.
type GoType struct {
	Kind GoKind
	// Pkg and Name name a defined type (Pkg is "" for a predeclared one,
	// such as error); Name alone names a basic type.
	Pkg, Name string
	Args      []*GoType // a defined type's type arguments
	Elem      *GoType   // a pointer's, slice's, array's or map's element
	Key       *GoType   // a map's key
	Len       int64     // an array's length
	Fields    int       // a struct's number of fields
	Info      BasicInfo // a basic type's
	// Under is a defined type's underlying type; nil for the others, which
	// are their own (see Underlying).
	Under *GoType
	Text  string // GoOther: the type as go/types writes it
}

// GoTypeOf describes t; nil for nil.
func GoTypeOf(t types.Type) *GoType { return goTypeOf(t, map[*types.Named]*GoType{}) }

// goTypeOf describes t; seen breaks the cycles of recursive defined types
// (type List []List).
func goTypeOf(t types.Type, seen map[*types.Named]*GoType) *GoType {
	if t == nil {
		return nil
	}
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if g, ok := seen[t]; ok {
			return g
		}
		obj := t.Obj()
		g := &GoType{Kind: GoNamed, Name: obj.Name()}
		if obj.Pkg() != nil {
			g.Pkg = obj.Pkg().Path()
		}
		seen[t] = g
		for a := range t.TypeArgs().Types() {
			g.Args = append(g.Args, goTypeOf(a, seen))
		}
		g.Under = goTypeOf(t.Underlying(), seen)
		return g
	case *types.Basic:
		g := &GoType{Kind: GoBasic, Name: t.Name()}
		info := t.Info()
		for _, k := range []struct {
			types types.BasicInfo
			ours  BasicInfo
		}{{types.IsBoolean, GoBool}, {types.IsInteger, GoInteger}, {types.IsFloat, GoFloat}, {types.IsString, GoString}} {
			if info&k.types != 0 {
				g.Info |= k.ours
			}
		}
		return g
	case *types.Pointer:
		return &GoType{Kind: GoPointer, Elem: goTypeOf(t.Elem(), seen)}
	case *types.Slice:
		return &GoType{Kind: GoSlice, Elem: goTypeOf(t.Elem(), seen)}
	case *types.Array:
		return &GoType{Kind: GoArray, Len: t.Len(), Elem: goTypeOf(t.Elem(), seen)}
	case *types.Map:
		return &GoType{Kind: GoMap, Key: goTypeOf(t.Key(), seen), Elem: goTypeOf(t.Elem(), seen)}
	case *types.Struct:
		return &GoType{Kind: GoStruct, Fields: t.NumFields(), Text: types.TypeString(t, nil)}
	default:
		return &GoType{Kind: GoOther, Text: types.TypeString(t, nil)}
	}
}

// Underlying is a defined type's underlying type, or the type itself.
func (g *GoType) Underlying() *GoType {
	if g.Kind == GoNamed && g.Under != nil {
		return g.Under
	}
	return g
}

// Is reports the defined type pkg.name: Is("time", "Time").
func (g *GoType) Is(pkg, name string) bool {
	return g != nil && g.Kind == GoNamed && g.Pkg == pkg && g.Name == name
}

// IsPointer reports a pointer type (not a defined type whose underlying
// type is one).
func (g *GoType) IsPointer() bool { return g != nil && g.Kind == GoPointer }

// Deref is a pointer's element type, or the type itself.
func (g *GoType) Deref() *GoType {
	if g.IsPointer() {
		return g.Elem
	}
	return g
}

// IsSlice reports a type whose underlying type is a slice.
func (g *GoType) IsSlice() bool { return g != nil && g.Underlying().Kind == GoSlice }

// basic reports a type whose underlying type is a basic one holding what
// info says.
func (g *GoType) basic(info BasicInfo) bool {
	if g == nil {
		return false
	}
	u := g.Underlying()
	return u.Kind == GoBasic && u.Info&info != 0
}

// IsString reports a string type, or one whose underlying type is.
func (g *GoType) IsString() bool { return g.basic(GoString) }

// IsInteger reports an integer type, or one whose underlying type is.
func (g *GoType) IsInteger() bool { return g.basic(GoInteger) }

// IsFloat reports a floating-point type, or one whose underlying type is.
func (g *GoType) IsFloat() bool { return g.basic(GoFloat) }

// IsBool reports a boolean type, or one whose underlying type is.
func (g *GoType) IsBool() bool { return g.basic(GoBool) }

// IsStructSet reports a set declared as a map of empty structs
// (map[K]struct{}), which gocql writes but cannot read without help.
func (g *GoType) IsStructSet() bool {
	if g == nil {
		return false
	}
	u := g.Underlying()
	if u.Kind != GoMap {
		return false
	}
	e := u.Elem.Underlying()
	return e.Kind == GoStruct && e.Fields == 0
}

// String writes the type as go/types does without a qualifier, defined
// types by their package's import path: time.Time, []*example.com/m.Tag.
func (g *GoType) String() string {
	var b strings.Builder
	g.write(&b)
	return b.String()
}

func (g *GoType) write(b *strings.Builder) {
	switch g.Kind {
	case GoBasic:
		b.WriteString(g.Name)
	case GoNamed:
		if g.Pkg != "" {
			b.WriteString(g.Pkg + ".")
		}
		b.WriteString(g.Name)
		if len(g.Args) > 0 {
			b.WriteByte('[')
			for i, a := range g.Args {
				if i > 0 {
					b.WriteString(", ")
				}
				a.write(b)
			}
			b.WriteByte(']')
		}
	case GoPointer:
		b.WriteByte('*')
		g.Elem.write(b)
	case GoSlice:
		b.WriteString("[]")
		g.Elem.write(b)
	case GoArray:
		b.WriteString("[" + strconv.FormatInt(g.Len, 10) + "]")
		g.Elem.write(b)
	case GoMap:
		b.WriteString("map[")
		g.Key.write(b)
		b.WriteByte(']')
		g.Elem.write(b)
	default:
		b.WriteString(g.Text)
	}
}
