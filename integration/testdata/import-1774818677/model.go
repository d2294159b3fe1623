// Package model holds the cqlgen declarations that cqlgen import made from example/helpdesk/schema.cql:
// an entity a table, or one entity for tables that hold the same rows under
// different keys. It is yours to edit: name the entities, add doc, size
// hints and read method names, then run cqlgen generate. A comment that
// starts with "import:" says where a declaration does not reproduce its
// table exactly.
package model

//cqlgen:keyspace helpdesk {'class': 'SimpleStrategy', 'replication_factor': 1}

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/gocql/gocql"
)

// Agent is a row of table agents (example/helpdesk/schema.cql:25:1).
type Agent struct {
	_ cqlgen.Pattern `table:"agents" pk:"org_id, agent_id" comment:"an agent by id"`

	OrgID   string `db:"org_id"`
	AgentID string `db:"agent_id"`
	Email   string `db:"email"`
	Name    string `db:"name"`
}

// AgentsByEmail is a row of table agents_by_email (example/helpdesk/schema.cql:39:1).
type AgentsByEmail struct {
	_ cqlgen.Pattern `table:"agents_by_email" pk:"org_id, email" comment:"the agent who signs in with an email"`

	OrgID   string `db:"org_id"`
	Email   string `db:"email"`
	AgentID string `db:"agent_id"`
}

// AgentLoad is a row of table agent_load (example/helpdesk/schema.cql:49:1).
type AgentLoad struct {
	_ cqlgen.Pattern `table:"agent_load" pk:"org_id, agent_id" comment:"an agent's ticket counts"`

	OrgID   string `db:"org_id"`
	AgentID string `db:"agent_id"`
	Opened  int64  `db:"opened" cql:"counter"`
	Closed  int64  `db:"closed" cql:"counter"`
}

// Customer is stored in tables customers (example/helpdesk/schema.cql:59:1) and customers_newest_first (example/helpdesk/schema.cql:77:1).
//
// Import merged customers and customers_newest_first into one entity, with
// customers as its source of truth: every column of customers_newest_first is
// a column of customers, of the same type, and its primary key holds the whole
// primary key of customers (org_id, email), so each of their rows is one row
// of customers. As one entity, every write keeps the tables in step, and
// customers gains cqlgen's write-protocol columns (cqlgen_version,
// cqlgen_deleted, cqlgen_pending, cqlgen_writes). If they hold different
// things, split them into one entity each.
type Customer struct {
	_ cqlgen.Pattern `table:"customers,canonical" pk:"org_id, email" comment:"a customer by email"`
	_ cqlgen.Pattern `table:"customers_newest_first" pk:"org_id" ck:"created_at desc, email" cols:"name, company" comment:"a tenant's customers, newest first"`

	OrgID     string    `db:"org_id"`
	Email     string    `db:"email"`
	Name      string    `db:"name"`
	Company   string    `db:"company"`
	Postal    Address   `db:"postal"`
	Billing   Address   `db:"billing"`
	Phones    []Phone   `db:"phones"`
	CreatedAt time.Time `db:"created_at"`
	CreatedBy string    `db:"created_by"`
}

// TicketEvent is a row of table ticket_events (example/helpdesk/schema.cql:89:1).
type TicketEvent struct {
	_ cqlgen.Pattern `table:"ticket_events" pk:"org_id, ticket_id" ck:"event_id desc" comment:"a ticket's audit trail, newest first"`

	OrgID    string     `db:"org_id"`
	TicketID gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	EventID  gocql.UUID `db:"event_id" cql:"timeuuid"`
	AgentID  string     `db:"agent_id"`
	Kind     string     `db:"kind"`
	Note     string     `db:"note"`
}

// EventsByAgent is a row of table events_by_agent (example/helpdesk/schema.cql:102:1).
type EventsByAgent struct {
	_ cqlgen.Pattern `table:"events_by_agent" pk:"org_id, agent_id, bucket" ck:"event_id desc" comment:"an agent's actions on every ticket, newest first, a partition a month"`

	OrgID    string     `db:"org_id"`
	AgentID  string     `db:"agent_id"`
	Bucket   time.Time  `db:"bucket" cql:"date"`
	EventID  gocql.UUID `db:"event_id" cql:"timeuuid"`
	TicketID gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	Kind     string     `db:"kind"`
	Note     string     `db:"note"`
}

// Ticket is stored in tables tickets (example/helpdesk/schema.cql:116:1), tickets_by_requester (example/helpdesk/schema.cql:134:1) and open_tickets_by_agent (example/helpdesk/schema.cql:147:1).
//
// Import merged tickets, tickets_by_requester and open_tickets_by_agent into
// one entity, with tickets as its source of truth: every column of
// tickets_by_requester and open_tickets_by_agent is a column of tickets, of
// the same type, and each one's primary key holds the whole primary key of
// tickets (org_id, ticket_id), so each of their rows is one row of tickets. As
// one entity, every write keeps the tables in step, and tickets gains cqlgen's
// write-protocol columns (cqlgen_version, cqlgen_deleted, cqlgen_pending,
// cqlgen_writes). If they hold different things, split them into one entity
// each.
type Ticket struct {
	_ cqlgen.Pattern `table:"tickets,canonical" pk:"org_id, ticket_id" comment:"a ticket by its id"`
	_ cqlgen.Pattern `table:"tickets_by_requester" pk:"org_id, requester" ck:"opened_at desc, ticket_id" cols:"subject, status" comment:"a requester's tickets, newest first"`
	_ cqlgen.Pattern `table:"open_tickets_by_agent" pk:"org_id, agent_id" ck:"opened_at, ticket_id" cols:"requester, subject, status" comment:"an agent's open tickets, oldest first"`

	OrgID     string     `db:"org_id"`
	TicketID  gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	Requester string     `db:"requester"`
	Subject   string     `db:"subject"`
	Status    string     `db:"status"`
	AgentID   string     `db:"agent_id"`
	OpenedAt  time.Time  `db:"opened_at"`
	Body      string     `db:"body"`
	Replies   int32      `db:"replies"`
}

// Article is a row of table articles (example/helpdesk/schema.cql:161:1).
type Article struct {
	_ cqlgen.Pattern `table:"articles" pk:"org_id" ck:"article_id" gc_grace:"3d" comment:"an organisation's knowledge-base articles"`
	_ cqlgen.Pattern `index:"articles_by_tag" col:"tags"`
	_ cqlgen.Pattern `index:"articles_by_views" col:"views"`

	OrgID     string     `db:"org_id"`
	ArticleID gocql.UUID `db:"article_id" cql:"timeuuid"`
	Title     string     `db:"title"`
	Tags      []string   `db:"tags" cql:"set<text>"`
	Views     int64      `db:"views"`
	UpdatedAt time.Time  `db:"updated_at"`
	Body      string     `db:"body"`
}

// AuditEvent is a row of table audit_log (example/helpdesk/schema.cql:188:1).
type AuditEvent struct {
	_ cqlgen.Pattern `table:"audit_log" pk:"org_id, bucket" ck:"at desc, event_id" ttl:"30d" compaction:"twcs(1d)" comment:"an organisation's audit events, newest first, a partition a day"`

	OrgID   string     `db:"org_id"`
	Bucket  time.Time  `db:"bucket" cql:"date"`
	At      time.Time  `db:"at"`
	EventID gocql.UUID `db:"event_id" cql:"timeuuid"`
	Actor   string     `db:"actor"`
	Action  string     `db:"action"`
}

// Macro is stored in tables macros (example/helpdesk/schema.cql:203:1), macros_by_title (example/helpdesk/schema.cql:218:1) and macros_by_team (example/helpdesk/schema.cql:229:1).
//
// Import merged macros, macros_by_title and macros_by_team into one entity,
// with macros as its source of truth: every column of macros_by_title and
// macros_by_team is a column of macros, of the same type, and each one's
// primary key holds the whole primary key of macros (org_id, macro_id), so
// each of their rows is one row of macros. As one entity, every write keeps
// the tables in step, and macros gains cqlgen's write-protocol columns
// (cqlgen_version, cqlgen_deleted, cqlgen_pending, cqlgen_writes). If they
// hold different things, split them into one entity each.
type Macro struct {
	_ cqlgen.Pattern `table:"macros,canonical" pk:"org_id, macro_id" comment:"a macro by id"`
	_ cqlgen.Pattern `table:"macros_by_title" pk:"org_id" ck:"title, macro_id" comment:"DEPRECATED, replaced by macros_by_team: an organisation's macros by title"`
	_ cqlgen.Pattern `table:"macros_by_team" pk:"org_id, team" ck:"title, macro_id" comment:"a team's macros by title"`

	OrgID   string `db:"org_id"`
	MacroID string `db:"macro_id"`
	Team    string `db:"team"`
	Title   string `db:"title"`
	Body    string `db:"body"`
}

// Reply is a row of table replies_by_ticket (example/helpdesk/schema.cql:241:1).
type Reply struct {
	_ cqlgen.Pattern `table:"replies_by_ticket" pk:"org_id, ticket_id" ck:"channel, sent_at desc, reply_id" comment:"a ticket's replies by channel, newest first"`

	OrgID    string     `db:"org_id"`
	TicketID gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	Channel  string     `db:"channel"`
	SentAt   time.Time  `db:"sent_at"`
	ReplyID  gocql.UUID `db:"reply_id" cql:"timeuuid"`
	Author   string     `db:"author"`
	Body     string     `db:"body"`
}

// AgentSession is a row of table agent_sessions (example/helpdesk/schema.cql:256:1).
type AgentSession struct {
	_ cqlgen.Pattern `table:"agent_sessions" pk:"org_id, session_id" ttl:"12h" comment:"an agent's sign-in by its session id"`

	OrgID     string    `db:"org_id"`
	SessionID string    `db:"session_id"`
	AgentID   string    `db:"agent_id"`
	SignedIn  time.Time `db:"signed_in"`
	UserAgent string    `db:"user_agent"`
}

// Organisation is a row of table organisations (example/helpdesk/schema.cql:268:1).
type Organisation struct {
	_ cqlgen.Pattern `table:"organisations" pk:"org_id" comment:"an organisation by the name it signed up with"`

	OrgID    string    `db:"org_id"`
	Owner    string    `db:"owner" mask:"inner(1, 3)"`
	Plan     string    `db:"plan"`
	SignedUp time.Time `db:"signed_up"`
}

// TimeEntry is a row of table time_entries (example/helpdesk/schema.cql:279:1).
type TimeEntry struct {
	_ cqlgen.Pattern `table:"time_entries" pk:"org_id, agent_id, week_start" ck:"logged_at desc, entry_id" comment:"an agent's time entries, newest first, a partition a week from Sunday"`

	OrgID     string     `db:"org_id"`
	AgentID   string     `db:"agent_id"`
	WeekStart time.Time  `db:"week_start" cql:"date"`
	LoggedAt  time.Time  `db:"logged_at"`
	EntryID   gocql.UUID `db:"entry_id" cql:"timeuuid"`
	TicketID  gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	Spent     int64      `db:"spent"`
}

// TimeEntriesByPayPeriod is a row of table time_entries_by_pay_period (example/helpdesk/schema.cql:293:1).
type TimeEntriesByPayPeriod struct {
	_ cqlgen.Pattern `table:"time_entries_by_pay_period" pk:"org_id, agent_id, period_start" ck:"logged_at, entry_id" comment:"an agent's time entries of a pay period, a fortnight from Sunday, oldest first"`

	OrgID       string     `db:"org_id"`
	AgentID     string     `db:"agent_id"`
	PeriodStart time.Time  `db:"period_start" cql:"date"`
	LoggedAt    time.Time  `db:"logged_at"`
	EntryID     gocql.UUID `db:"entry_id" cql:"timeuuid"`
	TicketID    gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	Spent       int64      `db:"spent"`
}

// CannedReply is a row of table canned_replies (example/helpdesk/schema.cql:307:1).
type CannedReply struct {
	_ cqlgen.Pattern `table:"canned_replies" pk:"org_id" ck:"reply_id" comment:"an organisation's canned replies"`
	_ cqlgen.Pattern `index:"canned_replies_by_embedding" col:"embedding" match:"ann"`

	OrgID     string     `db:"org_id"`
	ReplyID   gocql.UUID `db:"reply_id" cql:"timeuuid"`
	Title     string     `db:"title"`
	Body      string     `db:"body"`
	Embedding []float32  `db:"embedding" cql:"vector<float, 384>"`
}

// Address is the user-defined type address.
//
//cqlgen:udt address
type Address struct {
	Lines    []string `db:"lines"`
	City     string   `db:"city"`
	Postcode string   `db:"postcode"`
	Country  string   `db:"country"`
}

// Phone is the user-defined type phone.
//
//cqlgen:udt phone
type Phone struct {
	Label  string `db:"label"`
	Number string `db:"number"`
}
