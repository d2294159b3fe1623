// Package udt_v2 is a model on the ASF driver,
// github.com/apache/cassandra-gocql-driver/v2: its UUIDs and durations are
// that driver's, so cqlgen writes the methods of its user-defined types
// against that driver's interfaces, with no -driver flag.
package udt_v2

import (
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Geo is a point; Address holds one.
type Geo struct {
	Lat float64 `db:"lat"`
	Lon float64 `db:"lon"`
}

// Address is a postal address, stored as the user-defined type address.
type Address struct {
	Street   string         `db:"street"`
	Zip      *string        `db:"zip"` // null when unknown
	Lines    []string       `db:"lines"`
	Location *Geo           `db:"location"`
	Wait     gocql.Duration `db:"wait"` // the driver's own duration
}

// Customer is keyed by the driver's UUID and holds user-defined types.
type Customer struct {
	_ cqlgen.Pattern `table:"customers" pk:"customer_id"`

	CustomerID gocql.UUID     `db:"customer_id"`
	Name       string         `db:"name"`
	Billing    Address        `db:"billing"`
	Others     []Address      `db:"others"`
	Spots      map[string]Geo `db:"spots"`
}

// Visit orders a customer's visits by a timeuuid of the driver's, then by
// a user-defined type.
type Visit struct {
	_ cqlgen.Pattern `table:"visits" pk:"customer_id" ck:"visit_id desc, spot" size:"rows=100"`

	CustomerID gocql.UUID `db:"customer_id"`
	VisitID    gocql.UUID `db:"visit_id" cql:"timeuuid"`
	Spot       Geo        `db:"spot"`
	At         time.Time  `db:"at"`
}
