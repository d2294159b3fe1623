package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// The secured node of make test-secure: cassandra.sh with
// CQLGEN_CASSANDRA_SECURE=1 (logins, CassandraAuthorizer, mutual TLS).
const (
	envSecureHosts = "CQLGEN_SECURE_HOSTS"   // its host:port
	envSecureTLS   = "CQLGEN_SECURE_TLS_DIR" // its ca.pem, client.pem, client-key.pem
)

// secureNode is how to reach the secured node.
type secureNode struct {
	hosts         string
	ca, cert, key string
}

func securedNode(t *testing.T) secureNode {
	t.Helper()
	hosts, dir := os.Getenv(envSecureHosts), os.Getenv(envSecureTLS)
	if hosts == "" || dir == "" {
		t.Skipf("%s and %s are not set: make test-secure starts a secured node and runs this test", envSecureHosts, envSecureTLS)
	}
	return secureNode{hosts: hosts, ca: filepath.Join(dir, "ca.pem"), cert: filepath.Join(dir, "client.pem"), key: filepath.Join(dir, "client-key.pem")}
}

// env is the environment of a command run as role over mutual TLS.
func (n secureNode) env(role, password string) []string {
	return []string{"CASSANDRA_HOSTS=" + n.hosts, "CASSANDRA_USERNAME=" + role, "CASSANDRA_PASSWORD=" + password,
		"CASSANDRA_TLS_CA=" + n.ca, "CASSANDRA_TLS_CERT=" + n.cert, "CASSANDRA_TLS_KEY=" + n.key}
}

// session opens a session as role over mutual TLS, bound to keyspace.
func (n secureNode) session(role, password, keyspace string) (*gocql.Session, error) {
	cluster := gocql.NewCluster(strings.Split(n.hosts, ",")...)
	cluster.ProtoVersion = 4
	cluster.Keyspace = keyspace
	cluster.Timeout = 15 * time.Second
	cluster.ConnectTimeout = 15 * time.Second
	cluster.Authenticator = gocql.PasswordAuthenticator{Username: role, Password: password}
	cluster.SslOpts = &gocql.SslOptions{CaPath: n.ca, CertPath: n.cert, KeyPath: n.key, EnableHostVerification: true}
	return cluster.CreateSession()
}

// outputs gathers everything the test saw a command or the runtime say,
// to check that no password is in any of it.
type outputs []string

// run runs the built cqlgen in dir with env alone for Cassandra (none of
// the test's own CASSANDRA_* variables), and records what it printed.
func (o *outputs) run(t *testing.T, bin, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CASSANDRA_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	*o = append(*o, so.String(), se.String())
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return so.String(), se.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return so.String(), se.String(), 0
}

func (o *outputs) err(err error) error {
	if err != nil {
		*o = append(*o, err.Error(), fmt.Sprintf("%+v", err))
	}
	return err
}

// grantBlocks reads the CQL blocks of docs/runbook.md's "Permissions",
// keyed by the role their first line names ("-- role: NAME ..."), each
// as its statements, comments left out.
func grantBlocks(t *testing.T) map[string][]string {
	t.Helper()
	doc := readFile(t, filepath.Join(repoRoot, "docs/runbook.md"))
	start := strings.Index(doc, "\n## Permissions\n")
	if start < 0 {
		t.Fatal(`docs/runbook.md has no "## Permissions" section`)
	}
	doc = doc[start+1:]
	if end := strings.Index(doc, "\n## "); end >= 0 {
		doc = doc[:end]
	}
	blocks := map[string][]string{}
	for _, m := range regexp.MustCompile("(?s)```cql\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		lines := strings.Split(m[1], "\n")
		role := regexp.MustCompile(`^-- role: (\w+)`).FindStringSubmatch(lines[0])
		if role == nil {
			t.Fatalf("a cql block of the runbook's Permissions starts with %q, not -- role: NAME", lines[0])
		}
		var code strings.Builder
		for _, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				code.WriteString(l + "\n")
			}
		}
		for _, st := range strings.Split(code.String(), ";") {
			if st = strings.TrimSpace(st); st != "" {
				blocks[role[1]] = append(blocks[role[1]], st)
			}
		}
	}
	for _, r := range []string{"migrator", "app", "maintainer"} {
		if len(blocks[r]) < 2 {
			t.Fatalf("the runbook's Permissions has no block of grants for %s: %v", r, blocks)
		}
	}
	return blocks
}

// grant makes a role of the runbook's block docRole, as role with
// password in keyspace ks, running the statements keep keeps (nil: all;
// the CREATE ROLE is one of them).
func grant(t *testing.T, admin *gocql.Session, block []string, docRole, role, password, ks string, keep func(string) bool) {
	t.Helper()
	roleRe := regexp.MustCompile(`\b` + docRole + `\b`)
	for _, st := range block {
		if keep != nil && !keep(st) {
			continue
		}
		st = roleRe.ReplaceAllString(st, role)
		st = regexp.MustCompile(`\bshop\.`).ReplaceAllString(st, ks+".")
		st = regexp.MustCompile(`KEYSPACE shop\b`).ReplaceAllString(st, "KEYSPACE "+ks)
		st = strings.Replace(st, "'change-me'", "'"+password+"'", 1)
		if err := admin.Query(st).Exec(); err != nil {
			t.Fatalf("%s: %v", st, err)
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// TestSecuredCluster runs cqlgen on a node with logins, roles and mutual
// TLS, each part as a role with exactly the grants docs/runbook.md
// ("Permissions") gives it: apply (no -keyspace, into a keyspace an
// operator made), migrate by one migrator and then by another with the
// same grants (a rotated CI role), apply by a role with CREATE and ALTER
// alone, diff -live with a login alone, the
// runtime's writes and reads of a two-table entity with idempotency keys
// as the application, and Verify, a Backfill with a job and a Repair as
// maintenance. A role short of a grant is refused with the grant named; a
// TLS mismatch, a missing or untrusted client certificate and a wrong
// password say so. No output ever holds a password.
func TestSecuredCluster(t *testing.T) {
	node := securedNode(t)
	blocks := grantBlocks(t)
	admin, err := node.session("cassandra", "cassandra", "")
	if err != nil {
		t.Fatalf("the secured node's superuser (cassandra/cassandra over mutual TLS): %v", err)
	}
	defer admin.Close()

	suffix := randomHex(4)
	ks := "t_secure_" + suffix
	type role struct{ name, password string }
	mk := func(base string) role { return role{base + "_" + suffix, "pw-" + randomHex(12)} }
	migrator, rotated, short, app, maint, reader := mk("migrator"), mk("rotated"), mk("short"), mk("app"), mk("maint"), mk("reader")
	passwords := []string{migrator.password, rotated.password, short.password, app.password, maint.password, reader.password}
	t.Cleanup(func() {
		_ = admin.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
		for _, r := range []role{migrator, rotated, short, app, maint, reader} {
			_ = admin.Query("DROP ROLE IF EXISTS " + r.name).Exec()
		}
	})
	var out outputs
	defer func() {
		for _, s := range out {
			for _, pw := range passwords {
				if strings.Contains(s, pw) {
					t.Errorf("an output holds a password:\n%s", s)
				}
			}
		}
		if len(out) < 20 && !t.Failed() {
			t.Errorf("only %d outputs checked for passwords", len(out))
		}
	}()

	// The operator makes the keyspace (its replication is theirs); the
	// migrator has no CREATE on ALL KEYSPACES.
	must(t, admin.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}").Exec())
	grant(t, admin, blocks["migrator"], "migrator", migrator.name, migrator.password, ks, nil)
	grant(t, admin, blocks["migrator"], "migrator", rotated.name, rotated.password, ks, nil)
	// The grants the migrator had: CREATE, ALTER, DROP alone.
	grant(t, admin, blocks["migrator"], "migrator", short.name, short.password, ks, func(st string) bool {
		return strings.HasPrefix(st, "CREATE ROLE") || strings.Contains(st, "GRANT CREATE") || strings.Contains(st, "GRANT ALTER")
	})
	must(t, admin.Query("GRANT DROP ON KEYSPACE "+ks+" TO "+short.name).Exec())

	bin := cqlgenBinary(t)
	dir := userModule(t, ks)

	// apply without -keyspace: the package's keyspace exists, so no
	// CREATE KEYSPACE (refused to this role even with IF NOT EXISTS).
	so, se, code := out.run(t, bin, dir, node.env(migrator.name, migrator.password), "apply", "./...")
	if code != 0 || !strings.Contains(so, "statement(s) applied to keyspace "+ks) {
		t.Fatalf("apply as the migrator = %d\n%s%s", code, so, se)
	}
	// Again: every table exists.
	if so, se, code = out.run(t, bin, dir, node.env(migrator.name, migrator.password), "apply", "./music"); code != 0 {
		t.Fatalf("apply again as the migrator = %d\n%s%s", code, so, se)
	}

	// apply asks for CREATE and ALTER alone: the short role may run it.
	if so, se, code = out.run(t, bin, dir, node.env(short.name, short.password), "apply", "./music"); code != 0 {
		t.Fatalf("apply as a role with CREATE and ALTER alone = %d\n%s%s", code, so, se)
	}

	// migrate: the first migrator makes the ledger and its lock ...
	migDir := t.TempDir()
	writeMigrations(t, migDir, map[string]string{"0001_ref.cql": "CREATE TABLE IF NOT EXISTS ref (id text PRIMARY KEY, v text);\nINSERT INTO ref (id, v) VALUES ('a', '1');\n"})
	migrate := func(r role) (string, string, int) {
		return out.run(t, bin, dir, node.env(r.name, r.password), "migrate", "-keyspace", ks, "-wait", "0", migDir)
	}
	if so, se, code = migrate(migrator); code != 0 || !strings.Contains(so, "1 migration(s) applied") {
		t.Fatalf("migrate as the migrator = %d\n%s%s", code, so, se)
	}
	// ... which a role with CREATE, ALTER and DROP alone may not use: the
	// refusal names the permission, the table and the grant.
	writeMigrations(t, migDir, map[string]string{"0002_note.cql": "ALTER TABLE ref ADD note text;\n"})
	so, se, code = migrate(short)
	if code == 0 || !regexp.MustCompile(`role `+short.name+` lacks (SELECT|MODIFY) on TABLE `+ks+`\.cqlgen_migrations(_lock)?; the grant: GRANT (SELECT|MODIFY) ON TABLE `+ks+`\.cqlgen_migrations(_lock)? TO `+short.name).MatchString(se) ||
		!strings.Contains(se, `docs/runbook.md, "Permissions"`) {
		t.Errorf("migrate as a role without SELECT and MODIFY = %d\n%s%s", code, so, se)
	}
	// A rotated role with the documented grants takes over.
	if so, se, code = migrate(rotated); code != 0 || !strings.Contains(so, "0002_note.cql: applied (1 statement(s))") {
		t.Fatalf("migrate as a second migrator with the same grants = %d\n%s%s", code, so, se)
	}
	if so, se, code = migrate(migrator); code != 0 || !strings.Contains(so, "nothing to do") {
		t.Fatalf("migrate again as the first migrator = %d\n%s%s", code, so, se)
	}

	// The application's grants, table by table (the tables exist now).
	// First without cqlgen_idempotency's: a write with an idempotency
	// key is refused, and the error names the table.
	grant(t, admin, blocks["app"], "app", app.name, app.password, ks, func(st string) bool { return !strings.Contains(st, "cqlgen_idempotency") })

	// diff -live reads the schema alone: a login suffices.
	must(t, admin.Query("CREATE ROLE "+reader.name+" WITH LOGIN = true AND PASSWORD = '"+reader.password+"'").Exec())
	if so, se, code = out.run(t, bin, dir, node.env(reader.name, reader.password), "diff", "-live", "-keyspace", ks, "./music"); code != 0 {
		t.Fatalf("diff -live as a role with no grant = %d\n%s%s", code, so, se)
	}
	// So does import -keyspace.
	if so, se, code = out.run(t, bin, dir, node.env(reader.name, reader.password), "import", "-keyspace", ks, "-package", "imported", "-o", "imported"); code != 0 || !strings.Contains(so, "wrote imported/imported.go") {
		t.Fatalf("import -keyspace as a role with no grant = %d\n%s%s", code, so, se)
	}

	raw, err := node.session(app.name, app.password, ks)
	must(t, out.err(err))
	defer raw.Close()
	ctx := context.Background()
	tracks := music.NewTrackRepo(gocqlv1.NewSession(raw, nil))
	t1 := &music.Track{TrackID: "t1", ArtistID: "a1", PlayCount: 10, TrackName: "one"}
	err = out.err(tracks.Insert(ctx, t1, cqlgen.WithIdempotencyKey("req-1")))
	if err == nil || !strings.Contains(err.Error(), "permission on <table "+ks+".cqlgen_idempotency>") {
		t.Fatalf("an idempotent insert without the grants on cqlgen_idempotency: %v", err)
	}
	grant(t, admin, blocks["app"], "app", app.name, app.password, ks, func(st string) bool { return strings.Contains(st, "cqlgen_idempotency") })
	for i := 0; i < 2; i++ { // a retry with the same key applies nothing twice
		must(t, out.err(tracks.Insert(ctx, t1, cqlgen.WithIdempotencyKey("req-1"))))
	}
	must(t, out.err(tracks.Insert(ctx, &music.Track{TrackID: "t2", ArtistID: "a1", PlayCount: 20, TrackName: "two"})))
	if _, err := out.err2(tracks.Modify(ctx, "t1", func(tr *music.Track) error { tr.PlayCount = 30; return nil })); err != nil {
		t.Fatal(err)
	}
	got, err := tracks.Get(ctx, "t1")
	must(t, out.err(err))
	if got.PlayCount != 30 {
		t.Errorf("t1 read back: %+v", got)
	}
	page, err := tracks.TopTracksByArtist(ctx, "a1", nil)
	must(t, out.err(err))
	if len(page.Rows) != 2 || page.Rows[0].TrackID != "t1" || page.Rows[1].TrackID != "t2" {
		t.Errorf("top tracks of a1: %+v", page.Rows)
	}
	var keys int
	must(t, admin.Query("SELECT count(*) FROM "+ks+".cqlgen_idempotency").Scan(&keys))
	if keys == 0 {
		t.Errorf("cqlgen_idempotency holds no key after an idempotent insert")
	}

	// Maintenance: Verify with SELECT alone, through the runtime's API.
	grant(t, admin, blocks["maintainer"], "maintainer", maint.name, maint.password, ks, func(st string) bool {
		return strings.HasPrefix(st, "CREATE ROLE") || strings.Contains(st, "GRANT SELECT")
	})
	mraw, err := node.session(maint.name, maint.password, ks)
	must(t, out.err(err))
	defer mraw.Close()
	mtracks := music.NewTrackRepo(gocqlv1.NewSession(mraw, nil))
	rep, err := mtracks.Verify(ctx, nil)
	must(t, out.err(err))
	if rep.Drift() != 0 {
		t.Errorf("verify as maintenance: drift %+v", rep.Tables)
	}
	for _, tr := range rep.Tables {
		if tr.Present != 2 {
			t.Errorf("verify: %s holds %d rows, want 2", tr.Table, tr.Present)
		}
	}
	// A backfill with a job writes, and records its ranges: refused with
	// SELECT alone, done with the whole block.
	job := &cqlmaintain.Options{Job: "secure-" + suffix}
	if _, err := mtracks.Backfill(ctx, "top_tracks_by_artist", job); out.err(err) == nil || !strings.Contains(err.Error(), "has no MODIFY permission") {
		t.Errorf("a backfill with SELECT alone: %v", err)
	}
	grant(t, admin, blocks["maintainer"], "maintainer", maint.name, maint.password, ks, func(st string) bool { return strings.Contains(st, "GRANT MODIFY") })
	rep, err = mtracks.Backfill(ctx, "top_tracks_by_artist", job)
	must(t, out.err(err))
	ranges := 0
	it := admin.Query("SELECT job FROM " + ks + ".cqlgen_progress").Iter()
	for name := ""; it.Scan(&name); {
		if strings.HasPrefix(name, job.Job+"/") {
			ranges++
		}
	}
	must(t, it.Close())
	if ranges == 0 {
		t.Errorf("the backfill job recorded no range in cqlgen_progress: %+v", rep)
	}

	// Repair, with the whole block: a row lost by hand is written again.
	must(t, admin.Query("DELETE FROM "+ks+".top_tracks_by_artist WHERE artist_id = 'a1' AND play_count = 20 AND track_id = 't2'").Exec())
	rep, err = mtracks.Repair(ctx, nil)
	must(t, out.err(err))
	if got := byTable(rep)["top_tracks_by_artist"]; got.Missing != 1 || got.Inserted != 1 {
		t.Errorf("repair as maintenance: %+v", got)
	}
	if rep, err = mtracks.Verify(ctx, nil); out.err(err) != nil || rep.Drift() != 0 {
		t.Errorf("verify after repair: %v, %+v", err, rep)
	}

	// Rows another program wrote, as that program would (the admin, with
	// plain gocql): the application changes one through the protocol;
	// cqlgen maintain, as the maintainer, counts the other, adopts it,
	// and finds every table in step.
	for _, id := range []string{"t8", "t9"} {
		must(t, admin.Query("INSERT INTO "+ks+".tracks (track_id, artist_id, play_count, track_name) VALUES (?, 'a2', 5, 'old')", id).Exec())
	}
	must(t, out.err(tracks.Update(ctx, &music.Track{TrackID: "t8", ArtistID: "a2", PlayCount: 6, TrackName: "old, played"})))
	maintain := func(args ...string) (string, string, int) {
		return out.run(t, bin, dir, node.env(maint.name, maint.password), append([]string{"maintain"}, append(args, "-keyspace", ks, "./music")...)...)
	}
	if so, se, code = maintain("verify", "-entity", "Track"); code != 1 || !strings.Contains(so, "1 of them written outside cqlgen") || !strings.Contains(so, "1 missing") {
		t.Errorf("cqlgen maintain verify as the maintainer = %d, want 1 (t9's row missing)\n%s%s", code, so, se)
	}
	if so, se, code = maintain("adopt", "-entity", "Track", "-job", "stamp-"+suffix); code != 0 || !strings.Contains(so, "gave 1 rows written outside cqlgen a version") {
		t.Errorf("cqlgen maintain adopt as the maintainer = %d\n%s%s", code, so, se)
	}
	if so, se, code = maintain("verify", "-entity", "Track"); code != 0 || strings.Contains(so, "written outside cqlgen") {
		t.Errorf("cqlgen maintain verify after adopt = %d\n%s%s", code, so, se)
	}

	// Connections that fail for TLS or a login say why.
	withEnv := func(env []string, drop ...string) []string {
		var kept []string
	next:
		for _, kv := range env {
			for _, d := range drop {
				if strings.HasPrefix(kv, d+"=") {
					continue next
				}
			}
			kept = append(kept, kv)
		}
		return kept
	}
	good := node.env(app.name, app.password)
	rogueCert, rogueKey := rogueClient(t)
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"plain client", withEnv(good, "CASSANDRA_TLS_CA", "CASSANDRA_TLS_CERT", "CASSANDRA_TLS_KEY"), "TLS mismatch: the node expects TLS"},
		{"no client certificate", withEnv(good, "CASSANDRA_TLS_CERT", "CASSANDRA_TLS_KEY"), "the node requires a client certificate"},
		{"untrusted client certificate", append(withEnv(good, "CASSANDRA_TLS_CERT", "CASSANDRA_TLS_KEY"), "CASSANDRA_TLS_CERT="+rogueCert, "CASSANDRA_TLS_KEY="+rogueKey), "the node refused the client certificate"},
		{"system roots", append(withEnv(good, "CASSANDRA_TLS_CA"), "CASSANDRA_TLS=true"), "the node's certificate is not trusted"},
		{"wrong password", append(withEnv(good, "CASSANDRA_PASSWORD"), "CASSANDRA_PASSWORD="+app.password+"x"), "refused the login of role " + app.name},
		{"no login", withEnv(good, "CASSANDRA_USERNAME", "CASSANDRA_PASSWORD"), "the cluster requires a login"},
	} {
		so, se, code := out.run(t, bin, dir, c.env, "diff", "-live", "-keyspace", ks, "./music")
		if code == 0 || !strings.Contains(se, c.want) {
			t.Errorf("%s: diff -live = %d, want %q\n%s%s", c.name, code, c.want, so, se)
		}
	}
	// A TLS client to a plain node: the shared test node, when there is one.
	if plain := os.Getenv("CASSANDRA_HOSTS"); plain != "" {
		env := append(withEnv(good, "CASSANDRA_HOSTS"), "CASSANDRA_HOSTS="+plain)
		so, se, code := out.run(t, bin, dir, env, "diff", "-live", "-keyspace", ks, "./music")
		if code == 0 || !strings.Contains(se, "TLS mismatch: the client asks for TLS") {
			t.Errorf("TLS to the plain node %s: diff -live = %d\n%s%s", plain, code, so, se)
		}
	} else {
		t.Log("CASSANDRA_HOSTS is not set: TLS to a plain node is left to the unit tests")
	}
}

func (o *outputs) err2(v any, err error) (any, error) { return v, o.err(err) }

// rogueClient writes a client certificate and key signed by a CA of its
// own, which the secured node does not trust.
func rogueClient(t *testing.T) (cert, key string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rogue CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "rogue"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &k.PublicKey, caKey)
	must(t, err)
	kder, err := x509.MarshalECPrivateKey(k)
	must(t, err)
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "rogue.pem"), filepath.Join(dir, "rogue-key.pem")
	must(t, os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	must(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600))
	return cert, key
}
