// Package helpdesk is the third worked example: a multi-tenant support
// desk of cqlgen's own design. Organisations (tenants) each have agents
// and tickets; every partition key starts with org_id, so one tenant's
// rows never share a partition with another's, and the //cqlgen:tenant
// directive makes the generator hold every table to that rule.
//
// It carries what the two seed designs cannot: projections that hold only
// some of an entity's rows, unique alternate keys, counters, indexes,
// user-defined types and partial updates.
package helpdesk

//go:generate go tool cqlgen generate .

// Replication factor 1 is for the demo and tests on one node only; a
// production keyspace wants NetworkTopologyStrategy and 3 per datacenter.
//cqlgen:keyspace helpdesk {'class': 'SimpleStrategy', 'replication_factor': 1}
//cqlgen:tenant org_id

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Status is where a ticket stands.
type Status string

// The statuses of a ticket.
const (
	StatusOpen    Status = "OPEN"
	StatusPending Status = "PENDING" // waiting on the requester
	StatusClosed  Status = "CLOSED"
)

// Ticket is one support request. tickets is the source of truth;
// tickets_by_requester lists a requester's tickets, newest first.
//
// open_tickets_by_agent is an agent's queue: it holds only the tickets
// that are assigned and not closed. Closing a ticket takes it out of the
// queue, reopening puts it back, and reassigning moves it to the other
// agent's queue, all through the write protocol; an unassigned ticket is
// simply not in it. The queue stays small whatever the history, so its
// size hint is the open work of one agent.
//
// Agents edit tickets concurrently: TicketRepo.Modify changes a field on
// the latest copy and retries when another agent came first, so no edit
// is lost, and it writes only the tables that store what changed.
type Ticket struct {
	_ cqlgen.Pattern `table:"tickets,canonical" pk:"org_id, ticket_id" doc:"a ticket by its id"`
	_ cqlgen.Pattern `table:"tickets_by_requester" pk:"org_id, requester" ck:"opened_at desc, ticket_id" cols:"subject, status" size:"rows=1k" doc:"a requester's tickets, newest first"`
	_ cqlgen.Pattern `table:"open_tickets_by_agent" pk:"org_id, agent_id" ck:"opened_at, ticket_id" cols:"subject, status, requester" where:"status in (OPEN, PENDING) and agent_id is set" size:"rows=200" doc:"an agent's open tickets, oldest first"`

	OrgID     string     `db:"org_id"`
	TicketID  gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	Requester string     `db:"requester"` // the requester's email
	Subject   string     `db:"subject"`
	Status    Status     `db:"status"`
	AgentID   string     `db:"agent_id"` // empty while unassigned
	OpenedAt  time.Time  `db:"opened_at"`
	Body      string     `db:"body"`
	Replies   int32      `db:"replies"` // how many replies the ticket has had
}
