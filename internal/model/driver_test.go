package model

import (
	"fmt"
	"go/token"
	"go/types"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/load"
)

// named is a named type of a package, as the loader resolves a field's.
func named(path, name string) types.Type {
	pkg := types.NewPackage(path, "gocql")
	return types.NewNamed(types.NewTypeName(token.NoPos, pkg, name, nil), types.Typ[types.Byte], nil)
}

func TestDriverChoice(t *testing.T) {
	at := func(line int) token.Position { return token.Position{Filename: "/m/model.go", Line: line, Column: 2} }
	v1UUID, v2UUID, v2Dur := named(GocqlPath, "UUID"), named(GocqlV2Path, "UUID"), named(GocqlV2Path, "Duration")
	type field struct {
		line int
		typ  types.Type
	}
	cases := []struct {
		name     string
		fields   []field
		imports  []string
		requires map[string]bool
		override string
		want     string
		diag     string // in the message of the one diagnostic expected, at diagLine
		diagLine int
	}{
		{name: "nothing: the default", want: GocqlPath},
		{name: "a v2 UUID field", fields: []field{{3, v2UUID}}, want: GocqlV2Path},
		{name: "inside a collection", fields: []field{{3, types.NewMap(types.Typ[types.String], types.NewSlice(types.NewPointer(v2Dur)))}}, want: GocqlV2Path},
		{name: "a v1 field, whatever the imports", fields: []field{{3, v1UUID}}, imports: []string{GocqlV2Path}, want: GocqlPath},
		{name: "imports v2", imports: []string{GocqlV2Path, "time"}, want: GocqlV2Path},
		{name: "imports v1", imports: []string{GocqlPath}, requires: map[string]bool{GocqlV2Path: true}, want: GocqlPath},
		{name: "imports both: go.mod decides", imports: []string{GocqlPath, GocqlV2Path}, requires: map[string]bool{GocqlV2Path: true}, want: GocqlV2Path},
		{name: "v2 direct, v1 indirect through cqlgen as a tool", requires: map[string]bool{GocqlV2Path: true, GocqlPath: false}, want: GocqlV2Path},
		{name: "v1 direct", requires: map[string]bool{GocqlPath: true, GocqlV2Path: false}, want: GocqlPath},
		{name: "v2 indirect alone", requires: map[string]bool{GocqlV2Path: false}, want: GocqlV2Path},
		{name: "both direct: the default", requires: map[string]bool{GocqlPath: true, GocqlV2Path: true}, want: GocqlPath},
		{name: "both indirect: the default", requires: map[string]bool{GocqlPath: false, GocqlV2Path: false}, want: GocqlPath},
		{name: "override", override: GocqlV2Path, imports: []string{GocqlPath}, requires: map[string]bool{GocqlPath: true}, want: GocqlV2Path},
		{name: "override agrees with the fields", override: GocqlV2Path, fields: []field{{4, v2UUID}}, want: GocqlV2Path},
		{
			name: "override against the fields", override: GocqlV2Path, fields: []field{{5, types.Typ[types.String]}, {6, v1UUID}},
			want: GocqlV2Path, diag: "field F6 is a gocql.UUID of github.com/gocql/gocql, but -driver gocqlv2 was given", diagLine: 6,
		},
		{
			name: "both drivers' types", fields: []field{{9, v1UUID}, {4, v2Dur}, {7, v2UUID}},
			want: GocqlV2Path, diag: "field F9 is a gocql.UUID of github.com/gocql/gocql, but field F4 at model.go:4:2 is a gocql.Duration of github.com/apache/cassandra-gocql-driver/v2", diagLine: 9,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lp := &load.Package{Imports: map[string]token.Position{}, Requires: c.requires}
			for _, imp := range c.imports {
				lp.Imports[imp] = at(1)
			}
			b := &builder{lp: lp, driverUses: map[string]driverUse{}}
			for _, f := range c.fields {
				b.noteDriverTypes(fmt.Sprintf("F%d", f.line), at(f.line), f.typ)
			}
			if got := b.driver(c.override); got != c.want {
				t.Errorf("driver = %s, want %s", got, c.want)
			}
			switch {
			case c.diag == "" && len(b.diags) > 0:
				t.Errorf("unexpected diagnostics: %v", b.diags)
			case c.diag != "" && (len(b.diags) != 1 || !strings.Contains(b.diags[0].Msg, c.diag) ||
				b.diags[0].Pos.Line != c.diagLine || b.diags[0].Code != diag.DriverMix || b.diags[0].Severity != diag.Error):
				t.Errorf("diagnostics %v, want one driver-mix error at line %d containing %q", b.diags, c.diagLine, c.diag)
			}
		})
	}
}
