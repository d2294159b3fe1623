package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TestUniqueTimeuuidIdentity writes helpdesk's TicketEvents, whose
// event_id is a timeuuid unique on its own, on the real node: events of
// one agent on different tickets, which events_by_agent keys by agent and
// event_id alone, each keep their own row there (none overwrites
// another), Verify finds the two tables in step, and Delete, given the
// source of truth's key, removes the event from both.
func TestUniqueTimeuuidIdentity(t *testing.T) {
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	now := time.Now().UTC()
	repo := helpdesk.NewTicketEventRepo(s, cqlgen.WithClock(func() time.Time { return now }))

	t1, t2 := gocql.TimeUUID(), gocql.TimeUUID()
	// Six events, a second apart, alternating between two tickets: ann
	// acts on both, bob on one.
	var events []*helpdesk.TicketEvent
	for i := range 6 {
		ticket, agent := t1, "ann"
		if i%2 == 1 {
			ticket = t2
		}
		if i == 5 {
			agent = "bob"
		}
		ev := &helpdesk.TicketEvent{OrgID: "acme", TicketID: ticket, EventID: gocql.UUIDFromTime(now.Add(time.Duration(i-10) * time.Second)),
			AgentID: agent, Kind: "replied", Note: fmt.Sprintf("note %d", i)}
		must(t, repo.Insert(ctx, ev))
		events = append(events, ev)
	}

	notes := func(p cqlgen.Page[helpdesk.TicketEvent]) string {
		var ns []string
		for _, e := range p.Rows {
			ns = append(ns, e.Note)
		}
		return fmt.Sprint(ns)
	}
	p, err := repo.EventsByAgent(ctx, "acme", "ann", nil)
	must(t, err)
	if got, want := notes(p), "[note 4 note 3 note 2 note 1 note 0]"; got != want {
		t.Fatalf("ann's events: %s, want %s (one row an event, newest first, across tickets)", got, want)
	}
	p, err = repo.TicketEvents(ctx, "acme", t2, nil)
	must(t, err)
	if got, want := notes(p), "[note 5 note 3 note 1]"; got != want {
		t.Fatalf("ticket 2's events: %s, want %s", got, want)
	}
	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	for _, tr := range rep.Tables {
		if tr.Expected != 6 || tr.Present != 6 || tr.Mismatched != 0 {
			t.Fatalf("verify %s: %+v, want 6 rows in step", tr.Table, tr)
		}
	}

	// Delete needs only the source of truth's key; the event leaves both.
	gone := events[2]
	must(t, repo.Delete(ctx, &helpdesk.TicketEvent{OrgID: "acme", TicketID: gone.TicketID, EventID: gone.EventID}))
	if _, err := repo.Get(ctx, "acme", gone.TicketID, gone.EventID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	p, err = repo.EventsByAgent(ctx, "acme", "ann", nil)
	must(t, err)
	if got, want := notes(p), "[note 4 note 3 note 1 note 0]"; got != want {
		t.Fatalf("ann's events after deleting note 2: %s, want %s", got, want)
	}
	if rows := scanTable(t, raw, "SELECT event_id FROM events_by_agent"); len(rows) != 5 {
		t.Fatalf("events_by_agent holds %d rows, want 5", len(rows))
	}
}
