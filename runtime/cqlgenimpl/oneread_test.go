package cqlgenimpl_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// Issue 35, goal 6: one read each. What each call sends, statement by
// statement, against what the hand-written code sends for the same
// guarantee (bench/cluster_test.go): a new agent's Insert claims its
// email and creates the agent, two conditional writes and no read (by
// hand: the claim's INSERT ... IF NOT EXISTS, then the agent's); Modify
// reads once, writes once on the version read, then the fan-out (by
// hand: the read, the conditional write, the batch).
// Checks invariant I12: one owner per unique key.
// Checks invariant I11: Modify loses no concurrent edit.
func TestOneReadEach(t *testing.T) {
	ctx := context.Background()
	s := helpdeskSession(t, nil)
	agents := helpdesk.NewAgentRepo(s)
	a := &helpdesk.Agent{OrgID: "o", AgentID: "a", Email: "a@x", Name: "n"}
	n := len(s.Calls())
	if err := agents.Insert(ctx, a); err != nil {
		t.Fatal(err)
	}
	if got, want := sent(s, n), []string{"CAS agents_by_email/conditional", "CAS agents/conditional"}; !slices.Equal(got, want) {
		t.Errorf("a new agent's Insert sent %v; want %v: the claim, then the create, and no read", got, want)
	}
	n = len(s.Calls())
	if _, err := agents.Modify(ctx, "o", "a", func(a *helpdesk.Agent) error { a.Name = "m"; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, want := sent(s, n), []string{"Iter agents/pre-read", "CAS agents/conditional"}; !slices.Equal(got, want) {
		t.Errorf("Modify of an agent's name sent %v; want %v", got, want)
	}
	// A Modify that moves rows: one read, one conditional write, the
	// fan-out of the moves in one batch.
	fs := session(t)
	orders := fixture.NewOrderRepo(fs)
	if err := orders.Insert(ctx, order("new", 1)); err != nil {
		t.Fatal(err)
	}
	n = len(fs.Calls())
	if _, err := orders.Modify(ctx, "u", orderAt, "o1", func(o *fixture.Order) error { o.Status = "paid"; o.Total++; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, want := sent(fs, n), []string{"Iter orders/pre-read", "CAS orders/conditional", "Batch orders_by_status/write"}; !slices.Equal(got, want) {
		t.Errorf("Modify moving an order's rows sent %v; want %v", got, want)
	}
	verified(t, orders)
	if rep, err := agents.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
		t.Errorf("verify agents: %+v, %v", rep, err)
	}
}

// An Insert over an agent there already, with another email: the direct
// try's claim of the new email is the change's own, which goes on from
// the row Create returned (no read), claims it at its version and
// releases the old email. With IfAbsent, the Insert reads first and
// claims nothing: its conflict leaves no claim of a key the agent does
// not hold (docs/protocol.md, "A create without a read").
// Checks invariant I12: one owner per unique key.
func TestUniqueInsertOverALiveEntity(t *testing.T) {
	ctx := context.Background()
	s := helpdeskSession(t, nil)
	agents := helpdesk.NewAgentRepo(s)
	if err := agents.Insert(ctx, &helpdesk.Agent{OrgID: "o", AgentID: "a", Email: "a@x", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	n := len(s.Calls())
	err := agents.Insert(ctx, &helpdesk.Agent{OrgID: "o", AgentID: "a", Email: "b@x", Name: "n"}, cqlgen.IfAbsent())
	if !errors.As(err, new(*cqlgen.VersionConflictError)) {
		t.Errorf("IfAbsent over a live agent: %v; want a conflict", err)
	}
	if got := sent(s, n); len(got) != 1 || got[0] != "Iter agents/pre-read" {
		t.Errorf("IfAbsent over a live agent sent %v; want its read alone", got)
	}
	rows, err := s.Rows("agents_by_email")
	if err != nil || len(rows) != 1 || rows[0]["email"] != "a@x" {
		t.Errorf("agents_by_email after the conflict: %v, %v; want the claim of a@x alone", rows, err)
	}
	n = len(s.Calls())
	if err := agents.Insert(ctx, &helpdesk.Agent{OrgID: "o", AgentID: "a", Email: "b@x", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	if got := sent(s, n); readsIn(got) != 1 || got[0] != "CAS agents_by_email/conditional" {
		t.Errorf("Insert over a live agent with another email sent %v; want the claim first, and no read of the agent", got)
	}
	if got, err := agents.AgentByEmail(ctx, "o", "b@x"); err != nil || got.AgentID != "a" {
		t.Errorf("AgentByEmail(b@x) = %+v, %v", got, err)
	}
	if _, err := agents.AgentByEmail(ctx, "o", "a@x"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("AgentByEmail(a@x) after the change: %v; want ErrNotFound", err)
	}
	if rep, err := agents.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
		t.Errorf("verify agents: %+v, %v", rep, err)
	}
}
