package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// Every repository method that takes a context, in every generated file,
// begins a call record (defer cqlgenimpl.Observe(&ctx, ...).End(&err)), so that a
// CallObserver sees one record per repository call, whichever method it
// is. A method written without the shared prologue fails here.
func TestEveryRepositoryCallIsObserved(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../example/*/cqlgen_gen.go", "testdata/golden/*/cqlgen_gen.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	methods := 0
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() || !takesContext(fn) {
				continue
			}
			methods++
			if !startsCall(fn) {
				t.Errorf("%s: %s does not begin with cqlgenimpl.Observe", name, fn.Name.Name)
			}
		}
	}
	if methods < 100 {
		t.Fatalf("found only %d repository methods", methods)
	}
}

func takesContext(fn *ast.FuncDecl) bool {
	ps := fn.Type.Params.List
	if len(ps) == 0 {
		return false
	}
	sel, ok := ps[0].Type.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Context"
}

func startsCall(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) == 0 {
		return false
	}
	d, ok := fn.Body.List[0].(*ast.DeferStmt)
	if !ok {
		return false
	}
	end, ok := d.Call.Fun.(*ast.SelectorExpr)
	if !ok || end.Sel.Name != "End" {
		return false
	}
	call, ok := end.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Observe"
}
