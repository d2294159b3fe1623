package counter_key

import cqlgen "github.com/cqlgen/cqlgen/runtime"

// Views keys by a counter.
type Views struct {
	_ cqlgen.Pattern `table:"views" pk:"page" ck:"count"`

	Page  string `db:"page"`
	Count int64  `db:"count" cql:"counter"`
}
