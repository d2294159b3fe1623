package integration

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// A Delete leaves a grave in the source of truth. The review page tells
// every other reader of the table which rows to skip; this test reads
// the table as such a reader would (plain gocql, no repository), first
// naively, then with the rule the page states, and holds the page to it.
// Checks invariant I7: graves fence re-creation.
func TestGravesAsOtherReadersSeeThem(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile("../example/helpdesk/schema.md")
	if err != nil {
		t.Fatal(err)
	}
	// The page's row for tickets names the rows to skip, as a predicate.
	row := regexp.MustCompile("(?m)^\\| `tickets` \\| (.*) \\| graves: `([a-z_]+) = true`, kept ([^|]+) \\|$").FindSubmatch(page)
	if row == nil {
		t.Fatalf("schema.md states no rows to skip for tickets; its Other readers section:\n%s", section(string(page), "## Other readers"))
	}
	mark := string(row[2])
	if !strings.Contains(string(row[1]), "`"+mark+"`") {
		t.Fatalf("the page's bookkeeping columns of tickets, %s, do not list %s", row[1], mark)
	}

	raw, s := repoSession(t, tablesOf(t, helpdesk.Schema, "tickets", "tickets_by_requester", "open_tickets_by_agent"))
	ctx := context.Background()
	tickets := helpdesk.NewTicketRepo(s)
	at := time.Now().UTC().Truncate(time.Millisecond)
	var ids []gocql.UUID
	for i := range 5 {
		tk := &helpdesk.Ticket{OrgID: "acme", TicketID: gocql.TimeUUID(), Requester: "ann@example.com",
			Subject: "trade " + string(rune('a'+i)), Status: helpdesk.StatusOpen, AgentID: "bo", OpenedAt: at.Add(time.Duration(i) * time.Second), Body: "b"}
		if err := tickets.Insert(ctx, tk); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tk.TicketID)
	}
	if err := tickets.Delete(ctx, &helpdesk.Ticket{OrgID: "acme", TicketID: ids[2]}); err != nil {
		t.Fatal(err)
	}

	// A naive reader counts the grave as a ticket: the published
	// application's 5 trades where there were 4.
	var naive int
	if err := raw.Query(`SELECT count(*) FROM tickets`).Scan(&naive); err != nil {
		t.Fatal(err)
	}
	if naive != 5 {
		t.Fatalf("a plain SELECT of tickets counts %d rows, want 5 (4 tickets and a grave)", naive)
	}
	// The grave is what the page says: the mark set, every other column null.
	var subject *string
	var deleted bool
	if err := raw.Query(`SELECT subject, `+mark+` FROM tickets WHERE org_id = ? AND ticket_id = ?`, "acme", ids[2]).Scan(&subject, &deleted); err != nil {
		t.Fatal(err)
	}
	if !deleted || subject != nil {
		t.Fatalf("the deleted ticket's row holds %s = %v, subject %v; want true and null", mark, deleted, subject)
	}

	// A reader that follows the page, in CQL and in its own code, counts
	// what the repository holds.
	var filtered int
	if err := raw.Query(`SELECT count(*) FROM tickets WHERE ` + mark + ` = false ALLOW FILTERING`).Scan(&filtered); err != nil {
		t.Fatal(err)
	}
	it := raw.Query(`SELECT ticket_id, ` + mark + ` FROM tickets`).Iter()
	var id gocql.UUID
	var inCode int
	for it.Scan(&id, &deleted) {
		if !deleted {
			inCode++
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	var live int
	for _, id := range ids {
		_, err := tickets.Get(ctx, "acme", id)
		switch {
		case err == nil:
			live++
		case !errors.Is(err, cqlgen.ErrNotFound):
			t.Fatal(err)
		}
	}
	if live != 4 || filtered != live || inCode != live {
		t.Fatalf("tickets: the repository finds %d, a reader filtering in CQL %d, in its own code %d; want 4 each", live, filtered, inCode)
	}
	// The other tables hold no grave: a plain count of them is right.
	var byRequester int
	if err := raw.Query(`SELECT count(*) FROM tickets_by_requester WHERE org_id = ? AND requester = ?`, "acme", "ann@example.com").Scan(&byRequester); err != nil {
		t.Fatal(err)
	}
	if byRequester != 4 {
		t.Fatalf("tickets_by_requester holds %d rows, want 4", byRequester)
	}
}

// section returns the part of a markdown page from heading to the next
// heading of the same level.
func section(page, heading string) string {
	i := strings.Index(page, heading)
	if i < 0 {
		return "(no " + heading + ")"
	}
	rest := page[i+len(heading):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return heading + rest
}
