// Package bucket_only keeps feeds of the whole system: tables whose
// partition key is a time bucket alone, one partition a period.
package bucket_only

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Post is one post; new_posts is the global feed, a partition a day,
// newest first, read with no key at all.
type Post struct {
	_ cqlgen.Pattern `table:"posts,canonical" pk:"post_id"`
	_ cqlgen.Pattern `table:"new_posts" ck:"posted_at desc, post_id" bucket:"day(posted_at)" ttl:"30d" size:"rate=20k/d" name:"NewPosts"`

	PostID   gocql.UUID `db:"post_id"`
	Author   string     `db:"author"`
	PostedAt time.Time  `db:"posted_at"`
	Title    string     `db:"title"`
}

// Click is a feed at a rate that no one partition should take: warned.
type Click struct {
	_ cqlgen.Pattern `table:"clicks_by_hour" ck:"at desc, click_id" bucket:"hour(at)" ttl:"2d" size:"rate=5k/s, rowbytes=60"`

	ClickID gocql.UUID `db:"click_id" cql:"timeuuid"`
	At      time.Time  `db:"at"`
}

// Login is a feed with no rate given: warned, since the rate decides.
type Login struct {
	_ cqlgen.Pattern `table:"logins_by_day" ck:"at desc, user_id" bucket:"day(at)" ttl:"7d"`

	UserID string    `db:"user_id"`
	At     time.Time `db:"at"`
}

// Like is a feed whose day partitions would be too large: the fix
// suggested is an hour bucket.
type Like struct {
	_ cqlgen.Pattern `table:"likes_by_day" ck:"at desc, like_id" bucket:"day(at)" ttl:"7d" size:"rate=50M/d"`

	LikeID gocql.UUID `db:"like_id" cql:"timeuuid"`
	At     time.Time  `db:"at"`
}
