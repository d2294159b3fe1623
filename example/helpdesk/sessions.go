package helpdesk

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// AgentSession is an agent's sign-in. The table's ttl is the default,
// 12 hours, which every write gets unless the call says otherwise; a
// sign-in with "remember me" is written with cqlgen.WithTTL(30 * 24 *
// time.Hour), and that row alone expires after 30 days. An entity stored
// in one table takes a TTL per call: its one row expires as a whole.
type AgentSession struct {
	_ cqlgen.Pattern `table:"agent_sessions" pk:"org_id, session_id" ttl:"12h" doc:"an agent's sign-in by its session id"`

	OrgID     string    `db:"org_id"`
	SessionID string    `db:"session_id"` // a random secret, the session cookie
	AgentID   string    `db:"agent_id"`
	SignedIn  time.Time `db:"signed_in"`
	UserAgent string    `db:"user_agent"`
}
