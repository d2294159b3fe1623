package testmodel

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Order is a user's order, for the tests of range bounds: inclusive or
// exclusive, each end, on a descending timestamp, text and timeuuid,
// under a prefix, over hash buckets (under a prefix too) and over time
// buckets, and through index ranges, within a partition and over every
// partition.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"user_id" ck:"placed_at desc, order_id" doc:"a user's orders, newest first" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_by_ref" pk:"user_id" ck:"ref desc, placed_at, order_id" doc:"a user's orders by reference, last first" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_by_event" pk:"user_id" ck:"event desc, placed_at, order_id" doc:"a user's orders by event, newest first" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_by_status" pk:"user_id" ck:"status, placed_at desc, order_id" prefix:"status" doc:"a user's orders by status, newest first" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_4" pk:"user_id" ck:"status, placed_at desc, order_id" prefix:"status" bucket:"hash(order_id) % 4 as shard" doc:"a user's orders by status over 4 hash buckets" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_by_day" pk:"user_id" ck:"placed_at desc, order_id" bucket:"day(placed_at) as day" doc:"a user's orders, a partition a day" size:"rows=1000"`
	_ cqlgen.Pattern `index:"orders_by_total" col:"total" match:"range" pk:"user_id" doc:"a user's orders of a total between two bounds"`
	_ cqlgen.Pattern `index:"orders_by_items" col:"items" match:"range" doc:"orders of a number of items between two bounds, of every user"`

	UserID   string     `db:"user_id"`
	PlacedAt time.Time  `db:"placed_at"`
	OrderID  string     `db:"order_id"`
	Ref      string     `db:"ref"`
	Event    gocql.UUID `db:"event" cql:"timeuuid"`
	Status   string     `db:"status"`
	Total    int64      `db:"total"`
	Items    int32      `db:"items"`
}
