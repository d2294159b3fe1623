package cqlgenimpl_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// Issue 35, goal 2: a conditional write whose connection broke before it
// reached a coordinator looks like a lost reply; settling it finds that it
// did not apply, and cannot any more. The write then tries again, as
// after a lost race, instead of failing with the broken connection: an
// Insert, whose first statement is that conditional write (no read
// before it to wait for a connection), and an Update alike.
// Checks invariant I9: a lost write is settled, never guessed.
// Checks invariant I1: nil means applied everywhere.
func TestSettledNotAppliedIsTriedAgain(t *testing.T) {
	ctx := context.Background()
	var broken, lostClear, odd atomic.Int32 // conditional writes still to fail before they apply; clears to lose the reply of; writes to fail with an error not recognised
	s := session(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
		if c.Op != cqltest.OpCAS || c.Queries[0].Stmt.Table != "orders" {
			return nil
		}
		if strings.Contains(c.Queries[0].Stmt.CQL, "SET cqlgen_pending = null") {
			if lostClear.Add(-1) >= 0 {
				return cqltest.LostReply(gocql.ErrTimeoutNoResponse)
			}
			return nil
		}
		if broken.Add(-1) >= 0 {
			return gocql.ErrConnectionClosed // before it applied: nothing landed
		}
		if odd.Add(-1) >= 0 {
			return errors.New("injected: not a passing failure")
		}
		return nil
	}))
	repo := fixture.NewOrderRepo(s, instant, cqlgen.WithAttempts(3))
	broken.Store(1)
	n := len(s.Calls())
	if err := repo.Insert(ctx, order("new", 1)); err != nil {
		t.Fatalf("Insert whose conditional write broke once: %v", err)
	}
	if got := sent(s, n); len(got) < 3 || got[0] != "CAS orders/conditional" || got[1] != "Iter orders/serial-read" {
		t.Errorf("Insert sent %v; want the create, the settling read, and the create again", got)
	}
	broken.Store(1)
	if err := repo.Update(ctx, order("paid", 2)); err != nil {
		t.Fatalf("Update whose conditional write broke once: %v", err)
	}
	got, err := repo.Get(ctx, "u", orderAt, "o1")
	if err != nil || got.Status != "paid" || got.Total != 2 {
		t.Errorf("Get = %+v, %v; want status paid, total 2", got, err)
	}
	verified(t, repo)

	// Within the attempts: the write that breaks every time fails with
	// the broken connection, having applied nothing.
	broken.Store(100)
	if err := repo.Update(ctx, order("shipped", 3)); err == nil {
		t.Error("Update whose every conditional write broke: nil")
	}
	broken.Store(0)
	// An error that is not a passing failure of the cluster is the
	// caller's, settled or not.
	odd.Store(1)
	if err := repo.Update(ctx, order("shipped", 3)); err == nil || !strings.Contains(err.Error(), "not a passing failure") {
		t.Errorf("Update whose conditional write failed with an error not recognised: %v; want that error", err)
	}
	odd.Store(0)
	if got, err := repo.Get(ctx, "u", orderAt, "o1"); err != nil || got.Status != "paid" {
		t.Errorf("Get = %+v, %v; want status paid still", got, err)
	}
	verified(t, repo)

	// Clearing a record carried out is sent twice alike: an Update of a
	// deleted entity completes its delete, and says it is not found
	// rather than that the clear's reply was lost.
	if err := repo.Delete(ctx, order("paid", 2)); err != nil {
		t.Fatal(err)
	}
	lostClear.Store(1)
	if err := repo.Update(ctx, order("paid", 2)); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Update of a deleted order whose clear lost its reply: %v; want ErrNotFound", err)
	}
	if n := lostClear.Load(); n != -1 {
		t.Errorf("the clear was sent %d times; want twice, the second after the first lost its reply", 1-n)
	}
	verified(t, repo)
}

// helpdeskSession is a cqltest session with helpdesk's schema, whose
// Agent has a unique email (agents_by_email), failing calls with hook.
func helpdeskSession(t *testing.T, hook cqltest.Hook) *cqltest.Session {
	t.Helper()
	schema, err := os.ReadFile("../../example/helpdesk/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := cqltest.New(string(schema), cqltest.WithHook(hook))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A claim whose conditional write lost its reply, or broke before it was
// sent, is read again, and what it holds decides: the Insert goes on
// with the claim its own, rather than failing on the first cut. Each
// step of a claim conditions on what it read, so running it again is
// safe (docs/protocol.md, claims).
// Checks invariant I12: one owner per unique key.
func TestClaimAfterALostReply(t *testing.T) {
	ctx := context.Background()
	var fail atomic.Pointer[func(cqltest.Call) error]
	s := helpdeskSession(t, func(_ context.Context, c cqltest.Call) error {
		if f := fail.Load(); f != nil && c.Op == cqltest.OpCAS && c.Queries[0].Stmt.Table == "agents_by_email" {
			return (*f)(c)
		}
		return nil
	})
	repo := helpdesk.NewAgentRepo(s, cqlgen.WithAttempts(3))
	once := func(err error) *func(cqltest.Call) error {
		var n atomic.Int32
		f := func(cqltest.Call) error {
			if n.Add(1) == 1 {
				return err
			}
			return nil
		}
		return &f
	}
	for i, fault := range []error{
		cqltest.LostReply(gocql.ErrTimeoutNoResponse), // applied, reply lost
		gocql.ErrConnectionClosed,                     // not applied
	} {
		a := &helpdesk.Agent{OrgID: "o", AgentID: fmt.Sprint("a", i), Email: fmt.Sprintf("a%d@x", i), Name: "n"}
		fail.Store(once(fault))
		if err := repo.Insert(ctx, a); err != nil {
			t.Errorf("Insert whose claim failed once with %v: %v", fault, err)
			continue
		}
		// And a change of the email, whose claim of the new one fails alike.
		fail.Store(once(fault))
		a.Email = fmt.Sprintf("b%d@x", i)
		if err := repo.Update(ctx, a); err != nil {
			t.Errorf("Update whose claim failed once with %v: %v", fault, err)
		}
		fail.Store(nil)
		if got, err := repo.AgentByEmail(ctx, "o", a.Email); err != nil || got.AgentID != a.AgentID {
			t.Errorf("AgentByEmail(%s) = %+v, %v; want agent %s", a.Email, got, err, a.AgentID)
		}
	}
	// A claim that fails every time fails the Insert, which wrote nothing
	// but the claims it may have left (its own, as a lost race leaves them).
	always := func(cqltest.Call) error { return gocql.ErrConnectionClosed }
	fail.Store(&always)
	if err := repo.Insert(ctx, &helpdesk.Agent{OrgID: "o", AgentID: "z", Email: "z@x", Name: "n"}); err == nil {
		t.Error("Insert whose every claim broke: nil")
	}
	fail.Store(nil)
	if _, err := repo.Get(ctx, "o", "z"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get of the agent whose claim never landed: %v; want ErrNotFound", err)
	}
	if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}
