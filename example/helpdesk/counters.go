package helpdesk

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// AgentLoad counts the tickets an agent has been given and has closed. It
// is an entity of its own, stored in one counter table, beside Ticket: a
// counter cannot be kept in step with a ticket's rows, because adding to
// it again after a failure could count twice. The application calls
// AgentLoadRepo.Add when it assigns or closes a ticket, with 1 (or -1 to
// take a count back); an error that says the outcome is unknown means the
// count may be off by that one, and only the application can choose to
// send it again.
type AgentLoad struct {
	_ cqlgen.Pattern `table:"agent_load" pk:"org_id, agent_id" doc:"an agent's ticket counts"`

	OrgID   string `db:"org_id"`
	AgentID string `db:"agent_id"`
	Opened  int64  `db:"opened" cql:"counter"` // tickets assigned to the agent
	Closed  int64  `db:"closed" cql:"counter"` // of those, tickets the agent closed
}
