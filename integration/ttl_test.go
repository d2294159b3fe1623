package integration

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TestWriteTTL writes helpdesk sign-ins on the real node and reads each
// cell's TTL back with plain gocql: the table's default (12 hours) when
// the call gives none, the call's own with cqlgen.WithTTL (30 days on
// Insert, an hour on Update, through InsertIfAbsent too); a row written
// with a TTL of one second is gone two seconds later while its
// neighbour stays. A TTL the write protocol could not honour on every
// copy (a ticket, stored in three tables) is refused, with nothing
// written.
// Checks invariant I13: "nothing was sent" is true.
func TestWriteTTL(t *testing.T) {
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewAgentSessionRepo(s)
	now := time.Now().UTC().Truncate(time.Millisecond)
	sess := func(id string) *helpdesk.AgentSession {
		return &helpdesk.AgentSession{OrgID: "org", SessionID: id, AgentID: "ada", SignedIn: now, UserAgent: "test"}
	}
	ttlOf := func(id string) int {
		t.Helper()
		var ttl, ttl2 *int
		must(t, raw.Query("SELECT TTL(agent_id), TTL(user_agent) FROM agent_sessions WHERE org_id = ? AND session_id = ?", "org", id).Scan(&ttl, &ttl2))
		if ttl == nil || ttl2 == nil {
			return 0
		}
		if d := *ttl - *ttl2; d < -1 || d > 1 {
			t.Errorf("%s: cells of one write have TTLs %d and %d", id, *ttl, *ttl2)
		}
		return *ttl
	}
	near := func(got, want int) bool { return got <= want && got >= want-60 }

	must(t, repo.Insert(ctx, sess("default")))
	must(t, repo.Insert(ctx, sess("remember"), cqlgen.WithTTL(30*24*time.Hour)))
	if got := ttlOf("default"); !near(got, 43200) {
		t.Errorf("default: TTL %d, want the table's 43200", got)
	}
	if got := ttlOf("remember"); !near(got, 2592000) {
		t.Errorf("remember: TTL %d, want the call's 2592000", got)
	}
	must(t, repo.Update(ctx, sess("remember"), cqlgen.WithTTL(time.Hour)))
	if got := ttlOf("remember"); !near(got, 3600) {
		t.Errorf("remember after Update WithTTL(1h): TTL %d, want 3600", got)
	}
	must(t, repo.Update(ctx, sess("remember")))
	if got := ttlOf("remember"); !near(got, 43200) {
		t.Errorf("remember after Update without TTL: TTL %d, want the table's 43200 again", got)
	}
	res, err := repo.InsertIfAbsent(ctx, sess("created"), cqlgen.WithTTL(2*time.Hour))
	if err != nil || !res.Applied {
		t.Fatalf("InsertIfAbsent WithTTL: %+v, %v", res, err)
	}
	if got := ttlOf("created"); !near(got, 7200) {
		t.Errorf("created: TTL %d, want 7200", got)
	}

	must(t, repo.Insert(ctx, sess("brief"), cqlgen.WithTTL(time.Second)))
	if _, err := repo.Get(ctx, "org", "brief"); err != nil {
		t.Fatalf("brief, at once: %v", err)
	}
	time.Sleep(2100 * time.Millisecond)
	if _, err := repo.Get(ctx, "org", "brief"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("brief, two seconds later: %v, want it expired", err)
	}
	if _, err := repo.Get(ctx, "org", "default"); err != nil {
		t.Errorf("default, two seconds later: %v", err)
	}

	tickets := helpdesk.NewTicketRepo(s)
	tk := &helpdesk.Ticket{OrgID: "org", TicketID: gocql.TimeUUID(), Requester: "r@x", Subject: "s", Status: helpdesk.StatusOpen, AgentID: "ada", OpenedAt: now}
	var oe *cqlgen.InputError
	if err := tickets.Insert(ctx, tk, cqlgen.WithTTL(time.Hour)); !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) {
		t.Fatalf("ticket WithTTL: %v, want an *cqlgen.InputError (ErrInvalidOption)", err)
	}
	for _, table := range []string{"tickets", "tickets_by_requester", "open_tickets_by_agent"} {
		var n int
		must(t, raw.Query("SELECT COUNT(*) FROM "+table).Scan(&n))
		if n != 0 {
			t.Errorf("the refused ticket wrote %d rows to %s", n, table)
		}
	}
}
