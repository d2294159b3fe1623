// Package filter6 targets Cassandra 6.0, whose indexes serve BETWEEN.
package filter6

//cqlgen:cassandra 6.0

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Clip is a clip of a channel.
type Clip struct {
	_ cqlgen.Pattern `table:"clips" pk:"channel" ck:"clip_id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"clips_by_views" col:"views" match:"range" pk:"channel"`
	_ cqlgen.Pattern `index:"clips_by_added" col:"added_date" match:"range"`
	_ cqlgen.Pattern `index:"clips_by_category" col:"category"`
	_ cqlgen.Pattern `filter:"category eq and added_date between" name:"ClipsAddedBetween"`
	_ cqlgen.Pattern `filter:"views between and added_date range" pk:"channel" name:"ChannelClipsByViews"`

	Channel   string    `db:"channel"`
	ClipID    int32     `db:"clip_id"`
	Views     int64     `db:"views"`
	AddedDate time.Time `db:"added_date"`
	Category  string    `db:"category"`
}
