package bad_ttl

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Session has TTLs that cannot be parsed.
type Session struct {
	_ cqlgen.Pattern `table:"sessions,canonical" pk:"id" ttl:"90"`
	_ cqlgen.Pattern `table:"sessions_a" pk:"id" ttl:"3 months"`
	_ cqlgen.Pattern `table:"sessions_b" pk:"id" ttl:"21y"`
	_ cqlgen.Pattern `table:"sessions_c" pk:"id" ttl:"1100w"`

	ID string `db:"id"`
}
