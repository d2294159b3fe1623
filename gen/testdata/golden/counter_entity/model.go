package counter_entity

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Page keeps its views in a second table, beside its canonical row: a
// counter table cannot be kept in step with another table.
type Page struct {
	_ cqlgen.Pattern `table:"pages,canonical" pk:"page" cols:"title"`
	_ cqlgen.Pattern `table:"page_views" pk:"page" cols:"views"`

	Page  string `db:"page"`
	Title string `db:"title"`
	Views int64  `db:"views" cql:"counter"`
}

// Hits counts in two counter tables, which cannot be kept in step either.
type Hits struct {
	_ cqlgen.Pattern `table:"hits_by_page,canonical" pk:"page" ck:"day"`
	_ cqlgen.Pattern `table:"hits_by_day" pk:"day" ck:"page"`

	Page string `db:"page"`
	Day  string `db:"day"`
	Hits int64  `db:"hits" cql:"counter"`
}
