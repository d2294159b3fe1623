package internal_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/cqlgen/cqlgen/"

type allowedRow struct {
	pkg     string
	imports []string
}

// allowed is the runtime's rooms under runtime/internal, from the ground
// up, and for each the packages of this module it may import (docs/
// architecture.md gives each a paragraph). The standard library and
// third-party modules are not listed: any room may use them. A room
// imports only rooms listed before it, so no arrow runs up and no import
// closes a loop; a new package under runtime/internal must be added here,
// in its place.
var allowed = []allowedRow{
	{"runtime/internal/bucket", nil},
	{"runtime/internal/base", []string{"runtime/cqldriver"}},
	{"runtime/internal/engine", []string{"internal/cqlspec", "runtime/cqldriver", "runtime/cqlgen", "runtime/cqlobserve", "runtime/internal/base"}},
	{"runtime/internal/value", []string{"runtime/cqldriver", "runtime/cqlgen"}},
	{"runtime/internal/desc", []string{"internal/cqlspec", "runtime/cqldriver", "runtime/cqlgen",
		"runtime/internal/base", "runtime/internal/bucket", "runtime/internal/engine", "runtime/internal/value"}},
	{"runtime/internal/reads", []string{"internal/cqlspec", "runtime/cqldriver", "runtime/cqlgen", "runtime/internal/base",
		"runtime/internal/desc", "runtime/internal/value"}},
	{"runtime/internal/protocol", []string{"runtime/cqldriver", "runtime/cqlgen",
		"runtime/internal/base", "runtime/internal/desc", "runtime/internal/engine", "runtime/internal/value"}},
	{"runtime/internal/maintenance", []string{"internal/cqlspec", "runtime/cqldriver", "runtime/cqlgen", "runtime/cqlmaintain", "runtime/internal/engine",
		"runtime/internal/desc", "runtime/internal/protocol", "runtime/internal/value"}},
	{"runtime/internal/impl", []string{"internal/cqlspec", "runtime/cqldriver", "runtime/cqlgen", "runtime/cqlmaintain",
		"runtime/internal/base", "runtime/internal/bucket", "runtime/internal/engine",
		"runtime/internal/desc", "runtime/internal/maintenance", "runtime/internal/protocol", "runtime/internal/reads", "runtime/internal/value"}},
}

// maxLines is the most lines of non-test Go a package under
// runtime/internal may hold: past it, a room wants cutting in two.
const maxLines = 4000

type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// goList lists the packages under runtime/internal as go list -json
// reads them (build constraints applied, test files apart).
func goList(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if len(p.GoFiles) > 0 {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) < len(allowed) {
		t.Fatalf("go list found %d packages with Go files, the table names %d: the test runs in the wrong directory", len(pkgs), len(allowed))
	}
	return pkgs
}

// Each package under runtime/internal imports, of this module, only what
// its row of allowed names; and every package has a row.
func TestLayersImportOnlyDownward(t *testing.T) {
	for _, v := range violations(goList(t)) {
		t.Error(v)
	}
}

// The check finds an import up, an import its row does not name, a
// package without a row, and a row that lets a room import one above.
func TestLayersViolationsFound(t *testing.T) {
	pkgs := []listed{
		{ImportPath: module + "runtime/internal/desc", Imports: []string{"fmt", module + "runtime/internal/protocol"}},
		{ImportPath: module + "runtime/internal/value", Imports: []string{module + "runtime/cqlmaintain"}},
		{ImportPath: module + "runtime/internal/newroom", Imports: nil},
		{ImportPath: module + "runtime/internal/reads", Imports: []string{"github.com/gocql/gocql", module + "runtime/internal/desc"}},
	}
	got := violations(pkgs)
	for _, want := range []string{"desc imports runtime/internal/protocol", "value imports runtime/cqlmaintain", "newroom has no row"} {
		if !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, want) }) {
			t.Errorf("not found: %q; found %q", want, got)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d violations, want 3: %q", len(got), got)
	}
	saved := allowed
	defer func() { allowed = saved }()
	allowed = append(slices.Clone(allowed[:1]), allowed...)
	allowed[0] = allowedRow{"runtime/internal/value", []string{"runtime/internal/desc"}}
	if got := violations(nil); len(got) != 1 || !strings.Contains(got[0], "stands at or above it") {
		t.Errorf("a row importing upward: %q", got)
	}
}

// violations are the imports of pkgs that the table does not allow, and
// the rows of the table that let a room import one listed after it.
func violations(pkgs []listed) []string {
	var out []string
	rows := map[string][]string{}
	for i, r := range allowed {
		rows[r.pkg] = r.imports
		for _, imp := range r.imports {
			if j := slices.IndexFunc(allowed, func(a allowedRow) bool { return a.pkg == imp }); j >= i {
				out = append(out, "the table lets "+r.pkg+" import "+imp+", which stands at or above it")
			}
		}
	}
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, module)
		may, ok := rows[rel]
		if !ok {
			out = append(out, rel+" has no row in allowed: give it one, with what it may import, in its place among the rooms")
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if own := strings.TrimPrefix(imp, module); !slices.Contains(may, own) {
				out = append(out, rel+" imports "+own+", which its row in allowed does not name: an arrow up, or a room to add to its row on purpose")
			}
		}
	}
	return out
}

// No package under runtime/internal holds more than maxLines lines of
// non-test Go.
func TestLayersAreSmall(t *testing.T) {
	for _, p := range goList(t) {
		n := 0
		for _, f := range p.GoFiles {
			n += countLines(t, filepath.Join(p.Dir, f))
		}
		if n > maxLines {
			t.Errorf("%s holds %d lines of non-test Go, more than %d: cut it into rooms", strings.TrimPrefix(p.ImportPath, module), n, maxLines)
		}
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		n++
	}
	if err := s.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n
}
