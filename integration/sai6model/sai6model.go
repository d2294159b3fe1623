// Package sai6model declares the entity of the tests of the operators
// Cassandra 6.0 adds to reads through storage-attached indexes: it
// targets 6.0 (//cqlgen:cassandra 6.0), whose filters may read a column
// BETWEEN two values, both inclusive. Its tests run on the managed 6.0
// node (make test-integration-c6).
package sai6model

//cqlgen:cassandra 6.0

//go:generate go run github.com/cqlgen/cqlgen/cmd/cqlgen generate .

import (
	_ "embed" // for Schema
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Schema is this package's generated schema.cql.
//
//go:embed schema.cql
var Schema string

// Clip is a clip of a channel, read by views and by the date it was
// added, through storage-attached indexes.
type Clip struct {
	_ cqlgen.Pattern `table:"clips" pk:"channel" ck:"clip_id" size:"rows=1000"`
	_ cqlgen.Pattern `index:"clips_by_views" col:"views" match:"range" pk:"channel" doc:"a channel's clips of a range of views"`
	_ cqlgen.Pattern `index:"clips_by_added" col:"added_date" match:"range" doc:"the clips added in a range of dates"`
	_ cqlgen.Pattern `index:"clips_by_category" col:"category" doc:"the clips of a category"`
	_ cqlgen.Pattern `filter:"category eq and added_date between" name:"ClipsByCategoryAddedBetween" doc:"the clips of a category added between two dates, both included"`
	_ cqlgen.Pattern `filter:"views between and category eq" pk:"channel" name:"ChannelClipsByViews" doc:"a channel's clips of a category with views between two counts, both included"`

	Channel   string    `db:"channel"`
	ClipID    int32     `db:"clip_id"`
	Views     int64     `db:"views"`
	AddedDate time.Time `db:"added_date"`
	Category  string    `db:"category"`
}
