// Package scored declares ANN reads that return Cassandra's score with
// each row, narrowed by another indexed column or not.
package scored

import (
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Clip is a clip whose search returns each row's similarity, as
// Cassandra computes it: by the index's function within a channel, and by
// another function than the index's over every channel.
type Clip struct {
	_ cqlgen.Pattern `table:"clips" pk:"channel_id" ck:"clip_id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"clips_like" col:"embedding" match:"ann" pk:"channel_id" score:"similarity" name:"ClipsLike"`
	_ cqlgen.Pattern `index:"clips_by_frame" col:"frame" match:"ann(dot_product)" score:"similarity(euclidean)" filter:"tags contains"`
	_ cqlgen.Pattern `index:"clips_by_tag" col:"tags" pk:"channel_id"`
	_ cqlgen.Pattern `index:"clips_by_lang" col:"lang"`
	_ cqlgen.Pattern `index:"clips_near" col:"near" match:"ann(euclidean)" pk:"channel_id" filter:"lang eq"`

	ChannelID string     `db:"channel_id"`
	ClipID    gocql.UUID `db:"clip_id" cql:"timeuuid"`
	Title     string     `db:"title"`
	Embedding []float32  `db:"embedding" cql:"vector<float, 8>"`
	Frame     []float32  `db:"frame" cql:"vector<float, 4>"`
	Near      []float32  `db:"near" cql:"vector<float, 2>"`
	Tags      []string   `db:"tags" cql:"set<text>"`
	Lang      string     `db:"lang"`
}
