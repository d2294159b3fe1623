package load

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go/types"

	"golang.org/x/tools/go/packages"
)

// describe writes down everything Load hands the model stage, so that two
// loads can be compared.
func describe(pkgs []*Package) string {
	var b strings.Builder
	for _, p := range pkgs {
		fmt.Fprintf(&b, "package %s %s %s\nfiles %v\n", p.Path, p.Name, p.Dir, p.GoFiles)
		for _, path := range slices.Sorted(mapKeys(p.Requires)) {
			fmt.Fprintf(&b, "require %s %v\n", path, p.Requires[path])
		}
		for _, path := range slices.Sorted(mapKeys(p.Imports)) {
			fmt.Fprintf(&b, "import %s %v\n", path, p.Imports[path])
		}
		for _, name := range slices.Sorted(mapKeys(p.Declared)) {
			fmt.Fprintf(&b, "declared %s %v\n", name, p.Declared[name])
		}
		for _, d := range p.Directives {
			fmt.Fprintf(&b, "directive %+v\n", d)
		}
		for _, e := range p.Errors {
			fmt.Fprintf(&b, "error %v %s\n", e.Pos, e.Msg)
		}
		for _, e := range p.Entities {
			fmt.Fprintf(&b, "entity %s\n", e.Name)
		}
		for _, name := range slices.Sorted(mapKeys(p.Structs)) {
			s := p.Structs[name]
			fmt.Fprintf(&b, "struct %s %v %q generic=%v %q udt=%q %v type=%s\n", s.Name, s.Pos, s.Doc, s.Generic, s.Constraint, s.UDT, s.UDTPos, typeString(s.Type))
			for _, f := range s.Fields {
				fmt.Fprintf(&b, "\tfield %s %v %s %q embedded=%v marker=%v %s %v\n", f.Name, f.Pos, typeString(f.Type), f.TypeErr, f.Embedded, f.Marker, f.Tag, p.TagPosition(f, 0))
			}
		}
	}
	return b.String()
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func typeString(t types.Type) string {
	if t == nil {
		return "<nil>"
	}
	return types.TypeString(t, nil)
}

// Every golden case loads the same in the process (loadLocal) as through
// packages.Load alone: files, types, positions, errors. Most are served
// in the process; those it declines (a build constraint, a syntax error,
// an import that does not load) are listed.
func TestLoadLocalSame(t *testing.T) {
	root := "../../gen/testdata/golden"
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	served, declined := 0, []string{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		cfg := Config{Dir: dir, Patterns: []string{"."}}
		abs, _ := filepath.Abs(dir)
		if _, ok := loadLocal(cfg, cfg.Patterns, generatedFiles(abs, cfg.Patterns)); ok {
			served++
		} else {
			declined = append(declined, e.Name())
		}
		local, lerr := loadWith(cfg, true)
		whole, werr := loadWith(cfg, false)
		if fmt.Sprint(lerr) != fmt.Sprint(werr) {
			t.Errorf("%s: error %v, packages.Load's %v", e.Name(), lerr, werr)
			continue
		}
		if got, want := describe(local), describe(whole); got != want {
			t.Errorf("%s: loaded in the process:\n%s\nthrough packages.Load:\n%s", e.Name(), got, want)
		}
	}
	t.Logf("%d served in the process; declined: %v", served, declined)
	if served < len(entries)/2 {
		t.Errorf("only %d of %d cases served in the process", served, len(entries))
	}
	if !slices.Contains(declined, "build_constraint") {
		t.Errorf("build_constraint was served in the process; its file has a //go:build line")
	}
}

// writeModule writes a module of its own with the given files.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// loadLocal serves a plain package, and declines what the go command may
// read otherwise than go/build here: build constraints, files for one
// system, flags that select files, cgo, imports of internal packages,
// syntax errors.
func TestLoadLocalDeclines(t *testing.T) {
	const plain = "package m\n\nimport \"time\"\n\ntype T struct{ At time.Time }\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		env   map[string]string
		ok    bool
		dir   string // the pattern: "." when empty
	}{
		{"plain", map[string]string{"m.go": plain}, nil, true, ""},
		{"go:build", map[string]string{"m.go": plain, "b.go": "//go:build !nothing\n\npackage m\n"}, nil, false, ""},
		{"for linux", map[string]string{"m.go": plain, "b_linux.go": "package m\n"}, nil, false, ""},
		{"for windows", map[string]string{"m.go": plain, "b_windows.go": "package m\n"}, nil, false, ""},
		{"-tags", map[string]string{"m.go": plain}, map[string]string{"GOFLAGS": "-tags=x"}, false, ""},
		{"-buildvcs", map[string]string{"m.go": plain}, map[string]string{"GOFLAGS": "-buildvcs=false"}, true, ""},
		{"GOOS in go env", map[string]string{"m.go": plain, "goenv": "GOOS=linux\n"}, map[string]string{"GOENV": "goenv"}, false, ""},
		{"cgo", map[string]string{"m.go": plain, "c.go": "package m\n\nimport \"C\"\n"}, nil, false, ""},
		{"internal", map[string]string{"m.go": plain, "x.go": "package m\n\nimport _ \"example.com/m/internal/i\"\n", "internal/i/i.go": "package i\n"}, nil, false, ""},
		{"syntax error", map[string]string{"m.go": plain, "x.go": "package m\n\nfunc {\n"}, nil, false, ""},
		{"import fails", map[string]string{"m.go": plain, "x.go": "package m\n\nimport _ \"example.com/none\"\n"}, nil, false, ""},
		{"subdirectory", map[string]string{"m.go": plain, "sub/s.go": plain}, nil, true, "./sub"},
		{"another module", map[string]string{"m.go": plain, "sub/s.go": plain, "sub/go.mod": "module example.com/sub\n\ngo 1.22\n"}, nil, false, "./sub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeModule(t, tc.files)
			for k, v := range tc.env {
				if k == "GOENV" {
					v = filepath.Join(dir, v)
				}
				t.Setenv(k, v)
			}
			pattern, path := ".", "example.com/m"
			if tc.dir != "" {
				pattern, path = tc.dir, "example.com/m/sub"
			}
			cfg := Config{Dir: dir, Patterns: []string{pattern}}
			pkgs, ok := loadLocal(cfg, cfg.Patterns, map[string]bool{})
			if ok != tc.ok {
				t.Fatalf("served: %v, want %v", ok, tc.ok)
			}
			if ok && (len(pkgs) != 1 || pkgs[0].PkgPath != path || len(pkgs[0].Errors) > 0) {
				t.Errorf("%d packages: %+v", len(pkgs), pkgs)
			}
		})
	}
}

// The go command does not compile a package loadLocal serves: a function
// without a body, which type-checks but does not compile, is the go
// command's error through packages.Load alone, and none here.
func TestLoadLocalBuildsNothing(t *testing.T) {
	dir := writeModule(t, map[string]string{"m.go": "package m\n\nfunc f()\n"})
	cfg := Config{Dir: dir, Patterns: []string{"."}}
	pkgs, ok := loadLocal(cfg, cfg.Patterns, map[string]bool{})
	if !ok {
		t.Fatal("not served")
	}
	if len(pkgs[0].Errors) > 0 {
		t.Errorf("errors in the process: %v", pkgs[0].Errors)
	}
	// packages.Load, as Load calls it, has the go command build the
	// package's export data, which fails.
	whole, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  dir,
	}, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 1 || !slices.ContainsFunc(whole[0].Errors, func(e packages.Error) bool {
		return strings.Contains(e.Msg, "missing function body")
	}) {
		t.Errorf("packages.Load did not build the package: %v", whole[0].Errors)
	}
}
