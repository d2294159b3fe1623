package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/scylladb/gocqlx/v2"
	"github.com/scylladb/gocqlx/v2/migrate"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
)

// cqlgenBinary builds the cqlgen command once for a test and returns its
// path.
func cqlgenBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cqlgen")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/cqlgen/cqlgen/cmd/cqlgen")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build cqlgen: %v\n%s", err, out)
	}
	return bin
}

// cqlgenRun runs the built command in dir with the test node's hosts and
// returns its stdout, stderr and exit code.
func cqlgenRun(t *testing.T, bin, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return cqlgenRunEnv(t, bin, dir, nil, args...)
}

// cqlgenRunEnv is cqlgenRun with more environment variables.
func cqlgenRunEnv(t *testing.T, bin, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), hostsEnv(t)), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// hits reads the counters the test migrations increment, one a migration:
// a counter is not idempotent, so its value is how many times a statement
// ran.
func hits(t *testing.T, s *gocql.Session) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	var id string
	var n int64
	it := s.Query("SELECT id, n FROM hits").Iter()
	for it.Scan(&id, &n) {
		out[id] = n
	}
	must(t, it.Close())
	return out
}

// ledger reads cqlgen migrate's ledger: name -> done.
func ledger(t *testing.T, s *gocql.Session) map[string]int {
	t.Helper()
	out := map[string]int{}
	var name string
	var done int
	it := s.Query("SELECT name, done FROM cqlgen_migrations").Iter()
	for it.Scan(&name, &done) {
		out[name] = done
	}
	must(t, it.Close())
	return out
}

const (
	migBase = `-- the tables the later migrations use
CREATE TABLE IF NOT EXISTS events (id text PRIMARY KEY, n int);
CREATE TABLE IF NOT EXISTS hits (id text PRIMARY KEY, n counter);
UPDATE hits SET n = n + 1 WHERE id = '0001';
`
	migIndex = `UPDATE hits SET n = n + 1 WHERE id = '0002';
CREATE INDEX owners_by_name ON owners (name);
ALTER TABLE events ADD note text;
`
)

func writeMigrations(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
}

// TestMigrateLive runs a folder of migrations through a failed statement,
// the crash window (a statement that ran but was not recorded), a fix of
// the file after the statement that failed, a re-run that does nothing, a
// tampered file and a lock another run holds.
func TestMigrateLive(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	bin := cqlgenBinary(t)
	dir := t.TempDir()
	writeMigrations(t, dir, map[string]string{"0001_base.cql": migBase, "0002_index.cql": migIndex})
	migrate := func(args ...string) (string, string, int) {
		return cqlgenRun(t, bin, dir, append([]string{"migrate", "-keyspace", ks}, append(args, ".")...)...)
	}

	// Statement 2 of 0002 fails: the table it indexes does not exist.
	out, errs, code := migrate()
	if code != 4 || !strings.Contains(errs, "0002_index.cql:2: statement 2 of 3 failed") ||
		!strings.Contains(errs, "Statements 1 to 1 are applied and recorded; fix the cause and run again: it resumes at statement 2") ||
		!strings.Contains(out, "0001_base.cql: applied (3 statement(s))") {
		t.Fatalf("migrate with a failing statement = %d\n%s%s", code, out, errs)
	}
	if l := ledger(t, session); l["0001_base.cql"] != 3 || l["0002_index.cql"] != 1 {
		t.Errorf("ledger after the failure: %v", l)
	}
	// The crash window: statement 2 ran, and the run stopped before
	// recording it. An operator fixes the cause (the table) and the
	// statement ran by hand, or by the run that crashed.
	must(t, session.Query("CREATE TABLE owners (id text PRIMARY KEY, name text)").Exec())
	must(t, session.Query("CREATE INDEX owners_by_name ON owners (name)").Exec())
	out, errs, code = migrate()
	if code != 0 || !strings.Contains(out, "0002_index.cql: resuming at statement 2 of 3") ||
		!strings.Contains(out, "0002_index.cql: statement 2 had run before the last run stopped") ||
		!strings.Contains(out, "0002_index.cql: applied (2 statement(s))") || strings.Contains(out, "0001_base.cql") {
		t.Fatalf("migrate resumed = %d\n%s%s", code, out, errs)
	}
	if h := hits(t, session); h["0001"] != 1 || h["0002"] != 1 {
		t.Errorf("a statement ran more than once: %v", h)
	}
	must(t, session.Query("SELECT note FROM events LIMIT 1").Exec())

	// A typo after the first statement: fixed in the file, the run resumes.
	writeMigrations(t, dir, map[string]string{"0003_typo.cql": "UPDATE hits SET n = n + 1 WHERE id = '0003';\nALTER TABLE evnts ADD at timestamp;\n"})
	if out, errs, code = migrate(); code != 4 || !strings.Contains(errs, "0003_typo.cql:2: statement 2 of 2 failed") {
		t.Fatalf("migrate with a typo = %d\n%s%s", code, out, errs)
	}
	writeMigrations(t, dir, map[string]string{"0003_typo.cql": "UPDATE hits SET n = n + 1 WHERE id = '0003';\nALTER TABLE events ADD at timestamp;\n"})
	if out, errs, code = migrate(); code != 0 || !strings.Contains(out, "0003_typo.cql: resuming at statement 2 of 2") {
		t.Fatalf("migrate with the typo fixed = %d\n%s%s", code, out, errs)
	}
	// What ran may not change, even in a migration that stopped.
	writeMigrations(t, dir, map[string]string{"0004_more.cql": "UPDATE hits SET n = n + 1 WHERE id = '0004';\nALTER TABLE nope ADD x int;\n"})
	if _, errs, code = migrate(); code != 4 {
		t.Fatalf("migrate 0004 = %d\n%s", code, errs)
	}
	writeMigrations(t, dir, map[string]string{"0004_more.cql": "UPDATE hits SET n = n + 2 WHERE id = '0004';\nALTER TABLE events ADD x int;\n"})
	if _, errs, code = migrate(); code != 1 || !strings.Contains(errs, "0004_more.cql stopped after statement 1, and the statements before have changed since they ran") {
		t.Fatalf("migrate 0004 with its applied statement changed = %d\n%s", code, errs)
	}
	writeMigrations(t, dir, map[string]string{"0004_more.cql": "UPDATE hits SET n = n + 1 WHERE id = '0004';\nALTER TABLE events ADD x int;\n"})
	if out, errs, code = migrate(); code != 0 {
		t.Fatalf("migrate 0004 fixed = %d\n%s%s", code, out, errs)
	}

	// Again: nothing to do, nothing runs.
	before := hits(t, session)
	out, errs, code = migrate()
	if code != 0 || !strings.Contains(out, "all 4 migration(s) of . are applied; nothing to do") {
		t.Errorf("migrate again = %d\n%s%s", code, out, errs)
	}
	if h := hits(t, session); len(h) != 4 || h["0001"] != 1 || h["0002"] != 1 || h["0003"] != 1 || h["0004"] != 1 || len(before) != 4 {
		t.Errorf("counters after a re-run: %v", h)
	}

	// A tampered file is refused, by name; nothing runs.
	writeMigrations(t, dir, map[string]string{"0001_base.cql": migBase + "UPDATE hits SET n = n + 1 WHERE id = '0001';\n"})
	out, errs, code = migrate()
	if code != 1 || !strings.Contains(errs, "0001_base.cql has changed since it was applied") ||
		!strings.Contains(errs, "write the change as a new migration") {
		t.Errorf("migrate with a tampered file = %d\n%s%s", code, out, errs)
	}
	if h := hits(t, session); h["0001"] != 1 {
		t.Errorf("the tampered migration ran: %v", h)
	}
	writeMigrations(t, dir, map[string]string{"0001_base.cql": migBase})

	// Another run holds the lock: a run with work to do that will not
	// wait says who. (A run with nothing to do takes no lock.)
	writeMigrations(t, dir, map[string]string{"0005_lock.cql": "ALTER TABLE events ADD y int;\n"})
	must(t, session.Query("INSERT INTO cqlgen_migrations_lock (name, owner, since) VALUES ('migrate', 'deploy-7 on ci-runner-3', toTimestamp(now())) USING TTL 120").Exec())
	out, errs, code = migrate("-wait", "0")
	if code != 4 || !strings.Contains(errs, "the migration lock is held by deploy-7 on ci-runner-3 since") ||
		!strings.Contains(errs, "another run is migrating the keyspace") {
		t.Errorf("migrate while another holds the lock = %d\n%s%s", code, out, errs)
	}
	must(t, session.Query("DELETE FROM cqlgen_migrations_lock WHERE name = 'migrate'").Exec())
	if out, errs, code = migrate(); code != 0 {
		t.Errorf("migrate once the lock is free = %d\n%s%s", code, out, errs)
	}
	// A finished run leaves the lock free.
	var owner string
	if err := session.Query("SELECT owner FROM cqlgen_migrations_lock WHERE name = 'migrate'").Scan(&owner); err != gocql.ErrNotFound {
		t.Errorf("after a run, the lock row: %q, %v", owner, err)
	}
}

// TestMigrateConcurrent starts two runs of the same folder at once: each
// migration is applied exactly once (the counters it increments are 1),
// by one run; the other waits for the lock, then finds nothing to do, or
// takes the lock after the first.
func TestMigrateConcurrent(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	bin := cqlgenBinary(t)
	dir := t.TempDir()
	writeMigrations(t, dir, map[string]string{
		"0001_base.cql": migBase,
		"0002_more.cql": "UPDATE hits SET n = n + 1 WHERE id = '0002';\nALTER TABLE events ADD note text;\nUPDATE hits SET n = n + 1 WHERE id = '0002b';\n",
		"0003_more.cql": "ALTER TABLE events ADD at timestamp;\nUPDATE hits SET n = n + 1 WHERE id = '0003';\n",
	})
	var wg sync.WaitGroup
	outs := make([]string, 2)
	codes := make([]int, 2)
	for i := range 2 {
		wg.Go(func() {
			o, e, c := cqlgenRun(t, bin, dir, "migrate", "-keyspace", ks, "-wait", "5m", ".")
			outs[i], codes[i] = o+e, c
		})
	}
	wg.Wait()
	if codes[0] != 0 || codes[1] != 0 {
		t.Fatalf("exit codes %v\n--- run 1:\n%s--- run 2:\n%s", codes, outs[0], outs[1])
	}
	all := outs[0] + outs[1]
	for _, name := range []string{"0001_base.cql", "0002_more.cql", "0003_more.cql"} {
		if n := strings.Count(all, name+": applied ("); n != 1 {
			t.Errorf("%s applied by %d runs\n--- run 1:\n%s--- run 2:\n%s", name, n, outs[0], outs[1])
		}
	}
	if h := hits(t, session); len(h) != 4 || h["0001"] != 1 || h["0002"] != 1 || h["0002b"] != 1 || h["0003"] != 1 {
		t.Errorf("counters: %v\n--- run 1:\n%s--- run 2:\n%s", h, outs[0], outs[1])
	}
	if l := ledger(t, session); l["0001_base.cql"] != 3 || l["0002_more.cql"] != 3 || l["0003_more.cql"] != 2 {
		t.Errorf("ledger: %v", l)
	}
}

// TestMigrateFromGocqlx: a keyspace migrated by gocqlx's migrate package
// moves to cqlgen migrate without running anything again: the migrations
// gocqlx_migrate records are taken as applied, and the next one runs.
func TestMigrateFromGocqlx(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	bin := cqlgenBinary(t)
	dir := t.TempDir()
	writeMigrations(t, dir, map[string]string{"0001_base.cql": migBase, "0002_more.cql": "UPDATE hits SET n = n + 1 WHERE id = '0002';\nALTER TABLE events ADD note text;\n"})
	must(t, migrate.FromFS(context.Background(), gocqlx.NewSession(session), os.DirFS(dir)))
	writeMigrations(t, dir, map[string]string{"0003_next.cql": "UPDATE hits SET n = n + 1 WHERE id = '0003';\nALTER TABLE events ADD at timestamp;\n"})

	out, errs, code := cqlgenRun(t, bin, dir, "migrate", "-keyspace", ks, "-n", ".")
	if code != 0 || !strings.Contains(out, "0001_base.cql: applied by gocqlx's migrate (gocqlx_migrate); to be recorded in cqlgen_migrations") ||
		!strings.Contains(out, "0003_next.cql: 2 statement(s) to apply") {
		t.Fatalf("migrate -n = %d\n%s%s", code, out, errs)
	}
	out, errs, code = cqlgenRun(t, bin, dir, "migrate", "-keyspace", ks, ".")
	if code != 0 || !strings.Contains(out, "0001_base.cql: applied by gocqlx's migrate; recorded") ||
		!strings.Contains(out, "0002_more.cql: applied by gocqlx's migrate; recorded") ||
		!strings.Contains(out, "0003_next.cql: applied (2 statement(s))") ||
		!strings.Contains(out, "keyspace "+ks+": 1 migration(s) applied; all 3 of . are now applied\n") {
		t.Fatalf("migrate after gocqlx = %d\n%s%s", code, out, errs)
	}
	if h := hits(t, session); h["0001"] != 1 || h["0002"] != 1 || h["0003"] != 1 {
		t.Errorf("counters: %v", h)
	}
	if l := ledger(t, session); l["0001_base.cql"] != 3 || l["0002_more.cql"] != 2 || l["0003_next.cql"] != 2 {
		t.Errorf("ledger: %v", l)
	}

	// A file gocqlx applied, changed since: refused, naming gocqlx's ledger.
	_, ks2 := cassandratest.Keyspace(t)
	s2 := cassandratest.Session(t)
	dir2 := t.TempDir()
	writeMigrations(t, dir2, map[string]string{"0001_base.cql": migBase})
	cfg := cassandratest.ClusterConfig(t, ks2)
	k2, err := cfg.CreateSession()
	must(t, err)
	defer k2.Close()
	must(t, migrate.FromFS(context.Background(), gocqlx.NewSession(k2), os.DirFS(dir2)))
	writeMigrations(t, dir2, map[string]string{"0001_base.cql": migBase + "-- reviewed\n"})
	_, errs, code = cqlgenRun(t, bin, dir2, "migrate", "-keyspace", ks2, ".")
	if code != 1 || !strings.Contains(errs, "0001_base.cql has changed since gocqlx's migrate applied it") {
		t.Errorf("migrate of a file changed since gocqlx applied it = %d\n%s", code, errs)
	}
	var n int
	must(t, s2.Query("SELECT COUNT(*) FROM "+ks2+".hits").Scan(&n))
	if n != 1 {
		t.Errorf("%d counters", n)
	}
}

// sentCQL reads a CQLGEN_LOG_CQL file: the statements the command sent,
// one a line (keyspace, attempt, statement).
func sentCQL(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	var stmts []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.SplitN(line, "\t", 3); len(f) == 3 {
			stmts = append(stmts, f[2])
		}
	}
	return stmts
}

// TestMigrateNoOpSendsNoDDL: a run with nothing to do only reads. It
// sends no DDL (not even CREATE TABLE IF NOT EXISTS of the ledger, which
// a loaded node may take longer to answer than a read) and takes no
// lock; the statements it sends are counted from the command's own log
// (CQLGEN_LOG_CQL), which the first run shows holds its DDL and writes.
func TestMigrateNoOpSendsNoDDL(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	bin := cqlgenBinary(t)
	dir := t.TempDir()
	writeMigrations(t, dir, map[string]string{"0001_base.cql": migBase, "0002_more.cql": "ALTER TABLE events ADD note text;\n"})
	logs := t.TempDir()
	migrate := func(log string, args ...string) (string, []string) {
		t.Helper()
		path := filepath.Join(logs, log)
		out, errs, code := cqlgenRunEnv(t, bin, dir, []string{"CQLGEN_LOG_CQL=" + path},
			append(append([]string{"migrate", "-keyspace", ks, "-timeout", "2m"}, args...), ".")...)
		if code != 0 {
			t.Fatalf("migrate %v = %d\n%s%s", args, code, out, errs)
		}
		return out, sentCQL(t, path)
	}
	writes := func(stmts []string) []string {
		var out []string
		for _, s := range stmts {
			w, _, _ := strings.Cut(s, " ")
			switch strings.ToUpper(w) {
			case "SELECT":
			default:
				out = append(out, s)
			}
		}
		return out
	}

	out, first := migrate("first.log")
	if !strings.Contains(out, "keyspace "+ks+": 2 migration(s) applied; all 2 of . are now applied\n") {
		t.Errorf("first run:\n%s", out)
	}
	w := strings.Join(writes(first), "\n")
	for _, want := range []string{"CREATE TABLE IF NOT EXISTS cqlgen_migrations (", "CREATE TABLE IF NOT EXISTS cqlgen_migrations_lock (",
		"INSERT INTO cqlgen_migrations_lock", "CREATE TABLE IF NOT EXISTS events", "ALTER TABLE events ADD note text", "UPDATE cqlgen_migrations SET done"} {
		if !strings.Contains(w, want) {
			t.Errorf("the first run's log lacks %q: the log does not show what was sent\n%s", want, w)
		}
	}
	if h := hits(t, session); h["0001"] != 1 {
		t.Errorf("counters %v", h)
	}

	for _, c := range []struct{ log, args string }{{"again.log", ""}, {"dry.log", "-n"}} {
		out, again := migrate(c.log, strings.Fields(c.args)...)
		if !strings.Contains(out, "all 2 migration(s) of . are applied; nothing to do") {
			t.Errorf("migrate %s again:\n%s", c.args, out)
		}
		if len(again) == 0 || !slices.ContainsFunc(again, func(s string) bool {
			return strings.HasPrefix(s, "SELECT name, checksum, statements, done, applied FROM cqlgen_migrations")
		}) {
			t.Errorf("migrate %s again: the log lacks the ledger's read:\n%s", c.args, strings.Join(again, "\n"))
		}
		if w := writes(again); len(w) > 0 {
			t.Errorf("migrate %s with nothing to do sent %d statement(s) other than reads:\n%s", c.args, len(w), strings.Join(w, "\n"))
		}
	}
	if h := hits(t, session); h["0001"] != 1 {
		t.Errorf("counters after the re-runs %v", h)
	}
}

// TestMigrateRetriesWithinTimeout: a statement that fails in a way that
// may pass is retried with backoff, each retry reported, and the run
// gives up within -timeout. The keyspace asks for 3 replicas of a single
// node, so the lock's conditional write is refused as unavailable every
// time (the schema's DDL needs no replicas, and passes).
func TestMigrateRetriesWithinTimeout(t *testing.T) {
	var b [5]byte
	_, _ = rand.Read(b[:])
	ks := "t_retry_" + hex.EncodeToString(b[:])
	admin := cassandratest.Session(t)
	must(t, admin.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}").Exec())
	t.Cleanup(func() { _ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	bin := cqlgenBinary(t)
	dir := t.TempDir()
	writeMigrations(t, dir, map[string]string{"0001_base.cql": migBase})

	start := time.Now()
	out, errs, code := cqlgenRun(t, bin, dir, "migrate", "-keyspace", ks, "-timeout", "4s", ".")
	took := time.Since(start)
	if code != 4 || !strings.Contains(errs, "taking the migration lock") || !strings.Contains(errs, "-timeout 4s)") {
		t.Fatalf("migrate with too few replicas = %d in %s\n%s%s", code, took, out, errs)
	}
	if n := strings.Count(errs, "cqlgen migrate: taking the migration lock: "); n < 2 || !strings.Contains(errs, "; retrying in ") || !strings.Contains(errs, "(attempt 2)") {
		t.Errorf("%d retry notes:\n%s", n, errs)
	}
	t.Logf("migrate took %s:\n%s", took, errs)
	// Connecting and the reads before take their time on a loaded
	// machine; the retries themselves stop within the 4 s.
	if took > 30*time.Second {
		t.Errorf("the run took %s", took)
	}
	if strings.Contains(out, "applied") {
		t.Errorf("a migration ran without the lock:\n%s", out)
	}
}
