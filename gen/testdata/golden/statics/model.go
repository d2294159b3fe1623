// Package statics keeps an order's header in static columns of its source
// of truth: the write protocol guards them with a version of the
// partition's own.
package statics

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Line is a line of an order; who placed the order and when is its
// header, one value per order. lines_by_status stores no header column;
// lines_by_order_status shares it static under the same partition key.
type Line struct {
	_ cqlgen.Pattern `table:"lines,canonical" pk:"order_id" ck:"item_id" static:"user_id, placed_at" size:"rows=10"`
	_ cqlgen.Pattern `table:"lines_by_status" pk:"status" ck:"order_id, item_id" cols:"qty" ttl:"30d"`
	_ cqlgen.Pattern `table:"lines_by_order_status" pk:"order_id" ck:"status, item_id" static:"user_id" cols:"qty" size:"rows=10"`

	OrderID  string    `db:"order_id"`
	ItemID   string    `db:"item_id"`
	UserID   string    `db:"user_id"`
	PlacedAt time.Time `db:"placed_at"`
	Status   string    `db:"status"`
	Qty      int       `db:"qty"`
}
