package cqlgen

import (
	"os/exec"
	"strings"
	"testing"
)

// The runtime that generated code imports links no driver: a program
// pulls in the driver of the adapter it imports (runtime/gocqlv1, or the
// runtime/gocqlv2 module) and no other.
func TestRuntimeImportsNoDriver(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps",
		"github.com/cqlgen/cqlgen/runtime/cqlgen", "github.com/cqlgen/cqlgen/runtime/cqlgenimpl").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "github.com/gocql/") || strings.HasPrefix(p, "github.com/apache/cassandra-gocql-driver") {
			t.Errorf("the runtime depends on the driver package %s", p)
		}
	}
}
