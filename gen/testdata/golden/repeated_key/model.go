package repeated_key

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Event repeats key columns.
type Event struct {
	_ cqlgen.Pattern `table:"events" pk:"day, day" ck:"day, id, id"`

	Day string `db:"day"`
	ID  string `db:"id"`
}
