package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// Every repository method that takes a context, in every generated file,
// begins a call record (defer cqlgenimpl.Observe(&ctx, ...).End(&err)), or
// is one call of a runtime entry point that begins one itself (observed,
// below; runtime/cqlgenimpl's TestEntryPointsObserveTheCall checks that
// they do), so that a CallObserver sees one record per repository call,
// whichever method it is. A method written otherwise fails here.
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
			if !startsCall(fn) && !delegates(fn) {
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

// observed are the runtime's entry points that record the call: methods
// of a description (cqlgenimpl.Entity, ReadSpec) and functions of
// cqlgenimpl.
var observed = map[string]bool{
	"Insert": true, "InsertIfAbsent": true, "Update": true, "Delete": true, "Add": true,
	"GetVersioned": true, "Modify": true, "Verify": true, "Repair": true, "Backfill": true,
	"Page": true, "Get": true, "GetOf": true, "GetTimes": true, "Many": true, "Scan": true,
}

// delegates reports whether fn is `return X.M(ctx, ...)`, M an observed
// entry point.
func delegates(fn *ast.FuncDecl) bool {
	if fn.Body == nil || len(fn.Body.List) != 1 {
		if fn.Body != nil && len(fn.Body.List) == 2 {
			// A read with options: o = cqlgenimpl.Or(o), then the call.
			if a, ok := fn.Body.List[0].(*ast.AssignStmt); !ok || len(a.Rhs) != 1 || !isCall(a.Rhs[0], "Or") {
				return false
			}
			return returnsEntry(fn.Body.List[1])
		}
		return false
	}
	return returnsEntry(fn.Body.List[0])
}

func returnsEntry(st ast.Stmt) bool {
	ret, ok := st.(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !observed[sel.Sel.Name] {
		return false
	}
	id, ok := call.Args[0].(*ast.Ident)
	return ok && id.Name == "ctx"
}

func isCall(x ast.Expr, name string) bool {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}
