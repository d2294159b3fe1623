package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// runHelpdesk loads the multi-tenant example and shows what its
// declarations buy: queues that tickets enter and leave, an email two
// agents cannot share, edits that never overwrite each other, counters and
// an index read.
func runHelpdesk(ctx context.Context, s cqlgen.Session) error {
	agents := helpdesk.NewAgentRepo(s)
	tickets := helpdesk.NewTicketRepo(s, cqlgen.WithAttempts(50))
	load := helpdesk.NewAgentLoadRepo(s)
	const org = "acme"
	for _, a := range []*helpdesk.Agent{
		{OrgID: org, AgentID: "ann", Email: "ann@acme.test", Name: "Ann"},
		{OrgID: org, AgentID: "bob", Email: "bob@acme.test", Name: "Bob"},
	} {
		if err := agents.Insert(ctx, a); err != nil {
			return err
		}
	}
	err := agents.Insert(ctx, &helpdesk.Agent{OrgID: org, AgentID: "eve", Email: "ann@acme.test", Name: "Eve"})
	var conflict *cqlgen.UniqueConflictError
	if !errors.As(err, &conflict) {
		return fmt.Errorf("a second agent with ann's email: %v", err)
	}
	fmt.Printf("== helpdesk: a third agent signing up with ann's email gets: %v\n\n", err)

	start := time.Now()
	base := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Minute)
	statuses := []helpdesk.Status{helpdesk.StatusOpen, helpdesk.StatusPending, helpdesk.StatusClosed}
	assignees := []string{"", "ann", "bob"}
	var ids []gocql.UUID
	for i := range 60 {
		at := base.Add(time.Duration(i) * 17 * time.Minute)
		t := &helpdesk.Ticket{
			OrgID: org, TicketID: gocql.UUIDFromTime(at), Requester: fmt.Sprintf("customer%d@example.org", i%9),
			Subject: fmt.Sprintf("ticket %d", i), Status: statuses[i%3], AgentID: assignees[i%5%3], OpenedAt: at,
		}
		if err := tickets.Insert(ctx, t); err != nil {
			return err
		}
		ids = append(ids, t.TicketID)
		if t.AgentID != "" {
			if err := load.Add(ctx, &helpdesk.AgentLoad{OrgID: org, AgentID: t.AgentID, Opened: 1}); err != nil {
				return err
			}
		}
	}
	fmt.Printf("== loaded 60 tickets into tickets, tickets_by_requester and, if assigned and not closed, open_tickets_by_agent, in %s\n\n", time.Since(start).Round(time.Millisecond))
	queue := func(agent string) error {
		p, err := tickets.OpenTicketsByAgent(ctx, org, agent, &helpdesk.OpenTicketsByAgentOptions{Limit: 4})
		if err != nil {
			return err
		}
		fmt.Printf("Q1 %s's queue, oldest first (first 4):\n", agent)
		for _, r := range p.Rows {
			fmt.Printf("    %s  %-8s %s\n", r.OpenedAt.Format(time.DateTime), r.Status, r.Subject)
		}
		return nil
	}
	if err := queue("ann"); err != nil {
		return err
	}
	// Ann closes her oldest ticket and hands the next to Bob: the queue
	// follows, through the write protocol.
	first, err := tickets.OpenTicketsByAgent(ctx, org, "ann", &helpdesk.OpenTicketsByAgentOptions{Limit: 2})
	if err != nil || len(first.Rows) < 2 {
		return fmt.Errorf("ann's queue: %v", err)
	}
	if _, err := tickets.Modify(ctx, org, first.Rows[0].TicketID, func(t *helpdesk.Ticket) error { t.Status = helpdesk.StatusClosed; return nil }); err != nil {
		return err
	}
	if err := load.Add(ctx, &helpdesk.AgentLoad{OrgID: org, AgentID: "ann", Closed: 1}); err != nil {
		return err
	}
	if _, err := tickets.Modify(ctx, org, first.Rows[1].TicketID, func(t *helpdesk.Ticket) error { t.AgentID = "bob"; return nil }); err != nil {
		return err
	}
	fmt.Printf("\n   ann closes %q and hands %q to bob:\n", first.Rows[0].Subject, first.Rows[1].Subject)
	if err := queue("ann"); err != nil {
		return err
	}
	// Twenty replies at once, each a Modify: none is lost.
	if err := parallel(20, func(int) error {
		_, err := tickets.Modify(ctx, org, ids[0], func(t *helpdesk.Ticket) error { t.Replies++; return nil })
		return err
	}); err != nil {
		return err
	}
	t, err := tickets.Get(ctx, org, ids[0])
	if err != nil {
		return err
	}
	fmt.Printf("\n   20 concurrent replies to %q, each a Modify: it has %d replies\n", t.Subject, t.Replies)
	l, err := load.Get(ctx, org, "ann")
	if err != nil {
		return err
	}
	fmt.Printf("   ann's counters: %d tickets assigned, %d closed\n", l.Opened, l.Closed)
	for _, repo := range []cqlmaintain.Maintainer{tickets, agents} {
		rep, err := repo.Verify(ctx, nil)
		if err != nil {
			return err
		}
		fmt.Printf("   verify %s: %d entities, drift %d\n", repo.Entity(), rep.Rows, rep.Drift())
	}
	return nil
}
