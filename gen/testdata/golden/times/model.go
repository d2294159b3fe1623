// Package times declares fields whose TTL() and WRITETIME() GetTimes
// reads: on an entity written without the protocol, and on one written
// by it.
package times

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Session expires with the call's TTL.
type Session struct {
	_ cqlgen.Pattern `table:"sessions" pk:"user_id" ck:"session_id" size:"rows=10"`

	UserID    string    `db:"user_id"`
	SessionID string    `db:"session_id"`
	Agent     string    `db:"agent" cqlgen:"ttl, writetime"`
	SignedIn  time.Time `db:"signed_in" cqlgen:"writetime"`
}

// Notice is stored in two tables by the write protocol.
type Notice struct {
	_ cqlgen.Pattern `table:"notices,canonical" pk:"id" ttl:"30d"`
	_ cqlgen.Pattern `table:"notices_by_board" pk:"board" ck:"id" ttl:"30d"`

	ID     string   `db:"id"`
	Board  string   `db:"board"`
	Body   string   `db:"body" cqlgen:"ttl"`
	Labels []string `db:"labels" cql:"frozen<set<text>>" cqlgen:"writetime"`
}
