package helpdesk

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Reply is one message on a ticket's thread, sent through a channel
// (email, chat, phone). An agent reads a ticket's email thread over the
// last week: a prefix read, channel fixed by equality and sent_at
// bounded, with no rows of other channels fetched and filtered in the
// client:
//
//	email, since := "email", time.Now().Add(-7*24*time.Hour)
//	page, err := replies.RepliesByTicket(ctx, org, ticketID, &helpdesk.RepliesByTicketOptions{ChannelEq: &email, SentAtTo: &since})
type Reply struct {
	_ cqlgen.Pattern `table:"replies_by_ticket" pk:"org_id, ticket_id" ck:"channel, sent_at desc, reply_id" prefix:"channel" size:"rows=500" doc:"a ticket's replies by channel, newest first"`

	OrgID    string     `db:"org_id"`
	TicketID gocql.UUID `db:"ticket_id" cql:"timeuuid"`
	Channel  string     `db:"channel"` // email, chat or phone
	SentAt   time.Time  `db:"sent_at"`
	ReplyID  gocql.UUID `db:"reply_id" cql:"timeuuid"`
	Author   string     `db:"author"` // an agent's id, or "requester"
	Body     string     `db:"body"`
}
