// Package bad_unique_table misuses unique tables.
package bad_unique_table

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Account puts unique on its source of truth, on a table keyed by its
// identity, and gives a unique table columns, a ttl and a bucket.
type Account struct {
	_ cqlgen.Pattern `table:"accounts,canonical,unique" pk:"account_id"`
	_ cqlgen.Pattern `table:"accounts_by_id_again,unique" pk:"account_id, email"`
	_ cqlgen.Pattern `table:"accounts_by_email,unique" pk:"email" cols:"name" ttl:"30d"`
	_ cqlgen.Pattern `table:"accounts_by_day,unique" pk:"email" bucket:"day(created)"`

	AccountID string    `db:"account_id"`
	Email     string    `db:"email"`
	Name      string    `db:"name"`
	Created   time.Time `db:"created"`
}

// Event is immutable: its writes have no versions to claim keys with.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical,immutable" pk:"event_id"`
	_ cqlgen.Pattern `table:"events_by_ref,unique" pk:"ref"`

	EventID string `db:"event_id"`
	Ref     string `db:"ref"`
}
