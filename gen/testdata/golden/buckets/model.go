// Package buckets declares one table per kind of bucket.
package buckets

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Reading is a sensor reading.
type Reading struct {
	_ cqlgen.Pattern `table:"readings,canonical" pk:"sensor_id" ck:"read_at desc"`
	_ cqlgen.Pattern `table:"readings_by_hour" pk:"sensor_id" ck:"read_at desc" bucket:"hour(read_at)"`
	_ cqlgen.Pattern `table:"readings_by_day" pk:"sensor_id" ck:"read_at desc" bucket:"day(read_at) as day"`
	_ cqlgen.Pattern `table:"readings_by_week" pk:"sensor_id" ck:"read_at desc" bucket:"week(read_at) as week"`
	_ cqlgen.Pattern `table:"readings_by_month" pk:"sensor_id" ck:"read_at desc" bucket:"month(read_at) as month"`
	_ cqlgen.Pattern `table:"readings_by_10_days" pk:"sensor_id" ck:"read_at desc" bucket:"days(read_at, 10) as range_start"`
	_ cqlgen.Pattern `table:"readings_by_shard" pk:"sensor_id" ck:"read_at desc" bucket:"hash(read_at) % 16 as shard"`
	_ cqlgen.Pattern `table:"readings_by_event_month" pk:"sensor_id" ck:"event_id desc, read_at" bucket:"month(event_id)"`
	_ cqlgen.Pattern `table:"readings_by_local_day" pk:"sensor_id" ck:"read_at desc" bucket:"days(local_day, 7) as week_start"`
	_ cqlgen.Pattern `table:"readings_by_sunday_week" pk:"sensor_id" ck:"read_at desc" bucket:"week(read_at, sunday) as week_start"`
	_ cqlgen.Pattern `table:"readings_by_fortnight" pk:"sensor_id" ck:"read_at desc" bucket:"days(read_at, 14, '2024-01-07') as fortnight"`

	SensorID string     `db:"sensor_id"`
	ReadAt   time.Time  `db:"read_at"`
	EventID  gocql.UUID `db:"event_id" cql:"timeuuid"`
	LocalDay time.Time  `db:"local_day" cql:"date"`
	Value    float64    `db:"value"`
}
