package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// A keyspace another program wrote: its visits table, created without
// cqlgen's columns and filled with plain gocql, then given the columns a
// migration adds, and the tables of the new patterns. Every row written
// before cqlgen must be an entity: read, changed, deleted, verified,
// backfilled, repaired and adopted, and every table scanned with plain
// gocql must end up holding what the source of truth implies.
// Checks invariant I14: maintenance hides no write (on rows cqlgen did
// not write).
func TestLegacyRowsOnTheNode(t *testing.T) {
	t.Parallel()
	raw, _ := cassandratest.Keyspace(t)
	ctx := context.Background()
	cassandratest.MustApplyCQL(t, raw, `CREATE TABLE visits (visit_id text PRIMARY KEY, user_id text, site text, at timestamp, page text, millis int)`)
	const n = 40
	for i := range n {
		v := visit(i)
		must(t, raw.Query(`INSERT INTO visits (visit_id, user_id, site, at, page, millis) VALUES (?, ?, ?, ?, ?, ?)`,
			v.VisitID, v.UserID, v.Site, v.At, v.Page, v.Millis).Exec())
	}
	// What cqlgen migrate adds to a table it adopts, then every table.
	cassandratest.MustApplyCQL(t, raw, `ALTER TABLE visits ADD (cqlgen_version bigint, cqlgen_deleted boolean, cqlgen_pending blob, cqlgen_writes blob)`)
	cassandratest.MustApplyCQL(t, raw, testmodel.Schema)
	s := gocqlv1.NewSession(raw, nil)
	repo := testmodel.NewVisitRepo(s)

	// Reads, and a version IfVersion can hold on to.
	got, v0, err := repo.GetVersioned(ctx, visit(0).VisitID)
	if err != nil || got.Page != visit(0).Page || v0 == 0 {
		t.Fatalf("GetVersioned of a row written before cqlgen: %+v, version %d, %v", got, v0, err)
	}
	// Update, Modify, Delete and Insert, each on a row written before.
	up := visit(0)
	up.Page = "/moved"
	must(t, repo.Update(ctx, up, cqlgen.IfVersion(v0)))
	stale := visit(0)
	stale.Millis = 9
	var conflict *cqlgen.VersionConflictError
	if err := repo.Update(ctx, stale, cqlgen.IfVersion(v0)); !errors.As(err, &conflict) {
		t.Fatalf("a second IfVersion(%d) write: %v, want a version conflict", v0, err)
	}
	if _, err := repo.Modify(ctx, visit(1).VisitID, func(v *testmodel.Visit) error { v.Millis += 1000; return nil }); err != nil {
		t.Fatal(err)
	}
	must(t, repo.Delete(ctx, visit(2)))
	must(t, repo.Insert(ctx, visit(3))) // the values it holds
	other := visit(4)
	other.Site = "site-new"
	must(t, repo.Insert(ctx, other))
	if _, err := repo.Get(ctx, visit(2).VisitID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Fatalf("Get of the deleted row: %v", err)
	}

	o := &cqlmaintain.Options{Ranges: 8}
	rep, err := repo.Verify(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != n-1 || rep.Unversioned != n-5 || rep.Graves != 1 {
		t.Fatalf("verify read %d rows, %d without a version, %d graves; want %d, %d, 1", rep.Rows, rep.Unversioned, rep.Graves, n-1, n-5)
	}
	for _, tr := range rep.Tables {
		if tr.Expected != n-1 || tr.Missing != n-5 {
			t.Errorf("%s: %+v; want %d rows expected, the %d written before cqlgen missing", tr.Table, tr, n-1, n-5)
		}
	}

	// A delete by hand, newer than the row: the backfill's row for it
	// is shadowed, which the verify after it reports.
	shadowed := visit(10)
	must(t, raw.Query(`DELETE FROM visits_by_user WHERE user_id = ? AND at = ? AND visit_id = ?`, shadowed.UserID, shadowed.At, shadowed.VisitID).Exec())
	o.Job = "legacy-fill"
	rep, err = repo.Backfill(ctx, "visits_by_user", o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != n-1 || rep.Tables[0].Inserted != n-1 || rep.Left() != 1 {
		t.Fatalf("backfill read %d, wrote %d, left %d out of step; want %d, %d and the shadowed row", rep.Rows, rep.Tables[0].Inserted, rep.Left(), n-1, n-1)
	}
	o.Job = ""
	if rep, err = repo.Repair(ctx, o); err != nil || rep.After == nil || rep.Left() != 0 {
		t.Fatalf("repair: %+v, %v; want nothing left", rep, err)
	}
	for _, table := range append([]string{"visits"}, visitTables...) {
		cols := "*"
		if table == "visits" {
			cols = "visit_id, cqlgen_deleted"
		}
		rows := scanTable(t, raw, fmt.Sprintf("SELECT %s FROM %s", cols, table))
		want := n - 1
		if table == "visits" {
			want = n // the grave
		}
		if len(rows) != want {
			t.Errorf("%s holds %d rows read with plain gocql, want %d", table, len(rows), want)
		}
	}
	if rep, err = repo.Verify(ctx, o); err != nil || rep.Drift() != 0 || rep.Unversioned != 0 {
		t.Fatalf("verify after repair: %+v, %v; want every row with a version, in step", rep, err)
	}
}

// Adopt gives every row written by another program a version, while the
// tables it kept in step stay so; the job resumes, and a row changed
// meanwhile keeps its change.
func TestAdoptOnTheNode(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	repo := testmodel.NewVisitRepo(s)
	const n = 30
	for i := range n {
		must(t, repo.Insert(ctx, visit(i)))
	}
	// Another program's rows: the same, without cqlgen's bookkeeping.
	must(t, raw.Query(`TRUNCATE visits`).Exec())
	for i := range n {
		v := visit(i)
		must(t, raw.Query(`INSERT INTO visits (visit_id, user_id, site, at, page, millis) VALUES (?, ?, ?, ?, ?, ?)`,
			v.VisitID, v.UserID, v.Site, v.At, v.Page, v.Millis).Exec())
	}
	o := &cqlmaintain.Options{Ranges: 8, Adopt: true, Job: "adopt", Rate: 1000}
	rep, err := repo.Repair(ctx, o)
	if err != nil || rep.Adopted != n || rep.Left() != 0 {
		t.Fatalf("adopt: %+v, %v; want %d adopted and nothing left", rep, err, n)
	}
	o.Status = true
	if rep, err = repo.Repair(ctx, o); err != nil || rep.Resumed != 8 {
		t.Fatalf("status: %+v, %v", rep, err)
	}
	rep, err = repo.Verify(ctx, &cqlmaintain.Options{Ranges: 8})
	if err != nil || rep.Rows != n || rep.Unversioned != 0 || rep.Drift() != 0 {
		t.Fatalf("verify after adopt: %+v, %v", rep, err)
	}
}

// Claims another program wrote (cqlgen_claim null) beside its agents:
// a change of email takes the new one and releases the old, a delete
// releases its claim, a rival is refused the email a row written before
// cqlgen holds, and Repair deletes a claim no agent holds.
// Checks invariants I12 and I15.
func TestLegacyClaimsOnTheNode(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewAgentRepo(s)
	for i, email := range []string{"ann@acme.test", "bob@acme.test", "cy@acme.test"} {
		a := agent("acme", i, email)
		must(t, raw.Query(`INSERT INTO agents (org_id, agent_id, email, name) VALUES (?, ?, ?, ?)`, a.OrgID, a.AgentID, a.Email, a.Name).Exec())
		must(t, raw.Query(`INSERT INTO agents_by_email (org_id, email, agent_id) VALUES (?, ?, ?)`, a.OrgID, a.Email, a.AgentID).Exec())
	}
	// A claim whose agent left without it.
	must(t, raw.Query(`INSERT INTO agents_by_email (org_id, email, agent_id) VALUES (?, ?, ?)`, "acme", "gone@acme.test", "agent-999").Exec())

	var conflict *cqlgen.UniqueConflictError
	if err := repo.Insert(ctx, agent("acme", 7, "bob@acme.test")); !errors.As(err, &conflict) {
		t.Fatalf("a rival for an email a row written before cqlgen holds: %v", err)
	}
	ann := agent("acme", 0, "ann.new@acme.test")
	must(t, repo.Update(ctx, ann))
	must(t, repo.Delete(ctx, agent("acme", 1, "")))
	// The emails given up are free.
	must(t, repo.Insert(ctx, agent("acme", 8, "ann@acme.test")))
	must(t, repo.Insert(ctx, agent("acme", 9, "bob@acme.test")))
	broken, behind := emailDrift(t, raw, "acme")
	if broken != nil || behind != 1 {
		t.Fatalf("after the writes: %v, %d claims left behind; want only gone@'s", broken, behind)
	}
	rep, err := repo.Repair(ctx, nil)
	if err != nil || rep.Left() != 0 {
		t.Fatalf("repair: %+v, %v", rep, err)
	}
	if broken, behind := emailDrift(t, raw, "acme"); broken != nil || behind != 0 {
		t.Fatalf("after repair: %v, %d claims left behind", broken, behind)
	}
}
