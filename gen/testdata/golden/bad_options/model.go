// Package bad_options declares table options that cannot work, or warn.
package bad_options

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Reading breaks each rule of table options once.
type Reading struct {
	_ cqlgen.Pattern `table:"readings,canonical" pk:"sensor" ck:"at desc" ttl:"30d" compaction:"tiered"`
	_ cqlgen.Pattern `table:"readings_a" pk:"sensor" ck:"at desc" ttl:"30d" compaction:"twcs"`
	_ cqlgen.Pattern `table:"readings_b" pk:"sensor" ck:"at desc" ttl:"30d" compaction:"twcs(0d)"`
	_ cqlgen.Pattern `table:"readings_c" pk:"sensor" ck:"at desc" ttl:"30d" compaction:"twcs(1w)"`
	_ cqlgen.Pattern `table:"readings_d" pk:"sensor" ck:"at desc" ttl:"30d" compaction:"twcs(10m)"`
	_ cqlgen.Pattern `table:"readings_e" pk:"sensor" ck:"at desc" size:"rows=1k" compaction:"twcs(1d)"`
	_ cqlgen.Pattern `table:"readings_f" pk:"sensor" ck:"at desc" ttl:"30d" gc_grace:"0"`
	_ cqlgen.Pattern `table:"readings_g" pk:"sensor" ck:"at desc" ttl:"30d" gc_grace:"ten days"`
	_ cqlgen.Pattern `table:"readings_h" pk:"sensor" ck:"at desc" ttl:"30d" gc_grace:"1h" ignore:"gc-grace: the table is rebuilt from Kafka after any outage"`
	_ cqlgen.Pattern `table:"readings_i" pk:"sensor" ck:"at desc" ttl:"30d" compaction:"twcs(60d)"`

	Sensor string    `db:"sensor"`
	At     time.Time `db:"at"`
	Value  float64   `db:"value"`
}
