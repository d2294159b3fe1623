// Package testmodel declares the entities the repository tests need beyond
// the worked examples: the same readings stored under a time bucket and
// under hash buckets of 1 and 16, so paging can be checked over each.
package testmodel

//go:generate go run github.com/cqlgen/cqlgen/cmd/cqlgen generate .

import (
	_ "embed" // for Schema
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Schema is this package's generated schema.cql.
//
//go:embed schema.cql
var Schema string

// Reading is one reading of a sensor.
type Reading struct {
	_ cqlgen.Pattern `table:"readings_by_day,canonical" pk:"sensor_id" ck:"at desc, seq" bucket:"day(at) as day" doc:"a sensor's readings, newest first, a partition a day"`
	_ cqlgen.Pattern `table:"readings_1" pk:"sensor_id" ck:"at desc, seq" bucket:"hash(seq) % 1 as shard" doc:"a sensor's readings in one hash bucket"`
	_ cqlgen.Pattern `table:"readings_16" pk:"sensor_id" ck:"at desc, seq" bucket:"hash(seq) % 16 as shard" doc:"a sensor's readings over 16 hash buckets"`

	SensorID string    `db:"sensor_id"`
	At       time.Time `db:"at"`
	Seq      int64     `db:"seq"`
	Value    float64   `db:"value"`
	Note     *string   `db:"note"`
	Tags     []string  `db:"tags"`
}

// Visit is a page visit, kept by id and in four other tables, one of
// each kind: by user (plain), by site over 8 hash buckets, by site a
// partition a day, and by page with only some columns. Verify, repair and
// backfill are tested on it.
type Visit struct {
	_ cqlgen.Pattern `table:"visits,canonical,scan" pk:"visit_id" doc:"a visit by id"`
	_ cqlgen.Pattern `table:"visits_by_user,scan" pk:"user_id" ck:"at desc, visit_id" size:"rows=1000" doc:"a user's visits, newest first"`
	_ cqlgen.Pattern `table:"visits_by_site,scan" pk:"site" ck:"at desc, visit_id" bucket:"hash(visit_id) % 8 as shard" size:"rows=10000" doc:"a site's visits over 8 hash buckets"`
	_ cqlgen.Pattern `table:"visits_by_site_day" pk:"site" ck:"at desc, visit_id" bucket:"day(at) as day" doc:"a site's visits, a partition a day"`
	_ cqlgen.Pattern `table:"visits_by_page" pk:"page" ck:"visit_id" cols:"site" size:"rows=1000" doc:"the visits of a page, storing only their site"`

	VisitID string    `db:"visit_id"`
	UserID  string    `db:"user_id"`
	Site    string    `db:"site"`
	At      time.Time `db:"at"`
	Page    string    `db:"page"`
	Millis  int32     `db:"millis"`
}

// Line is a line of an order. The order's header (who placed it, how
// many edits it had) is static: one value for every line of the order.
// lines_by_status stores no header column; lines_by_order_status shares
// the user, static under the same partition key.
type Line struct {
	_ cqlgen.Pattern `table:"lines,canonical" pk:"order_id" ck:"item_id" static:"user_id, edits" doc:"an order's lines" size:"rows=100"`
	_ cqlgen.Pattern `table:"lines_by_status" pk:"status" ck:"order_id, item_id" cols:"qty" doc:"lines by status" size:"rows=10000"`
	_ cqlgen.Pattern `table:"lines_by_order_status" pk:"order_id" ck:"status, item_id" static:"user_id" cols:"qty" doc:"an order's lines by status, with its user" size:"rows=100"`

	OrderID string `db:"order_id"`
	ItemID  string `db:"item_id"`
	UserID  string `db:"user_id"`
	Edits   int64  `db:"edits"`
	Status  string `db:"status"`
	Qty     int64  `db:"qty"`
}

// Part is a part of an order whose owner is static in parts alone.
type Part struct {
	_ cqlgen.Pattern `table:"parts,canonical" pk:"order_id" ck:"part_id" static:"owner" doc:"an order's parts" size:"rows=100"`
	_ cqlgen.Pattern `table:"parts_by_kind" pk:"kind" ck:"order_id, part_id" cols:"qty" doc:"parts by kind" size:"rows=10000"`

	OrderID string `db:"order_id"`
	PartID  string `db:"part_id"`
	Owner   string `db:"owner"`
	Kind    string `db:"kind"`
	Qty     int64  `db:"qty"`
}
