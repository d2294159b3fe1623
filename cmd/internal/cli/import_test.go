package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cqlgen import writes a package of declarations from a CQL file (a
// column named "from" declared with db:"from,quoted"), says
// what it could not declare at the table's position, and refuses to
// overwrite the file it wrote without -force.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	cql := filepath.Join(dir, "schema.cql")
	write(t, cql, `CREATE TABLE users (id uuid PRIMARY KEY, email text);
CREATE TABLE users_by_email (email text, id uuid, PRIMARY KEY (email, id));
CREATE TABLE moves (id uuid PRIMARY KEY, "from" text);
CREATE TABLE "Legs" (id uuid PRIMARY KEY);
`)
	out := filepath.Join(dir, "shop")
	code, stdout, stderr := run(t, "import", "-o", out, cql)
	if code != ExitOK {
		t.Fatalf("import = %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, `schema.cql:4:1: note: table "Legs" needs a quoted name`) {
		t.Errorf("stderr lacks the positioned note:\n%s", stderr)
	}
	if !strings.Contains(stdout, "wrote ") || !strings.Contains(stdout, "2 entities for 3 tables (1 merged from several tables), 1 not declared") {
		t.Errorf("stdout: %s", stdout)
	}
	src, err := os.ReadFile(filepath.Join(out, "shop.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "package shop") || !strings.Contains(string(src), "`table:\"users,canonical\" pk:\"id\" comment:\"\"`") ||
		!strings.Contains(string(src), "`db:\"from,quoted\"`") {
		t.Errorf("shop.go:\n%s", src)
	}

	// Again: the file exists, and is kept as it is.
	write(t, filepath.Join(out, "shop.go"), "package shop // edited\n")
	code, _, stderr = run(t, "import", "-o", out, cql)
	if code != ExitFailure || !strings.Contains(stderr, "exists; refusing to overwrite it (give -force") {
		t.Errorf("import over an existing file = %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "shop.go")); string(b) != "package shop // edited\n" {
		t.Errorf("the existing file was changed: %s", b)
	}
	if code, _, stderr = run(t, "import", "-force", "-o", out, cql); code != ExitOK {
		t.Errorf("import -force = %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "shop.go")); string(b) != string(src) {
		t.Errorf("import -force wrote another file than the first import:\n%s", b)
	}

	// -n prints and writes nothing; -package names the package.
	code, stdout, _ = run(t, "import", "-n", "-package", "model", "-o", filepath.Join(dir, "none"), cql)
	if code != ExitOK || !strings.Contains(stdout, "package model") {
		t.Errorf("import -n = %d:\n%s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("import -n wrote a folder")
	}
}

func TestImportUsage(t *testing.T) {
	for _, args := range [][]string{
		{"import"},
		{"import", "a.cql", "b.cql"},
		{"import", "-keyspace", "shop", "a.cql"},
		{"import", "-package", "func", "a.cql"},
	} {
		if code, _, _ := run(t, args...); code != ExitUsage {
			t.Errorf("%v = %d, want %d", args, code, ExitUsage)
		}
	}
	if code, _, stderr := run(t, "import", "-n", filepath.Join(t.TempDir(), "missing.cql")); code != ExitFailure || !strings.Contains(stderr, "missing.cql") {
		t.Errorf("a missing file = %d, %s", code, stderr)
	}
	if code, _, stderr := run(t, "import", "-n", "-keyspace", "shop"); code != ExitFailure || !strings.Contains(stderr, "CASSANDRA_HOSTS is not set") {
		t.Errorf("-keyspace without CASSANDRA_HOSTS = %d, %s", code, stderr)
	}
}
