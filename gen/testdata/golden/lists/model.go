package lists

import (
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Step is a user-defined type: its list is frozen with it.
type Step struct {
	Notes []string `db:"notes"`
}

// Recipe's slices are frozen lists by default, in every table and in the
// key; an explicit list<T> stays possible and warns, unless every table
// that stores it silences open-list.
type Recipe struct {
	_ cqlgen.Pattern `table:"recipes,canonical" pk:"id" size:"rows=1"`
	_ cqlgen.Pattern `table:"recipes_by_tags" pk:"tags" ck:"id" size:"rows=100"`
	_ cqlgen.Pattern `table:"recipe_events" pk:"id" cols:"events" size:"rows=1" ignore:"open-list: deployed before cqlgen froze lists"`

	ID       gocql.UUID   `db:"id"`
	Tags     []string     `db:"tags"`
	Amounts  *[]int64     `db:"amounts"`
	Steps    []Step       `db:"steps"`
	Nested   [][]int32    `db:"nested"`
	Stamps   []gocql.UUID `db:"stamps" cql:"frozen<list<timeuuid>>"`
	Legacy   []string     `db:"legacy" cql:"list<text>"`
	Events   []gocql.UUID `db:"events" cql:"list<timeuuid>"`
	Keywords []string     `db:"keywords" cql:"set<text>"`
}
