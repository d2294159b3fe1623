package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/txnmodel"
)

// Onboarding existing tables into the transactional mode (issue 35;
// docs/cassandra6.md, "Onboarding a table that holds data"). Cassandra
// 6.0's "Onboarding to Accord" guide: Accord cannot safely read data
// written by non-SERIAL writes, so a table that holds such rows must have
// its ranges migrated to Accord (ALTER TABLE ... WITH transactional_mode,
// then nodetool consensus_admin finish-migration on every node, which
// repairs them) before transactions read it. The test writes members with
// plain gocql into the tables without the mode, then:
//
//   - cqlgen diff -live and cqlgen migrate refuse to turn the mode on,
//     name the table and print the steps; nothing is written or run;
//   - it follows the steps: ALTER TABLE by hand, nodetool consensus_admin
//     finish-migration (cassandra.sh nodetool, over the node's JMX);
//   - on one node (the keyspace at RF=1), 6.0-alpha2 repairs nothing ("No
//     repair is needed") and the ranges stay migrating: migrate still
//     refuses, now naming the unfinished migration, and the repository's
//     write names it too. On a cluster of 6.x nodes at RF=3
//     (CASSANDRA6_RF) running Paxos v2, where the repairs run and finish
//     the migration: migrate accepts once DESCRIBE says it is done, and
//     the repository reads the rows plain gocql wrote.
func TestCassandra6Onboarding(t *testing.T) {
	raw, ks := cassandra6(t)
	plain := strings.ReplaceAll(txnmodel.Schema, "WITH transactional_mode = 'full'\n    AND ", "WITH ")
	plain = strings.ReplaceAll(plain, "\n    AND transactional_mode = 'full'", "")
	if strings.Contains(plain, "transactional_mode") {
		t.Fatalf("the schema still names transactional_mode:\n%s", plain)
	}
	cassandratest.MustApplyCQL(t, raw, plain)
	// Members written outside Accord, as an application before the mode
	// would have: every table, at QUORUM, no condition.
	old := []txnmodel.Member{
		{MemberID: "o1", Team: "red", Name: "ann", Email: "ann@x", Flagged: true, Score: 3},
		{MemberID: "o2", Team: "red", Name: "bob", Email: "bob@x", Score: 5},
	}
	for _, m := range old {
		must(t, raw.Query(`INSERT INTO members (member_id, team, name, email, flagged, score, cqlgen_version) VALUES (?, ?, ?, ?, ?, ?, 1)`,
			m.MemberID, m.Team, m.Name, m.Email, m.Flagged, m.Score).Consistency(gocql.Quorum).Exec())
		must(t, raw.Query(`INSERT INTO members_by_team (team, name, member_id, email, flagged, score) VALUES (?, ?, ?, ?, ?, ?)`,
			m.Team, m.Name, m.MemberID, m.Email, m.Flagged, m.Score).Consistency(gocql.Quorum).Exec())
		if m.Flagged {
			must(t, raw.Query(`INSERT INTO flagged_members (team, member_id, name, email, flagged, score) VALUES (?, ?, ?, ?, ?, ?)`,
				m.Team, m.MemberID, m.Name, m.Email, m.Flagged, m.Score).Consistency(gocql.Quorum).Exec())
		}
		must(t, raw.Query(`INSERT INTO members_by_email (email, member_id, cqlgen_claim) VALUES (?, ?, 1)`,
			m.Email, m.MemberID).Consistency(gocql.Quorum).Exec())
	}
	tables := []string{"members", "members_by_team", "flagged_members", "members_by_email"}
	bin := cqlgenBinary(t)

	// 1. diff -live proposes the ALTERs, and refuses to write them.
	migrations := t.TempDir()
	out, errs, code := cqlgenRun(t, bin, ".", "diff", "-live", "-keyspace", ks, "-migrations", migrations, "./txnmodel")
	t.Logf("diff -live: exit %d\n%s%s", code, out, errs)
	if code == 0 || !strings.Contains(out, "no migration written") {
		t.Errorf("diff -live over tables with rows: exit %d, want a refusal", code)
	}
	for _, table := range tables {
		if !strings.Contains(errs, "table "+ks+"."+table+" holds rows written outside Accord") {
			t.Errorf("diff -live does not name %s as holding rows", table)
		}
	}
	for _, step := range []string{"ALTER TABLE " + ks + ".members WITH transactional_mode = 'full'", "nodetool consensus_admin finish-migration " + ks, "transactional_migration_from = 'none'"} {
		if !strings.Contains(errs, step) {
			t.Errorf("diff -live's message lacks the step %q", step)
		}
	}
	if files, _ := os.ReadDir(migrations); len(files) != 0 {
		t.Errorf("diff -live wrote %d migration file(s)", len(files))
	}

	// 2. migrate refuses a file that turns the mode on, before running
	// any of its statements.
	dir := t.TempDir()
	var alters strings.Builder
	alters.WriteString("ALTER TABLE members WITH comment = 'moved into Accord';\n")
	for _, table := range tables {
		alters.WriteString("ALTER TABLE " + table + " WITH transactional_mode = 'full';\n")
	}
	must(t, os.WriteFile(filepath.Join(dir, "0001_accord.cql"), []byte(alters.String()), 0o644))
	migrate := func() (string, string, int) {
		out, errs, code := cqlgenRun(t, bin, dir, "migrate", "-keyspace", ks, ".")
		t.Logf("migrate: exit %d\n%s%s", code, out, errs)
		return out, errs, code
	}
	_, errs, code = migrate()
	if code == 0 || !strings.Contains(errs, "statement 2 of 5 not run") || !strings.Contains(errs, "holds rows written outside Accord") {
		t.Errorf("migrate over tables with rows: exit %d, want statement 2 refused", code)
	}
	for _, table := range tables {
		if mode, from := c6Mode(t, raw, ks, table); mode != "" || from != "none" && from != "" {
			t.Errorf("%s after the refusal: transactional_mode %q, migrating from %q; want it untouched", table, mode, from)
		}
	}
	var comment string
	must(t, raw.Query(`SELECT comment FROM system_schema.tables WHERE keyspace_name = ? AND table_name = 'members'`, ks).Scan(&comment))
	if comment == "moved into Accord" {
		t.Errorf("migrate ran the file's first statement before refusing")
	}

	// 3. The steps: ALTER TABLE by hand, then finish-migration.
	for _, table := range tables {
		must(t, raw.Query("ALTER TABLE "+table+" WITH transactional_mode = 'full'").Exec())
		if mode, from := c6Mode(t, raw, ks, table); mode != "full" || from != "off" {
			t.Errorf("%s after ALTER TABLE: transactional_mode %q, migrating from %q; want full, from off", table, mode, from)
		}
	}
	// On every node: cassandra.sh nodetool for the one node,
	// cluster.sh nodetool N for each node of a cluster (CASSANDRA6_RF).
	var runs [][]string
	if n, _ := strconv.Atoi(os.Getenv(EnvCassandra6RF)); n > 1 {
		for i := 1; i <= n; i++ {
			runs = append(runs, []string{"cassandra/cluster.sh", "nodetool", strconv.Itoa(i)})
		}
	} else {
		runs = append(runs, []string{"cassandra/cassandra.sh", "nodetool"})
	}
	var nt []byte
	for _, run := range runs {
		out, err := exec.Command(run[0], append(run[1:], "consensus_admin", "finish-migration", ks)...).CombinedOutput()
		t.Logf("%s consensus_admin finish-migration %s: %v\n%s", strings.Join(run, " "), ks, err, out)
		if err != nil {
			t.Fatalf("nodetool: %v (make test-integration-c6 starts the node with its JMX port)", err)
		}
		nt = append(nt, out...)
	}
	var replication map[string]string
	must(t, raw.Query(`SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?`, ks).Scan(&replication))
	rf := replication["replication_factor"]
	ctx := context.Background()
	repo := txnmodel.NewMemberRepo(c6Session(raw))
	if rf != "1" {
		// The repairs mark the ranges migrated: wait for DESCRIBE to say so.
		deadline := time.Now().Add(2 * time.Minute)
		for _, table := range tables {
			for {
				_, from := c6Mode(t, raw, ks, table)
				if from == "none" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s still migrates from %q two minutes after finish-migration on every node", table, from)
				}
				time.Sleep(time.Second)
			}
		}
	}
	_, errs, code = migrate()
	if rf == "1" {
		// One node: nothing to repair, so the ranges stay migrating.
		if !strings.Contains(string(nt), "No repair is needed") {
			t.Errorf("finish-migration on one node did not say it repaired nothing: 6.0-alpha2 changed; update docs/cassandra6.md")
		}
		for _, table := range tables {
			if _, from := c6Mode(t, raw, ks, table); from != "off" {
				t.Errorf("%s migrates from %q after finish-migration on one node; docs/cassandra6.md says 'off'", table, from)
			}
		}
		if code == 0 || !strings.Contains(errs, "the migration of its ranges to Accord has begun and is not finished (transactional_migration_from = 'off')") {
			t.Errorf("migrate over a migration not finished: exit %d, want it refused and named", code)
		}
		m := old[1]
		m.Score++
		if err := repo.Update(ctx, &m); err == nil || !strings.Contains(err.Error(), "migration of the table to Accord is not complete") {
			t.Errorf("Update of a table whose migration is not finished: %v, want the migration named", err)
		}
		t.Logf("keyspace %s has RF=1: 6.0-alpha2's finish-migration repairs nothing and the migration cannot complete on one node (docs/cassandra6.md); CASSANDRA6_RF=3 on a cluster of 6.x nodes runs the rest", ks)
		return
	}
	if code != 0 {
		t.Fatalf("migrate after the migration to Accord: exit %d", code)
	}
	for _, m := range old {
		got, err := repo.Get(ctx, m.MemberID)
		if err != nil || *got != m {
			t.Errorf("Get %s after the migration: %+v, %v; want %+v", m.MemberID, got, err, m)
		}
	}
	m := old[1]
	m.Score++
	must(t, repo.Update(ctx, &m))
}

// c6Mode is a table's transactional_mode ("" for off) and
// transactional_migration_from, as DESCRIBE TABLE states them.
func c6Mode(t *testing.T, s *gocql.Session, ks, table string) (mode, from string) {
	t.Helper()
	m := map[string]any{}
	if err := s.Query("DESCRIBE TABLE " + ks + "." + table).MapScan(m); err != nil {
		t.Fatalf("DESCRIBE TABLE %s: %v", table, err)
	}
	stmt, _ := m["create_statement"].(string)
	value := func(name string) string {
		_, rest, ok := strings.Cut(stmt, " "+name+" = '")
		if !ok {
			return ""
		}
		v, _, _ := strings.Cut(rest, "'")
		return v
	}
	mode = value("transactional_mode")
	if mode == "off" {
		mode = ""
	}
	return mode, value("transactional_migration_from")
}
