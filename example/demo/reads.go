package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// runHelpdeskReads shows the reads published schemas ask for: several
// tickets by id in one call (GetMany), a ticket deleted by its key alone,
// and a ticket's email thread over a time window (a prefix read: channel
// fixed, sent_at bounded).
func runHelpdeskReads(ctx context.Context, s cqlgen.Session) error {
	tickets := helpdesk.NewTicketRepo(s)
	replies := helpdesk.NewReplyRepo(s)
	const org = "globex"
	base := time.Now().UTC().Add(-10 * 24 * time.Hour).Truncate(time.Minute)
	var ids []gocql.UUID
	for i := range 3 {
		t := &helpdesk.Ticket{OrgID: org, TicketID: gocql.UUIDFromTime(base.Add(time.Duration(i) * time.Hour)), Requester: "pat@example.org",
			Subject: fmt.Sprintf("printer %d", i), Status: helpdesk.StatusOpen, OpenedAt: base.Add(time.Duration(i) * time.Hour)}
		if err := tickets.Insert(ctx, t); err != nil {
			return err
		}
		ids = append(ids, t.TicketID)
	}
	// Delete by the key of the source of truth alone: the repository
	// reads the other tables' keys from the canonical row.
	if err := tickets.Delete(ctx, &helpdesk.Ticket{OrgID: org, TicketID: ids[1]}); err != nil {
		return err
	}
	found, err := tickets.GetMany(ctx, org, []gocql.UUID{ids[2], ids[1], ids[0]})
	if err != nil {
		return err
	}
	fmt.Printf("\n== helpdesk: GetMany of 3 ticket ids, the second deleted by its key alone: missing %v\n", found.Missing)
	for i, t := range found.Rows {
		if t != nil {
			fmt.Printf("    %d: %s\n", i, t.Subject)
		}
	}
	for i := range 12 {
		r := &helpdesk.Reply{OrgID: org, TicketID: ids[0], Channel: []string{"email", "chat", "phone"}[i%3],
			SentAt: base.Add(time.Duration(i) * 20 * time.Hour), ReplyID: gocql.TimeUUID(), Author: "ann", Body: fmt.Sprintf("reply %d", i)}
		if err := replies.Insert(ctx, r); err != nil {
			return err
		}
	}
	email, since := "email", base.Add(4*24*time.Hour)
	page, err := replies.RepliesByTicket(ctx, org, ids[0], &helpdesk.RepliesByTicketOptions{ChannelEq: &email, SentAtTo: &since})
	if err != nil {
		return err
	}
	fmt.Printf("Q email replies to %q since %s, newest first:\n", found.Rows[2].Subject, since.Format(time.DateTime))
	for _, r := range page.Rows {
		fmt.Printf("    %s  %s\n", r.SentAt.Format(time.DateTime), r.Body)
	}
	return nil
}
