package bad_bucket

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Reading has buckets that cannot work.
type Reading struct {
	_ cqlgen.Pattern `table:"readings,canonical" pk:"sensor_id" ck:"read_at"`
	_ cqlgen.Pattern `table:"by_missing" pk:"sensor_id" ck:"read_at" bucket:"day(taken_at)"`
	_ cqlgen.Pattern `table:"by_float" pk:"sensor_id" ck:"read_at" bucket:"hash(value) % 8"`
	_ cqlgen.Pattern `table:"by_text_day" pk:"sensor_id" ck:"read_at" bucket:"day(sensor_id)"`
	_ cqlgen.Pattern `table:"by_pk_hash" pk:"sensor_id" ck:"read_at" bucket:"hash(sensor_id) % 8"`
	_ cqlgen.Pattern `table:"by_zero" pk:"sensor_id" ck:"read_at" bucket:"hash(read_at) % 0"`
	_ cqlgen.Pattern `table:"by_hour_of_date" pk:"sensor_id" ck:"read_at" bucket:"hour(day)"`
	_ cqlgen.Pattern `table:"by_clash" pk:"sensor_id" ck:"read_at" bucket:"month(read_at) as value"`
	_ cqlgen.Pattern `table:"by_syntax" pk:"sensor_id" ck:"read_at" bucket:"hash(read_at) %% 8"`
	_ cqlgen.Pattern `table:"by_kind" pk:"sensor_id" ck:"read_at" bucket:"year(read_at)"`
	_ cqlgen.Pattern `table:"by_sun_week" pk:"sensor_id" ck:"read_at" bucket:"week(read_at, sun)"`
	_ cqlgen.Pattern `table:"by_bad_epoch" pk:"sensor_id" ck:"read_at" bucket:"days(read_at, 7, 2024-01-07)"`
	_ cqlgen.Pattern `table:"by_day_from" pk:"sensor_id" ck:"read_at" bucket:"day(read_at, sunday)"`

	SensorID string    `db:"sensor_id"`
	ReadAt   time.Time `db:"read_at"`
	Day      time.Time `db:"day" cql:"date"`
	Value    float64   `db:"value"`
}
