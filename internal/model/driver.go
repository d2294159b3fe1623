package model

import (
	"cmp"
	"go/token"
	"go/types"
	"maps"
	"slices"

	"github.com/cqlgen/cqlgen/internal/diag"
)

// The import paths of the two Go drivers for Cassandra that cqlgen's
// runtime runs on (through runtime/gocqlv1 and the runtime/gocqlv2
// module). Both name their package gocql.
const (
	GocqlPath   = "github.com/gocql/gocql"
	GocqlV2Path = "github.com/apache/cassandra-gocql-driver/v2"
)

// Drivers are the drivers cqlgen generate and check take with -driver, by
// name.
var Drivers = map[string]string{"gocql": GocqlPath, "gocqlv2": GocqlV2Path}

// driverName is the -driver name of a driver's import path.
func driverName(path string) string {
	for name, p := range Drivers {
		if p == path {
			return name
		}
	}
	return path
}

// isDriverType reports a named type of either driver: UUID and Duration
// map to CQL types of their own whichever driver declares them.
func isDriverType(t types.Type, name string) bool {
	return isNamed(t, GocqlPath, name) || isNamed(t, GocqlV2Path, name)
}

// Config is what Build needs besides the package.
type Config struct {
	// Driver is the import path of the driver that the methods of the
	// package's user-defined types implement the interfaces of; "" has
	// Build detect it (see Package.Driver).
	Driver string
}

// driverUse is the first field, in source order, whose type is one of a
// driver's.
type driverUse struct {
	field string
	typ   string // as the message shows it: gocql.UUID
	pos   token.Position
}

// noteDriverTypes records the drivers whose types the type of a field is
// made of (a UUID, a []*gocql.Duration, a map keyed by UUIDs).
func (b *builder) noteDriverTypes(name string, pos token.Position, t types.Type) {
	var walk func(types.Type)
	walk = func(t types.Type) {
		t = types.Unalias(t)
		switch u := t.(type) {
		case *types.Named:
			if pkg := u.Obj().Pkg(); pkg != nil && (pkg.Path() == GocqlPath || pkg.Path() == GocqlV2Path) {
				prev, seen := b.driverUses[pkg.Path()]
				if !seen || before(pos, prev.pos) {
					b.driverUses[pkg.Path()] = driverUse{name, types.TypeString(t, shortQualifier), pos}
				}
			}
		case *types.Pointer:
			walk(u.Elem())
		case *types.Slice:
			walk(u.Elem())
		case *types.Array:
			walk(u.Elem())
		case *types.Map:
			walk(u.Key())
			walk(u.Elem())
		}
	}
	walk(t)
}

func before(a, b token.Position) bool {
	return cmp.Or(cmp.Compare(a.Filename, b.Filename), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column)) < 0
}

// driver decides the driver of the package's user-defined type methods:
//
//  1. the override (-driver), which must agree with the drivers whose
//     types the fields hold;
//  2. the one driver whose types the entities' and user-defined types'
//     fields hold; fields holding both drivers' types are an error, since
//     a session runs on one driver, and neither binds the other's types;
//  3. the one driver the package's own files import;
//  4. the one driver the module's go.mod requires directly, then the one
//     it requires at all: a module on the v2 driver that runs cqlgen as a
//     tool (go get -tool) requires gocql v1 too, indirectly, since
//     cqlgen's own module does;
//  5. gocql v1, the default, when the module requires both or neither.
func (b *builder) driver(override string) string {
	uses := slices.SortedFunc(maps.Keys(b.driverUses), func(x, y string) int {
		px, py := b.driverUses[x].pos, b.driverUses[y].pos
		return cmp.Or(cmp.Compare(px.Filename, py.Filename), cmp.Compare(px.Line, py.Line), cmp.Compare(px.Column, py.Column), cmp.Compare(x, y))
	})
	if len(uses) == 2 {
		first, second := b.driverUses[uses[0]], b.driverUses[uses[1]]
		b.diags.Errorf(second.pos, diag.DriverMix, "field %s is a %s of %s, but field %s at %s is a %s of %s: a session runs on one driver, which cannot bind the other's types, and cqlgen writes the methods of user-defined types for one driver; use one driver's types throughout the package",
			second.field, second.typ, uses[1], first.field, diag.Short(first.pos), first.typ, uses[0])
		return uses[0]
	}
	if override != "" {
		if len(uses) == 1 && uses[0] != override {
			u := b.driverUses[uses[0]]
			b.diags.Errorf(u.pos, diag.DriverMix, "field %s is a %s of %s, but -driver %s was given: a session on that driver cannot bind it; use the %s type of %s, or -driver %s",
				u.field, u.typ, uses[0], driverName(override), u.typ, override, driverName(uses[0]))
		}
		return override
	}
	if len(uses) == 1 {
		return uses[0]
	}
	_, v1 := b.lp.Imports[GocqlPath]
	_, v2 := b.lp.Imports[GocqlV2Path]
	if v1 != v2 {
		if v2 {
			return GocqlV2Path
		}
		return GocqlPath
	}
	for _, directOnly := range []bool{true, false} {
		direct1, req1 := b.lp.Requires[GocqlPath]
		direct2, req2 := b.lp.Requires[GocqlV2Path]
		if directOnly {
			req1, req2 = req1 && direct1, req2 && direct2
		}
		if req1 != req2 {
			if req2 {
				return GocqlV2Path
			}
			return GocqlPath
		}
	}
	return GocqlPath
}
