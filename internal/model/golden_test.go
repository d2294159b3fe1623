package model_test

import (
	"errors"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// goldenModels are the models of every golden case (gen/testdata/golden),
// each module case loaded in its module, as the golden test does.
func goldenModels(t *testing.T) []*model.Package {
	t.Helper()
	root := filepath.Join("..", "..", "gen", "testdata", "golden")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var inModule []string
	var pkgs []*model.Package
	load := func(opts pipeline.Options) {
		ps, _, err := pipeline.Models(opts)
		if err != nil && !errors.Is(err, pipeline.ErrModel) {
			t.Fatal(err)
		}
		pkgs = append(pkgs, ps...)
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			load(pipeline.Options{Dir: dir, Patterns: []string{"."}})
			continue
		}
		inModule = append(inModule, "./"+filepath.ToSlash(dir))
	}
	load(pipeline.Options{Patterns: inModule})
	if len(pkgs) < len(entries)/2 {
		t.Fatalf("%d models from %d golden cases", len(pkgs), len(entries))
	}
	return pkgs
}

// goFacts are the facts the Go emitter derived from go/types, computed
// from go/types as it did, to compare with the model's GoType.
type goFacts struct {
	String                               string
	Pointer, Slice, StructSet            bool
	IsString, IsInteger, IsFloat, IsBool bool
	Time, Duration                       bool
	Named                                bool
	NamedPkg, NamedName                  string
}

func fromTypes(t types.Type) goFacts {
	u := types.Unalias(t)
	basic := func(info types.BasicInfo) bool {
		b, ok := t.Underlying().(*types.Basic)
		return ok && b.Info()&info != 0
	}
	f := goFacts{String: types.TypeString(u, nil)}
	_, f.Pointer = u.(*types.Pointer)
	_, f.Slice = t.Underlying().(*types.Slice)
	if m, ok := t.Underlying().(*types.Map); ok {
		st, ok := m.Elem().Underlying().(*types.Struct)
		f.StructSet = ok && st.NumFields() == 0
	}
	f.IsString, f.IsInteger, f.IsFloat, f.IsBool = basic(types.IsString), basic(types.IsInteger), basic(types.IsFloat), basic(types.IsBoolean)
	if n, ok := u.(*types.Named); ok {
		f.Named, f.NamedName = true, n.Obj().Name()
		if n.Obj().Pkg() != nil {
			f.NamedPkg = n.Obj().Pkg().Path()
		}
		f.Time = f.NamedPkg == "time" && f.NamedName == "Time"
		f.Duration = f.NamedPkg == "time" && f.NamedName == "Duration"
	}
	return f
}

func fromModel(g *model.GoType) goFacts {
	f := goFacts{
		String: g.String(), Pointer: g.IsPointer(), Slice: g.IsSlice(), StructSet: g.IsStructSet(),
		IsString: g.IsString(), IsInteger: g.IsInteger(), IsFloat: g.IsFloat(), IsBool: g.IsBool(),
		Time: g.Is("time", "Time"), Duration: g.Is("time", "Duration"),
	}
	if g.Kind == model.GoNamed {
		f.Named, f.NamedPkg, f.NamedName = true, g.Pkg, g.Name
	}
	return f
}

// enumFromTypes lists the constants of a field's named type as the Go
// emitter's where conditions read them: from the package's scope.
func enumFromTypes(t types.Type) []string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil {
		return nil
	}
	var out []string
	scope := named.Obj().Pkg().Scope()
	for _, name := range scope.Names() {
		if c, ok := scope.Lookup(name).(*types.Const); ok && types.Identical(c.Type(), named) {
			out = append(out, named.Obj().Pkg().Path()+"."+name)
		}
	}
	return out
}

// TestGoTypesMatchGoldens checks, for every field of every golden's
// model, that the facts the model describes once agree with go/types, from
// which the Go emitter derived them itself; and that the goldens exercise
// each kind of fact, so that the check is not empty.
func TestGoTypesMatchGoldens(t *testing.T) {
	seen := map[string]int{}
	check := func(where string, f *model.Field) {
		if f.Go == nil {
			if f.GoType != nil {
				t.Errorf("%s: a GoType without a Go type", where)
			}
			return
		}
		if f.GoType == nil {
			t.Errorf("%s: no GoType", where)
			return
		}
		want, got := fromTypes(f.Go), fromModel(f.GoType)
		if got != want {
			t.Errorf("%s (%s):\n got %+v\nwant %+v", where, f.Go, got, want)
		}
		for name, on := range map[string]bool{"pointer": want.Pointer, "slice": want.Slice, "struct set": want.StructSet, "string": want.IsString,
			"integer": want.IsInteger, "float": want.IsFloat, "bool": want.IsBool, "time": want.Time, "duration": want.Duration, "named": want.Named} {
			if on {
				seen[name]++
			}
		}
		var enum []string
		for _, c := range f.EnumConsts() {
			enum = append(enum, c.Pkg+"."+c.Name)
		}
		fromScope := enumFromTypes(f.Go)
		if !slices.Equal(enum, fromScope) {
			t.Errorf("%s: enum constants %v, go/types has %v", where, enum, fromScope)
		}
		if len(enum) > 0 {
			seen["enum"]++
		}
	}
	for _, p := range goldenModels(t) {
		for _, e := range p.Entities {
			for _, f := range e.Fields {
				check(p.Path+"."+e.GoName+"."+f.GoName, f)
			}
		}
		for _, u := range p.UDTs {
			for _, f := range u.Fields {
				check(p.Path+"."+u.GoName+"."+f.GoName, f)
			}
		}
	}
	for _, kind := range []string{"pointer", "slice", "struct set", "string", "integer", "float", "bool", "time", "duration", "named", "enum"} {
		if seen[kind] == 0 {
			t.Errorf("no golden field is a %s: the check does not cover it", kind)
		}
	}
	t.Logf("fields by fact: %v", seen)
}
