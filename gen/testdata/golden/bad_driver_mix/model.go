// Package bad_driver_mix holds fields of both Go drivers' types, which no
// one session can bind.
package bad_driver_mix

import (
	gocqlv2 "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Stop is a user-defined type whose field is the ASF driver's.
type Stop struct {
	Wait gocqlv2.Duration `db:"wait"`
}

// Order is keyed by gocql v1's UUID, and holds the ASF driver's types.
type Order struct {
	_ cqlgen.Pattern `table:"orders" pk:"order_id"`

	OrderID gocql.UUID     `db:"order_id"`
	Placed  gocqlv2.UUID   `db:"placed"`
	Stops   []Stop         `db:"stops"`
	Tags    []string       `db:"tags"`
	Byes    []gocql.UUID   `db:"byes"`
	Later   *gocqlv2.UUID  `db:"later"`
	Sides   map[string]int `db:"sides"`
}
