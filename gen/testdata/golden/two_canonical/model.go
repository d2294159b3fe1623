package two_canonical

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// User names two sources of truth.
type User struct {
	_ cqlgen.Pattern `table:"users,canonical" pk:"id"`
	_ cqlgen.Pattern `table:"users_by_email,canonical" pk:"email" ck:"id"`

	ID    string `db:"id"`
	Email string `db:"email"`
}
