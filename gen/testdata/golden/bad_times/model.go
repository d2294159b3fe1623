package bad_times

import (
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Item asks for times Cassandra does not give one of.
type Item struct {
	_ cqlgen.Pattern `table:"items" pk:"shop" ck:"item_id" size:"rows=10"`

	Shop   string            `db:"shop" cqlgen:"ttl"`
	ItemID string            `db:"item_id" cqlgen:"writetime"`
	Tags   []string          `db:"tags" cql:"set<text>" cqlgen:"ttl"`
	Attrs  map[string]string `db:"attrs" cqlgen:"writetime"`
	Name   string            `db:"name" cqlgen:"expiry"`
	Price  int64             `db:"price" cqlgen:"ttl writetime"`
}

// Hits counts.
type Hits struct {
	_ cqlgen.Pattern `table:"hits" pk:"page"`

	Page  string `db:"page"`
	Count int64  `db:"count" cql:"counter" cqlgen:"writetime"`
}

// Reading is bucketed.
type Reading struct {
	_ cqlgen.Pattern `table:"readings" pk:"sensor" ck:"seq" bucket:"hash(seq) % 4 as shard" size:"rows=10"`

	Sensor string `db:"sensor"`
	Seq    int64  `db:"seq"`
	Value  int64  `db:"value" cqlgen:"ttl"`
}
