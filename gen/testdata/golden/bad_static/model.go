package bad_static

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Team declares statics that cannot be static.
type Team struct {
	_ cqlgen.Pattern `table:"teams,canonical" pk:"team_id" static:"name"`
	_ cqlgen.Pattern `table:"team_members" pk:"team_id" ck:"member_id" static:"team_id, member_id, name"`

	TeamID   string `db:"team_id"`
	MemberID string `db:"member_id"`
	Name     string `db:"name"`
}

// Line keeps its order's header static in lines, and another table keys
// each line by it: a change of the header by one line's write would leave
// the other lines under the old header there.
type Line struct {
	_ cqlgen.Pattern `table:"lines,canonical" pk:"order_id" ck:"item_id" static:"user_id, placed_at" size:"rows=10"`
	_ cqlgen.Pattern `table:"lines_by_user" pk:"user_id" ck:"placed_at desc, order_id, item_id" size:"rows=100"`

	OrderID  string    `db:"order_id"`
	ItemID   string    `db:"item_id"`
	UserID   string    `db:"user_id"`
	PlacedAt time.Time `db:"placed_at"`
	Status   string    `db:"status"`
}

// Order shares its customer's name among the orders of a customer in
// orders_by_customer, which the source of truth stores per order: one
// order's write would change the name every other order there shows.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"order_id"`
	_ cqlgen.Pattern `table:"orders_by_customer" pk:"customer_id" ck:"order_id" static:"customer_name" size:"rows=100"`

	OrderID      string `db:"order_id"`
	CustomerID   string `db:"customer_id"`
	CustomerName string `db:"customer_name"`
}

// Item shares a header under another partition key in each table.
type Item struct {
	_ cqlgen.Pattern `table:"items,canonical" pk:"shop_id" ck:"item_id" static:"shop_name" size:"rows=100"`
	_ cqlgen.Pattern `table:"items_by_kind" pk:"kind" ck:"shop_id, item_id" static:"shop_name" size:"rows=100"`

	ShopID   string `db:"shop_id"`
	ItemID   string `db:"item_id"`
	Kind     string `db:"kind"`
	ShopName string `db:"shop_name"`
}
