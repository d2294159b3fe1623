// Package bad_where misuses where: on the source of truth, on a column
// that does not exist, with values the column's type cannot hold, and
// with is set on a type that is never unset.
package bad_where

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Stage is where an order stands.
type Stage string

// The stages of an order.
const (
	Placed  Stage = "placed"
	Shipped Stage = "shipped"
)

// Order misuses where.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"order_id" where:"stage = placed"`
	_ cqlgen.Pattern `table:"orders_a" pk:"region" ck:"order_id" where:"stag = placed" size:"rows=10"`
	_ cqlgen.Pattern `table:"orders_b" pk:"region" ck:"order_id" where:"stage in (placed, shiped)" size:"rows=10"`
	_ cqlgen.Pattern `table:"orders_c" pk:"region" ck:"order_id" where:"flagged = 'yes' and priority = high" size:"rows=10"`
	_ cqlgen.Pattern `table:"orders_d" pk:"region" ck:"order_id" where:"priority is set and total = 3" size:"rows=10"`
	_ cqlgen.Pattern `table:"orders_e" pk:"region" ck:"order_id" where:"flagged in (true, false)" size:"rows=10"`
	_ cqlgen.Pattern `table:"orders_f" pk:"region" ck:"order_id" where:"stage == placed" size:"rows=10"`
	_ cqlgen.Pattern `table:"orders_g" pk:"region" ck:"order_id" where:"stage = placed or stage = shipped" size:"rows=10"`
	_ cqlgen.Pattern `table:"orders_h" pk:"region" ck:"order_id" where:"" size:"rows=10"`

	OrderID  string  `db:"order_id"`
	Region   string  `db:"region"`
	Stage    Stage   `db:"stage"`
	Flagged  bool    `db:"flagged"`
	Priority int32   `db:"priority"`
	Total    float64 `db:"total"`
}

// Note has one table, which must hold every note.
type Note struct {
	_ cqlgen.Pattern `table:"notes" pk:"id" where:"id is set"`

	ID string `db:"id"`
}
