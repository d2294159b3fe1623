package typemodel

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Geo is a point: a user-defined type inside another, in a set and in a
// clustering column.
type Geo struct {
	Lat float64 `db:"lat"`
	Lon float64 `db:"lon"`
}

// Address is a postal address, stored as the user-defined type address.
type Address struct {
	Street   string            `db:"street"`
	City     string            // city, by its snake-case name
	Zip      *string           `db:"zip"`
	Lines    []string          `db:"lines"`
	Location *Geo              `db:"location"`
	Tags     map[string]string `db:"tags"`
}

// Contact is stored as the type contact_card, as its directive says.
//
//cqlgen:udt contact_card
type Contact struct {
	Name string        `db:"name"`
	Home Address       `db:"home"`
	Wait time.Duration `db:"wait" cql:"duration"`
}

// Region is a whole-value partition key.
type Region struct {
	Country string `db:"country"`
	Area    string `db:"area"`
}

// Audit is embedded: its fields are columns of every entity embedding it.
type Audit struct {
	CreatedAt time.Time `db:"created_at"`
	CreatedBy string    `db:"created_by"`
}

// Customer holds user-defined types as plain, nullable, collection and
// partition key columns, and an embedded struct whose column clusters a
// table; stored in two tables, so that the write protocol, Update's key
// comparison and Verify all meet them.
type Customer struct {
	_ cqlgen.Pattern `table:"customers,canonical" pk:"customer_id"`
	_ cqlgen.Pattern `table:"customers_by_region" pk:"region" ck:"created_at desc, customer_id" size:"rows=1k"`

	CustomerID gocql.UUID         `db:"customer_id"`
	Region     Region             `db:"region"`
	Billing    Address            `db:"billing"`
	Shipping   *Address           `db:"shipping"`
	Others     []Address          `db:"others"`
	ByLabel    map[string]Contact `db:"by_label"`
	Seen       map[Geo]struct{}   `db:"seen"`
	Audit
}

// Visit clusters by a user-defined type, which Cassandra orders field by
// field.
type Visit struct {
	_ cqlgen.Pattern `table:"visits" pk:"customer_id" ck:"spot" size:"rows=100"`

	CustomerID gocql.UUID `db:"customer_id"`
	Spot       Geo        `db:"spot"`
	Note       string     `db:"note"`
}
