// Package benchenv is what the benchmarks of cqlgen and of its peers share:
// the Cassandra they run on, a keyspace per benchmark process, one gocql
// session per write-coalescing setting, the data every peer reads, and the
// latency histogram they report percentiles from.
//
// It uses gocql's API only as far as v1.0.0 and v1.7.0 have it in common:
// the gocassa benchmarks (bench/gocassa) build it against gocql v1.0.0,
// the last gocql that gocassa v1.2.0 compiles with.
package benchenv

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// EnvHosts names the variable with the comma-separated host:port contact
// points of the Cassandra to run on; `make bench` sets it.
const EnvHosts = "CASSANDRA_HOSTS"

// EnvCluster, set to 1, runs the benchmarks on a cluster of several
// nodes (docs/cluster.md; make bench-cluster sets it): each process's
// keyspace is replicated to every node of every datacenter the contact
// points know of (NetworkTopologyStrategy: RF=3 on the managed cluster of
// three nodes), and every peer reads and writes at QUORUM, with SERIAL
// for lightweight transactions. Unset, the keyspace has one replica
// (SimpleStrategy) and the consistency is LOCAL_QUORUM / LOCAL_SERIAL,
// which on one node is the same.
const EnvCluster = "CQLGEN_BENCH_CLUSTER"

// Cluster reports whether CQLGEN_BENCH_CLUSTER asks for the cluster mode.
func Cluster() bool { return os.Getenv(EnvCluster) == "1" }

// Coalesce is one setting of gocql's WriteCoalesceWaitTime, and the name
// of its sub-benchmark level.
type Coalesce struct {
	Name string
	Wait time.Duration
}

// Coalescing is every setting the benchmarks run under: 0, as
// gocqlv1.NewCluster sets it, and gocql's default of 200µs, which holds
// each request on an idle connection until a timer fires, so that later
// ones share its write.
var Coalescing = []Coalesce{
	{Name: "coalesce=0", Wait: 0},
	{Name: "coalesce=200us", Wait: 200 * time.Microsecond},
}

// Small reports a smoke run (go test -short): the benchmarks load small
// data sets, so that proving they compile and run takes seconds.
func Small() bool { return testing.Short() }

// Hosts returns the contact points in CASSANDRA_HOSTS, or nil.
func Hosts() []string {
	var hosts []string
	for _, h := range strings.Split(os.Getenv(EnvHosts), ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// NewCluster returns the cluster configuration every peer runs on: that of
// gocqlv1.NewCluster (token-aware routing over round robin, protocol 4,
// LocalQuorum, an 11 s timeout), with the given write coalescing. It is
// spelled out here rather than taken from cqlgen so that the gocassa
// benchmarks, built against an older gocql, get the same.
func NewCluster(hosts []string, keyspace string, coalesce time.Duration) *gocql.ClusterConfig {
	c := gocql.NewCluster(hosts...)
	c.Keyspace = keyspace
	c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	c.WriteCoalesceWaitTime = coalesce
	c.ProtoVersion = 4
	c.Consistency = gocql.LocalQuorum
	if Cluster() {
		c.Consistency = gocql.Quorum
		c.SerialConsistency = gocql.Serial
	}
	c.Timeout = 11 * time.Second
	c.ConnectTimeout = 5 * time.Second
	// Creating tables on a busy two-core node takes seconds.
	c.MaxWaitSchemaAgreement = 2 * time.Minute
	return c
}

// Env is the keyspace of one benchmark process, with the schema applied,
// and a session on it for each write-coalescing setting.
type Env struct {
	Hosts    []string
	Keyspace string
	sessions map[string]*gocql.Session
	admin    *gocql.Session
}

// Session returns the session of a coalescing setting.
func (e *Env) Session(c Coalesce) *gocql.Session { return e.sessions[c.Name] }

// Open creates a keyspace of its own (SimpleStrategy, replication 1),
// applies schema to it and opens the sessions. Close drops it.
func Open(hosts []string, prefix, schema string) (*Env, error) {
	e := &Env{Hosts: hosts, Keyspace: keyspaceName(prefix), sessions: map[string]*gocql.Session{}}
	admin, err := NewCluster(hosts, "", 0).CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %v: %w", hosts, err)
	}
	e.admin = admin
	repl := "{'class': 'SimpleStrategy', 'replication_factor': 1}"
	if Cluster() {
		if repl, err = everyNode(admin); err != nil {
			admin.Close()
			return nil, err
		}
	}
	create := "CREATE KEYSPACE " + e.Keyspace + " WITH replication = " + repl
	if err := admin.Query(create).Exec(); err != nil {
		admin.Close()
		return nil, fmt.Errorf("%s: %w", create, err)
	}
	for _, c := range Coalescing {
		cluster := NewCluster(hosts, e.Keyspace, c.Wait)
		s, err := cluster.CreateSession()
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("connecting with %s: %w", c.Name, err)
		}
		e.sessions[c.Name] = s
	}
	s := e.Session(Coalescing[0])
	for _, stmt := range cqlscript.Split(schema) {
		if _, use := stmt.Use(); use || stmt.IsCreateKeyspace() {
			continue // the tables go into this process's own keyspace
		}
		if err := s.Query(stmt.Text).Exec(); err != nil {
			e.Close()
			return nil, fmt.Errorf("schema line %d: %w", stmt.Line, err)
		}
	}
	return e, nil
}

// everyNode returns the replication of a keyspace on every node the
// session knows of: NetworkTopologyStrategy, each datacenter with as many
// replicas as it has nodes.
func everyNode(s *gocql.Session) (string, error) {
	count := map[string]int{}
	var dc string
	if err := s.Query("SELECT data_center FROM system.local").Scan(&dc); err != nil {
		return "", fmt.Errorf("reading the local datacenter: %w", err)
	}
	count[dc]++
	it := s.Query("SELECT data_center FROM system.peers").Iter()
	for it.Scan(&dc) {
		count[dc]++
	}
	if err := it.Close(); err != nil {
		return "", fmt.Errorf("reading the peers' datacenters: %w", err)
	}
	dcs := make([]string, 0, len(count))
	for dc, n := range count {
		dcs = append(dcs, fmt.Sprintf("'%s': %d", dc, n))
	}
	sort.Strings(dcs)
	return "{'class': 'NetworkTopologyStrategy', " + strings.Join(dcs, ", ") + "}", nil
}

// Close closes the sessions and drops the keyspace.
func (e *Env) Close() error {
	for _, s := range e.sessions {
		s.Close()
	}
	defer e.admin.Close()
	return e.admin.Query("DROP KEYSPACE IF EXISTS " + e.Keyspace).Exec()
}

func keyspaceName(prefix string) string {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return prefix + "_" + hex.EncodeToString(b[:])
}

// settle is the pause between loading data and the first measurement.
const settle = 5 * time.Second

// Shared opens one Env for a whole benchmark process on first use, and
// loads its data: creating tables takes seconds on a two-core node, far
// too long to do per benchmark.
type Shared struct {
	Prefix string
	Schema string
	// Load fills the keyspace; small is set for a smoke run.
	Load func(e *Env, small bool) error

	once sync.Once
	env  *Env
	err  error
}

// Get returns the Env, opening it first if need be. Without
// CASSANDRA_HOSTS the benchmark is skipped, or fails under CI=true.
func (s *Shared) Get(b *testing.B) *Env {
	b.Helper()
	hosts := Hosts()
	if len(hosts) == 0 {
		msg := "no Cassandra: set " + EnvHosts + " (make bench starts one)"
		if os.Getenv("CI") == "true" {
			b.Fatal(msg)
		}
		b.Skip(msg)
	}
	s.once.Do(func() {
		// gocql logs every reconnection; benchmarks report what matters.
		gocql.Logger = log.New(io.Discard, "", 0)
		start := time.Now()
		s.env, s.err = Open(hosts, s.Prefix, s.Schema)
		if s.err == nil && s.Load != nil {
			s.err = s.Load(s.env, Small())
			if !Small() {
				// The node flushes and compacts what the load wrote in the
				// seconds after; measured then, the first benchmark would
				// pay for it.
				time.Sleep(settle)
			}
		}
		if s.err == nil {
			fmt.Fprintf(os.Stderr, "benchenv: keyspace %s ready in %v\n", s.env.Keyspace, time.Since(start).Round(time.Millisecond))
		}
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.env
}

// Close drops the keyspace, if one was made; for TestMain.
func (s *Shared) Close() {
	if s.env != nil {
		if err := s.env.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "benchenv: dropping %s: %v\n", s.env.Keyspace, err)
		}
	}
}
