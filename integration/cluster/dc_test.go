package cluster_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// twoDCs returns the two datacenters, the first one with more nodes, or
// skips the test.
func twoDCs(t *testing.T, c *cluster) (big, small string) {
	t.Helper()
	dcs := c.dcs()
	if len(dcs) != 2 {
		t.Skipf("the cluster has %d datacenters, not 2 (CQLGEN_CLUSTER_DCS)", len(dcs))
	}
	for dc := range dcs {
		if big == "" || dcs[dc] > dcs[big] || (dcs[dc] == dcs[big] && dc < big) {
			big = dc
		}
	}
	for dc := range dcs {
		if dc != big {
			small = dc
		}
	}
	return big, small
}

// local is a repository session of a client in dc: NewClusterDC routing,
// the session's defaults (LOCAL_QUORUM, LOCAL_SERIAL), and obs to see the
// coordinators.
func (c *cluster) local(dc, ks string, obs cqlobserve.Observer) cqlgen.Session {
	c.t.Helper()
	var hosts []string
	for _, n := range c.nodes {
		hosts = append(hosts, n.addr)
	}
	cfg := gocqlv1.NewClusterDC(dc, hosts...)
	c.tune(cfg, ks)
	raw, err := gocqlv1.CreateSession(cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(raw.Close)
	return gocqlv1.NewSession(raw, &cqlgen.SessionOptions{Observer: obs})
}

// onlyIn fails the test unless every coordinator seen is a node of dc.
func onlyIn(t *testing.T, c *cluster, dc, what string, seen map[string]int) {
	t.Helper()
	if len(seen) == 0 {
		t.Fatalf("%s: no coordinator observed", what)
	}
	for host, n := range seen {
		if c.dcOf(host) != dc {
			t.Errorf("%s: %d attempts coordinated by %s, in %q, not %q", what, n, host, c.dcOf(host), dc)
		}
	}
}

// LOCAL_QUORUM in two datacenters (keyspace: all nodes of each): each
// client's reads and writes are coordinated in its own datacenter, as the
// Observer's Host shows, and survive the other datacenter's outage. When
// its own datacenter cannot make a local quorum, a client gets
// Unavailable: it must not be served by the other datacenter, whose
// LOCAL_QUORUM is another quorum altogether.
func TestLocalQuorumInTwoDatacenters(t *testing.T) {
	c := need(t)
	big, small := twoDCs(t, c)
	ks := c.keyspace(nil)
	ctx := ctxFor(t, 5*time.Minute)
	var bigSeen, smallSeen hosts
	bigRepo := helpdesk.NewTicketRepo(c.local(big, ks, &bigSeen))
	smallRepo := helpdesk.NewTicketRepo(c.local(small, ks, &smallSeen))

	a, b := ticket("acme", 1), ticket("acme", 2)
	must(t, bigRepo.Insert(ctx, a))
	must(t, smallRepo.Insert(ctx, b))
	for _, tk := range []*helpdesk.Ticket{a, b} {
		if _, err := bigRepo.Get(ctx, tk.OrgID, tk.TicketID); err != nil {
			t.Fatalf("%s from %s: %v", tk.Subject, big, err)
		}
	}
	onlyIn(t, c, big, big+" client", bigSeen.take())
	onlyIn(t, c, small, small+" client", smallSeen.take())

	// The small datacenter down: the big one reads and writes on.
	for _, n := range c.inDC(small) {
		c.stop(n.n)
	}
	tk := ticket("acme", 3)
	must(t, bigRepo.Insert(ctx, tk))
	if _, err := bigRepo.Get(ctx, tk.OrgID, tk.TicketID); err != nil {
		t.Fatalf("Get in %s with %s down: %v", big, small, err)
	}
	onlyIn(t, c, big, big+" client, "+small+" down", bigSeen.take())
	for _, n := range c.inDC(small) {
		c.start(n.n)
	}

	// One node of the big datacenter down: no local quorum there (2 of 2
	// replicas), a typed Unavailable, while the small one serves its own.
	c.stop(c.inDC(big)[1].n)
	_, err := bigRepo.Get(ctx, a.OrgID, a.TicketID)
	var u *gocql.RequestErrUnavailable
	if !errors.As(err, &u) || u.Consistency != gocql.LocalQuorum {
		t.Fatalf("Get in %s without a local quorum: %v, want Unavailable at LOCAL_QUORUM", big, err)
	}
	onlyIn(t, c, big, big+" client without a local quorum", bigSeen.take())
	if _, err := smallRepo.Get(ctx, a.OrgID, a.TicketID); err != nil {
		t.Fatalf("Get in %s with a node of %s down: %v", small, big, err)
	}
	onlyIn(t, c, small, small+" client", smallSeen.take())
}

// Why SERIAL and LOCAL_SERIAL differ for the version check. A writer in
// the big datacenter updates a ticket while the small one is cut off
// (down, hints off: it will not hear of it). Then a writer in the small
// datacenter, holding the version it read before, updates the same ticket
// with IfVersion. At LOCAL_SERIAL its Paxos round asks the small
// datacenter alone, which still holds the old version: both writers win
// the same compare-and-set, and one update is lost. At SERIAL the round
// needs a quorum of every replica, which includes the big datacenter's:
// the second writer gets a VersionConflictError.
func TestSerialAndLocalSerialVersionCheck(t *testing.T) {
	c := need(t)
	big, small := twoDCs(t, c)
	ks := c.keyspace(nil)
	ctx := ctxFor(t, 5*time.Minute)
	bigRepo := helpdesk.NewTicketRepo(c.local(big, ks, nil))
	smallRepo := helpdesk.NewTicketRepo(c.local(small, ks, nil))
	all := cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqlgen.All, Write: cqlgen.All})

	for _, serial := range []cqldriver.Consistency{cqlgen.LocalSerial, cqlgen.Serial} {
		t.Run(serial.String(), func(t *testing.T) {
			at := cqlgen.WithLevels(ctx, cqlgen.Levels{Serial: serial})
			tk := ticket("acme", int(serial))
			must(t, bigRepo.Insert(all, tk)) // on every replica
			seen, v, err := smallRepo.GetVersioned(at, tk.OrgID, tk.TicketID)
			must(t, err)

			for _, n := range c.inDC(small) {
				c.stop(n.n)
			}
			first := *seen
			first.Subject = "first writer, in " + big
			must(t, bigRepo.Update(at, &first, cqlgen.IfVersion(v)))
			for _, n := range c.inDC(small) {
				c.start(n.n)
			}
			// The cluster sees the small datacenter again, but this
			// client's pool reconnects on its own schedule (one run got
			// "no hosts available in the pool"): wait until it reaches a
			// node, as an application would. A read at LOCAL_QUORUM asks
			// the small datacenter alone, so it stays behind.
			reconnected(t, func() error { _, err := smallRepo.Get(ctx, tk.OrgID, tk.TicketID); return err })

			second := *seen
			second.Subject = "second writer, in " + small
			err = smallRepo.Update(at, &second, cqlgen.IfVersion(v))
			var vc *cqlgen.VersionConflictError
			switch serial {
			case cqlgen.LocalSerial:
				if err != nil {
					t.Fatalf("LOCAL_SERIAL: the second writer got %v; expected it to win the same version check (a lost update)", err)
				}
				t.Logf("LOCAL_SERIAL: both writers won IfVersion(%d): %q's update is lost", v, first.Subject)
			case cqlgen.Serial:
				if !errors.As(err, &vc) || vc.Expected != v {
					t.Fatalf("SERIAL: the second writer got %v, want a *VersionConflictError expecting %d", err, v)
				}
			}
		})
	}
}

// reconnected waits, up to a minute, until read no longer fails for want
// of a connection: a client's pool reconnects to a restarted node on the
// driver's schedule, after the cluster itself sees the node.
func reconnected(t *testing.T, read func() error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := read()
		if !errors.Is(err, cqlgen.ErrNoConnections) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the client did not reconnect within a minute: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
