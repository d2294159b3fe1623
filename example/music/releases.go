package music

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Release is an album or single put out on the service. new_releases is
// the global "new releases" feed: its partition key is a day bucket
// alone, so the feed is read with no key at all, newest first, walking
// back a day at a time. Every release of a day goes to that day's
// partition; at a few thousand a day, one partition takes them easily.
type Release struct {
	_ cqlgen.Pattern `table:"releases,canonical" pk:"release_id" doc:"a release by its id"`
	_ cqlgen.Pattern `table:"new_releases" ck:"released_at desc, release_id" bucket:"day(released_at)" ttl:"365d" size:"rate=5k/d" doc:"every artist's releases, newest first, a partition a day"`

	ReleaseID  gocql.UUID `db:"release_id"`
	ArtistID   string     `db:"artist_id"`
	Title      string     `db:"title"`
	ReleasedAt time.Time  `db:"released_at"`
}
