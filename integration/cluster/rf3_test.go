package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// concurrent is the fan-out strategy of the RF=3 tests: concurrent
// writes, not the default logged batch. With one node of the two in dc1
// down, Cassandra 5.0.8 here kept sending the batch log of every logged
// batch coordinated in dc1 to the dead node (BATCH_STORE_REQ dropped, "no
// channel"), and each such batch timed out after write_request_timeout,
// four attempts in a row: 40 s a call. See docs/cluster.md.
var concurrent = cqlgen.WithStrategy(cqlgen.Concurrent(0))

// writers inserts tickets of org from 4 goroutines until stop is closed,
// and returns those whose Insert returned nil: acknowledged.
func writers(ctx context.Context, repo *helpdesk.TicketRepo, org string, stop <-chan struct{}, count *atomic.Int64) (acked []*helpdesk.Ticket, failed int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				tk := ticket(org, int(next.Add(1)))
				err := repo.Insert(ctx, tk)
				mu.Lock()
				if err == nil {
					acked = append(acked, tk)
					count.Add(1)
				} else {
					failed++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return acked, failed
}

// One node of three stops while writers insert at QUORUM: writes go on,
// and every write that was acknowledged, before, during or after the
// stop, reads back at QUORUM from every table while the node is down.
func TestQuorumLosesNoAcknowledgedWrite(t *testing.T) {
	c := need(t)
	ks := c.keyspace(nil)
	_, s := c.quorum(ks, nil)
	repo := helpdesk.NewTicketRepo(s, concurrent)
	ctx := ctxFor(t, 5*time.Minute)

	stop := make(chan struct{})
	var count atomic.Int64
	var acked []*helpdesk.Ticket
	var failed int
	done := make(chan struct{})
	go func() { acked, failed = writers(ctx, repo, "acme", stop, &count); close(done) }()
	waitFor(t, &count, 100)
	c.stop(2)
	during := count.Load()
	waitFor(t, &count, during+100) // writes go on with the node down
	close(stop)
	<-done
	t.Logf("%d writes acknowledged (%d with node 2 down), %d failed", len(acked), count.Load()-during, failed)

	for _, want := range acked {
		got, err := repo.Get(ctx, want.OrgID, want.TicketID)
		if err != nil {
			t.Fatalf("acknowledged ticket %s: %v", want.Subject, err)
		}
		if got.Subject != want.Subject || got.Requester != want.Requester {
			t.Fatalf("ticket %s reads back as %+v", want.Subject, got)
		}
	}
	// The projections too: every acknowledged ticket is in its requester's
	// and its agent's listing.
	listed := map[gocql.UUID]int{}
	for u := range 7 {
		cursor := ""
		for {
			p, err := repo.TicketsByRequester(ctx, "acme", fmt.Sprintf("user%d@acme.test", u), &helpdesk.TicketsByRequesterOptions{Cursor: cursor, Limit: 500})
			must(t, err)
			for _, r := range p.Rows {
				listed[r.TicketID]++
			}
			if cursor = p.Cursor; cursor == "" {
				break
			}
		}
	}
	for _, want := range acked {
		if listed[want.TicketID] != 1 {
			t.Fatalf("acknowledged ticket %s listed %d times by its requester", want.Subject, listed[want.TicketID])
		}
	}
}

// waitFor waits until count reaches n, or fails after two minutes.
func waitFor(t *testing.T, count *atomic.Int64, n int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for count.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d writes acknowledged in two minutes", count.Load(), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unavailable asserts that err is Cassandra's Unavailable, typed, as a
// caller branches on it: not a timeout, not a string.
func unavailable(t *testing.T, what string, err error) {
	t.Helper()
	var u *gocql.RequestErrUnavailable
	if !errors.As(err, &u) {
		t.Fatalf("%s with two nodes down: %v (%T), want *gocql.RequestErrUnavailable", what, err, err)
	}
	if u.Alive >= u.Required {
		t.Errorf("%s: Unavailable says %d alive of %d required", what, u.Alive, u.Required)
	}
}

// Two nodes of three stop while writers change tickets: every call at
// QUORUM then gets a typed Unavailable, while a call that asks for ONE
// (WithLevels) still reads. After the nodes come back, Repair leaves no
// partial fan-out: every table agrees with the source of truth.
func TestTwoNodesDownUnavailableThenRepair(t *testing.T) {
	c := need(t)
	ks := c.keyspace(nil)
	_, s := c.quorum(ks, nil)
	repo := helpdesk.NewTicketRepo(s, concurrent)
	ctx := ctxFor(t, 5*time.Minute)
	var tickets []*helpdesk.Ticket
	for i := range 60 {
		tk := ticket("acme", i)
		must(t, repo.Insert(ctx, tk))
		tickets = append(tickets, tk)
	}

	// Writers move tickets between requesters and agents (rows move in
	// both projections) while the nodes go down one after the other.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var changed, failedWrites atomic.Int64
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i += 3 {
				select {
				case <-stop:
					return
				default:
				}
				tk := tickets[i%len(tickets)]
				_, err := repo.Modify(ctx, tk.OrgID, tk.TicketID, func(e *helpdesk.Ticket) error {
					e.Requester = fmt.Sprintf("user%d@acme.test", (i+w)%7)
					e.AgentID = fmt.Sprint("agent-", i%5)
					return nil
				})
				if err != nil {
					failedWrites.Add(1)
					time.Sleep(50 * time.Millisecond)
				} else {
					changed.Add(1)
				}
			}
		}()
	}
	waitFor(t, &changed, 30)
	c.stop(2)
	c.stop(3)
	close(stop)
	wg.Wait()
	t.Logf("%d changes acknowledged, %d failed", changed.Load(), failedWrites.Load())

	tk := tickets[0]
	_, err := repo.Get(ctx, tk.OrgID, tk.TicketID)
	unavailable(t, "Get", err)
	if cqlobserve.ErrorType(err) == "other" {
		t.Errorf("ErrorType(%v) = other", err)
	}
	_, err = repo.Modify(ctx, tk.OrgID, tk.TicketID, func(e *helpdesk.Ticket) error { e.Replies++; return nil })
	unavailable(t, "Modify", err)
	err = repo.Insert(ctx, ticket("acme", 1000))
	unavailable(t, "Insert", err)
	_, err = repo.TicketsByRequester(ctx, "acme", "user1@acme.test", nil)
	unavailable(t, "TicketsByRequester", err)
	// The one node left holds every row (RF=3 on three nodes): a read
	// that asks for ONE gets it.
	one := cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqlgen.One})
	if got, err := repo.Get(one, tk.OrgID, tk.TicketID); err != nil || got.Subject != tk.Subject {
		t.Fatalf("Get at ONE with two nodes down: %+v, %v", got, err)
	}

	begin := time.Now()
	c.start(2)
	c.start(3)
	up := time.Since(begin)
	rctx := cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqlgen.All})
	rep, err := repo.Repair(rctx, nil)
	must(t, err)
	t.Logf("recovery: nodes back in %s, repair in %s (drift it found: %d)", up.Round(100*time.Millisecond), rep.Elapsed.Round(time.Millisecond), rep.Drift())
	verifyClean(t, repo, "after recovery and repair")
}

// Conditional writes stay linearizable with one node of three down: racing
// increments through the version column lose none, a compare-and-set on a
// version lets one writer of two through, an idempotency key applies once
// however many send it, and one email is claimed by one agent alone.
func TestConditionalWritesOneNodeDown(t *testing.T) {
	c := need(t)
	ks := c.keyspace(nil)
	raw, s := c.quorum(ks, nil)
	tickets := helpdesk.NewTicketRepo(s, concurrent)
	agents := helpdesk.NewAgentRepo(s, concurrent)
	ctx := ctxFor(t, 5*time.Minute)
	tk := ticket("acme", 1)
	must(t, tickets.Insert(ctx, tk))
	c.stop(2)

	// Increments through Modify: each applied once, none lost. A Paxos
	// round can time out after it applied (on this loaded machine it
	// did: "Operation timed out - received only 1 responses"), and the
	// serial reads that settle it can fail too; as docs/repositories.md
	// says, the caller then sends the call again with the same
	// idempotency key, which settles the lost write from what the key
	// and the ticket's record of its last changes hold, and applies it
	// once in all. (Before, such a key answered "outcome unknown" to
	// every resend: 19 replies for 20 increments.)
	inc := func(e *helpdesk.Ticket) error { e.Replies++; return nil }
	var wg sync.WaitGroup
	var applied, resent atomic.Int64
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				key := cqlgen.WithIdempotencyKey(fmt.Sprintf("inc-%d-%d", g, i))
				for try := 1; try <= 5; try++ {
					_, err := tickets.Modify(ctx, tk.OrgID, tk.TicketID, inc, cqlgen.WithAttempts(50), key)
					if err == nil {
						applied.Add(1)
						break
					}
					t.Logf("increment %d-%d, try %d: %v", g, i, try, err)
					resent.Add(1)
					time.Sleep(100 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	got, err := tickets.Get(ctx, tk.OrgID, tk.TicketID)
	must(t, err)
	if int64(got.Replies) != applied.Load() || applied.Load() != 20 {
		t.Fatalf("replies %d after %d of 20 increments acknowledged (%d sent again)", got.Replies, applied.Load(), resent.Load())
	}

	// Two writers read one version; one wins its IfVersion, the other
	// conflicts.
	_, v, err := tickets.GetVersioned(ctx, tk.OrgID, tk.TicketID)
	must(t, err)
	var wins, conflicts atomic.Int64
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := *got
			e.Subject = fmt.Sprint("writer ", w)
			err := tickets.Update(ctx, &e, cqlgen.IfVersion(v))
			var vc *cqlgen.VersionConflictError
			switch {
			case err == nil:
				wins.Add(1)
			case errors.As(err, &vc):
				conflicts.Add(1)
			default:
				t.Errorf("writer %d: %v", w, err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 || conflicts.Load() != 1 {
		t.Fatalf("IfVersion(%d) from two writers: %d won, %d conflicted", v, wins.Load(), conflicts.Load())
	}

	// One idempotency key sent eight times at once: one increment.
	before, err := tickets.Get(ctx, tk.OrgID, tk.TicketID)
	must(t, err)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := tickets.Modify(ctx, tk.OrgID, tk.TicketID, inc, cqlgen.WithIdempotencyKey("reply-42"), cqlgen.WithAttempts(50)); err != nil {
				t.Errorf("keyed increment: %v", err)
			}
		}()
	}
	wg.Wait()
	after, err := tickets.Get(ctx, tk.OrgID, tk.TicketID)
	must(t, err)
	if after.Replies != before.Replies+1 {
		t.Fatalf("eight sends of one idempotency key: replies %d → %d", before.Replies, after.Replies)
	}

	// Eight agents race for one email: one holds it.
	var claimed atomic.Int64
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := &helpdesk.Agent{OrgID: "acme", AgentID: fmt.Sprintf("agent-%02d", i), Email: "ann@acme.test", Name: fmt.Sprint("Agent ", i)}
			err := agents.Insert(ctx, a)
			for try := 1; err != nil && !errors.As(err, new(*cqlgen.UniqueConflictError)) && try <= 3; try++ {
				// A claim's Paxos round can time out under load, applied
				// or not: sent again, the Insert finds its own claim, or
				// the holder's (docs/repositories.md).
				t.Logf("agent %d, try %d: %v", i, try, err)
				time.Sleep(100 * time.Millisecond)
				err = agents.Insert(ctx, a)
			}
			switch {
			case err == nil:
				claimed.Add(1)
			case !errors.As(err, new(*cqlgen.UniqueConflictError)):
				t.Errorf("agent %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	// Count the agents as another reader must (schema.md, "Other
	// readers"): a claimant fences a rival whose change may be in flight
	// by leaving a grave at its key, which is no agent.
	var holders int
	iter := raw.Query("SELECT agent_id, cqlgen_deleted FROM agents WHERE org_id = ? ALLOW FILTERING", "acme").Consistency(gocql.Quorum).Iter()
	var id string
	var grave bool
	for iter.Scan(&id, &grave) {
		if !grave {
			holders++
		}
	}
	must(t, iter.Close())
	var claimant string
	must(t, raw.Query("SELECT agent_id FROM agents_by_email WHERE org_id = ? AND email = ?", "acme", "ann@acme.test").Consistency(gocql.Quorum).Scan(&claimant))
	if claimed.Load() != 1 || holders != 1 {
		t.Fatalf("one email: %d inserts succeeded, %d agents stored", claimed.Load(), holders)
	}
}

// A node crashes in the middle of fan-outs and restarts while writers
// go on: writes that failed are run again, as the write protocol says,
// and then every table agrees with the source of truth, on every replica
// (Verify reads at ALL).
func TestNodeRestartMidFanout(t *testing.T) {
	c := need(t)
	ks := c.keyspace(nil)
	_, s := c.quorum(ks, nil)
	repo := helpdesk.NewTicketRepo(s, concurrent)
	ctx := ctxFor(t, 5*time.Minute)
	var tickets []*helpdesk.Ticket
	for i := range 40 {
		tk := ticket("acme", i)
		must(t, repo.Insert(ctx, tk))
		tickets = append(tickets, tk)
	}
	// Each write moves a ticket to another requester and agent, or closes
	// it (its open_tickets_by_agent row goes): three tables per write.
	change := func(tk *helpdesk.Ticket, i int) *helpdesk.Ticket {
		e := *tk
		e.Requester = fmt.Sprintf("user%d@acme.test", i%7)
		e.AgentID = fmt.Sprint("agent-", i%4)
		if i%5 == 0 {
			e.Status = helpdesk.StatusClosed
		} else {
			e.Status = helpdesk.StatusOpen
		}
		return &e
	}
	var mu sync.Mutex
	lastFailed := map[int]*helpdesk.Ticket{} // ticket index → the write that failed last
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writes atomic.Int64
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i += 4 {
				select {
				case <-stop:
					return
				default:
				}
				k := i % len(tickets)
				e := change(tickets[k], i)
				err := repo.Update(ctx, e, cqlgen.WithStrategy(cqlgen.Concurrent(0)))
				mu.Lock()
				if err != nil {
					lastFailed[k] = e
				} else {
					delete(lastFailed, k)
				}
				mu.Unlock()
				writes.Add(1)
			}
		}()
	}
	waitFor(t, &writes, 50)
	c.kill(2)
	n := writes.Load()
	waitFor(t, &writes, n+30)
	took := c.start(2)
	n = writes.Load()
	waitFor(t, &writes, n+30)
	close(stop)
	wg.Wait()
	t.Logf("%d writes; node 2 crashed and was back in %s; %d tickets' last write failed", writes.Load(), took.Round(100*time.Millisecond), len(lastFailed))
	for k, e := range lastFailed {
		if err := repo.Update(ctx, e); err != nil {
			t.Fatalf("running the failed write of ticket %d again: %v", k, err)
		}
	}
	verifyClean(t, repo, "after the crash, the restart and the failed writes run again")
}

// With hinted handoff off, a node that was down misses every write made
// meanwhile: alone it answers with stale data, drift between replicas that
// nothing heals by itself. Verify at ALL reads every row from every
// replica, and Cassandra's read repair closes the drift: the node then
// answers alone with everything.
func TestDriftWithoutHintsAndItsRepair(t *testing.T) {
	c := need(t)
	admin := pinned(t, c.nodes[0].addr, "")
	var hints string
	must(t, admin.Query("SELECT value FROM system_views.settings WHERE name = 'hinted_handoff_enabled'").Scan(&hints))
	admin.Close()
	if hints != "false" {
		t.Skipf("hinted handoff is on (%s): the drift would heal by itself", hints)
	}
	// The node whose datacenter has no other node: LOCAL_ONE on it reads
	// its own replica, and nobody else's.
	var lone node
	for _, n := range c.nodes {
		if c.dcs()[n.dc] == 1 {
			lone = n
		}
	}
	if lone.n == 0 {
		t.Skip("no datacenter of one node")
	}
	ks := c.keyspace(nil)
	_, s := c.quorum(ks, nil)
	repo := helpdesk.NewTicketRepo(s, concurrent)
	ctx := ctxFor(t, 5*time.Minute)
	c.stop(lone.n)
	var written []*helpdesk.Ticket
	for i := range 100 {
		tk := ticket("acme", i)
		must(t, repo.Insert(ctx, tk))
		written = append(written, tk)
	}
	c.start(lone.n)
	alone := pinned(t, lone.addr, ks)
	defer alone.Close()
	missing := func() int {
		n := 0
		for _, tk := range written {
			var subject string
			err := alone.Query("SELECT subject FROM tickets WHERE org_id = ? AND ticket_id = ?", tk.OrgID, tk.TicketID).Consistency(gocql.LocalOne).Scan(&subject)
			if errors.Is(err, gocql.ErrNotFound) {
				n++
			} else {
				must(t, err)
			}
		}
		return n
	}
	if n := missing(); n != len(written) {
		t.Fatalf("node %d came back missing %d of %d writes; hints off, it should miss them all", lone.n, n, len(written))
	}
	begin := time.Now()
	verifyClean(t, repo, "verify at ALL")
	if n := missing(); n != 0 {
		t.Fatalf("after verify at ALL, node %d still misses %d of %d tickets", lone.n, n, len(written))
	}
	t.Logf("drift of %d tickets closed by verify at ALL in %s", len(written), time.Since(begin).Round(time.Millisecond))
}
