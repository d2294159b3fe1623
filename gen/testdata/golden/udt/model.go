// Package udt stores nested structs as user-defined types and flattens
// embedded structs into columns.
package udt

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Geo is a point; Address holds one, so geo comes first in schema.cql.
type Geo struct {
	Lat float64 `db:"lat"`
	Lon float64 `db:"lon"`
}

// Address is a postal address, stored as the user-defined type address.
type Address struct {
	Street   string            `db:"street"`
	City     string            // city, by its snake-case name
	Zip      *string           `db:"zip"` // null when unknown
	Lines    []string          `db:"lines"`
	Location *Geo              `db:"location"`
	Tags     map[string]string `db:"tags"`
	Ignored  string            `db:"-"`
	note     string
}

// Contact is stored as the type contact_card, as its directive says.
//
//cqlgen:udt contact_card
type Contact struct {
	Name   string        `db:"name"`
	Phones []string      `db:"phones"`
	Home   Address       `db:"home"`
	Wait   time.Duration `db:"wait" cql:"duration"`
}

// Region keys a partition by a whole value.
type Region struct {
	Country string `db:"country"`
	Area    string `db:"area"`
}

// Audit is embedded: its fields are columns of every entity that embeds it.
type Audit struct {
	CreatedAt time.Time `db:"created_at"`
	CreatedBy string    `db:"created_by"`
	Stamp
}

// Stamp is embedded in Audit, two levels down.
type Stamp struct {
	Revision int `db:"revision"`
}

// Customer holds user-defined types in every position cqlgen supports.
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

// Visit orders rows by a user-defined type in a clustering column.
type Visit struct {
	_ cqlgen.Pattern `table:"visits" pk:"customer_id" ck:"at, spot" size:"rows=100"`

	CustomerID gocql.UUID `db:"customer_id"`
	At         time.Time  `db:"at"`
	Spot       Geo        `db:"spot"`
	Audit
}
