package integration

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// repoRoot is the root of the cqlgen module.
var repoRoot, _ = filepath.Abs("..")

// userModule makes a module outside this repository that adds cqlgen as
// a tool, the way the README says, with a copy of example/music whose
// keyspace directive names keyspace; it runs go generate and returns the
// module's folder.
func userModule(t *testing.T, keyspace string) string {
	t.Helper()
	dir := t.TempDir()
	put := func(path, content string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte(content), 0o644))
	}
	put(filepath.Join(dir, "go.mod"), "module example.com/shop\n\ngo 1.26\n\nrequire github.com/cqlgen/cqlgen v0.0.0\n\nreplace github.com/cqlgen/cqlgen => "+repoRoot+"\n\ntool github.com/cqlgen/cqlgen/cmd/cqlgen\n")
	sum, err := os.ReadFile(filepath.Join(repoRoot, "go.sum"))
	must(t, err)
	put(filepath.Join(dir, "go.sum"), string(sum))
	files, err := filepath.Glob(filepath.Join(repoRoot, "example/music/*.go"))
	must(t, err)
	for _, f := range files {
		if filepath.Base(f) == "cqlgen_gen.go" {
			continue
		}
		src, err := os.ReadFile(f)
		must(t, err)
		s := regexp.MustCompile(`(?m)^//cqlgen:keyspace music `).ReplaceAllString(string(src), "//cqlgen:keyspace "+keyspace+" ")
		put(filepath.Join(dir, "music", filepath.Base(f)), s)
	}
	goIn(t, dir, nil, "mod", "tidy")
	goIn(t, dir, nil, "generate", "./...")
	return dir
}

// goIn runs the go command in dir with extra environment variables and
// returns its combined output and exit code; a go command that cannot run
// at all fails the test.
func goIn(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod"), env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		if args[0] != "tool" {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

func hostsEnv(t *testing.T) string {
	return "CASSANDRA_HOSTS=" + strings.Join(cassandratest.Hosts(t), ",")
}

// TestApplyFromUserModule applies a package's schema.cql from a user's
// module with go tool cqlgen apply: into the keyspace its directive names
// (created), again (nothing to do, same result), into a keyspace given by
// -keyspace, and over a table changed by hand, which apply reports.
func TestApplyFromUserModule(t *testing.T) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	ks := "t_apply_" + hex.EncodeToString(b[:])
	admin := cassandratest.Session(t)
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	dir := userModule(t, ks)
	want, err := schemadiff.Parse(readFile(t, filepath.Join(dir, "music/schema.cql")))
	must(t, err)

	for run := 1; run <= 2; run++ {
		out, code := goIn(t, dir, []string{hostsEnv(t)}, "tool", "cqlgen", "apply", "./...")
		if code != 0 || !strings.Contains(out, "statement(s) applied to keyspace "+ks) {
			t.Fatalf("apply, run %d = %d\n%s", run, code, out)
		}
		live, err := schemadiff.FromCluster(admin, ks)
		must(t, err)
		if cs := schemadiff.CompareLive(live, want); len(cs) != 0 {
			t.Fatalf("after apply, run %d, the keyspace differs: %v", run, cs)
		}
	}

	// -keyspace: an existing keyspace of the operator's.
	session, other := cassandratest.Keyspace(t)
	out, code := goIn(t, dir, []string{hostsEnv(t)}, "tool", "cqlgen", "apply", "-keyspace", other, "./music")
	if code != 0 {
		t.Fatalf("apply -keyspace = %d\n%s", code, out)
	}
	live, err := schemadiff.FromCluster(session, other)
	must(t, err)
	if cs := schemadiff.CompareLive(live, want); len(cs) != 0 {
		t.Errorf("after apply -keyspace, the keyspace differs: %v", cs)
	}
	// A keyspace that does not exist is not created with a guessed
	// replication.
	out, code = goIn(t, dir, []string{hostsEnv(t)}, "tool", "cqlgen", "apply", "-keyspace", other+"_none", "./music")
	if code != 4 || !strings.Contains(out, "keyspace "+other+"_none does not exist") {
		t.Errorf("apply into a missing keyspace = %d\n%s", code, out)
	}

	// A table's option changed by hand: IF NOT EXISTS leaves the table,
	// and apply runs the ALTER that diff proposes.
	must(t, session.Query("ALTER TABLE listening_history WITH default_time_to_live = 60").Exec())
	out, code = goIn(t, dir, []string{hostsEnv(t)}, "tool", "cqlgen", "apply", "-keyspace", other, "./music")
	if code != 0 || !strings.Contains(out, "applied in place: additive: table listening_history: default_time_to_live 60 becomes 7776000") {
		t.Errorf("apply over a changed option = %d\n%s", code, out)
	}
	var ttl int
	must(t, session.Query("SELECT default_time_to_live FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'listening_history'", other).Scan(&ttl))
	if ttl != 7776000 {
		t.Errorf("after apply, listening_history's TTL is %d", ttl)
	}
	// A column added by hand is one the declarations drop: breaking, so
	// apply only reports it.
	must(t, session.Query("ALTER TABLE listening_history ADD device text").Exec())
	out, code = goIn(t, dir, []string{hostsEnv(t)}, "tool", "cqlgen", "apply", "-keyspace", other, "./music")
	if code != 1 || !strings.Contains(out, "breaking: table listening_history: column device is dropped") {
		t.Errorf("apply over a column added by hand = %d\n%s", code, out)
	}

	// A stale schema.cql is never applied.
	music := filepath.Join(dir, "music/music.go")
	src := readFile(t, music)
	must(t, os.WriteFile(music, []byte(strings.Replace(src, `ttl:"90d"`, `ttl:"30d"`, 1)), 0o644))
	out, code = goIn(t, dir, []string{hostsEnv(t)}, "tool", "cqlgen", "apply", "-keyspace", other, "./music")
	if code != 1 || !strings.Contains(out, "schema.cql is missing or stale") {
		t.Errorf("apply with a stale schema.cql = %d\n%s", code, out)
	}
}

// TestApplyDeprecation: a pattern marked deprecated changes its table's
// comment, which diff proposes as ALTER TABLE ... WITH comment; apply
// runs it, as it runs every additive change a CREATE ... IF NOT EXISTS
// cannot make.
func TestApplyDeprecation(t *testing.T) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	ks := "t_applydep_" + hex.EncodeToString(b[:])
	admin := cassandratest.Session(t)
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	dir := userModule(t, ks)
	env := []string{hostsEnv(t)}
	if out, code := goIn(t, dir, env, "tool", "cqlgen", "apply", "./..."); code != 0 {
		t.Fatalf("apply = %d\n%s", code, out)
	}
	music := filepath.Join(dir, "music/music.go")
	src := readFile(t, music)
	expanded := strings.Replace(src, "\t_ cqlgen.Pattern `table:\"top_tracks_by_artist\" pk:\"artist_id\"",
		"\t_ cqlgen.Pattern `table:\"top_tracks_by_album\" pk:\"artist_id, album\" ck:\"play_count desc, track_id\" size:\"rows=50\" name:\"TopTracksByAlbum\"`\n"+
			"\t_ cqlgen.Pattern `table:\"top_tracks_by_artist,deprecated\" replaced_by:\"top_tracks_by_album\" pk:\"artist_id\"", 1)
	if expanded == src {
		t.Fatal("the test's edit of music.go did not apply; has example/music changed?")
	}
	must(t, os.WriteFile(music, []byte(expanded), 0o644))
	goIn(t, dir, nil, "generate", "./...")
	out, code := goIn(t, dir, env, "tool", "cqlgen", "apply", "./...")
	if code != 0 || !strings.Contains(out, "applied in place: additive: table top_tracks_by_artist: comment") {
		t.Fatalf("apply after a deprecation = %d\n%s", code, out)
	}
	var comment string
	must(t, admin.Query("SELECT comment FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'top_tracks_by_artist'", ks).Scan(&comment))
	if !strings.HasPrefix(comment, "DEPRECATED, replaced by top_tracks_by_album") {
		t.Errorf("after apply, top_tracks_by_artist's comment is %q", comment)
	}
	live, err := schemadiff.FromCluster(admin, ks)
	must(t, err)
	want, err := schemadiff.Parse(readFile(t, filepath.Join(dir, "music/schema.cql")))
	must(t, err)
	if cs := schemadiff.CompareLive(live, want); len(cs) != 0 {
		t.Errorf("after apply, the keyspace differs: %v", cs)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}

// TestDiffLiveReach: -live leaves the tables of others alone, reaches the
// node through a local DC, refuses a DC the cluster lacks, and speaks TLS
// when told to (which the plain test node refuses).
func TestDiffLiveReach(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, session, testmodel.Schema)
	must(t, session.Query("CREATE TABLE gocqlx_migrate (name text PRIMARY KEY, done int)").Exec())
	must(t, session.Query("CREATE TABLE billing_events (id uuid PRIMARY KEY, amount decimal, note text)").Exec())
	must(t, session.Query("CREATE CUSTOM INDEX billing_by_note ON billing_events (note) USING 'StorageAttachedIndex'").Exec())
	var dc string
	must(t, session.Query("SELECT data_center FROM system.local").Scan(&dc))

	// go run exits 1 for any failure and prints the command's own code.
	diff := func(env ...string) (string, int) {
		cmd := exec.Command("go", "run", "github.com/cqlgen/cqlgen/cmd/cqlgen", "diff", "-live", "-keyspace", ks, "./testmodel")
		cmd.Env = append(append(os.Environ(), hostsEnv(t)), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	out, code := diff("CASSANDRA_LOCAL_DC=" + dc)
	if code != 0 || !strings.Contains(out, "no changes against keyspace "+ks) ||
		!strings.Contains(out, "unmanaged: billing_events, gocqlx_migrate: tables of the keyspace this package does not declare; left alone") {
		t.Errorf("diff -live with tables of others = %d\n%s", code, out)
	}
	if strings.Contains(out, "breaking") || strings.Contains(out, "billing_by_note") {
		t.Errorf("diff -live reports what it does not own:\n%s", out)
	}

	out, code = diff("CASSANDRA_LOCAL_DC=" + dc + "_elsewhere")
	if code == 0 || !strings.Contains(out, "exit status 4") || !strings.Contains(out, "CASSANDRA_LOCAL_DC="+dc+"_elsewhere is not a datacenter of the cluster, whose datacenters are "+dc) {
		t.Errorf("diff -live with a wrong DC = %d\n%s", code, out)
	}
	out, code = diff("CASSANDRA_TLS=true")
	if code == 0 || !strings.Contains(out, "exit status 4") || !strings.Contains(out, "connecting to") || !strings.Contains(out, "tls:") {
		t.Errorf("diff -live over TLS to a plain node = %d, want a connection failure\n%s", code, out)
	}
}

// TestApplyScriptLive runs a hand-written migration through
// cassandratest.ApplyCQL, which splits with cqlscript: a batch, a block
// comment with semicolons, a multi-line string and two statements on a
// line reach Cassandra whole.
func TestApplyScriptLive(t *testing.T) {
	session, _ := cassandratest.Keyspace(t)
	const script = `/* Reference data; loaded once.
   Every statement is idempotent; run it again at will. */
CREATE TABLE IF NOT EXISTS currencies (
    code  text PRIMARY KEY, -- ISO 4217; three letters
    name  text,
    minor int               // digits after the point; 0 for yen
) WITH comment = 'currencies we price in; see finance''s list';

BEGIN UNLOGGED BATCH
    INSERT INTO currencies (code, name, minor) VALUES ('EUR', 'Euro', 2);
    INSERT INTO currencies (code, name, minor) VALUES ('JPY', 'Yen', 0);
APPLY BATCH;

INSERT INTO currencies (code, name, minor) VALUES ('BHD', 'Bahraini dinar;
three digits', 3); UPDATE currencies SET minor = 2 WHERE code = 'JPY';
`
	cassandratest.MustApplyCQL(t, session, script)
	var n int
	must(t, session.Query("SELECT COUNT(*) FROM currencies").Scan(&n))
	var name string
	var minor int
	must(t, session.Query("SELECT name, minor FROM currencies WHERE code = 'BHD'").Scan(&name, &minor))
	if n != 3 || name != "Bahraini dinar;\nthree digits" || minor != 3 {
		t.Errorf("rows %d, BHD %q %d", n, name, minor)
	}
	must(t, session.Query("SELECT minor FROM currencies WHERE code = 'JPY'").Scan(&minor))
	if minor != 2 {
		t.Errorf("the UPDATE sharing a line did not run: JPY minor %d", minor)
	}
}

// TestKeyChangeLive: diff -live on the expand/contract path. It holds the
// drop back while the replacing table is empty, proposes it once it has
// rows, and, the pattern removed, sees the deprecated table left in the
// keyspace as the contract step (its comment says it is cqlgen's), not as
// a table of others.
func TestKeyChangeLive(t *testing.T) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	ks := "t_keychange_" + hex.EncodeToString(b[:])
	admin := cassandratest.Session(t)
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	dir := userModule(t, ks)
	music := filepath.Join(dir, "music/music.go")
	deprecated := "\t_ cqlgen.Pattern `table:\"top_tracks_by_artist,deprecated\" replaced_by:\"top_tracks_by_album\" pk:\"artist_id\" ck:\"play_count desc, track_id\" cols:\"track_name, album, duration_s\" size:\"rows=500\" doc:\"an artist's top tracks, most played first\"`\n"
	src := readFile(t, music)
	expanded := strings.Replace(src, "\t_ cqlgen.Pattern `table:\"top_tracks_by_artist\" pk:\"artist_id\" ck:\"play_count desc, track_id\" cols:\"track_name, album, duration_s\" size:\"rows=500\" doc:\"an artist's top tracks, most played first\"`\n",
		"\t_ cqlgen.Pattern `table:\"top_tracks_by_album\" pk:\"artist_id, album\" ck:\"play_count desc, track_id\" size:\"rows=50\" name:\"TopTracksByAlbum\"`\n"+deprecated, 1)
	if expanded == src {
		t.Fatal("the test's edit of music.go did not apply; has example/music changed?")
	}
	must(t, os.WriteFile(music, []byte(expanded), 0o644))
	goIn(t, dir, nil, "generate", "./...")
	env := []string{hostsEnv(t)}
	if out, code := goIn(t, dir, env, "tool", "cqlgen", "apply", "./..."); code != 0 {
		t.Fatalf("apply = %d\n%s", code, out)
	}

	out, code := goIn(t, dir, env, "tool", "cqlgen", "diff", "-live", "./...")
	if code != 0 || !strings.Contains(out, "no changes against keyspace "+ks) ||
		!strings.Contains(out, "[ ] backfill: top_tracks_by_album holds no rows yet: run cqlgen maintain backfill -entity Track -table top_tracks_by_album -job add-top_tracks_by_album ./music, then cqlgen maintain verify -table top_tracks_by_album ./music") ||
		!strings.Contains(out, "the drop of top_tracks_by_artist waits") {
		t.Errorf("diff -live before the backfill = %d\n%s", code, out)
	}
	must(t, admin.Query("INSERT INTO "+ks+".top_tracks_by_album (artist_id, album, play_count, track_id) VALUES ('a1', 'x', 3, 't1')").Exec())
	out, code = goIn(t, dir, env, "tool", "cqlgen", "diff", "-live", "./...")
	if code != 0 || !strings.Contains(out, "[x] backfill: top_tracks_by_album holds rows") ||
		!strings.Contains(out, "    ready to contract: remove the pattern of top_tracks_by_artist") {
		t.Errorf("diff -live after the backfill = %d\n%s", code, out)
	}

	must(t, os.WriteFile(music, []byte(strings.Replace(expanded, deprecated, "", 1)), 0o644))
	goIn(t, dir, nil, "generate", "./...")
	out, code = goIn(t, dir, env, "tool", "cqlgen", "diff", "-live", "./...")
	if code != 0 || !strings.Contains(out, "contract: table top_tracks_by_artist: deprecated for top_tracks_by_album, and declared no more") ||
		!strings.Contains(out, "DROP TABLE IF EXISTS top_tracks_by_artist;") || strings.Contains(out, "unmanaged: top_tracks_by_artist") {
		t.Errorf("diff -live after the contract = %d\n%s", code, out)
	}
}
