package integration

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// A sparse table (where:"...") holds only the entities its predicate
// selects. These tests drive helpdesk tickets in and out of
// open_tickets_by_agent, which holds the assigned tickets that are not
// closed, and then read every table with plain gocql: the queue must hold
// exactly what tickets, the source of truth, implies.

var ticketDay = time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)

// ticketID is ticket n's time-based id, the same on every call.
func ticketID(n int) gocql.UUID {
	u := gocql.UUIDFromTime(ticketDay.Add(time.Duration(n) * time.Minute))
	binary.BigEndian.PutUint64(u[8:], uint64(n))
	u[8] |= 0x80 // the RFC 4122 variant
	return u
}

func ticket(org string, n int, agent string, status helpdesk.Status) *helpdesk.Ticket {
	return &helpdesk.Ticket{
		OrgID: org, TicketID: ticketID(n),
		Requester: fmt.Sprintf("user%d@example.org", n%5), Subject: fmt.Sprint("subject ", n),
		Status: status, AgentID: agent, OpenedAt: ticketDay.Add(time.Duration(n) * time.Minute), Body: "body",
	}
}

// queueDrift compares open_tickets_by_agent with what tickets implies, for
// one organisation, both read with plain gocql.
func queueDrift(t *testing.T, raw *gocql.Session, org string) []string {
	t.Helper()
	var want []string
	it := raw.Query("SELECT ticket_id, agent_id, status, subject, requester, cqlgen_deleted FROM tickets").Iter()
	var id gocql.UUID
	var agent, status, subject, requester string
	var deleted bool
	for it.Scan(&id, &agent, &status, &subject, &requester, &deleted) {
		if deleted || agent == "" || (status != "OPEN" && status != "PENDING") {
			continue
		}
		want = append(want, fmt.Sprintf("%s %s %s %s %s", agent, id, status, subject, requester))
	}
	must(t, it.Close())
	var got []string
	it = raw.Query("SELECT agent_id, ticket_id, status, subject, requester FROM open_tickets_by_agent WHERE org_id = ? ALLOW FILTERING", org).Iter()
	for it.Scan(&agent, &id, &status, &subject, &requester) {
		got = append(got, fmt.Sprintf("%s %s %s %s %s", agent, id, status, subject, requester))
	}
	must(t, it.Close())
	sort.Strings(want)
	sort.Strings(got)
	if slices.Equal(got, want) {
		return nil
	}
	return []string{fmt.Sprintf("open_tickets_by_agent holds %q; tickets implies %q", got, want)}
}

func queueOf(t *testing.T, repo *helpdesk.TicketRepo, org, agent string) []string {
	t.Helper()
	p, err := repo.OpenTicketsByAgent(context.Background(), org, agent, nil)
	must(t, err)
	var subjects []string
	for _, r := range p.Rows {
		subjects = append(subjects, r.Subject+"/"+string(r.Status))
	}
	return subjects
}

// A ticket enters the queue when it is assigned, moves with a reassignment,
// leaves when it is closed, comes back when it is reopened; an unassigned
// ticket is no error, it is simply not queued.
// Checks invariant I1: nil means applied everywhere.
func TestSparseEnterLeaveMove(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewTicketRepo(s)
	tk := ticket("acme", 1, "", helpdesk.StatusOpen)
	steps := []struct {
		name          string
		change        func(*helpdesk.Ticket)
		ann, bob      []string // each agent's queue afterwards
		requesterRows int
	}{
		{"insert unassigned", nil, nil, nil, 1},
		{"assign to ann", func(k *helpdesk.Ticket) { k.AgentID = "ann" }, []string{"subject 1/OPEN"}, nil, 1},
		{"wait on the requester", func(k *helpdesk.Ticket) { k.Status = helpdesk.StatusPending }, []string{"subject 1/PENDING"}, nil, 1},
		{"reassign to bob", func(k *helpdesk.Ticket) { k.AgentID = "bob" }, nil, []string{"subject 1/PENDING"}, 1},
		{"close", func(k *helpdesk.Ticket) { k.Status = helpdesk.StatusClosed }, nil, nil, 1},
		{"reopen", func(k *helpdesk.Ticket) { k.Status = helpdesk.StatusOpen; k.Subject = "subject 1 again" }, nil, []string{"subject 1 again/OPEN"}, 1},
		{"unassign", func(k *helpdesk.Ticket) { k.AgentID = "" }, nil, nil, 1},
		{"assign to ann again", func(k *helpdesk.Ticket) { k.AgentID = "ann" }, []string{"subject 1 again/OPEN"}, nil, 1},
		{"delete", nil, nil, nil, 0},
	}
	for i, st := range steps {
		switch {
		case i == 0:
			must(t, repo.Insert(ctx, tk))
		case st.change == nil:
			must(t, repo.Delete(ctx, &helpdesk.Ticket{OrgID: tk.OrgID, TicketID: tk.TicketID}))
		default:
			st.change(tk)
			must(t, repo.Update(ctx, tk))
		}
		if got := queueOf(t, repo, "acme", "ann"); !slices.Equal(got, st.ann) {
			t.Errorf("%s: ann's queue %q, want %q", st.name, got, st.ann)
		}
		if got := queueOf(t, repo, "acme", "bob"); !slices.Equal(got, st.bob) {
			t.Errorf("%s: bob's queue %q, want %q", st.name, got, st.bob)
		}
		if d := queueDrift(t, raw, "acme"); d != nil {
			t.Errorf("%s: %v", st.name, d)
		}
		var n int
		must(t, raw.Query("SELECT count(*) FROM tickets_by_requester WHERE org_id = 'acme' AND requester = ?", tk.Requester).Scan(&n))
		if n != st.requesterRows {
			t.Errorf("%s: tickets_by_requester holds %d rows, want %d: the table of every ticket keeps them all", st.name, n, st.requesterRows)
		}
	}
	// An unassigned ticket is refused nowhere, but an empty key of a table
	// that holds every ticket still is.
	if err := repo.Insert(ctx, ticket("acme", 2, "", helpdesk.StatusClosed)); err != nil {
		t.Errorf("an unassigned closed ticket: %v", err)
	}
	bad := ticket("acme", 3, "ann", helpdesk.StatusOpen)
	bad.Requester = ""
	var ek *cqlgen.InputError
	if err := repo.Insert(ctx, bad); !(errors.As(err, &ek) && ek.Err == cqlgen.ErrEmptyKey) || ek.Table != "tickets_by_requester" {
		t.Errorf("an empty requester: %v, want an ErrEmptyKey of tickets_by_requester", err)
	}
}

// Every transition of the queue fails at each of its calls in turn, in
// each of the three ways, and then runs again or is followed by another
// write: the queue must agree with tickets afterwards.
// Checks invariant I2: running a call again converges.
// Checks invariant I3: the next write completes the last.
func TestSparseCrashPoints(t *testing.T) {
	t.Parallel()
	raw, base := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	type transition struct {
		name          string
		before, after func(n int) *helpdesk.Ticket
		laterAgent    string
		laterStatus   helpdesk.Status
	}
	ts := []transition{
		{"enter", func(n int) *helpdesk.Ticket { return ticket("crash", n, "", helpdesk.StatusOpen) },
			func(n int) *helpdesk.Ticket { return ticket("crash", n, "ann", helpdesk.StatusOpen) }, "bob", helpdesk.StatusOpen},
		{"leave", func(n int) *helpdesk.Ticket { return ticket("crash", n, "ann", helpdesk.StatusOpen) },
			func(n int) *helpdesk.Ticket { return ticket("crash", n, "ann", helpdesk.StatusClosed) }, "ann", helpdesk.StatusPending},
		{"move", func(n int) *helpdesk.Ticket { return ticket("crash", n, "ann", helpdesk.StatusOpen) },
			func(n int) *helpdesk.Ticket { return ticket("crash", n, "bob", helpdesk.StatusPending) }, "", helpdesk.StatusOpen},
	}
	n := 0
	runs := 0
	for _, tr := range ts {
		count := &faultSession{Session: base}
		repo := helpdesk.NewTicketRepo(count)
		n++
		must(t, repo.Insert(ctx, tr.before(n)))
		before := count.calls.Load()
		must(t, repo.Update(ctx, tr.after(n)))
		calls := int(count.calls.Load() - before)
		for k := 1; k <= calls; k++ {
			for _, f := range []fault{failBefore, lostReply, dies} {
				for _, rec := range []string{"rerun", "later update", "later delete"} {
					n++
					runs++
					name := fmt.Sprintf("%s/call %d of %d/%s/%s", tr.name, k, calls, f, rec)
					fs := &faultSession{Session: base, k: int64(k), f: f}
					repo := helpdesk.NewTicketRepo(fs, cqlgen.WithAttempts(3), injected)
					must(t, repo.Insert(ctx, tr.before(n)))
					fs.armed.Store(true)
					err := repo.Update(ctx, tr.after(n))
					fs.armed.Store(false)
					if err == nil && f != lostReply {
						t.Errorf("%s: a failed step went unreported", name)
					}
					switch rec {
					case "rerun":
						err = repo.Update(ctx, tr.after(n))
					case "later update":
						later := tr.after(n)
						later.AgentID, later.Status = tr.laterAgent, tr.laterStatus
						err = repo.Update(ctx, later)
					case "later delete":
						err = repo.Delete(ctx, tr.after(n))
					}
					if err != nil {
						t.Errorf("%s: recovery: %v", name, err)
					}
				}
			}
		}
	}
	if d := queueDrift(t, raw, "crash"); d != nil {
		t.Errorf("after %d failed transitions: %v", runs, d)
	}
	rep, err := helpdesk.NewTicketRepo(base).Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("verify after the crash points: %+v, %v", rep, err)
	}
	t.Logf("%d transitions failed at a crash point and recovered", runs)
}

// Verify and repair know the predicate: a queued row of a closed ticket
// is an orphan, a missing row of an open one is missing, and the rows of
// tickets the queue does not hold are not expected.
// Checks invariant I14: maintenance hides no write.
func TestSparseVerifyRepair(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewTicketRepo(s)
	statuses := []helpdesk.Status{helpdesk.StatusOpen, helpdesk.StatusPending, helpdesk.StatusClosed}
	agents := []string{"", "ann", "bob", "cat"}
	held := 0
	for i := range 120 {
		tk := ticket("verify", i, agents[i%4], statuses[i%3])
		must(t, repo.Insert(ctx, tk))
		if tk.AgentID != "" && tk.Status != helpdesk.StatusClosed {
			held++
		}
	}
	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	q := byTable(rep)["open_tickets_by_agent"]
	if rep.Drift() != 0 || q.Expected != int64(held) || q.Present != int64(held) {
		t.Fatalf("clean verify: %+v; want %d queued rows of 120 tickets", q, held)
	}
	// Ticket 5 is closed and ann's: queue it by hand, with the very values
	// the queue would hold if it held closed tickets. Ticket 1 is pending
	// and ann's: take it out of her queue by hand.
	closed, open := ticket("verify", 5, "ann", helpdesk.StatusClosed), ticket("verify", 1, "ann", helpdesk.StatusPending)
	must(t, raw.Query("INSERT INTO open_tickets_by_agent (org_id, agent_id, opened_at, ticket_id, subject, status, requester) VALUES ('verify', 'ann', ?, ?, ?, 'CLOSED', ?)", closed.OpenedAt, closed.TicketID, closed.Subject, closed.Requester).Exec())
	must(t, raw.Query("DELETE FROM open_tickets_by_agent WHERE org_id = 'verify' AND agent_id = 'ann' AND opened_at = ? AND ticket_id = ?", open.OpenedAt, open.TicketID).Exec())
	rep, err = repo.Verify(ctx, nil)
	must(t, err)
	q = byTable(rep)["open_tickets_by_agent"]
	if q.Orphans != 1 || q.Missing != 1 || q.Stale != 0 {
		t.Errorf("verify after drift: %+v; want 1 orphan, 1 missing", q)
	}
	rep, err = repo.Repair(ctx, nil)
	must(t, err)
	q = byTable(rep)["open_tickets_by_agent"]
	if q.Deleted != 1 || q.Inserted != 1 {
		t.Errorf("repair: %+v; want 1 deleted, 1 inserted", q)
	}
	if d := queueDrift(t, raw, "verify"); d != nil {
		t.Errorf("after repair: %v", d)
	}
	// Backfill writes only the rows the predicate selects.
	must(t, raw.Query("TRUNCATE open_tickets_by_agent").Exec())
	rep, err = repo.Backfill(ctx, "open_tickets_by_agent", nil)
	must(t, err)
	if got := rep.Tables[0].Inserted; got != int64(held) {
		t.Errorf("backfill wrote %d rows, want %d", got, held)
	}
	if d := queueDrift(t, raw, "verify"); d != nil {
		t.Errorf("after backfill: %v", d)
	}
}
