package helpdesk

import (
	"context"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Consistency levels on a cluster of several datacenters (see
// docs/runtime.md): the session's defaults, LOCAL_QUORUM and LOCAL_SERIAL,
// serve tickets, which each tenant writes from its home datacenter; two
// uses need other levels.

// NewAuditRepo returns the audit log's repository, writing at EACH_QUORUM:
// an audit event is acknowledged only once a quorum of every datacenter
// holds it, so losing a whole datacenter loses none.
func NewAuditRepo(s cqlgen.Session) *AuditEventRepo {
	return NewAuditEventRepo(cqlgen.SessionLevels(s, cqlgen.Levels{Write: cqlgen.EachQuorum}))
}

// TicketForDashboard reads a ticket at ONE for a wallboard that would
// rather show a stale ticket than none while two replicas are down.
func TicketForDashboard(ctx context.Context, r *TicketRepo, orgID string, id gocql.UUID) (*Ticket, error) {
	return r.Get(cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqlgen.One}), orgID, id)
}
