package integration

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Delete by key on the live node: every kind of entity (one table with a
// composite key, several tables under the write protocol with a sparse or
// a unique table, immutable with a bucketed table elsewhere and with a
// bucketed source of truth) is deleted given only the key of its source
// of truth, and afterwards no table holds a row of it (the source of
// truth of a versioned entity keeps its grave).
// Checks invariant I1: nil means applied everywhere.
// Checks invariant I7: graves fence re-creation.
func TestDeleteByKey(t *testing.T) {
	t.Parallel()
	tables := []string{"tickets", "tickets_by_requester", "open_tickets_by_agent", "agents", "agents_by_email",
		"ticket_events", "events_by_agent", "audit_log", "articles", "replies_by_ticket"}
	raw, s := repoSession(t, tablesOf(t, helpdesk.Schema, tables...))
	ctx := context.Background()
	at := time.Now().UTC().Truncate(time.Millisecond)
	var ids [8]gocql.UUID
	for i := range ids {
		ids[i] = gocql.TimeUUID()
	}
	id := func(i int) gocql.UUID { return ids[i] }

	// left lists the rows of the tables that still mention marker, graves
	// aside; they are read with plain gocql.
	left := func(marker string, tables ...string) []string {
		var out []string
		for _, table := range tables {
			for _, row := range scanTable(t, raw, "SELECT * FROM "+table) {
				if strings.Contains(row, marker) && !strings.Contains(row, "cqlgen_deleted=true") {
					out = append(out, table+": "+row)
				}
			}
		}
		return out
	}
	cases := []struct {
		name   string
		marker string
		tables []string
		insert func() error
		delete func() error // with the source of truth's key alone
	}{
		{"one table, composite key", "art-1", []string{"articles"},
			func() error {
				return helpdesk.NewArticleRepo(s).Insert(ctx, &helpdesk.Article{OrgID: "acme", ArticleID: id(1), Title: "art-1", Tags: []string{"x"}, Views: 3, UpdatedAt: at, Body: "b"})
			},
			func() error {
				return helpdesk.NewArticleRepo(s).Delete(ctx, &helpdesk.Article{OrgID: "acme", ArticleID: id(1)})
			}},
		{"one table, three clustering columns", "reply-1", []string{"replies_by_ticket"},
			func() error {
				return helpdesk.NewReplyRepo(s).Insert(ctx, &helpdesk.Reply{OrgID: "acme", TicketID: id(2), Channel: "email", SentAt: at, ReplyID: id(3), Author: "ann", Body: "reply-1"})
			},
			func() error {
				return helpdesk.NewReplyRepo(s).Delete(ctx, &helpdesk.Reply{OrgID: "acme", TicketID: id(2), Channel: "email", SentAt: at, ReplyID: id(3)})
			}},
		{"versioned, with a sparse table", "tk-subject", []string{"tickets", "tickets_by_requester", "open_tickets_by_agent"},
			func() error {
				return helpdesk.NewTicketRepo(s).Insert(ctx, &helpdesk.Ticket{OrgID: "acme", TicketID: id(4), Requester: "req@x", Subject: "tk-subject", Status: helpdesk.StatusOpen, AgentID: "ann", OpenedAt: at})
			},
			func() error {
				return helpdesk.NewTicketRepo(s).Delete(ctx, &helpdesk.Ticket{OrgID: "acme", TicketID: id(4)})
			}},
		{"versioned, with a unique table", "agent-zed", []string{"agents", "agents_by_email"},
			func() error {
				return helpdesk.NewAgentRepo(s).Insert(ctx, &helpdesk.Agent{OrgID: "acme", AgentID: "agent-zed", Email: "zed@acme", Name: "Zed"})
			},
			func() error {
				return helpdesk.NewAgentRepo(s).Delete(ctx, &helpdesk.Agent{OrgID: "acme", AgentID: "agent-zed"})
			}},
		{"immutable, bucketed elsewhere", "ev-note", []string{"ticket_events", "events_by_agent"},
			func() error {
				return helpdesk.NewTicketEventRepo(s).Insert(ctx, &helpdesk.TicketEvent{OrgID: "acme", TicketID: id(5), EventID: id(6), AgentID: "ann", Kind: "replied", Note: "ev-note"})
			},
			func() error {
				return helpdesk.NewTicketEventRepo(s).Delete(ctx, &helpdesk.TicketEvent{OrgID: "acme", TicketID: id(5), EventID: id(6)})
			}},
		{"immutable, bucketed source of truth", "audit-action", []string{"audit_log"},
			func() error {
				return helpdesk.NewAuditEventRepo(s).Insert(ctx, &helpdesk.AuditEvent{OrgID: "acme", At: at, EventID: id(7), Actor: "ann", Action: "audit-action"})
			},
			func() error {
				return helpdesk.NewAuditEventRepo(s).Delete(ctx, &helpdesk.AuditEvent{OrgID: "acme", At: at, EventID: id(7)})
			}},
	}
	for _, c := range cases {
		must(t, c.insert())
		if len(left(c.marker, c.tables...)) == 0 {
			t.Fatalf("%s: the insert left no row to delete", c.name)
		}
		if err := c.delete(); err != nil {
			t.Errorf("%s: delete by key: %v", c.name, err)
			continue
		}
		if rows := left(c.marker, c.tables...); len(rows) > 0 {
			t.Errorf("%s: rows left after a delete by key:\n%s", c.name, strings.Join(rows, "\n"))
		}
	}
	// The unique email was given up with the agent: another agent takes it.
	err := helpdesk.NewAgentRepo(s).Insert(ctx, &helpdesk.Agent{OrgID: "acme", AgentID: "agent-amy", Email: "zed@acme", Name: "Amy"})
	var conflict *cqlgen.UniqueConflictError
	if errors.As(err, &conflict) || err != nil {
		t.Errorf("the email of an agent deleted by key: %v", err)
	}
}
