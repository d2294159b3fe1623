package integration

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// BenchmarkCassandra6Paired prices Accord transactions against what the
// write protocol does today, on the same Cassandra 6 node, through the
// runtime's session on gocql v1.7.0. Each round runs both sides of a pair,
// alternating which goes first, and each side's median is reported:
//
//   - txn-vs-batch: both inserts of an entity as one transaction on two
//     Accord tables, against a logged batch of the same two inserts on
//     two plain tables (the protocol's fan-out);
//   - check-vs-paxos: a LET + IF version check that updates the canonical
//     row and inserts a lookup row, on Accord tables, against one Paxos
//     conditional write (UPDATE ... IF version = ?) on a plain table (the
//     protocol's commit point, without its fan-out).
//
// Run by make test-integration-c6's node (docs/cassandra6.md; figures in
// bench/README.md):
//
//	make cassandra6-start
//	cd integration && CASSANDRA_HOSTS=127.0.0.6:9042 CASSANDRA6_HOSTS=127.0.0.6:9042 \
//	    go test -run '^$' -bench Cassandra6Paired -benchtime 400x -count 3 .
//	make cassandra6-stop
func BenchmarkCassandra6Paired(b *testing.B) {
	if os.Getenv(EnvCassandra6Hosts) == "" {
		b.Skipf("%s is not set: start the node with make cassandra6-start", EnvCassandra6Hosts)
	}
	raw, _ := cassandratest.Keyspace(b)
	cassandratest.MustApplyCQL(b, raw, c6Schema+`
CREATE TABLE p_acct (id int PRIMARY KEY, version int, name text);
CREATE TABLE p_acct_by_name (name text PRIMARY KEY, id int);
`)
	s := c6Session(raw)
	ctx := context.Background()
	run := func(st *cqldriver.Statement, vs ...any) error {
		return s.Exec(ctx, cqldriver.Query{Stmt: st, Values: vs})
	}
	timed := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// paired times sides[0] and sides[1] for round i; setups[k], if
	// set, runs before sides[k], untimed.
	paired := func(b *testing.B, names [2]string, setups, sides [2]func(i int) error) {
		var ds [2][]time.Duration
		i := 0
		for b.Loop() {
			for k := range 2 {
				side := (i + k) % 2
				if setups[side] != nil {
					if err := setups[side](i); err != nil {
						b.Fatal(err)
					}
				}
				ds[side] = append(ds[side], timed(func() error { return sides[side](i) }))
			}
			i++
		}
		m0, m1 := c6Median(ds[0]), c6Median(ds[1])
		b.ReportMetric(float64(m0.Microseconds()), names[0]+"-p50-µs")
		b.ReportMetric(float64(m1.Microseconds()), names[1]+"-p50-µs")
		b.ReportMetric(float64(m0)/float64(m1), "ratio")
	}

	txn := c6Statement(c6InsertBoth, cqldriver.Write)
	insA := c6Statement("INSERT INTO p_acct (id, version, name) VALUES (?, ?, ?)", cqldriver.Write)
	insB := c6Statement("INSERT INTO p_acct_by_name (name, id) VALUES (?, ?)", cqldriver.Write)
	b.Run("txn-vs-batch", func(b *testing.B) {
		base := 1_000_000
		paired(b, [2]string{"txn", "batch"}, [2]func(int) error{}, [2]func(int) error{
			func(i int) error {
				id := base + i
				name := "t" + itoa(id)
				return run(txn, id, 1, name, name, id)
			},
			func(i int) error {
				id := base + i
				name := "b" + itoa(id)
				return s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{
					{Stmt: insA, Values: []any{id, 1, name}},
					{Stmt: insB, Values: []any{name, id}},
				})
			},
		})
	})

	check := c6Statement(c6VersionedUpdate, cqldriver.Read)
	cas := c6Statement("UPDATE p_acct SET version = ?, name = ? WHERE id = ? IF version = ?", cqldriver.Conditional)
	seedA := c6Statement("INSERT INTO acct (id, version, name) VALUES (?, 1, 'seed')", cqldriver.Write)
	seedP := c6Statement("INSERT INTO p_acct (id, version, name) VALUES (?, 1, 'seed')", cqldriver.Write)
	b.Run("check-vs-paxos", func(b *testing.B) {
		base := 2_000_000
		seeds := [2]func(int) error{
			func(i int) error { return run(seedA, base+i) },
			func(i int) error { return run(seedP, base+i) },
		}
		paired(b, [2]string{"check", "paxos"}, seeds, [2]func(int) error{
			func(i int) error {
				id := base + i
				name := "c" + itoa(id)
				it := s.Iter(ctx, cqldriver.Query{Stmt: check, Values: []any{id, 1, 2, name, id, name, id}, PageSize: cqldriver.Unpaged})
				var v *int
				if !it.Scan(&v) || v == nil || *v != 1 {
					b.Errorf("version check on %d found %v, want 1", id, v)
				}
				return it.Close()
			},
			func(i int) error {
				id := base + i
				applied, err := s.ExecCAS(ctx, cqldriver.Query{Stmt: cas, Values: []any{2, "p" + itoa(id), id, 1}})
				if err == nil && !applied {
					b.Errorf("conditional write on %d did not apply", id)
				}
				return err
			},
		})
	})
}

func c6Median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func itoa(i int) string { return strconv.Itoa(i) }
