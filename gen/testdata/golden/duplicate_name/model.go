package duplicate_name

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Order and Invoice both name a pattern ByCustomer: each read method is
// fine on its own repository, but both would declare ByCustomerOptions.
type Order struct {
	_ cqlgen.Pattern `table:"orders,canonical" pk:"order_id"`
	_ cqlgen.Pattern `table:"orders_by_customer" pk:"customer_id" ck:"placed_at desc, order_id" name:"ByCustomer"`

	OrderID    string    `db:"order_id"`
	CustomerID string    `db:"customer_id"`
	PlacedAt   time.Time `db:"placed_at"`
}

type Invoice struct {
	_ cqlgen.Pattern `table:"invoices,canonical" pk:"invoice_id"`
	_ cqlgen.Pattern `table:"invoices_by_customer" pk:"customer_id" ck:"issued_at desc, invoice_id" name:"ByCustomer"`

	InvoiceID  string    `db:"invoice_id"`
	CustomerID string    `db:"customer_id"`
	IssuedAt   time.Time `db:"issued_at"`
}

// Refund's repository type collides with the package's own declaration
// below, and a pattern named Insert with the repository's write method.
type Refund struct {
	_ cqlgen.Pattern `table:"refunds,canonical" pk:"refund_id"`
	_ cqlgen.Pattern `table:"refunds_by_order" pk:"order_id" ck:"refund_id" name:"Insert"`

	RefundID string `db:"refund_id"`
	OrderID  string `db:"order_id"`
}

// RefundRepo is the package's own.
type RefundRepo struct{}

// Signup is stored in one table, so its repository has InsertIfAbsent,
// the name its read method asks for.
type Signup struct {
	_ cqlgen.Pattern `table:"signups" pk:"org_id" ck:"email" name:"InsertIfAbsent" size:"rows=100"`

	OrgID string `db:"org_id"`
	Email string `db:"email"`
}
