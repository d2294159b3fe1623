package helpdesk

import (
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TicketEvent is one entry of a ticket's audit trail: opened, assigned,
// replied, closed. It is written once and never changed. Its event_id is
// a timeuuid made fresh for each event (gocql.TimeUUID), unique on its
// own, which cql:"timeuuid,unique" declares: events_by_agent, an agent's
// actions over every ticket, tells events apart by event_id alone and
// needs no ticket_id in its key, and says so with id:"event_id".
type TicketEvent struct {
	_ cqlgen.Pattern `table:"ticket_events,canonical,immutable" pk:"org_id, ticket_id" ck:"event_id desc" size:"rows=200" doc:"a ticket's audit trail, newest first"`
	_ cqlgen.Pattern `table:"events_by_agent" pk:"org_id, agent_id" ck:"event_id desc" id:"event_id" bucket:"month(event_id)" size:"rate=300/d" doc:"an agent's actions on every ticket, newest first, a partition a month"`

	OrgID    string     `db:"org_id"`
	TicketID gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	EventID  gocql.UUID `db:"event_id" cql:"timeuuid,unique"`
	AgentID  string     `db:"agent_id"` // who acted: an agent, or "requester"
	Kind     string     `db:"kind"`     // opened, assigned, replied, closed
	Note     string     `db:"note"`
}
