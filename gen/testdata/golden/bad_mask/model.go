package bad_mask

import (
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Person has masks that do not fit their columns.
type Person struct {
	_ cqlgen.Pattern `table:"people" pk:"person_id"`

	PersonID string  `db:"person_id"`
	Age      int32   `db:"age" mask:"inner(1, 1)"`
	Name     string  `db:"name" mask:"replace(0)"`
	Score    float64 `db:"score" mask:"replace('high')"`
	Email    string  `db:"email" mask:"partial(2)"`
	Phone    string  `db:"phone" mask:"inner('a', 1)"`
	Code     string  `db:"code" mask:"outer(1)"`
	Token    string  `db:"token" mask:"hash"`
	Home     Address `db:"home"`
}

// Address is a user-defined type: its fields cannot be masked.
type Address struct {
	Street string `db:"street" mask:"default"`
}
