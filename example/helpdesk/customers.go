package helpdesk

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Address is a postal address. A field of this type is stored as the
// user-defined type address, frozen: written and read whole.
type Address struct {
	Lines    []string `db:"lines"`
	City     string   `db:"city"`
	Postcode string   `db:"postcode"`
	Country  string   `db:"country"` // ISO 3166-1 alpha-2
}

// Phone is one of a customer's numbers, stored as the type phone.
type Phone struct {
	Label  string `db:"label"` // "work", "mobile", ...
	Number string `db:"number"`
}

// Audit says who created a record and when. Embedded, its fields become
// columns of the entity that embeds it, as if declared there.
type Audit struct {
	CreatedAt time.Time `db:"created_at"`
	CreatedBy string    `db:"created_by"` // an agent id, or "self" when the customer signed up
}

// Customer is a requester's profile: the person behind Ticket.Requester,
// keyed by the same email. customers is the source of truth;
// customers_newest_first lists a tenant's newest customers, ordered by
// created_at, a column of the embedded Audit.
type Customer struct {
	_ cqlgen.Pattern `table:"customers,canonical" pk:"org_id, email" doc:"a customer by email"`
	_ cqlgen.Pattern `table:"customers_newest_first" pk:"org_id" ck:"created_at desc, email" cols:"name, company" size:"rows=10k" doc:"a tenant's customers, newest first"`

	OrgID   string   `db:"org_id"`
	Email   string   `db:"email"`
	Name    string   `db:"name"`
	Company string   `db:"company"`
	Postal  Address  `db:"postal"`  // frozen<address>
	Billing *Address `db:"billing"` // nil: bill to the postal address
	Phones  []Phone  `db:"phones"`  // list<frozen<phone>>
	Audit
}
