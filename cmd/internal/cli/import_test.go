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

// importSchema has what a fresh import used to declare with warnings
// (a non-frozen list, a date alone as a partition key, partitions nothing
// bounds), tables to merge, and the driver's types (a UUID, a Duration in
// a user-defined type).
const importSchema = `CREATE TYPE stop (at timestamp, wait duration);
CREATE TABLE users (userid uuid PRIMARY KEY, email text, tags list<text>, home frozen<stop>);
CREATE TABLE users_by_email (email text, userid uuid, PRIMARY KEY (email, userid));
CREATE TABLE country_flags (country text, flag text, PRIMARY KEY (country, flag));
CREATE TABLE daily_signups (day date, userid uuid, PRIMARY KEY (day, userid));
`

// A fresh import generates under -strict, merged or not, on either
// driver (v2 the one the module's go.mod requires), and what it
// generates builds.
func TestImportGenerateStrict(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated code in a temporary module")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), `module example.com/shop

go 1.26

require (
	github.com/apache/cassandra-gocql-driver/v2 v2.1.2
	github.com/cqlgen/cqlgen v0.0.0
)

replace github.com/cqlgen/cqlgen => `+repoRoot+"\n")
	var sums []string
	for _, f := range []string{"go.sum", "gen/testdata/golden/udt_v2/go.sum"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, string(b))
	}
	write(t, filepath.Join(dir, "go.sum"), strings.Join(sums, ""))
	cql := filepath.Join(dir, "schema.cql")
	write(t, cql, importSchema)
	t.Chdir(dir)

	code, stdout, stderr := run(t, "import", "-o", "merged", "schema.cql")
	if code != ExitOK {
		t.Fatalf("import = %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "fields of the v2 (github.com/apache/cassandra-gocql-driver/v2) driver, which go.mod requires") {
		t.Errorf("the driver is not the one go.mod requires:\n%s", stdout)
	}
	if !strings.Contains(stdout, "silenced 5 warning(s) over what the deployed tables are (growth-unknown 3, low-cardinality 1, open-list 1)") {
		t.Errorf("stdout does not count the ignores:\n%s", stdout)
	}
	if !strings.Contains(stderr, "schema.cql:2:1: note: merged users and users_by_email into one entity, User, with users as its source of truth: it costs an ALTER TABLE of users") {
		t.Errorf("stderr lacks the merge note:\n%s", stderr)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "merged", "merged.go"))
	if !strings.Contains(string(src), "//go:generate go tool cqlgen generate -driver gocqlv2 .\n") || !strings.Contains(string(src), `gocql "github.com/apache/cassandra-gocql-driver/v2"`) {
		t.Errorf("merged.go:\n%s", src)
	}

	code, stdout, stderr = run(t, "import", "-no-merge", "-driver", "v1", "-o", "flat", "schema.cql")
	if code != ExitOK || strings.Contains(stderr, "merged") || !strings.Contains(stdout, "4 entities for 4 tables (0 merged from several tables)") ||
		!strings.Contains(stdout, "fields of the v1 (github.com/gocql/gocql) driver\n") {
		t.Errorf("import -no-merge -driver v1 = %d\n%s%s", code, stdout, stderr)
	}
	gocmd(t, dir, "mod", "tidy")
	// The module requires v2 alone; the v1 package is generated for v1,
	// as its go:generate line says.
	if code, _, stderr := run(t, "generate", "-strict", "./merged"); code != ExitOK {
		t.Errorf("generate -strict ./merged = %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, "generate", "-strict", "-driver", "gocql", "./flat"); code != ExitOK {
		t.Errorf("generate -strict ./flat = %d\n%s", code, stderr)
	}
	gocmd(t, dir, "vet", "./...")
}

func TestImportFlags(t *testing.T) {
	code, _, stderr := run(t, "import", "-driver", "v3", "a.cql")
	if code != ExitUsage || !strings.Contains(stderr, `-driver "v3": want v1 (github.com/gocql/gocql) or v2`) {
		t.Errorf("-driver v3 = %d, %s", code, stderr)
	}
	code, _, stderr = run(t, "import")
	if code != ExitUsage || !strings.Contains(stderr, "usage: cqlgen import [flags] FILE.cql | -keyspace K\n") {
		t.Errorf("usage: %s", stderr)
	}
}
