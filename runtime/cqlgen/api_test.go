package cqlgen

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// maxUserAPI bounds what package cqlgen exports, counted as issue 25 and
// bench/shape.sh count it: the lines of `go doc -all` that start with
// "func " or "type " (every exported func, constructors included, every
// exported method of an exported type, and every exported type; constants
// and variables not). The driver interface, the engine, observers,
// buckets, maintenance and generated-code helpers live elsewhere
// (cqldriver, runtime/internal, cqlobserve, cqlbucket, cqlmaintain,
// cqlgenimpl). 61 since issue 37: Stream, the iterator over any paged
// read, and Scored, the row of an ANN read with its similarity, are read
// by users and returned to them.
const maxUserAPI = 61

// userAPI is the package's funcs, methods and types, one a line, as go doc
// -all prints them.
func userAPI(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "doc", "-all", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "func ") || strings.HasPrefix(l, "type ") {
			lines = append(lines, strings.TrimSuffix(l, " {"))
		}
	}
	return lines
}

func TestUserAPIStaysSmall(t *testing.T) {
	api := userAPI(t)
	if len(api) == 0 {
		t.Fatal("go doc -all printed no func or type: the count would be wrong")
	}
	if len(api) > maxUserAPI {
		t.Errorf("package cqlgen exports %d funcs, methods and types (go doc -all), over %d:\n%s\nmove what users neither call nor read about to cqldriver, cqlobserve, cqlbucket, cqlmaintain, cqlgenimpl or runtime/internal", len(api), maxUserAPI, strings.Join(api, "\n"))
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
