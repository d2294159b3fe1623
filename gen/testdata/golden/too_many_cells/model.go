// Package too_many_cells declares a partition over Cassandra's hard limit
// of two billion cells.
package too_many_cells

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Sample is a sensor sample, kept forever in one partition a sensor: a
// billion rows of three cells.
type Sample struct {
	_ cqlgen.Pattern `table:"samples" pk:"sensor_id" ck:"at" size:"keys=10, total=10G, rowbytes=30"`

	SensorID string    `db:"sensor_id"`
	At       time.Time `db:"at"`
	A        float64   `db:"a"`
	B        float64   `db:"b"`
	C        float64   `db:"c"`
}
