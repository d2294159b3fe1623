// Package cluster_test runs cqlgen's repositories on a real cluster of
// several nodes (integration/cassandra/cluster.sh: 127.0.0.2-4, two
// datacenters of 2 + 1 nodes) and takes nodes down under them. It needs
// CQLGEN_CLUSTER_HOSTS (the contact points, in the script's node order) and
// CQLGEN_CLUSTER_SCRIPT (cluster.sh, to stop and start nodes); without them
// every test is skipped. `make test-cluster` sets both.
//
// The tests stop and start nodes, so they never run in parallel; each one
// restarts what it stopped, even when it fails, and waits until every node
// sees every other before it returns.
package cluster_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Environment variables the suite reads.
const (
	envHosts  = "CQLGEN_CLUSTER_HOSTS"
	envScript = "CQLGEN_CLUSTER_SCRIPT"
)

// node is one node of the cluster: its number in cluster.sh (from 1), its
// CQL address and its datacenter.
type node struct {
	n    int
	addr string // host:port
	dc   string
}

// cluster is the cluster under test, as found at the start of a test.
type cluster struct {
	t      testing.TB
	nodes  []node
	script string
	down   map[int]bool
}

func TestMain(m *testing.M) {
	// gocql logs each reconnection attempt to a node that is down.
	gocql.Logger = log.New(io.Discard, "", 0)
	os.Exit(m.Run())
}

// need returns the cluster, or skips the test when none is configured.
func need(t testing.TB) *cluster {
	t.Helper()
	hosts, script := os.Getenv(envHosts), os.Getenv(envScript)
	if hosts == "" || script == "" {
		t.Skipf("no cluster: set %s and %s (make test-cluster does)", envHosts, envScript)
	}
	c := &cluster{t: t, script: script, down: map[int]bool{}}
	for i, addr := range strings.Split(hosts, ",") {
		s := pinned(t, addr, "")
		var dc string
		if err := s.Query("SELECT data_center FROM system.local").Scan(&dc); err != nil {
			t.Fatalf("node %d (%s): %v", i+1, addr, err)
		}
		s.Close()
		c.nodes = append(c.nodes, node{n: i + 1, addr: addr, dc: dc})
	}
	t.Cleanup(c.restore)
	return c
}

// pinned is a session that sends everything to the node at addr alone:
// its coordinator, and for LOCAL_ONE in a datacenter of one node its only
// replica. keyspace may be empty.
func pinned(t testing.TB, addr, keyspace string) *gocql.Session {
	t.Helper()
	cfg := gocql.NewCluster(addr)
	cfg.ProtoVersion = 4
	cfg.Keyspace = keyspace
	cfg.Timeout = 15 * time.Second
	cfg.ConnectTimeout = 10 * time.Second
	cfg.DisableInitialHostLookup = true
	host := strings.Split(addr, ":")[0]
	cfg.HostFilter = gocql.HostFilterFunc(func(h *gocql.HostInfo) bool { return h.ConnectAddress().String() == host })
	s, err := cfg.CreateSession()
	if err != nil {
		t.Fatalf("session on %s: %v", addr, err)
	}
	return s
}

// dcs returns the datacenters and how many nodes each has.
func (c *cluster) dcs() map[string]int {
	m := map[string]int{}
	for _, n := range c.nodes {
		m[n.dc]++
	}
	return m
}

// inDC returns the nodes of dc.
func (c *cluster) inDC(dc string) []node {
	var ns []node
	for _, n := range c.nodes {
		if n.dc == dc {
			ns = append(ns, n)
		}
	}
	return ns
}

// dcOf returns the datacenter of the node at host:port, "" if none.
func (c *cluster) dcOf(addr string) string {
	for _, n := range c.nodes {
		if n.addr == addr {
			return n.dc
		}
	}
	return ""
}

// run runs cluster.sh with args.
func (c *cluster) run(args ...string) {
	c.t.Helper()
	start := time.Now()
	out, err := exec.Command(c.script, args...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	c.t.Logf("cluster.sh %s (%s)", strings.Join(args, " "), time.Since(start).Round(100*time.Millisecond))
}

// stop shuts node n down cleanly; kill crashes it.
func (c *cluster) stop(n int) { c.t.Helper(); c.down[n] = true; c.run("stop-node", fmt.Sprint(n)) }
func (c *cluster) kill(n int) { c.t.Helper(); c.down[n] = true; c.run("kill-node", fmt.Sprint(n)) }

// start brings node n back with its data and, when no other node is
// down, waits until every node sees every other up; it returns how long
// that took.
func (c *cluster) start(n int) time.Duration {
	c.t.Helper()
	begin := time.Now()
	c.run("start-node", fmt.Sprint(n))
	delete(c.down, n)
	if len(c.down) == 0 {
		c.healthy()
	}
	return time.Since(begin)
}

// restore starts whatever the test left down.
func (c *cluster) restore() {
	for n := range c.down {
		c.start(n)
	}
}

// healthy waits until each node, as a coordinator, takes a write at ALL:
// it then holds every other node for alive, so a test that follows sees the
// whole cluster. The probe keyspace spans every datacenter.
func (c *cluster) healthy() {
	c.t.Helper()
	admin := pinned(c.t, c.nodes[0].addr, "")
	defer admin.Close()
	var repl []string
	for dc, n := range c.dcs() {
		repl = append(repl, fmt.Sprintf("'%s': %d", dc, n))
	}
	sort.Strings(repl)
	must(c.t, admin.Query("CREATE KEYSPACE IF NOT EXISTS cqlgen_probe WITH replication = {'class': 'NetworkTopologyStrategy', "+strings.Join(repl, ", ")+"}").Exec())
	must(c.t, admin.Query("CREATE TABLE IF NOT EXISTS cqlgen_probe.probe (k int PRIMARY KEY)").Exec())
	deadline := time.Now().Add(90 * time.Second)
	for _, n := range c.nodes {
		s := pinned(c.t, n.addr, "")
		for {
			err := s.Query("INSERT INTO cqlgen_probe.probe (k) VALUES (1)").Consistency(gocql.All).Exec()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				s.Close()
				c.t.Fatalf("node %d does not see the whole cluster: %v", n.n, err)
			}
			time.Sleep(250 * time.Millisecond)
		}
		s.Close()
	}
}

// keyspace creates a keyspace with NetworkTopologyStrategy and replicas
// per datacenter repl (all nodes of each when nil), applies the helpdesk
// schema, and returns its name; it is dropped when the test ends.
func (c *cluster) keyspace(repl map[string]int) string {
	c.t.Helper()
	c.healthy()
	if repl == nil {
		repl = c.dcs()
	}
	var parts []string
	for dc, n := range repl {
		parts = append(parts, fmt.Sprintf("'%s': %d", dc, n))
	}
	sort.Strings(parts)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	ks := "c_" + hex.EncodeToString(b)
	admin := c.session("", nil)
	must(c.t, admin.Query("CREATE KEYSPACE "+ks+" WITH replication = {'class': 'NetworkTopologyStrategy', "+strings.Join(parts, ", ")+"}").Exec())
	c.t.Cleanup(func() {
		c.restore()
		s := c.session("", nil)
		_ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec()
		s.Close()
	})
	raw := c.session(ks, nil)
	defer raw.Close()
	cassandratest.MustApplyCQL(c.t, raw, helpdesk.Schema)
	// Every node knows every table before the test writes.
	must(c.t, raw.AwaitSchemaAgreement(context.Background()))
	return ks
}

// session is a gocql session on every node (token-aware, round robin) in
// keyspace; tweak may adjust its configuration first. The caller closes it.
func (c *cluster) session(keyspace string, tweak func(*gocql.ClusterConfig)) *gocql.Session {
	c.t.Helper()
	var hosts []string
	for _, n := range c.nodes {
		hosts = append(hosts, n.addr)
	}
	cfg := gocqlv1.NewCluster(hosts...)
	c.tune(cfg, keyspace)
	if tweak != nil {
		tweak(cfg)
	}
	s, err := gocqlv1.CreateSession(cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

// tune sets what every session of the suite shares: patience for a
// loaded two-core machine, and quick reconnection to a node that is back.
func (c *cluster) tune(cfg *gocql.ClusterConfig, keyspace string) {
	cfg.Keyspace = keyspace
	cfg.ConnectTimeout = 10 * time.Second
	cfg.ReconnectInterval = time.Second
}

// quorum is the session of the RF=3 tests: QUORUM and SERIAL across the
// whole cluster, since any node, of either datacenter, may be down.
func (c *cluster) quorum(ks string, obs cqlobserve.Observer) (*gocql.Session, cqlgen.Session) {
	c.t.Helper()
	raw := c.session(ks, nil)
	c.t.Cleanup(raw.Close)
	return raw, gocqlv1.NewSession(raw, &cqlgen.SessionOptions{
		ReadConsistency: cqlgen.Quorum, WriteConsistency: cqlgen.Quorum, SerialConsistency: cqlgen.Serial,
		Observer: obs,
	})
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// ctxFor is a context that ends with the test, or after d.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// ticket is ticket i of org, assigned and open, so that it has a row in
// each of the three tables of Ticket.
func ticket(org string, i int) *helpdesk.Ticket {
	return &helpdesk.Ticket{
		OrgID: org, TicketID: gocql.TimeUUID(), Requester: fmt.Sprintf("user%d@%s.test", i%7, org),
		Subject: fmt.Sprint("ticket ", i), Status: helpdesk.StatusOpen, AgentID: fmt.Sprint("agent-", i%3),
		OpenedAt: time.Now().UTC().Truncate(time.Millisecond), Body: "body", Replies: 0,
	}
}

// verifyClean runs Verify at ALL and fails the test on drift.
func verifyClean(t *testing.T, repo *helpdesk.TicketRepo, when string) {
	t.Helper()
	rep, err := repo.Verify(cqlgen.WithLevels(context.Background(), cqlgen.Levels{Read: cqlgen.All}), nil)
	if err != nil {
		t.Fatalf("%s: verify: %v", when, err)
	}
	if rep.Drift() != 0 {
		t.Fatalf("%s: drift %+v", when, rep.Tables)
	}
}

// hosts records the coordinator of every attempt, by datacenter.
type hosts struct {
	mu   sync.Mutex
	seen map[string]int // host:port → attempts
}

func (h *hosts) Observe(_ context.Context, o cqlobserve.Observation) {
	if o.Host == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen == nil {
		h.seen = map[string]int{}
	}
	h.seen[o.Host]++
}

// take returns what was seen and forgets it.
func (h *hosts) take() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.seen
	h.seen = nil
	return m
}
