// Package tenant keeps every tenant's rows apart: each partition key
// starts with tenant_id.
package tenant

//cqlgen:tenant tenant_id

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Order is a tenant's order.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"tenant_id, order_id" size:"rows=1"`
	_ cqlgen.Pattern `table:"orders_by_customer" pk:"tenant_id, customer_id" ck:"placed_at desc, order_id" size:"rows=100"`
	_ cqlgen.Pattern `table:"orders_by_sku" pk:"sku" ck:"tenant_id, order_id" size:"rows=1000"`

	TenantID   string    `db:"tenant_id"`
	OrderID    string    `db:"order_id"`
	CustomerID string    `db:"customer_id"`
	SKU        string    `db:"sku"`
	PlacedAt   time.Time `db:"placed_at"`
}

// Country is reference data every tenant shares.
type Country struct {
	_ cqlgen.Pattern `table:"countries" pk:"code" size:"rows=1" ignore:"tenant-key: the same list for every tenant"`

	Code string `db:"code"`
	Name string `db:"name"`
}

// Currency forgot the rule.
type Currency struct {
	_ cqlgen.Pattern `table:"currencies" pk:"code" size:"rows=1"`

	Code string `db:"code"`
}
