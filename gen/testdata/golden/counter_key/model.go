package counter_key

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Views keys by a counter.
type Views struct {
	_ cqlgen.Pattern `table:"views" pk:"page" ck:"count"`

	Page  string `db:"page"`
	Count int64  `db:"count" cql:"counter"`
}
