package runtime_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

const benchInsert = "INSERT INTO bench (id, name, v, at) VALUES (?, ?, ?, ?)"

var benchStmt = &cqldriver.Statement{CQL: benchInsert, Table: "bench", Pattern: "Bench.Insert", Kind: cqlgen.Write, Idempotent: true}

// BenchmarkExecOverhead compares the runtime's happy path, Session.Exec of
// a prepared INSERT, with raw gocql running the same statement on the
// same session: session.Query(stmt, vals...).Exec(). The difference is the
// runtime's cost: the pooled execution (retry policy), consistency by
// statement kind, the context, and with an observer, one Observation per
// attempt.
//
//	cd integration && CASSANDRA_HOSTS=127.0.0.1:9042 go test ./runtime -run '^$' -bench ExecOverhead -benchmem -count 10
func BenchmarkExecOverhead(b *testing.B) {
	session, vals := benchSession(b)
	ctx := context.Background()

	// As gocqlv1.NewCluster sets them; gocql's 200µs write coalescing
	// would otherwise dominate both sides.
	b.Run("gocql", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := session.Query(benchInsert, vals...).Exec(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("runtime", func(b *testing.B) {
		s := gocqlv1.NewSession(session, nil)
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Exec(ctx, cqldriver.Query{Stmt: benchStmt, Values: vals}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("runtime+observer", func(b *testing.B) {
		var n int
		s := gocqlv1.NewSession(session, &cqlgen.SessionOptions{Observer: observerFunc(func(context.Context, cqlobserve.Observation) { n++ })})
		b.ReportAllocs()
		for b.Loop() {
			if err := s.Exec(ctx, cqldriver.Query{Stmt: benchStmt, Values: vals}); err != nil {
				b.Fatal(err)
			}
		}
		if n < b.N {
			b.Fatalf("%d observations of %d statements", n, b.N)
		}
	})
}

// BenchmarkExecOverheadPaired runs the two sides alternately, in the same
// time window, so that the node's and the machine's noise (two cores
// shared with Cassandra) hits both alike, and reports the median latency
// of each and their ratio. Allocations are measured by
// BenchmarkExecOverhead, where each side runs alone.
func BenchmarkExecOverheadPaired(b *testing.B) {
	session, vals := benchSession(b)
	s := gocqlv1.NewSession(session, nil)
	ctx := context.Background()
	var raw, rt []time.Duration
	timed := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	gocqlExec := func() error { return session.Query(benchInsert, vals...).Exec() }
	runtimeExec := func() error { return s.Exec(ctx, cqldriver.Query{Stmt: benchStmt, Values: vals}) }
	i := 0
	for b.Loop() {
		// Alternate which goes first: the second of a pair may find the
		// connection's buffers warmer.
		if i%2 == 0 {
			raw = append(raw, timed(gocqlExec))
			rt = append(rt, timed(runtimeExec))
		} else {
			rt = append(rt, timed(runtimeExec))
			raw = append(raw, timed(gocqlExec))
		}
		i++
	}
	mr, mt := median(raw), median(rt)
	b.ReportMetric(float64(mr.Nanoseconds()), "gocql-p50-ns")
	b.ReportMetric(float64(mt.Nanoseconds()), "runtime-p50-ns")
	b.ReportMetric(float64(mt)/float64(mr), "ratio")
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// benchSession is a keyspace with the bench table, its INSERT prepared,
// on a session configured as gocqlv1.NewCluster does.
func benchSession(b *testing.B) (*gocql.Session, []any) {
	session, _ := cassandratest.Keyspace(b, func(c *gocql.ClusterConfig) {
		// gocql's 200µs write coalescing would otherwise dominate both
		// sides.
		c.WriteCoalesceWaitTime = 0
		c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	})
	cassandratest.MustApplyCQL(b, session, "CREATE TABLE bench (id text PRIMARY KEY, name text, v bigint, at bigint);")
	vals := []any{"key-1", "some name", int64(42), int64(1700000000000000)}
	if err := session.Query(benchInsert, vals...).Exec(); err != nil { // prepares it
		b.Fatal(err)
	}
	return session, vals
}
