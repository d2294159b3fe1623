package counter_table

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// PageViews mixes counters with other columns in one table.
type PageViews struct {
	_ cqlgen.Pattern `table:"page_views" pk:"page"`

	Page  string `db:"page"`
	Title string `db:"title"`
	Views int64  `db:"views" cql:"counter"`
}

// Hits gives a counter table a TTL.
type Hits struct {
	_ cqlgen.Pattern `table:"hits" pk:"page" ttl:"30d"`

	Page string `db:"page"`
	Hits int64  `db:"hits" cql:"counter"`
}
