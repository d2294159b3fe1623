package integration

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/txnmodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// BenchmarkCassandra6TransactionalMode prices the transactional mode's
// Insert, Update and Delete on the Cassandra 6 node against the same
// calls through the write protocol (txnmodel.Account: the same tables,
// not in the mode) and against a hand-written transaction that does the
// same writes with no pre-read (it knows the version and the claim).
// Each round runs the three sides, rotating which goes first; each
// side's median is reported, and the mode's ratio to each other side.
//
//	make cassandra6-start
//	cd integration && CASSANDRA_HOSTS=127.0.0.6:9042 CASSANDRA6_HOSTS=127.0.0.6:9042 \
//	    go test -run '^$' -bench Cassandra6TransactionalMode -benchtime 200x -count 3 .
//	make cassandra6-stop
func BenchmarkCassandra6TransactionalMode(b *testing.B) {
	if os.Getenv(EnvCassandra6Hosts) == "" {
		b.Skipf("%s is not set: start the node with make cassandra6-start", EnvCassandra6Hosts)
	}
	raw, _ := cassandratest.Keyspace(b)
	cassandratest.MustApplyCQL(b, raw, txnmodel.Schema)
	s := c6Session(raw)
	ctx := context.Background()
	members, accounts := txnmodel.NewMemberRepo(s), txnmodel.NewAccountRepo(s)
	member := func(p string, i int, team string) *txnmodel.Member {
		id := fmt.Sprintf("%s%d", p, i)
		return &txnmodel.Member{MemberID: id, Team: team, Name: "n" + id, Email: id + "@x", Score: int64(i)}
	}
	account := func(i int, team string) *txnmodel.Account {
		m := member("p", i, team)
		a := txnmodel.Account(*m)
		return &a
	}
	stmt := func(cql string) *cqldriver.Statement {
		return &cqldriver.Statement{CQL: cql, Table: "members", Pattern: "bench", Kind: cqldriver.Conditional}
	}
	hand := func(st *cqldriver.Statement, vs ...any) error {
		it := s.Iter(ctx, cqldriver.Query{Stmt: st, Values: vs, PageSize: cqldriver.Unpaged})
		var v *int64
		it.Scan(&v)
		return it.Close()
	}
	// The hand-written transactions: the same rows, the version known.
	insert := stmt(`BEGIN TRANSACTION
  LET cur = (SELECT cqlgen_version FROM members WHERE member_id = ?);
  LET claim = (SELECT cqlgen_claim FROM members_by_email WHERE email = ?);
  SELECT cur.cqlgen_version;
  IF cur IS NULL AND claim IS NULL THEN
    UPDATE members SET team = ?, name = ?, email = ?, flagged = false, score = ?, cqlgen_version = ? WHERE member_id = ?;
    INSERT INTO members_by_team (team, name, member_id, email, flagged, score) VALUES (?, ?, ?, ?, false, ?);
    INSERT INTO members_by_email (email, member_id, cqlgen_claim) VALUES (?, ?, ?);
  END IF
COMMIT TRANSACTION`)
	update := stmt(`BEGIN TRANSACTION
  LET cur = (SELECT cqlgen_version FROM members WHERE member_id = ?);
  SELECT cur.cqlgen_version;
  IF cur.cqlgen_version = ? THEN
    UPDATE members SET team = ?, cqlgen_version = ? WHERE member_id = ?;
    DELETE FROM members_by_team WHERE team = ? AND name = ? AND member_id = ?;
    INSERT INTO members_by_team (team, name, member_id, email, flagged, score) VALUES (?, ?, ?, ?, false, ?);
  END IF
COMMIT TRANSACTION`)
	remove := stmt(`BEGIN TRANSACTION
  LET cur = (SELECT cqlgen_version FROM members WHERE member_id = ?);
  SELECT cur.cqlgen_version;
  IF cur.cqlgen_version = ? THEN
    DELETE FROM members WHERE member_id = ?;
    DELETE FROM members_by_team WHERE team = ? AND name = ? AND member_id = ?;
    DELETE FROM members_by_email WHERE email = ?;
  END IF
COMMIT TRANSACTION`)
	handInsert := func(i int, team string) error {
		m := member("h", i, team)
		return hand(insert, m.MemberID, m.Email, m.Team, m.Name, m.Email, m.Score, int64(1), m.MemberID,
			m.Team, m.Name, m.MemberID, m.Email, m.Score, m.Email, m.MemberID, int64(1))
	}
	names := [3]string{"mode", "protocol", "hand"}
	// three times each side of round i, after its untimed setup.
	three := func(b *testing.B, setup, sides [3]func(i int) error) {
		var ds [3][]time.Duration
		i := 0
		for b.Loop() {
			for k := range 3 {
				side := (i + k) % 3
				if setup[side] != nil {
					if err := setup[side](i); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				if err := sides[side](i); err != nil {
					b.Fatal(err)
				}
				ds[side] = append(ds[side], time.Since(start))
			}
			i++
		}
		var m [3]time.Duration
		for k := range 3 {
			m[k] = c6Median(ds[k])
			b.ReportMetric(float64(m[k].Microseconds()), names[k]+"-p50-µs")
		}
		b.ReportMetric(float64(m[0])/float64(m[1]), "mode/protocol")
		b.ReportMetric(float64(m[0])/float64(m[2]), "mode/hand")
	}
	base := 0
	next := func() int { base += 1_000_000; return base }
	b.Run("Insert", func(b *testing.B) {
		o := next()
		three(b, [3]func(int) error{}, [3]func(int) error{
			func(i int) error { return members.Insert(ctx, member("m", o+i, "red")) },
			func(i int) error { return accounts.Insert(ctx, account(o+i, "red")) },
			func(i int) error { return handInsert(o+i, "red") },
		})
	})
	b.Run("Update", func(b *testing.B) {
		o := next()
		three(b, [3]func(int) error{
			func(i int) error { return members.Insert(ctx, member("m", o+i, "red")) },
			func(i int) error { return accounts.Insert(ctx, account(o+i, "red")) },
			func(i int) error { return handInsert(o+i, "red") },
		}, [3]func(int) error{
			func(i int) error { return members.Update(ctx, member("m", o+i, "blue")) },
			func(i int) error { return accounts.Update(ctx, account(o+i, "blue")) },
			func(i int) error {
				m := member("h", o+i, "blue")
				return hand(update, m.MemberID, int64(1), m.Team, int64(2), m.MemberID, "red", m.Name, m.MemberID,
					m.Team, m.Name, m.MemberID, m.Email, m.Score)
			},
		})
	})
	b.Run("Delete", func(b *testing.B) {
		o := next()
		three(b, [3]func(int) error{
			func(i int) error { return members.Insert(ctx, member("m", o+i, "red")) },
			func(i int) error { return accounts.Insert(ctx, account(o+i, "red")) },
			func(i int) error { return handInsert(o+i, "red") },
		}, [3]func(int) error{
			func(i int) error { return members.Delete(ctx, member("m", o+i, "red")) },
			func(i int) error { return accounts.Delete(ctx, account(o+i, "red")) },
			func(i int) error {
				m := member("h", o+i, "red")
				return hand(remove, m.MemberID, int64(1), m.MemberID, m.Team, m.Name, m.MemberID, m.Email)
			},
		})
	})
}
