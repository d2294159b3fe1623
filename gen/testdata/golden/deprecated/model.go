package deprecated

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Order is an order of a shop, in the middle of a key change: orders by
// customer were kept by day, and move to a table keyed by month, so that
// a customer's year is twelve partitions, not 365. orders_by_status is
// retired without a replacement.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"order_id"`
	_ cqlgen.Pattern `table:"orders_by_customer_day,deprecated" replaced_by:"orders_by_customer_month" pk:"customer_id" ck:"placed_at desc, order_id" bucket:"day(placed_at)" name:"OrdersByDay"`
	_ cqlgen.Pattern `table:"orders_by_customer_month" pk:"customer_id" ck:"placed_at desc, order_id" bucket:"month(placed_at)" name:"OrdersByMonth"`
	_ cqlgen.Pattern `table:"orders_by_status,deprecated" pk:"status" ck:"order_id" comment:"to go" size:"rows=1000"`

	OrderID    string    `db:"order_id"`
	CustomerID string    `db:"customer_id"`
	Status     string    `db:"status"`
	PlacedAt   time.Time `db:"placed_at"`
	Total      int64     `db:"total"`
}
