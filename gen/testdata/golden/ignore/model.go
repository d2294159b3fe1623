// Package ignore silences warnings per table, each with its reason, and
// shows what cannot be silenced.
package ignore

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Event has a table whose growth nothing bounds, silenced with a reason;
// another raises the row limit; two more try to silence an error, and to
// silence without a reason.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical" pk:"source" ck:"at desc, id" id:"id" ignore:"growth-unknown: a nightly job deletes events older than a week"`
	_ cqlgen.Pattern `table:"events_by_kind" pk:"kind" ck:"at desc, id" bucket:"day(at)" size:"rows=400k, limitrows=500k"`
	_ cqlgen.Pattern `table:"events_by_id" pk:"id" ignore:"not-unique: trust me"`
	_ cqlgen.Pattern `table:"events_archive" pk:"source" ck:"at, id" ignore:"growth-unknown"`

	Source string    `db:"source"`
	Kind   string    `db:"kind"`
	At     time.Time `db:"at"`
	ID     string    `db:"id"`
}
