package integration

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/txnmodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// The transactional mode on Cassandra 6 (issue 28, docs/cassandra6.md):
// every write of txnmodel.Member is one Accord transaction over members,
// members_by_team, flagged_members (sparse) and members_by_email
// (unique). These tests run only where CASSANDRA6_HOSTS names a 6.x
// node (make test-integration-c6).

// txnSetup applies txnmodel's schema to a fresh keyspace of the
// Cassandra 6 node and returns the raw session and the runtime's, at
// the levels Accord takes.
func txnSetup(t *testing.T) (*gocql.Session, cqlgen.Session) {
	t.Helper()
	raw, _ := cassandra6(t)
	cassandratest.MustApplyCQL(t, raw, txnmodel.Schema)
	return raw, c6Session(raw)
}

// memberRows is every row of the Member tables, read with plain gocql
// (not through the repository), one string a row, sorted per table.
type memberRows struct {
	members, byTeam, flagged, byEmail []string
	pending                           int // canonical rows with a pending record
}

func readMemberRows(t *testing.T, raw *gocql.Session) memberRows {
	t.Helper()
	var m memberRows
	scan := func(q string, dst *[]string, n int) {
		it := raw.Query(q).Consistency(gocql.Quorum).Iter()
		for {
			rd, err := it.RowData()
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if !it.Scan(rd.Values...) {
				break
			}
			var cols []any
			for _, v := range rd.Values {
				cols = append(cols, reflect.ValueOf(v).Elem().Interface())
			}
			*dst = append(*dst, fmt.Sprint(cols...))
		}
		if err := it.Close(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		sort.Strings(*dst)
	}
	var pending []string
	scan("SELECT member_id, team, name, email, flagged, score FROM members", &m.members, 6)
	scan("SELECT member_id FROM members WHERE cqlgen_pending > 0x ALLOW FILTERING", &pending, 1)
	m.pending = len(pending)
	scan("SELECT member_id, team, name, email, flagged, score FROM members_by_team", &m.byTeam, 6)
	scan("SELECT member_id, team, name, email, flagged, score FROM flagged_members", &m.flagged, 6)
	scan("SELECT email, member_id FROM members_by_email", &m.byEmail, 2)
	return m
}

// expectedRows is what memberRows must be for the members live.
func expectedRows(live map[string]txnmodel.Member) memberRows {
	var m memberRows
	for _, e := range live {
		row := fmt.Sprint(e.MemberID, e.Team, e.Name, e.Email, e.Flagged, e.Score)
		m.members = append(m.members, row)
		m.byTeam = append(m.byTeam, row)
		if e.Flagged {
			m.flagged = append(m.flagged, row)
		}
		m.byEmail = append(m.byEmail, fmt.Sprint(e.Email, e.MemberID))
	}
	for _, s := range [][]string{m.members, m.byTeam, m.flagged, m.byEmail} {
		sort.Strings(s)
	}
	return m
}

// checkRows fails the test unless the tables hold exactly live's rows
// and no canonical row has a pending record: zero drift.
func checkRows(t *testing.T, raw *gocql.Session, live map[string]txnmodel.Member) {
	t.Helper()
	got, want := readMemberRows(t, raw), expectedRows(live)
	if got.pending != 0 {
		t.Errorf("%d canonical rows have a pending record; the transactional mode leaves none", got.pending)
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{{"members", got.members, want.members}, {"members_by_team", got.byTeam, want.byTeam}, {"flagged_members", got.flagged, want.flagged}, {"members_by_email", got.byEmail, want.byEmail}} {
		if strings.Join(c.got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s holds\n%s\nwant\n%s", c.name, strings.Join(c.got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

func TestCassandra6TransactionalMode(t *testing.T) {
	raw, s := txnSetup(t)
	ctx := context.Background()
	repo := txnmodel.NewMemberRepo(s)
	live := map[string]txnmodel.Member{}

	ann := txnmodel.Member{MemberID: "m1", Team: "red", Name: "ann", Email: "ann@x", Score: 1}
	if err := repo.Insert(ctx, &ann); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	live["m1"] = ann
	checkRows(t, raw, live)

	t.Run("a change of key moves the rows; the sparse table takes the entity in", func(t *testing.T) {
		ann.Team, ann.Name, ann.Flagged, ann.Score = "blue", "anne", true, 2
		if err := repo.Update(ctx, &ann); err != nil {
			t.Fatalf("Update: %v", err)
		}
		live["m1"] = ann
		checkRows(t, raw, live)
	})
	t.Run("the sparse table lets the entity go; the email claim moves", func(t *testing.T) {
		ann.Flagged, ann.Email = false, "anne@x"
		if err := repo.Update(ctx, &ann); err != nil {
			t.Fatalf("Update: %v", err)
		}
		live["m1"] = ann
		checkRows(t, raw, live)
		if got, err := repo.MemberByEmail(ctx, "anne@x"); err != nil || got.MemberID != "m1" {
			t.Errorf("MemberByEmail(anne@x) = %v, %v; want m1", got, err)
		}
		if _, err := repo.MemberByEmail(ctx, "ann@x"); !errors.Is(err, cqlgen.ErrNotFound) {
			t.Errorf("MemberByEmail(ann@x) = %v, want ErrNotFound: the old claim is given up", err)
		}
	})
	t.Run("a unique key another member holds is a UniqueConflictError, and nothing is written", func(t *testing.T) {
		bob := txnmodel.Member{MemberID: "m2", Team: "red", Name: "bob", Email: "anne@x", Score: 5}
		var uc *cqlgen.UniqueConflictError
		if err := repo.Insert(ctx, &bob); !errors.As(err, &uc) {
			t.Fatalf("Insert with a taken email: %v, want *UniqueConflictError", err)
		}
		checkRows(t, raw, live)
		bob.Email = "bob@x"
		if err := repo.Insert(ctx, &bob); err != nil {
			t.Fatalf("Insert: %v", err)
		}
		live["m2"] = bob
		checkRows(t, raw, live)
	})
	t.Run("IfVersion, IfAbsent and Update of a missing entity keep their errors", func(t *testing.T) {
		_, v, err := repo.GetVersioned(ctx, "m1")
		if err != nil {
			t.Fatal(err)
		}
		ann.Score = 3
		if err := repo.Update(ctx, &ann, cqlgen.IfVersion(v+1)); !errors.Is(err, cqlgen.ErrNotApplied) {
			t.Errorf("Update at a stale version: %v, want ErrConflict", err)
		}
		if err := repo.Update(ctx, &ann, cqlgen.IfVersion(v)); err != nil {
			t.Errorf("Update at the version read: %v", err)
		}
		live["m1"] = ann
		other := ann
		other.Score = 4
		if err := repo.Insert(ctx, &other, cqlgen.IfAbsent()); !errors.Is(err, cqlgen.ErrNotApplied) {
			t.Errorf("Insert IfAbsent of a live entity: %v, want ErrConflict", err)
		}
		ghost := txnmodel.Member{MemberID: "m9", Team: "red", Name: "ghost", Email: "g@x"}
		if err := repo.Update(ctx, &ghost); !errors.Is(err, cqlgen.ErrNotFound) {
			t.Errorf("Update of a missing entity: %v, want ErrNotFound", err)
		}
		checkRows(t, raw, live)
	})
	t.Run("Modify", func(t *testing.T) {
		got, err := repo.Modify(ctx, "m2", func(m *txnmodel.Member) error { m.Score++; m.Flagged = true; return nil })
		if err != nil || got.Score != 6 {
			t.Fatalf("Modify: %v, %v", got, err)
		}
		live["m2"] = *got
		checkRows(t, raw, live)
	})
	t.Run("Delete removes every row and the claim at once", func(t *testing.T) {
		if err := repo.Delete(ctx, &ann); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		delete(live, "m1")
		checkRows(t, raw, live)
		if err := repo.Delete(ctx, &ann); err != nil {
			t.Errorf("Delete again: %v, want nil", err)
		}
		// The email is free again.
		cid := txnmodel.Member{MemberID: "m3", Team: "red", Name: "cid", Email: "anne@x"}
		if err := repo.Insert(ctx, &cid); err != nil {
			t.Fatalf("Insert with a released email: %v", err)
		}
		live["m3"] = cid
		checkRows(t, raw, live)
	})
	t.Run("Verify finds nothing to report; a row broken behind the repository's back is found", func(t *testing.T) {
		rep, err := repo.Verify(ctx, &cqlmaintain.Options{})
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if n := rep.Drift(); n != 0 {
			t.Fatalf("Verify after transactional writes: %d issues: %+v", n, rep)
		}
		if err := raw.Query("DELETE FROM members_by_team WHERE team = 'red' AND name = 'bob' AND member_id = 'm2'").Consistency(gocql.Quorum).Exec(); err != nil {
			t.Fatal(err)
		}
		rep, err = repo.Verify(ctx, &cqlmaintain.Options{})
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if n := rep.Drift(); n != 1 {
			t.Errorf("Verify after deleting a row by hand: %d issues, want 1: %+v", n, rep)
		}
		if _, err := repo.Repair(ctx, &cqlmaintain.Options{}); err != nil {
			t.Fatalf("Repair: %v", err)
		}
		checkRows(t, raw, live)
	})
	t.Run("a LOCAL_* level is a typed error before anything is sent", func(t *testing.T) {
		lctx := cqlgen.WithLevels(ctx, cqlgen.Levels{Write: cqldriver.LocalQuorum})
		bob := live["m2"]
		bob.Score = 100
		var in *cqlgen.InputError
		if err := repo.Update(lctx, &bob); !errors.As(err, &in) || !strings.Contains(err.Error(), "transactional mode") {
			t.Errorf("Update at LOCAL_QUORUM: %v, want an *InputError naming the transactional mode", err)
		}
		// The session's defaults are LOCAL_*: the server refuses them,
		// and the error says what to do.
		def := txnmodel.NewMemberRepo(gocqlv1.NewSession(raw, nil))
		if err := def.Update(ctx, &bob); !errors.As(err, &in) || !strings.Contains(err.Error(), "LOCAL_QUORUM") {
			t.Errorf("Update on a session at the default levels: %v, want an *InputError naming LOCAL_QUORUM", err)
		}
		checkRows(t, raw, live)
	})
}
