package integration

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/txnmodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// BenchmarkCassandra6TransactionalMode prices the transactional mode's
// writes on the Cassandra 6 node, per write kind (Insert, Update with no
// key move, Update moving a key, Modify, Delete), against the same calls
// through the write protocol (txnmodel.Account: the same four tables,
// unique email included, not in the mode) and against a plain logged
// batch of the rows the write changes (into the Account tables: no read,
// no condition, no version check). Each round runs the three sides,
// rotating which goes first, so that the node's load affects them alike;
// each side's median is reported, and the mode's ratio to each other
// side (docs/cassandra6.md, bench/README.md).
//
//	make cassandra6-start
//	cd integration && CASSANDRA_HOSTS=127.0.0.6:9042 CASSANDRA6_HOSTS=127.0.0.6:9042 \
//	    go test -run '^$' -bench Cassandra6TransactionalMode -benchtime 200x -count 3 .
//	make cassandra6-stop
func BenchmarkCassandra6TransactionalMode(b *testing.B) {
	if os.Getenv(EnvCassandra6Hosts) == "" {
		b.Skipf("%s is not set: start the node with make cassandra6-start", EnvCassandra6Hosts)
	}
	raw, ks := cassandratest.Keyspace(b)
	c6Replicate(b, raw, ks)
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
		return &cqldriver.Statement{CQL: cql, Table: "accounts", Pattern: "bench", Kind: cqldriver.Write}
	}
	// The plain batch's statements: the rows each write changes, in the
	// Account tables.
	canon := stmt("UPDATE accounts SET team = ?, name = ?, email = ?, flagged = false, score = ?, cqlgen_version = ? WHERE member_id = ?")
	score := stmt("UPDATE accounts SET score = ?, cqlgen_version = ? WHERE member_id = ?")
	row := stmt("INSERT INTO accounts_by_team (team, name, member_id, email, flagged, score) VALUES (?, ?, ?, ?, false, ?)")
	unrow := stmt("DELETE FROM accounts_by_team WHERE team = ? AND name = ? AND member_id = ?")
	claim := stmt("INSERT INTO accounts_by_email (email, member_id, cqlgen_claim) VALUES (?, ?, ?)")
	unclaim := stmt("DELETE FROM accounts_by_email WHERE email = ?")
	uncanon := stmt("DELETE FROM accounts WHERE member_id = ?")
	batch := func(qs ...cqldriver.Query) error { return s.Batch(ctx, cqldriver.Logged, qs) }
	q := func(st *cqldriver.Statement, vs ...any) cqldriver.Query { return cqldriver.Query{Stmt: st, Values: vs} }
	batchInsert := func(i int, team string) error {
		m := member("b", i, team)
		return batch(q(canon, m.Team, m.Name, m.Email, m.Score, int64(1), m.MemberID),
			q(row, m.Team, m.Name, m.MemberID, m.Email, m.Score), q(claim, m.Email, m.MemberID, int64(1)))
	}
	names := [3]string{"mode", "protocol", "batch"}
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
			b.ReportMetric(float64(c6Quantile(ds[k], 0.99).Microseconds()), names[k]+"-p99-µs")
		}
		b.ReportMetric(float64(m[0])/float64(m[1]), "mode/protocol")
		b.ReportMetric(float64(m[0])/float64(m[2]), "mode/batch")
	}
	base := 0
	next := func() int { base += 1_000_000; return base }
	inserted := func(o int) [3]func(int) error {
		return [3]func(int) error{
			func(i int) error { return members.Insert(ctx, member("m", o+i, "red")) },
			func(i int) error { return accounts.Insert(ctx, account(o+i, "red")) },
			func(i int) error { return batchInsert(o+i, "red") },
		}
	}
	b.Run("Insert", func(b *testing.B) {
		o := next()
		three(b, [3]func(int) error{}, inserted(o))
	})
	b.Run("Update", func(b *testing.B) {
		o := next()
		three(b, inserted(o), [3]func(int) error{
			func(i int) error { m := member("m", o+i, "red"); m.Score++; return members.Update(ctx, m) },
			func(i int) error { a := account(o+i, "red"); a.Score++; return accounts.Update(ctx, a) },
			func(i int) error {
				m := member("b", o+i, "red")
				return batch(q(score, m.Score+1, int64(2), m.MemberID), q(row, m.Team, m.Name, m.MemberID, m.Email, m.Score+1))
			},
		})
	})
	b.Run("UpdateKeyMove", func(b *testing.B) {
		o := next()
		three(b, inserted(o), [3]func(int) error{
			func(i int) error { return members.Update(ctx, member("m", o+i, "blue")) },
			func(i int) error { return accounts.Update(ctx, account(o+i, "blue")) },
			func(i int) error {
				m := member("b", o+i, "blue")
				return batch(q(canon, m.Team, m.Name, m.Email, m.Score, int64(2), m.MemberID),
					q(unrow, "red", m.Name, m.MemberID), q(row, m.Team, m.Name, m.MemberID, m.Email, m.Score))
			},
		})
	})
	b.Run("Modify", func(b *testing.B) {
		o := next()
		three(b, inserted(o), [3]func(int) error{
			func(i int) error {
				_, err := members.Modify(ctx, fmt.Sprintf("m%d", o+i), func(m *txnmodel.Member) error { m.Score++; return nil })
				return err
			},
			func(i int) error {
				_, err := accounts.Modify(ctx, fmt.Sprintf("p%d", o+i), func(a *txnmodel.Account) error { a.Score++; return nil })
				return err
			},
			func(i int) error {
				m := member("b", o+i, "red")
				return batch(q(score, m.Score+1, int64(2), m.MemberID), q(row, m.Team, m.Name, m.MemberID, m.Email, m.Score+1))
			},
		})
	})
	b.Run("Delete", func(b *testing.B) {
		o := next()
		three(b, inserted(o), [3]func(int) error{
			func(i int) error { return members.Delete(ctx, member("m", o+i, "red")) },
			func(i int) error { return accounts.Delete(ctx, account(o+i, "red")) },
			func(i int) error {
				m := member("b", o+i, "red")
				return batch(q(uncanon, m.MemberID), q(unrow, m.Team, m.Name, m.MemberID), q(unclaim, m.Email))
			},
		})
	})
}

// c6Quantile is the q-quantile of ds (nearest rank), which it sorts.
func c6Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(q*float64(len(ds)) + 0.5)
	return ds[min(max(i-1, 0), len(ds)-1)]
}
