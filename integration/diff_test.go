package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scylladb/gocqlx/v2"
	"github.com/scylladb/gocqlx/v2/migrate"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// TestDiffLive applies an older schema to a keyspace (testmodel's, without
// the tags column of readings_16, with a TTL on readings_1, with other
// options on notes and without its index by tag), runs cqlgen diff -live
// against it, and expects exactly those six changes, all additive, in a
// migration file. gocqlx's migrate then applies the
// file, after which diff finds nothing.
func TestDiffLive(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	// readings_16 is the table before Visit's.
	const tail = "    PRIMARY KEY ((sensor_id, shard), at, seq)\n) WITH CLUSTERING ORDER BY (at DESC, seq ASC)\n    AND comment = 'a sensor''s readings over 16 hash buckets';"
	old := strings.Replace(testmodel.Schema, "    tags      frozen<list<text>>,\n"+tail, tail, 1)
	if old == testmodel.Schema {
		t.Fatal("the test's edit of the schema did not apply; has testmodel changed?")
	}
	cassandratest.MustApplyCQL(t, session, old)
	must(t, session.Query("ALTER TABLE readings_1 WITH default_time_to_live = 3600").Exec())
	// Options changed by hand, or by an older cqlgen, diff as options.
	must(t, session.Query("DROP INDEX notes_by_tag").Exec())
	must(t, session.Query("ALTER TABLE notes WITH gc_grace_seconds = 864000 AND comment = 'it''s old; and wrong' AND compaction = {'class': 'LeveledCompactionStrategy'}").Exec())

	migrations := t.TempDir()
	diff := func() (string, int) {
		cmd := exec.Command("go", "run", "github.com/cqlgen/cqlgen/cmd/cqlgen", "diff", "-live", "-keyspace", ks, "-migrations", migrations, "./testmodel")
		cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(cassandratest.Hosts(t), ","))
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := diff()
	if code != 0 {
		t.Fatalf("diff -live = %d\n%s", code, out)
	}
	for _, want := range []string{
		"6 change(s) against keyspace " + ks,
		"additive: table notes: new index notes_by_tag on tags",
		"additive: table readings_1: default_time_to_live 3600 becomes 0",
		"additive: table readings_16: new column tags frozen<list<text>>",
		"additive: table notes: compaction {'class': 'LeveledCompactionStrategy'} becomes {'class': 'TimeWindowCompactionStrategy', 'compaction_window_size': 1, 'compaction_window_unit': 'HOURS'}",
		"additive: table notes: gc_grace_seconds 864000 becomes 21600",
		"additive: table notes: comment 'it''s old; and wrong' becomes 'notes for the index tests, it''s a table with every option'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	files, _ := filepath.Glob(filepath.Join(migrations, "*.cql"))
	if len(files) != 1 || filepath.Base(files[0]) != "0001_testmodel.cql" {
		t.Fatalf("migration files: %v\n%s", files, out)
	}
	// Before the migration runs, diff -live finds the same changes: the
	// folder holds them already, and no second file is written.
	out, code = diff()
	files, _ = filepath.Glob(filepath.Join(migrations, "*.cql"))
	if code != 0 || len(files) != 1 || !strings.Contains(out, "0001_testmodel.cql already holds this migration; nothing written") {
		t.Fatalf("diff -live again = %d, files %v\n%s", code, files, out)
	}

	// gocqlx's migrate applies the file as it is.
	must(t, migrate.FromFS(context.Background(), gocqlx.NewSession(session), os.DirFS(migrations)))
	live, err := schemadiff.FromCluster(session, ks)
	must(t, err)
	want, err := schemadiff.Parse(testmodel.Schema)
	must(t, err)
	var rest []string
	for _, c := range schemadiff.Compare(live, want) {
		if c.Table != "gocqlx_migrate" {
			rest = append(rest, c.String())
		}
	}
	if len(rest) != 0 {
		t.Errorf("after the migration, the keyspace still differs: %v", rest)
	}
}

// TestDiffLiveQuoted runs cqlgen diff -live on a keyspace whose tables
// have quoted column names (the golden model quoted), one column and the
// index on "to" missing: diff reads the names system_schema stores
// (unquoted) as the model's, so it finds those two changes alone, and its
// migration quotes the new column; applied, nothing differs.
func TestDiffLiveQuoted(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	schema, err := os.ReadFile("../gen/testdata/golden/quoted/schema.cql")
	must(t, err)
	old := strings.Replace(string(schema), "    \"lastSeen\"  timestamp,\n", "", 1)
	if old == string(schema) {
		t.Fatal("the test's edit of the schema did not apply; has the golden changed?")
	}
	cassandratest.MustApplyCQL(t, session, old)
	must(t, session.Query("DROP INDEX transfers_to").Exec())

	migrations := t.TempDir()
	cmd := exec.Command("go", "run", "github.com/cqlgen/cqlgen/cmd/cqlgen", "diff", "-live", "-keyspace", ks, "-migrations", migrations, "../gen/testdata/golden/quoted")
	cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(cassandratest.Hosts(t), ","))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("diff -live: %v\n%s", err, out)
	}
	for _, want := range []string{
		"2 change(s) against keyspace " + ks,
		"additive: table edges: new column lastSeen timestamp",
		"additive: table transfers: new index transfers_to on to",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	files, _ := filepath.Glob(filepath.Join(migrations, "*.cql"))
	if len(files) != 1 {
		t.Fatalf("migration files: %v\n%s", files, out)
	}
	mig, err := os.ReadFile(files[0])
	must(t, err)
	if !strings.Contains(string(mig), `ALTER TABLE edges ADD "lastSeen" timestamp;`) || !strings.Contains(string(mig), `ON transfers ("to")`) {
		t.Errorf("migration:\n%s", mig)
	}
	must(t, migrate.FromFS(context.Background(), gocqlx.NewSession(session), os.DirFS(migrations)))
	live, err := schemadiff.FromCluster(session, ks)
	must(t, err)
	want, err := schemadiff.Parse(string(schema))
	must(t, err)
	var rest []string
	for _, c := range schemadiff.Compare(live, want) {
		if c.Table != "gocqlx_migrate" {
			rest = append(rest, c.String())
		}
	}
	if len(rest) != 0 {
		t.Errorf("after the migration, the keyspace still differs: %v", rest)
	}
}

// A keyspace deployed when a Go slice was a list<text> (testmodel's
// readings_1.tags): diff -live against today's frozen<list<text>> says
// the change is breaking, writes no migration, and gives both ways out:
// the explicit tag that keeps the column, or a new table.
func TestDiffLiveDeployedList(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	const tail = "    PRIMARY KEY ((sensor_id, shard), at, seq)\n) WITH CLUSTERING ORDER BY (at DESC, seq ASC)"
	old := strings.Replace(testmodel.Schema, "    tags      frozen<list<text>>,\n"+tail, "    tags      list<text>,\n"+tail, 1)
	if old == testmodel.Schema {
		t.Fatal("the test's edit of the schema did not apply; has testmodel changed?")
	}
	cassandratest.MustApplyCQL(t, session, old)
	migrations := t.TempDir()
	cmd := exec.Command("go", "run", "github.com/cqlgen/cqlgen/cmd/cqlgen", "diff", "-live", "-keyspace", ks, "-migrations", migrations, "./testmodel")
	cmd.Env = append(os.Environ(), "CASSANDRA_HOSTS="+strings.Join(cassandratest.Hosts(t), ","))
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("diff -live: %v, want exit status 1\n%s", err, out)
	}
	for _, want := range []string{
		"breaking: table readings_1: column tags is deployed as list<text> and the model now declares frozen<list<text>>",
		`tag the field cql:"list<text>"`,
		`ignore:"open-list: <reason>"`,
		"a new table under a new name, filled by a backfill",
		"no migration written",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("diff output lacks %q:\n%s", want, out)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(migrations, "*.cql")); len(files) != 0 {
		t.Errorf("migration files: %v", files)
	}
}
