package load

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"
)

// loadLocal loads packages named by directory (".", as go:generate passes
// it) without the go command compiling them. packages.Load asks the go
// command for every listed package's export data (go list -export), the
// named package's too, although it then type-checks that one from source:
// after each edit of the package the go command compiles it again, 13%
// of a Load for the synthetic package of 200 patterns, more for a package
// whose generated file is large. Here the named packages are read and
// type-checked in the process, as packages.Load does, and the go command
// is asked only for the packages they import, which it finds built.
//
// It serves only what it reads the same as the go command: directories
// in the module of the go command's working directory, whose files carry
// no build constraint (no //go:build line,
// no _GOOS or _GOARCH file name), no cgo, no flag for the go command
// (BuildFlags, $GOFLAGS, or a go env file that sets what selects files),
// and where every import loads without error. It reports false for
// anything else, and Load asks packages.Load as before.
func loadLocal(cfg Config, patterns []string, stubs map[string]bool) ([]*packages.Package, bool) {
	if len(cfg.BuildFlags) > 0 || !plainEnv() {
		return nil, false
	}
	base := cfg.Dir
	if base == "" {
		base = "."
	}
	var dirs []string
	for _, p := range patterns {
		if !build.IsLocalImport(p) && !filepath.IsAbs(p) || strings.Contains(p, "...") {
			return nil, false
		}
		d := p
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		d, err := filepath.Abs(d)
		if err != nil {
			return nil, false
		}
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	absBase, err := filepath.Abs(base)
	if err != nil {
		return nil, false
	}
	baseMod, _, _, ok := module(absBase)
	if !ok {
		return nil, false
	}
	fset := token.NewFileSet()
	roots := make([]*packages.Package, 0, len(dirs))
	imports := map[string]bool{}
	for _, dir := range dirs {
		root, ok := localPackage(fset, dir, stubs)
		if !ok {
			return nil, false
		}
		for _, f := range root.Syntax {
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				if err != nil || !importable(path) {
					return nil, false
				}
				imports[path] = true
			}
		}
		if root.Module.GoMod != baseMod {
			// The go command, run in base, reads the module there: one
			// in another (a workspace's, or none) is its to resolve.
			return nil, false
		}
		roots = append(roots, root)
	}
	for _, root := range roots {
		if imports[root.PkgPath] {
			return nil, false // one package named imports another: packages.Load shares its types
		}
	}
	delete(imports, "unsafe")
	deps := map[string]*types.Package{"unsafe": types.Unsafe}
	if len(imports) > 0 {
		pkgs, err := packages.Load(&packages.Config{
			Mode: packages.NeedName | packages.NeedTypes,
			Dir:  cfg.Dir,
			Fset: fset,
		}, slicesSorted(imports)...)
		if err != nil || len(pkgs) != len(imports) {
			return nil, false
		}
		for _, p := range pkgs {
			if len(p.Errors) > 0 || p.Types == nil || !p.Types.Complete() || !imports[p.PkgPath] {
				return nil, false
			}
			deps[p.PkgPath] = p.Types
		}
	}
	sizes := types.SizesFor("gc", build.Default.GOARCH)
	for _, root := range roots {
		check(fset, root, deps, sizes)
	}
	return roots, true
}

// plainEnv reports that nothing outside the process's environment tells
// the go command how to select files: no go flag in $GOFLAGS that does
// (fileFlag), nor in a go env file, which sets no GOOS, GOARCH,
// CGO_ENABLED, GOEXPERIMENT or GO111MODULE either. (The go command that
// lists the imports reads both, as it would for the whole package.)
func plainEnv() bool {
	if fileFlags(os.Getenv("GOFLAGS")) || os.Getenv("GO111MODULE") == "off" {
		return false
	}
	file := os.Getenv("GOENV")
	if file == "off" {
		return true
	}
	if file == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return false
		}
		file = filepath.Join(dir, "go", "env")
	}
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return true
	}
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, _ := strings.Cut(strings.TrimSpace(line), "=")
		switch key {
		case "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GO111MODULE":
			return false
		case "GOFLAGS":
			if fileFlags(value) {
				return false
			}
		}
	}
	return true
}

// fileFlags reports a go flag among flags that changes which files make
// a package, or which go.mod is read: -tags, the flags that add a build
// tag (-race, -msan, -asan), -compiler, -modfile and -overlay.
func fileFlags(flags string) bool {
	for _, f := range strings.Fields(flags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "tags", "race", "msan", "asan", "compiler", "modfile", "overlay":
			return true
		}
	}
	return false
}

// importable reports an import path the go command resolves the same
// from any package of the module: not relative, not into an internal or
// vendor directory (whose use the go command checks against the importer),
// not cgo's.
func importable(path string) bool {
	if path == "C" || build.IsLocalImport(path) || path == "" {
		return false
	}
	for _, elem := range strings.Split(path, "/") {
		if elem == "internal" || elem == "vendor" {
			return false
		}
	}
	return true
}

// other are build contexts of other systems: a file that one of them
// selects differently from build.Default depends on where it is built.
var other = func() []build.Context {
	a, b := build.Default, build.Default
	a.GOOS, a.GOARCH = "windows", "arm64"
	b.GOOS, b.GOARCH = "plan9", "386"
	return []build.Context{a, b}
}()

// localPackage reads and parses the package in dir, as the go command
// and packages.Load would; false when it is not one loadLocal serves.
func localPackage(fset *token.FileSet, dir string, stubs map[string]bool) (*packages.Package, bool) {
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil || len(bp.CgoFiles) > 0 || len(bp.IgnoredGoFiles) > 0 || len(bp.InvalidGoFiles) > 0 ||
		len(bp.SFiles)+len(bp.CFiles)+len(bp.SysoFiles)+len(bp.SwigFiles) > 0 {
		return nil, false
	}
	for _, name := range bp.GoFiles {
		for _, ctx := range other {
			if ok, err := ctx.MatchFile(dir, name); !ok || err != nil {
				return nil, false
			}
		}
	}
	gomod, modPath, goVersion, ok := module(dir)
	if !ok {
		return nil, false
	}
	rel, err := filepath.Rel(filepath.Dir(gomod), dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, false
	}
	pkgPath := modPath
	if rel != "." {
		pkgPath += "/" + filepath.ToSlash(rel)
	}
	for _, elem := range strings.Split(filepath.ToSlash(rel), "/") {
		if elem == "vendor" {
			return nil, false
		}
	}
	pkg := &packages.Package{
		ID:      pkgPath,
		Name:    bp.Name,
		PkgPath: pkgPath,
		Fset:    fset,
		Module:  &packages.Module{Path: modPath, Dir: filepath.Dir(gomod), GoMod: gomod, GoVersion: goVersion, Main: true},
	}
	for _, name := range bp.GoFiles {
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, false
		}
		mode := parser.AllErrors | parser.ParseComments | parser.SkipObjectResolution
		stub := stubs[path] && strings.HasPrefix(string(src[:min(len(src), len(GeneratedHeader))]), GeneratedHeader)
		if stub {
			mode = parser.PackageClauseOnly | parser.ParseComments
		}
		f, err := parser.ParseFile(fset, path, src, mode)
		if err != nil {
			// A syntax error: packages.Load reports it as it always has.
			return nil, false
		}
		if !stub && buildConstraint(f) != "" {
			return nil, false
		}
		pkg.GoFiles = append(pkg.GoFiles, path)
		pkg.Syntax = append(pkg.Syntax, f)
	}
	pkg.CompiledGoFiles = pkg.GoFiles
	return pkg, len(pkg.Syntax) > 0
}

// module finds the go.mod above dir: its path, the module's path and its
// go version.
func module(dir string) (gomod, path, goVersion string, ok bool) {
	for d := dir; ; {
		gomod = filepath.Join(d, "go.mod")
		if data, err := os.ReadFile(gomod); err == nil {
			f, err := modfile.ParseLax(gomod, data, nil)
			if err != nil || f.Module == nil {
				return "", "", "", false
			}
			if f.Go != nil {
				goVersion = f.Go.Version
			}
			return gomod, f.Module.Mod.Path, goVersion, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", "", false
		}
		d = parent
	}
}

// check type-checks pkg as packages.Load type-checks a package it was
// asked for, its errors kept as packages.Load keeps them.
func check(fset *token.FileSet, pkg *packages.Package, deps map[string]*types.Package, sizes types.Sizes) {
	pkg.Types = types.NewPackage(pkg.PkgPath, pkg.Name)
	pkg.TypesSizes = sizes
	pkg.TypesInfo = &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
	tc := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if p, ok := deps[path]; ok {
				return p, nil
			}
			return nil, &os.PathError{Op: "import", Path: path, Err: os.ErrNotExist}
		}),
		Sizes: sizes,
		Error: func(err error) {
			switch err := err.(type) {
			case types.Error:
				pkg.Errors = append(pkg.Errors, packages.Error{Pos: err.Fset.Position(err.Pos).String(), Msg: err.Msg, Kind: packages.TypeError})
			case scanner.ErrorList:
				for _, e := range err {
					pkg.Errors = append(pkg.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
				}
			default:
				pkg.Errors = append(pkg.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
			}
		},
	}
	if v := pkg.Module.GoVersion; v != "" {
		tc.GoVersion = "go" + v
	}
	types.NewChecker(tc, fset, pkg.Types, pkg.TypesInfo).Files(pkg.Syntax)
	pkg.IllTyped = len(pkg.Errors) > 0
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func slicesSorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
