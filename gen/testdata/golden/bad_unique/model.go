package bad_unique

import (
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Account declares unique on text, which nothing can keep unique, and an
// option that does not exist.
type Account struct {
	_ cqlgen.Pattern `table:"accounts" pk:"email"`

	Email string     `db:"email" cql:"text,unique"`
	Login string     `db:"login" cql:"text,uniq"`
	Ref   gocql.UUID `db:"ref"`
}

// Event names an id on a projection that is not unique on its own, and a
// unique one its key does not hold.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical" pk:"ticket_id" ck:"event_id" size:"rows=200"`
	_ cqlgen.Pattern `table:"events_by_agent" pk:"agent_id" ck:"seq" id:"seq" size:"rows=200"`
	_ cqlgen.Pattern `table:"events_by_kind" pk:"kind" ck:"seq" id:"event_id" size:"rows=200"`

	TicketID string     `db:"ticket_id"`
	EventID  gocql.UUID `db:"event_id" cql:"timeuuid,unique"`
	AgentID  string     `db:"agent_id"`
	Kind     string     `db:"kind"`
	Seq      int64      `db:"seq"`
}
