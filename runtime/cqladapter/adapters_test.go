package cqladapter_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/cqlgen/cqlgen/"

// adapters are the project's driver adapters, each with the folder its
// module is listed from (go list -C): runtime/gocqlv2 is a module of its
// own.
var adapters = []struct{ pkg, dir string }{
	{module + "runtime/gocqlv1", "."},
	{module + "runtime/gocqlv2", "../gocqlv2"},
}

// sharedWithTheCommand may be imported although it is internal: the
// CASSANDRA_* variables that ClusterFromEnv reads, parsed as the cqlgen
// command parses them. It is a convenience of the project's adapters
// beside their Driver, not something a Driver needs.
const sharedWithTheCommand = module + "internal/clusterenv"

// Issue 36: the adapters use the driver interface, cqladapter and the
// user API only, so that an adapter outside this module can do all they
// do: none of their files, tests included, imports a package under
// runtime/internal or another internal package of the module.
func TestAdaptersImportNoInternalPackage(t *testing.T) {
	for _, a := range adapters {
		out, err := exec.Command("go", "list", "-C", a.dir, "-f",
			`{{join .Imports "\n"}}{{"\n"}}{{join .TestImports "\n"}}{{"\n"}}{{join .XTestImports "\n"}}`, a.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", a.pkg, err, out)
		}
		imports := strings.Fields(string(out))
		// The check checks something: every adapter runs on the driver
		// interface and makes its session with NewSession.
		for _, want := range []string{module + "runtime/cqldriver", module + "runtime/cqladapter"} {
			if !slices.Contains(imports, want) {
				t.Errorf("%s does not import %s: go list gave %q", a.pkg, want, imports)
			}
		}
		for _, imp := range imports {
			if !strings.HasPrefix(imp, module) || imp == sharedWithTheCommand {
				continue
			}
			if strings.HasPrefix(imp, module+"runtime/internal/") || strings.Contains(imp[len(module)-1:], "/internal/") {
				t.Errorf("%s imports %s: an adapter outside the module could not; expose what it needs through runtime/cqldriver or runtime/cqladapter", a.pkg, imp)
			}
		}
	}
}
