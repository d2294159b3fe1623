// Package counters keeps counts in counter tables: a repository that adds
// to them, never retried, and reads them back.
package counters

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// PageStats counts a page's views and likes, one row a page.
type PageStats struct {
	_ cqlgen.Pattern `table:"page_stats" pk:"site, page"`

	Site  string `db:"site"`
	Page  string `db:"page"`
	Views int64  `db:"views" cql:"counter"`
	Likes int64  `db:"likes" cql:"counter"`
}

// DailyHits counts a site's hits a day, read newest day first.
type DailyHits struct {
	_ cqlgen.Pattern `table:"daily_hits" pk:"site" ck:"day desc" size:"rows=3650"`

	Site string    `db:"site"`
	Day  time.Time `db:"day" cql:"date"`
	Hits int32     `db:"hits" cql:"counter"`
}
