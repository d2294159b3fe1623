package v2

import (
	"context"
	"errors"
	"os"
	"testing"

	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/txnmodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv2"
)

// The transactional mode through the ASF driver (Cassandra 6 only,
// CASSANDRA6_HOSTS; make test-integration-c6): an Insert, a key move that
// also takes a new email, a conflict on a taken email, and a Delete,
// each one transaction bound through gocqlv2; the tables then hold what
// the canonical rows imply, read with plain gocql.
func TestCassandra6TransactionalOnV2(t *testing.T) {
	if os.Getenv("CASSANDRA6_HOSTS") == "" {
		t.Skip("CASSANDRA6_HOSTS is not set: run make test-integration-c6")
	}
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, txnmodel.Schema)
	s := gocqlv2.NewSession(v2Session(t, ks), &cqlgen.SessionOptions{
		ReadConsistency: cqldriver.Quorum, WriteConsistency: cqldriver.Quorum, SerialConsistency: cqldriver.Serial,
	})
	ctx := context.Background()
	repo := txnmodel.NewMemberRepo(s)
	ann := txnmodel.Member{MemberID: "a", Team: "red", Name: "ann", Email: "ann@x", Flagged: true, Score: 1}
	bob := txnmodel.Member{MemberID: "b", Team: "red", Name: "bob", Email: "bob@x", Score: 2}
	must(t, repo.Insert(ctx, &ann))
	must(t, repo.Insert(ctx, &bob))
	ann.Team, ann.Email, ann.Flagged = "blue", "anne@x", false
	must(t, repo.Update(ctx, &ann))
	bob.Email = "anne@x"
	var uc *cqlgen.UniqueConflictError
	if err := repo.Update(ctx, &bob); !errors.As(err, &uc) {
		t.Errorf("Update to a taken email: %v, want *UniqueConflictError", err)
	}
	must(t, repo.Delete(ctx, &bob))
	count := func(q string) (n int) {
		must(t, raw.Query(q).Consistency(gocqlv1.Quorum).Scan(&n))
		return n
	}
	for q, want := range map[string]int{
		"SELECT count(*) FROM members":                                       1,
		"SELECT count(*) FROM members_by_team WHERE team = 'blue'":           1,
		"SELECT count(*) FROM members_by_team WHERE team = 'red'":            0,
		"SELECT count(*) FROM flagged_members WHERE team IN ('red', 'blue')": 0,
		"SELECT count(*) FROM members_by_email":                              1,
	} {
		if n := count(q); n != want {
			t.Errorf("%s: %d, want %d", q, n, want)
		}
	}
	got, err := repo.MemberByEmail(ctx, "anne@x")
	if err != nil || got.MemberID != "a" {
		t.Errorf("MemberByEmail(anne@x) = %v, %v; want a", got, err)
	}
}
