package helpdesk

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Agent is a member of an organisation's support staff, who signs in with
// an email. No two agents of an organisation may share one:
// agents_by_email is a unique table, whose rows are claims of an email by
// an agent. Inserting an agent, or changing an agent's email, claims the
// email by a conditional write before anything else is written, and a
// *cqlgen.UniqueConflictError says that another agent holds it; changing
// the email or deleting the agent gives the old one up.
type Agent struct {
	_ cqlgen.Pattern `table:"agents,canonical" pk:"org_id, agent_id" doc:"an agent by id"`
	_ cqlgen.Pattern `table:"agents_by_email,unique" pk:"org_id, email" name:"AgentByEmail" doc:"the agent who signs in with an email"`

	OrgID   string `db:"org_id"`
	AgentID string `db:"agent_id"`
	Email   string `db:"email"`
	Name    string `db:"name"`
}
