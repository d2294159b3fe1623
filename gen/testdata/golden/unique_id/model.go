// Package unique_id identifies entities by a uuid or timeuuid that is
// unique on its own: a table whose key holds it needs no other column of
// the source of truth's key.
package unique_id

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Event is one event of a ticket. event_id is a fresh timeuuid, unique on
// its own, so events_by_agent, keyed by agent, tells events apart by it
// without ticket_id; it says so with id.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical,immutable" pk:"ticket_id" ck:"event_id desc" size:"rows=200"`
	_ cqlgen.Pattern `table:"events_by_agent" pk:"agent_id" ck:"event_id desc" id:"event_id" bucket:"month(event_id)" size:"rate=100/d"`

	TicketID string     `db:"ticket_id"`
	EventID  gocql.UUID `db:"event_id" cql:"timeuuid,unique"`
	AgentID  string     `db:"agent_id"`
	Note     string     `db:"note"`
}

// Upload is a file upload keyed by a random uuid, unique on its own;
// uploads_by_day lists a day's uploads without the owner, and needs no id.
type Upload struct {
	_ cqlgen.Pattern `table:"uploads,canonical" pk:"owner" ck:"upload_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"uploads_by_day" pk:"day" ck:"upload_id" bucket:"hash(upload_id) % 16 as shard" size:"rows=100k"`

	Owner    string     `db:"owner"`
	UploadID gocql.UUID `db:"upload_id" cql:"uuid,unique"`
	Day      time.Time  `db:"day" cql:"date"`
	Size     int64      `db:"size"`
}
