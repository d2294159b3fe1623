package helpdesk

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Organisation is a tenant of the desk, by the name it signed up with,
// which is its subdomain and its org_id everywhere else. The first to
// sign up with a name gets it: OrganisationRepo.InsertIfAbsent creates
// the row with INSERT ... IF NOT EXISTS, and tells a later sign-up
// whether it got the name and, when not, who has it. Insert with
// cqlgen.IfAbsent() says the same as an error. A sign-up sent again
// after its reply was lost finds its own row and is no conflict.
//
// The owner's email is masked (Cassandra 5's dynamic data masking): a
// role without the UNMASK permission reads it as a***********com, while
// the application, which has it, reads it whole.
type Organisation struct {
	_ cqlgen.Pattern `table:"organisations" pk:"org_id" doc:"an organisation by the name it signed up with"`

	OrgID    string    `db:"org_id"`
	Owner    string    `db:"owner" mask:"inner(1, 3)"` // the email of who signed up
	Plan     string    `db:"plan"`
	SignedUp time.Time `db:"signed_up"`
}
