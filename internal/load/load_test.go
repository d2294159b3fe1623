package load

import (
	"go/token"
	"path/filepath"
	"testing"
)

func TestParsePos(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want token.Position
	}{
		{"a/b.go:12:7", token.Position{Filename: "a/b.go", Line: 12, Column: 7}},
		{"a/b.go:12", token.Position{Filename: "a/b.go", Line: 12}},
		{`C:\src\b.go:3:4`, token.Position{Filename: `C:\src\b.go`, Line: 3, Column: 4}},
		{`C:\src\b.go:3`, token.Position{Filename: `C:\src\b.go`, Line: 3}},
		{"", token.Position{}},
		{"-", token.Position{}},
	} {
		if got := parsePos(tc.in); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// Imports and Requires are what the driver of a package is told from: the
// package's own imports, never those of the file cqlgen generated (its
// last run's choice), and its module's requirements, direct or not.
func TestImportsAndRequires(t *testing.T) {
	dir := "../../gen/testdata/golden/udt_v2"
	const v2, v1 = "github.com/apache/cassandra-gocql-driver/v2", "github.com/gocql/gocql"
	// By directory, and by import path, which reads the generated file
	// whole.
	for _, pattern := range []string{".", "github.com/cqlgen/cqlgen/gen/testdata/golden/udt_v2"} {
		pkgs, err := Load(Config{Dir: dir, Patterns: []string{pattern}})
		if err != nil {
			t.Fatal(err)
		}
		if len(pkgs) != 1 {
			t.Fatalf("%s: %d packages", pattern, len(pkgs))
		}
		p := pkgs[0]
		if pos, ok := p.Imports[v2]; !ok || filepath.Base(pos.Filename) != "model.go" || pos.Line == 0 {
			t.Errorf("%s: the driver's import at %v, %v", pattern, pos, ok)
		}
		if _, ok := p.Imports["github.com/cqlgen/cqlgen/runtime/cqlgenimpl"]; ok {
			t.Errorf("%s: the generated file's imports were read", pattern)
		}
		if direct, ok := p.Requires[v2]; !ok || !direct {
			t.Errorf("%s: requires v2: %v, %v", pattern, direct, ok)
		}
		// The runtime links no driver, so a v2 module needs no gocql v1.
		if _, ok := p.Requires[v1]; ok {
			t.Errorf("%s: requires gocql v1", pattern)
		}
		if direct, ok := p.Requires["gopkg.in/inf.v0"]; !ok || direct {
			t.Errorf("%s: requires gopkg.in/inf.v0: %v, %v; want indirect", pattern, direct, ok)
		}
	}
}
