// Package unique_table declares alternate keys that no two entities may
// share: a login email, and a username with its tenant.
package unique_table

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Account signs in with an email, unique across the service, and has a
// handle, unique within its tenant.
type Account struct {
	_ cqlgen.Pattern `table:"accounts,canonical" pk:"account_id"`
	_ cqlgen.Pattern `table:"accounts_by_email,unique" pk:"email" name:"AccountByEmail"`
	_ cqlgen.Pattern `table:"accounts_by_handle,unique" pk:"tenant_id" ck:"handle" size:"rows=10k"`

	AccountID string `db:"account_id"`
	TenantID  string `db:"tenant_id"`
	Email     string `db:"email"`
	Handle    string `db:"handle"`
	Name      string `db:"name"`
}
