package bad_deprecated

import (
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Order gets every part of the expand/contract path wrong.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical,deprecated" pk:"order_id"`
	_ cqlgen.Pattern `table:"orders_by_customer" replaced_by:"orders_by_client" pk:"customer_id" ck:"order_id" size:"rows=100"`
	_ cqlgen.Pattern `table:"orders_by_region,deprecated" replaced_by:"orders_by_regoin" pk:"region" ck:"order_id" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_by_shop,deprecated" replaced_by:"orders_by_shop" pk:"shop" ck:"order_id" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_by_zone,deprecated,deprecated" pk:"region" ck:"order_id" size:"rows=1000"`
	_ cqlgen.Pattern `table:"orders_by_team,deprecated" replaced_by:"orders_by_region" pk:"shop, region" ck:"order_id" size:"rows=1000"`

	OrderID    string `db:"order_id"`
	CustomerID string `db:"customer_id"`
	Region     string `db:"region"`
	Shop       string `db:"shop"`
}
