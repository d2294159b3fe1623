package gen_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// The statements schema.md lists are exactly those the runtime prepares:
// for every golden case, example and model of this repository, each
// cqlgenimpl.NewTable(cqlgenimpl.TableSpec{...}) literal of the committed
// cqlgen_gen.go is read back into a TableSpec, given to the runtime's own
// NewTable, and the text of every statement it wraps must be in the
// listing, and every statement of the listing among them. (A read with
// other bounds than the default sends a variant whose bound's operator
// alone differs; the page says so.)
func TestListingIsWhatTheRuntimePrepares(t *testing.T) {
	var dirs []string
	for _, pattern := range []string{
		goldenDir + "/*", goldenDir + "/*/*",
		"../example/*", "../integration/*", "../bench/model", "../runtime/cqlgenimpl/internal/fixture",
	} {
		ms, _ := filepath.Glob(pattern)
		for _, d := range ms {
			if _, err := os.Stat(filepath.Join(d, "cqlgen_gen.go")); err == nil {
				dirs = append(dirs, d)
			}
		}
	}
	tables := 0
	for _, dir := range dirs {
		specs, err := tableSpecs(filepath.Join(dir, "cqlgen_gen.go"))
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		var prepared []string
		for _, s := range specs {
			tables++
			t := cqlgenimpl.NewTable(s)
			for _, st := range t.Statements {
				prepared = append(prepared, st.CQL)
			}
			// A transaction's parts, which the runtime composes.
			prepared = append(prepared, t.Parts...)
		}
		page, err := os.ReadFile(filepath.Join(dir, "schema.md"))
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		listed := listedStatements(string(page))
		prepared, listed = unique(prepared), unique(listed)
		for _, s := range prepared {
			if !slices.Contains(listed, s) {
				t.Errorf("%s: the runtime prepares a statement schema.md does not list:\n%s", dir, s)
			}
		}
		for _, s := range listed {
			if !slices.Contains(prepared, s) {
				t.Errorf("%s: schema.md lists a statement the runtime does not prepare:\n%s", dir, s)
			}
		}
	}
	if len(dirs) < 20 || tables < 100 {
		t.Errorf("checked %d packages, %d tables: the files did not load", len(dirs), tables)
	}
}

func unique(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}

// listedStatements are the statements of schema.md's Statements section:
// in its sql blocks, each after a line "-- name", up to a blank line.
func listedStatements(page string) []string {
	_, sec, _ := strings.Cut(page, "\n## Statements\n")
	var out []string
	var cur []string
	in := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
		}
		cur = nil
	}
	for _, l := range strings.Split(sec, "\n") {
		switch {
		case l == "```sql":
			in = true
		case l == "```":
			flush()
			in = false
		case !in:
		case strings.HasPrefix(l, "-- "), l == "":
			flush()
		default:
			cur = append(cur, l)
		}
	}
	return out
}

// tableSpecs reads back the TableSpec literals of a generated file's
// NewTable calls.
func tableSpecs(path string) ([]cqlgenimpl.TableSpec, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var specs []cqlgenimpl.TableSpec
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || err != nil {
			return err == nil
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "NewTable" || len(call.Args) != 1 {
			return true
		}
		var s cqlgenimpl.TableSpec
		if err = literal(call.Args[0], reflect.ValueOf(&s).Elem()); err == nil {
			specs = append(specs, s)
		}
		return false
	})
	return specs, err
}

// literal sets v to the value of a composite literal of generated code:
// structs, slices, &struct, strings, integers, booleans, the
// cqlgenimpl.Bucket constants and cqlgenimpl.Cols.
func literal(e ast.Expr, v reflect.Value) error {
	switch e := e.(type) {
	case *ast.CallExpr:
		// cqlgenimpl.Cols("name type", ...)
		if sel, ok := e.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Cols" {
			var args []string
			for _, a := range e.Args {
				lit, ok := a.(*ast.BasicLit)
				if !ok {
					return fmt.Errorf("a column of %T", a)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return err
				}
				args = append(args, s)
			}
			v.Set(reflect.ValueOf(cqlgenimpl.Cols(args...)))
			return nil
		}
	case *ast.CompositeLit:
		for _, elt := range e.Elts {
			switch v.Kind() {
			case reflect.Struct:
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					return fmt.Errorf("unkeyed field in %s", v.Type())
				}
				f := v.FieldByName(kv.Key.(*ast.Ident).Name)
				if !f.IsValid() {
					return fmt.Errorf("%s has no field %s", v.Type(), kv.Key.(*ast.Ident).Name)
				}
				if err := literal(kv.Value, f); err != nil {
					return err
				}
			case reflect.Slice:
				x := reflect.New(v.Type().Elem()).Elem()
				if err := literal(elt, x); err != nil {
					return err
				}
				v.Set(reflect.Append(v, x))
			default:
				return fmt.Errorf("a composite literal of %s", v.Type())
			}
		}
		return nil
	case *ast.UnaryExpr:
		if e.Op != token.AND || v.Kind() != reflect.Pointer {
			return fmt.Errorf("unexpected %s", e.Op)
		}
		v.Set(reflect.New(v.Type().Elem()))
		return literal(e.X, v.Elem())
	case *ast.BasicLit:
		switch e.Kind {
		case token.STRING:
			s, err := strconv.Unquote(e.Value)
			v.SetString(s)
			return err
		case token.INT:
			n, err := strconv.ParseInt(e.Value, 0, 64)
			v.SetInt(n)
			return err
		}
	case *ast.Ident:
		if e.Name == "true" || e.Name == "false" {
			v.SetBool(e.Name == "true")
			return nil
		}
	case *ast.SelectorExpr:
		b, ok := map[string]cqlgenimpl.Bucket{
			"BucketOne": cqlgenimpl.BucketOne, "BucketHash": cqlgenimpl.BucketHash, "BucketTime": cqlgenimpl.BucketTime,
		}[e.Sel.Name]
		if ok {
			v.Set(reflect.ValueOf(b))
			return nil
		}
	}
	return fmt.Errorf("unexpected %T in a table's description", e)
}
