package cqlgen

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// maxUserAPI bounds what package cqlgen exports: the top-level funcs and
// types a user reads in go doc -all (constructors listed under their type
// included, methods not). Engine, driver interface and generated-code
// helpers live elsewhere (cqldriver, cqlgenimpl, runtime/internal).
const maxUserAPI = 60

func exportedFuncsAndTypes(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range pkgs {
		files := make([]*ast.File, 0, len(p.Files))
		for _, f := range p.Files {
			files = append(files, f)
		}
		d, err := doc.NewFromFiles(fset, files, "github.com/cqlgen/cqlgen/runtime/cqlgen")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range d.Funcs {
			names = append(names, f.Name)
		}
		for _, ty := range d.Types {
			names = append(names, ty.Name)
			for _, f := range ty.Funcs {
				names = append(names, f.Name)
			}
		}
	}
	slices.Sort(names)
	return names
}

func TestUserAPIStaysSmall(t *testing.T) {
	names := exportedFuncsAndTypes(t, ".")
	if len(names) > maxUserAPI {
		t.Errorf("package cqlgen exports %d funcs and types, over %d: %s\nmove what users neither call nor read about to cqldriver, cqlgenimpl or runtime/internal", len(names), maxUserAPI, strings.Join(names, " "))
	}
}

// The user package sits above the driver interface only: it never reaches
// the engine or the generated code's support package, so that what both
// need cannot end up in the user API again.
func TestUserAPIImportsNoImplementation(t *testing.T) {
	for pkg, banned := range map[string][]string{
		"github.com/cqlgen/cqlgen/runtime/cqlgen": {
			"github.com/cqlgen/cqlgen/runtime/internal/engine",
			"github.com/cqlgen/cqlgen/runtime/cqlgenimpl",
		},
		"github.com/cqlgen/cqlgen/runtime/cqlobserve": {
			"github.com/cqlgen/cqlgen/runtime/cqlgen",
			"github.com/cqlgen/cqlgen/runtime/internal/engine",
			"github.com/cqlgen/cqlgen/runtime/cqlgenimpl",
		},
		"github.com/cqlgen/cqlgen/runtime/cqlbucket": {
			"github.com/cqlgen/cqlgen/runtime/internal/engine",
			"github.com/cqlgen/cqlgen/runtime/cqlgenimpl",
		},
		"github.com/cqlgen/cqlgen/runtime/cqldriver": {
			"github.com/cqlgen/cqlgen/runtime/cqlgen",
			"github.com/cqlgen/cqlgen/runtime/internal/engine",
			"github.com/cqlgen/cqlgen/runtime/cqlgenimpl",
		},
	} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		deps := strings.Fields(string(out))
		for _, b := range banned {
			if slices.Contains(deps, b) {
				t.Errorf("%s depends on %s", pkg, b)
			}
		}
	}
}
