package canonical_incomplete

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Order keeps only some columns in its source of truth: orders_by_customer
// could not be rebuilt from it, and an Update would wipe its status.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"order_id" cols:"total" size:"rows=1"`
	_ cqlgen.Pattern `table:"orders_by_customer" pk:"customer_id" ck:"placed_at desc, order_id" cols:"status" size:"rows=100"`

	OrderID    string    `db:"order_id"`
	CustomerID string    `db:"customer_id"`
	PlacedAt   time.Time `db:"placed_at"`
	Status     string    `db:"status"`
	Total      int64     `db:"total"`
}

// Refund is immutable, but says so on a table that is not its source of
// truth.
type Refund struct {
	_ cqlgen.Pattern `table:"refunds,canonical" pk:"refund_id" size:"rows=1"`
	_ cqlgen.Pattern `table:"refunds_by_order,immutable" pk:"order_id" ck:"refund_id" size:"rows=10"`

	RefundID string `db:"refund_id"`
	OrderID  string `db:"order_id"`
}
