// Package music is the worked example of a music streaming service: the
// listening history of each user, the top tracks of each artist by a play
// count that keeps changing, the tracks of a playlist in order, and the
// daily charts, sharded into 100 hash buckets so no partition grows past
// about 50 MB.
//
// Each entity is declared once; each access pattern is one tag line on it.
// schema.cql is generated from these declarations.
package music

//go:generate go tool cqlgen generate .

// Replication factor 1 is for the demo and tests on one node only; a
// production keyspace wants NetworkTopologyStrategy and 3 per datacenter.
//cqlgen:keyspace music {'class': 'SimpleStrategy', 'replication_factor': 1}

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Play is one play of a track by a user. Plays are never changed; they
// expire after 90 days, which bounds a heavy listener's partition (8 hours
// a day at 15 plays an hour: 120 plays a day) at about 90 × 120 = 10,800
// rows.
type Play struct {
	_ cqlgen.Pattern `table:"listening_history" pk:"user_id" ck:"played_at desc, track_id" ttl:"90d" size:"rate=120/d" doc:"a user's listening history, newest first"`

	UserID    string    `db:"user_id"`
	PlayedAt  time.Time `db:"played_at"`
	TrackID   string    `db:"track_id"`
	TrackName string    `db:"track_name"`
	Artist    string    `db:"artist"`
	DurationS int32     `db:"duration_s"`
}

// Track is a track of the catalogue and its all-time play count. The play
// count orders an artist's top tracks, so it is a clustering column there
// and changes by delete-then-insert; tracks, keyed by track_id alone, is
// the source of truth that says which row to delete.
type Track struct {
	_ cqlgen.Pattern `table:"tracks,canonical,scan" pk:"track_id" doc:"a track by its id"`
	_ cqlgen.Pattern `table:"top_tracks_by_artist" pk:"artist_id" ck:"play_count desc, track_id" cols:"track_name, album, duration_s" size:"rows=500" doc:"an artist's top tracks, most played first"`

	TrackID   string `db:"track_id"`
	ArtistID  string `db:"artist_id"`
	PlayCount int64  `db:"play_count"`
	TrackName string `db:"track_name"`
	Album     string `db:"album"`
	DurationS int32  `db:"duration_s"`
}

// PlaylistTrack is one entry of a playlist. Order lives on disk: position
// is the first clustering column, so a playlist reads in order with no
// sort. Even a 10,000-track playlist is a partition of a few MB.
type PlaylistTrack struct {
	_ cqlgen.Pattern `table:"playlist_tracks" pk:"playlist_id" ck:"position, track_id" size:"rows=10k" doc:"the tracks of a playlist, in order"`

	PlaylistID string `db:"playlist_id"`
	Position   int32  `db:"position"`
	TrackID    string `db:"track_id"`
	TrackName  string `db:"track_name"`
	Artist     string `db:"artist"`
	DurationS  int32  `db:"duration_s"`
	AddedBy    string `db:"added_by"`
}

// ChartEntry is a track's play count on one day. With 100 million tracks a
// day at about 50 bytes a row, one partition per day would hold about 5 GB;
// hashing track_id into 100 shards brings each to about 50 MB, and a read
// of the chart merges the 100 shards. daily_track_plays, keyed by day and
// track, is the source of truth that tells which chart row a new count
// replaces.
type ChartEntry struct {
	_ cqlgen.Pattern `table:"daily_track_plays,canonical" pk:"chart_date, track_id" ttl:"30d" doc:"a track's play count on a day"`
	_ cqlgen.Pattern `table:"daily_charts" pk:"chart_date" ck:"play_count desc, track_id" bucket:"hash(track_id) % 100 as shard" ttl:"30d" size:"rows=100M, rowbytes=50" doc:"a day's chart, most played first"`

	ChartDate time.Time `db:"chart_date" cql:"date"`
	TrackID   string    `db:"track_id"`
	PlayCount int64     `db:"play_count"`
	TrackName string    `db:"track_name"`
	Artist    string    `db:"artist"`
}
