package helpdesk

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TimeEntry is time an agent logged on a ticket. The desk's payroll
// system counts weeks from Sunday and pays every other Friday, for
// fortnights counted from Sunday 7 January 2024, so both tables bucket as
// it does: week(logged_at, sunday) puts an entry of a Saturday evening
// and one of the next Sunday morning in two partitions, where the default
// ISO week (from Monday) would put them in one, and a payroll job that
// reads a week by the Sunday it computes would miss rows.
type TimeEntry struct {
	_ cqlgen.Pattern `table:"time_entries,canonical,immutable" pk:"org_id, agent_id" ck:"logged_at desc, entry_id" bucket:"week(logged_at, sunday) as week_start" size:"rate=40/d" doc:"an agent's time entries, newest first, a partition a week from Sunday"`
	_ cqlgen.Pattern `table:"time_entries_by_pay_period" pk:"org_id, agent_id" ck:"logged_at, entry_id" bucket:"days(logged_at, 14, '2024-01-07') as period_start" size:"rate=40/d" name:"PayPeriodEntries" doc:"an agent's time entries of a pay period, a fortnight from Sunday, oldest first"`

	OrgID    string        `db:"org_id"`
	AgentID  string        `db:"agent_id"`
	LoggedAt time.Time     `db:"logged_at"`
	EntryID  gocql.UUID    `db:"entry_id" cql:"timeuuid"`
	TicketID gocql.UUID    `db:"ticket_id" cql:"timeuuid"`
	Spent    time.Duration `db:"spent"`
}
