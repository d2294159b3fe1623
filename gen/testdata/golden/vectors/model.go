// Package vectors declares Cassandra 5 types: vector columns searched
// through ANN indexes (within a partition, and a scatter with another
// similarity function), and masked columns.
package vectors

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Video is a video with two embeddings: of its content, searched within
// a channel, and of its thumbnail, searched everywhere.
type Video struct {
	_ cqlgen.Pattern `table:"videos,canonical" pk:"channel_id" ck:"video_id" size:"rows=10k"`
	_ cqlgen.Pattern `table:"videos_by_user" pk:"user_id" ck:"added_at desc, channel_id, video_id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"videos_like" col:"content" match:"ann" pk:"channel_id" name:"VideosLike"`
	_ cqlgen.Pattern `index:"videos_by_thumbnail" col:"thumbnail" match:"ann(dot_product)" doc:"videos whose thumbnail looks like a picture, everywhere"`

	ChannelID string     `db:"channel_id"`
	VideoID   gocql.UUID `db:"video_id" cql:"timeuuid"`
	UserID    string     `db:"user_id" mask:"default"`
	AddedAt   time.Time  `db:"added_at"`
	Title     string     `db:"title"`
	Content   []float32  `db:"content" cql:"vector<float, 8>"`
	Thumbnail []float32  `db:"thumbnail" cql:"vector<float, 4>"`
	Signature []byte     `db:"signature" mask:"hash"`
}

// Clip is a clip whose search returns each row's similarity, as
// Cassandra computes it: by the index's function within a channel, and by
// another function than the index's over every channel.
type Clip struct {
	_ cqlgen.Pattern `table:"clips" pk:"channel_id" ck:"clip_id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"clips_like" col:"embedding" match:"ann" pk:"channel_id" score:"similarity" name:"ClipsLike"`
	_ cqlgen.Pattern `index:"clips_by_frame" col:"frame" match:"ann(dot_product)" score:"similarity(euclidean)" filter:"tags"`
	_ cqlgen.Pattern `index:"clips_by_tag" col:"tags" pk:"channel_id"`
	_ cqlgen.Pattern `index:"clips_by_lang" col:"lang"`
	_ cqlgen.Pattern `index:"clips_near" col:"near" match:"ann(euclidean)" pk:"channel_id" filter:"lang"`

	ChannelID string     `db:"channel_id"`
	ClipID    gocql.UUID `db:"clip_id" cql:"timeuuid"`
	Title     string     `db:"title"`
	Embedding []float32  `db:"embedding" cql:"vector<float, 8>"`
	Frame     []float32  `db:"frame" cql:"vector<float, 4>"`
	Near      []float32  `db:"near" cql:"vector<float, 2>"`
	Tags      []string   `db:"tags" cql:"set<text>"`
	Lang      string     `db:"lang"`
}

// Account is stored in one table, with masked columns.
type Account struct {
	_ cqlgen.Pattern `table:"accounts" pk:"account_id"`

	AccountID string     `db:"account_id"`
	Email     string     `db:"email" mask:"inner(1, 3)"`
	Phone     string     `db:"phone" mask:"replace('***')"`
	Balance   int64      `db:"balance" mask:"replace(0)"`
	Notes     string     `db:"notes" mask:"null"`
	Born      *time.Time `db:"born" cql:"date" mask:"default"`
	Card      string     `db:"card" mask:"outer(0, 4)"`
}
