// Package low_cardinality declares partition keys of few values.
package low_cardinality

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Status is an enum of three values.
type Status string

// The statuses of an order.
const (
	Pending Status = "pending"
	Shipped Status = "shipped"
	Closed  Status = "closed"
)

// Order is found by status, by a flag and by day: three keys of few values.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"order_id"`
	_ cqlgen.Pattern `table:"orders_by_status" pk:"status" ck:"order_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"orders_by_flag" pk:"urgent" ck:"order_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"orders_by_day" pk:"day" ck:"order_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"orders_by_day_sharded" pk:"day" ck:"order_id" bucket:"hash(order_id) % 16" size:"rows=1k"`

	OrderID string    `db:"order_id"`
	Status  Status    `db:"status"`
	Urgent  bool      `db:"urgent"`
	Day     time.Time `db:"day" cql:"date"`
}
