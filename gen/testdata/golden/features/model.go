// Package features exercises every key of the pattern grammar that does not
// concern buckets or types.
package features

//cqlgen:keyspace shop {'class': 'NetworkTopologyStrategy', 'dc1': 3}

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Order is a customer's order.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"tenant_id, order_id" doc:"an order by its id, within a tenant."`
	_ cqlgen.Pattern `table:"orders_by_customer" pk:"tenant_id, customer_id" ck:"placed_at desc, order_id" cols:"total_cents" ttl:"1w2d" size:"rows=5k, rowbytes=120"`
	_ cqlgen.Pattern "table:\"orders_by_status\" pk:\"tenant_id, status\" ck:\"placed_at, order_id asc\" name:\"OrdersInStatus\" ttl:\"0\""

	TenantID     string    `db:"tenant_id"`
	OrderID      string    `db:"order_id"`
	CustomerID   string    `db:"customer_id"`
	CustomerName string    `db:"customer_name"`
	Status       string    `db:"status" cql:"ascii"`
	PlacedAt     time.Time `db:"placed_at"`
	TotalCents   int64     // column name defaults to total_cents
	Notes        string    `db:"-"`
	internal     int       //nolint:unused // unexported fields are not columns
}
