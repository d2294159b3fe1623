package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/gen"
)

// driverModule writes a module outside this repository with a model of a
// user-defined type that names neither driver, its go.mod requiring what
// extra says besides cqlgen, and returns its folder.
func driverModule(t *testing.T, extra string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/shop\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/cqlgen/cqlgen v0.0.0\n"+extra+")\n\nreplace github.com/cqlgen/cqlgen => "+root+"\n")
	var sums []string
	for _, f := range []string{"go.sum", "runtime/gocqlv2/go.sum"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, string(b))
	}
	write("go.sum", strings.Join(sums, ""))
	write("model.go", `package shop

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Spot is stored as a user-defined type.
type Spot struct {
	Lat float64 `+"`db:\"lat\"`"+`
}

// Store has one.
type Store struct {
	_ cqlgen.Pattern `+"`table:\"stores\" pk:\"id\"`"+`

	ID   string `+"`db:\"id\"`"+`
	Spot Spot   `+"`db:\"spot\"`"+`
}
`)
	return dir
}

// udtDriver generates the module's package and tells which driver the
// methods of its user-defined type are written for.
func udtDriver(t *testing.T, dir, driver string) string {
	t.Helper()
	res, err := gen.Generate(gen.Options{Dir: dir, Patterns: []string{"."}, Driver: driver})
	if err != nil {
		if res != nil {
			t.Log(res.Diags.Format(dir))
		}
		t.Fatal(err)
	}
	code := string(res.Packages[0].Files[gen.GoFile])
	if !strings.Contains(code, "func (u Spot) MarshalUDT(name string, info gocql.TypeInfo) ([]byte, error)") {
		t.Fatalf("no MarshalUDT on Spot:\n%s", code)
	}
	v1 := strings.Contains(code, `gocql "github.com/gocql/gocql"`)
	v2 := strings.Contains(code, `gocql "github.com/apache/cassandra-gocql-driver/v2"`)
	switch {
	case v1 && !v2:
		return "gocql"
	case v2 && !v1:
		return "gocqlv2"
	}
	t.Fatalf("imports v1 %v, v2 %v", v1, v2)
	return ""
}

// A package that names no driver takes the one its go.mod requires, and
// -driver overrides that.
func TestDriverFromGoModAndOverride(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages in a temporary module")
	}
	neither := driverModule(t, "")
	if got := udtDriver(t, neither, ""); got != "gocql" {
		t.Errorf("a module requiring neither driver: %s, want the default, gocql", got)
	}
	if got := udtDriver(t, neither, "gocqlv2"); got != "gocqlv2" {
		t.Errorf("-driver gocqlv2: %s", got)
	}
	v2 := driverModule(t, "\tgithub.com/apache/cassandra-gocql-driver/v2 v2.1.2\n\tgithub.com/gocql/gocql v1.7.0 // indirect\n")
	if got := udtDriver(t, v2, ""); got != "gocqlv2" {
		t.Errorf("a module requiring v2 (and gocql v1 indirectly): %s, want gocqlv2", got)
	}
	if got := udtDriver(t, v2, "gocql"); got != "gocql" {
		t.Errorf("-driver gocql: %s", got)
	}
	if _, err := gen.Generate(gen.Options{Dir: v2, Driver: "gocqlv3"}); err == nil || !strings.Contains(err.Error(), "gocqlv2") {
		t.Errorf("an unknown driver: %v", err)
	}
}
