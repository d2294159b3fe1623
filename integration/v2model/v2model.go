// Package v2model declares the entities the integration tests run on the
// ASF driver, github.com/apache/cassandra-gocql-driver/v2, through
// cqlgen's gocqlv2 adapter. Its fields hold that driver's UUID and
// Duration, so cqlgen writes the methods of its user-defined type for v2,
// and a session must run on v2 to bind them: the models of the v1 suite
// (testmodel, typemodel, the examples) hold gocql v1's types and cannot.
//
// Between them the entities reach every path of the runtime: the write
// protocol's fan-out over plain, hash-bucketed, time-bucketed, sparse and
// unique tables, key changes, GetMany, Modify and IfVersion, cursors over
// a v2 UUID clustering column, counters, an immutable entity and a
// user-defined type read through the runtime's scanners, and an entity
// stored in one table (InsertIfAbsent, WithTTL).
package v2model

//go:generate go run github.com/cqlgen/cqlgen/cmd/cqlgen generate .

import (
	_ "embed" // for Schema
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Schema is this package's generated schema.cql.
//
//go:embed schema.cql
var Schema string

// Status is where a ticket stands.
type Status string

// The statuses of a ticket.
const (
	StatusOpen   Status = "OPEN"
	StatusClosed Status = "CLOSED"
)

// Policy is how a ticket is handled, stored as the user-defined type
// policy. Its duration and its set are read through the runtime's
// scanners (ScanDuration, ScanSet), which the generated UnmarshalUDT
// adapts to the v2 driver.
type Policy struct {
	Name   string              `db:"name"`
	Wait   time.Duration       `db:"wait" cql:"duration"`
	Labels map[string]struct{} `db:"labels"`
}

// Ticket is a support request, kept in every kind of table the write
// protocol maintains: tickets, its source of truth, by id; a queue's
// tickets newest first, the table the cursor tests page through (its
// clustering key ends in the v2 UUID); an owner's tickets, clustered by
// the UUID alone and storing two columns; a board's tickets over 8 hash
// buckets; a queue's tickets a partition a day; the open tickets of an
// assignee, a sparse table; and the ticket of an external reference, a
// unique table whose rows are claims.
type Ticket struct {
	_ cqlgen.Pattern `table:"tickets,canonical" pk:"ticket_id" doc:"a ticket by id"`
	_ cqlgen.Pattern `table:"tickets_by_queue" pk:"queue" ck:"opened_at desc, ticket_id" size:"rows=10k" doc:"a queue's tickets, newest first"`
	_ cqlgen.Pattern `table:"tickets_by_owner" pk:"owner" ck:"ticket_id" cols:"queue, subject" size:"rows=1k" doc:"an owner's tickets by id"`
	_ cqlgen.Pattern `table:"tickets_by_board" pk:"board" ck:"opened_at desc, ticket_id" bucket:"hash(ticket_id) % 8 as shard" size:"rows=10k" doc:"a board's tickets over 8 hash buckets, newest first"`
	_ cqlgen.Pattern `table:"tickets_by_day" pk:"queue" ck:"opened_at desc, ticket_id" bucket:"day(opened_at) as day" size:"rate=1k/d" doc:"a queue's tickets, newest first, a partition a day"`
	_ cqlgen.Pattern `table:"open_tickets_by_assignee" pk:"assignee" ck:"ticket_id" cols:"queue, subject, status" where:"status = OPEN and assignee is set" size:"rows=200" doc:"an assignee's open tickets"`
	_ cqlgen.Pattern `table:"tickets_by_ref,unique" pk:"ref" name:"TicketByRef" doc:"the ticket of an external reference"`

	TicketID gocql.UUID     `db:"ticket_id"`
	Queue    string         `db:"queue"`
	Owner    string         `db:"owner"`
	Board    string         `db:"board"`
	Assignee string         `db:"assignee"` // empty while unassigned
	Ref      string         `db:"ref"`      // the external system's reference, unique
	Status   Status         `db:"status"`
	OpenedAt time.Time      `db:"opened_at"`
	Subject  string         `db:"subject"`
	Sla      gocql.Duration `db:"sla"`
	Policy   Policy         `db:"policy"`
	Edits    int32          `db:"edits"` // how many edits the ticket has had
}

// QueueLoad counts the tickets of a queue, by its v2 UUID: a counter
// table, whose updates are never retried.
type QueueLoad struct {
	_ cqlgen.Pattern `table:"queue_load" pk:"queue_id" doc:"a queue's ticket counts"`

	QueueID gocql.UUID `db:"queue_id"`
	Opened  int64      `db:"opened" cql:"counter"`
	Closed  int64      `db:"closed" cql:"counter"`
}

// Event is one entry of a ticket's audit trail, written once: an
// immutable entity in two tables, the second told apart by the event's
// timeuuid alone and bucketed by the month of its time.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical,immutable" pk:"ticket_id" ck:"event_id desc" size:"rows=200" doc:"a ticket's events, newest first"`
	_ cqlgen.Pattern `table:"events_by_actor" pk:"actor" ck:"event_id desc" id:"event_id" bucket:"month(event_id)" size:"rate=300/d" doc:"an actor's events, newest first, a partition a month"`

	TicketID gocql.UUID `db:"ticket_id"`
	EventID  gocql.UUID `db:"event_id" cql:"timeuuid,unique"`
	Actor    string     `db:"actor"`
	Kind     string     `db:"kind"`
}

// Watcher is someone who follows a ticket: an entity stored in one table,
// with the plain writes, InsertIfAbsent and WithTTL of such entities. Its
// topics are a set, which a conditional insert sent again compares with
// the row it finds.
type Watcher struct {
	_ cqlgen.Pattern `table:"watchers" pk:"ticket_id" ck:"watcher" ttl:"30d" doc:"a ticket's watchers, by name"`

	TicketID gocql.UUID          `db:"ticket_id"`
	Watcher  string              `db:"watcher"`
	Since    time.Time           `db:"since"`
	Topics   map[string]struct{} `db:"topics"`
}
