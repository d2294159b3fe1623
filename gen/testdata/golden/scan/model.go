// Package scan declares typed full-table reads (the table option scan)
// on tables of every shape: a source of truth under the write protocol,
// whose graves a scan skips, a projection with a row type of its own,
// a table split over hash buckets, and an entity stored in one table.
package scan

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Customer is kept in two tables; both can be scanned.
type Customer struct {
	_ cqlgen.Pattern `table:"customers,canonical,scan" pk:"customer_id" size:"rows=1"`
	_ cqlgen.Pattern `table:"customers_by_region,scan" pk:"region" ck:"name, customer_id" cols:"name" size:"rows=10k"`

	CustomerID string `db:"customer_id"`
	Region     string `db:"region"`
	Name       string `db:"name"`
	Email      string `db:"email"`
}

// Reading is a sensor reading, in one table split over hash buckets.
type Reading struct {
	_ cqlgen.Pattern `table:"readings,scan" pk:"sensor_id" ck:"at desc" bucket:"hash(at) % 4" size:"rows=10k"`

	SensorID string    `db:"sensor_id"`
	At       time.Time `db:"at"`
	Value    float64   `db:"value"`
}

// PageHits counts a page's hits by day: a counter table can be scanned.
type PageHits struct {
	_ cqlgen.Pattern `table:"page_hits,scan" pk:"page" ck:"day" size:"rows=1000"`

	Page string    `db:"page"`
	Day  time.Time `db:"day" cql:"date"`
	Hits int64     `db:"hits" cql:"counter"`
}

// Line is a line of an order, with the order's owner stored once per
// partition (a static column): a scan reads the lines, not a partition's
// statics alone.
type Line struct {
	_ cqlgen.Pattern `table:"lines,scan" pk:"order_id" ck:"item_id" static:"owner" size:"rows=100"`

	OrderID string `db:"order_id"`
	ItemID  string `db:"item_id"`
	Owner   string `db:"owner"`
	Qty     int32  `db:"qty"`
}
