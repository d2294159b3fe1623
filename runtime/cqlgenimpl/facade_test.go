package cqlgenimpl_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFacadeIsThin keeps cqlgenimpl a door and nothing more: every
// declaration of the package re-exports, under its own name, a name of a
// package it imports (runtime/internal/impl, the engine, buckets, the
// driver interface). A type is an alias, a constant or variable is the
// other package's, and a function's body is one call of the other
// package's function of the same name with its own parameters, in order.
// The one exception is the SupportPackageIsVersionN constant. Code that
// does anything lives under runtime/internal, where nothing outside the
// runtime can import it.
func TestFacadeIsThin(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		n += len(f.Decls)
		for _, p := range thickness(fset, f) {
			t.Error(p)
		}
	}
	if n == 0 {
		t.Fatal("no declarations read: the test runs in the wrong directory")
	}
}

// TestThicknessFound checks the check: each declaration below does more
// than re-export, and thickness reports it.
func TestThicknessFound(t *testing.T) {
	cases := map[string]string{
		"unexported func":   `func f() int { return impl.F() }`,
		"method":            `func (Table) Len() int { return 0 }`,
		"init":              `func init() { impl.Init() }`,
		"two statements":    `func F(a int) int { a++; return impl.F(a) }`,
		"other name":        `func F(a int) int { return impl.G(a) }`,
		"arguments moved":   `func F(a, b int) int { return impl.F(b, a) }`,
		"argument computed": `func F(a int) int { return impl.F(a + 1) }`,
		"local call":        `func F(a int) int { return g(a) }`,
		"no ellipsis":       `func F(a ...int) int { return impl.F(a) }`,
		"result dropped":    `func F(a int) { _ = impl.F(a) }`,
		"defined type":      `type Table impl.Table`,
		"struct":            `type Table struct{ t impl.Table }`,
		"alias renamed":     `type Table = impl.Spec`,
		"generic reordered": `type Pair[K, V any] = impl.Pair[V, K]`,
		"const literal":     `const Limit = 100`,
		"var computed":      `var Day = impl.Days(1)`,
		"unexported var":    `var day = impl.Day`,
		"other package":     `var Day = fmt.Day`,
	}
	for what, decl := range cases {
		src := "package cqlgenimpl\n\nimport \"github.com/cqlgen/cqlgen/runtime/internal/impl\"\n\n" + decl + "\n"
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "bad.go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(thickness(fset, f)) == 0 {
			t.Errorf("%s: %s passes as thin", what, decl)
		}
	}
	good := `package cqlgenimpl

import (
	"fmt"
	"github.com/cqlgen/cqlgen/runtime/internal/impl"
	eng "github.com/cqlgen/cqlgen/runtime/internal/engine"
)

type Entity[T any] = impl.Entity[T]
type Table = impl.Table
const SupportPackageIsVersion9 = true
const BucketOne = impl.BucketOne
var DayBuckets = eng.DayBuckets
func Write[T any](s Session, e *T, opts ...Option) error { return impl.Write(s, e, opts...) }
func Bounds[T any](r *ReadSpec[T], from, to *T) { impl.Bounds(r, from, to) }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "good.go", good, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := thickness(fset, f); len(p) != 0 {
		t.Errorf("a thin file is reported: %q", p)
	}
}

// thickness lists what in f does more than re-export a name.
func thickness(fset *token.FileSet, f *ast.File) []string {
	imported := map[string]bool{}
	for _, s := range f.Imports {
		path, _ := strconv.Unquote(s.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if s.Name != nil {
			name = s.Name.Name
		}
		imported[name] = true
	}
	// reexport reports whether e is pkg.name of an imported pkg.
	reexport := func(e ast.Expr, name string) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && imported[pkg.Name] && sel.Sel.Name == name
	}
	var out []string
	report := func(n ast.Node, format string, args ...any) {
		out = append(out, fset.Position(n.Pos()).String()+": "+fmt.Sprintf(format, args...))
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				report(d, "method %s: the façade declares no methods; they come with the aliased types", d.Name.Name)
				continue
			}
			if !d.Name.IsExported() {
				report(d, "func %s is unexported: the façade only re-exports", d.Name.Name)
				continue
			}
			if !forwards(d, reexport) {
				report(d, "func %s does more than call another package's %s with its own parameters", d.Name.Name, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() || !s.Assign.IsValid() || !reexport(instantiated(s.Type, s.TypeParams), s.Name.Name) {
						report(s, "type %s is not an alias of another package's %s", s.Name.Name, s.Name.Name)
					}
				case *ast.ValueSpec:
					for i, name := range s.Names {
						if strings.HasPrefix(name.Name, "SupportPackageIsVersion") && d.Tok == token.CONST {
							continue
						}
						if !name.IsExported() || s.Type != nil || i >= len(s.Values) || !reexport(s.Values[i], name.Name) {
							report(name, "%s %s is not another package's %s", d.Tok, name.Name, name.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// instantiated is e, an alias's right-hand side, without its type
// arguments when they are the alias's own type parameters in order; any
// other instantiation is returned as it is, which no re-export matches.
func instantiated(e ast.Expr, params *ast.FieldList) ast.Expr {
	var args []ast.Expr
	var x ast.Expr
	switch e := e.(type) {
	case *ast.IndexExpr:
		x, args = e.X, []ast.Expr{e.Index}
	case *ast.IndexListExpr:
		x, args = e.X, e.Indices
	default:
		if params != nil && params.NumFields() > 0 {
			return nil
		}
		return e
	}
	if !sameIdents(args, fieldNames(params)) {
		return nil
	}
	return x
}

// forwards reports whether d's body is one call of another package's
// function of d's name with d's parameters, in order, returning what the
// call returns when d returns anything.
func forwards(d *ast.FuncDecl, reexport func(ast.Expr, string) bool) bool {
	if d.Body == nil || len(d.Body.List) != 1 {
		return false
	}
	var call *ast.CallExpr
	switch s := d.Body.List[0].(type) {
	case *ast.ReturnStmt:
		if len(s.Results) == 1 {
			call, _ = s.Results[0].(*ast.CallExpr)
		}
	case *ast.ExprStmt:
		if d.Type.Results == nil {
			call, _ = s.X.(*ast.CallExpr)
		}
	}
	if call == nil || !reexport(call.Fun, d.Name.Name) {
		return false
	}
	params := d.Type.Params.List
	variadic := len(params) > 0 && isEllipsis(params[len(params)-1].Type)
	return sameIdents(call.Args, fieldNames(d.Type.Params)) && call.Ellipsis.IsValid() == variadic
}

func isEllipsis(e ast.Expr) bool { _, ok := e.(*ast.Ellipsis); return ok }

func fieldNames(l *ast.FieldList) []string {
	var names []string
	if l == nil {
		return nil
	}
	for _, f := range l.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

func sameIdents(args []ast.Expr, names []string) bool {
	if len(args) != len(names) {
		return false
	}
	for i, a := range args {
		id, ok := a.(*ast.Ident)
		if !ok || id.Name != names[i] || id.Name == "_" {
			return false
		}
	}
	return true
}
