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
