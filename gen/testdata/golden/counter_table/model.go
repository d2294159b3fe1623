package counter_table

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// PageViews mixes counters with other columns in one table, and gives a
// counter table a TTL; page_views_ok shows the fix with cols.
type PageViews struct {
	_ cqlgen.Pattern `table:"page_views,canonical" pk:"page" ttl:"30d"`
	_ cqlgen.Pattern `table:"page_views_ok" pk:"page" cols:"views"`

	Page  string `db:"page"`
	Title string `db:"title"`
	Views int64  `db:"views" cql:"counter"`
}
