package no_canonical

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// User has two tables and names no source of truth.
type User struct {
	_ cqlgen.Pattern `table:"users" pk:"id"`
	_ cqlgen.Pattern `table:"users_by_email" pk:"email" ck:"id"`

	ID    string `db:"id"`
	Email string `db:"email"`
}
