// Package where declares sparse tables: each holds only the entities its
// predicate selects.
package where

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Stage is where an order stands.
type Stage string

// The stages of an order.
const (
	Placed    Stage = "placed"
	Packed    Stage = "packed"
	Shipped   Stage = "shipped"
	Delivered Stage = "delivered"
)

// Order is kept whole in orders; the other tables each hold a slice of
// them: a courier's open deliveries, the orders flagged for review, the
// orders with a coupon, and the gifts (a pointer: nil is not set).
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"order_id" size:"rows=1"`
	_ cqlgen.Pattern `table:"deliveries_by_courier" pk:"courier" ck:"placed_at, order_id" where:"stage in (packed, shipped) and courier is set" size:"rows=300"`
	_ cqlgen.Pattern `table:"flagged_orders" pk:"region" ck:"order_id" where:"flagged = true" size:"rows=1k"`
	_ cqlgen.Pattern `table:"orders_with_coupon" pk:"coupon" ck:"order_id" where:"coupon is set and priority = 1" size:"rows=10k"`
	_ cqlgen.Pattern `table:"gift_orders" pk:"region" ck:"order_id" where:"gift_note is set and stage = 'placed'" cols:"gift_note" size:"rows=1k"`

	OrderID  gocql.UUID `db:"order_id"`
	Region   string     `db:"region"`
	Stage    Stage      `db:"stage"`
	Courier  string     `db:"courier"`
	PlacedAt time.Time  `db:"placed_at"`
	Flagged  bool       `db:"flagged"`
	Coupon   string     `db:"coupon"`
	Priority int32      `db:"priority"`
	GiftNote *string    `db:"gift_note"`
}

// Event is immutable: written once into every table that holds it.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical,immutable" pk:"device" ck:"at desc, seq" ttl:"30d"`
	_ cqlgen.Pattern `table:"alerts_by_device" pk:"device" ck:"at desc, seq" where:"level in (warn, error, 'sev''re')" ttl:"30d"`

	Device string    `db:"device"`
	At     time.Time `db:"at"`
	Seq    int32     `db:"seq"`
	Level  string    `db:"level"`
	Text   string    `db:"text"`
}
