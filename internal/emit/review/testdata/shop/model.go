// Package shop is the review emitter's test model: a track kept in a
// source of truth, a bucketed table with a TTL, and a unique table, read
// through an index too.
package shop

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Track is a track of an album.
type Track struct {
	_ cqlgen.Pattern `table:"tracks,canonical" pk:"track_id" doc:"a track by its id"`
	_ cqlgen.Pattern `table:"tracks_by_album" pk:"album_id" ck:"added_at desc, track_id" ttl:"30d" size:"rows=200,rowbytes=100" doc:"an album's tracks | newest first"`
	_ cqlgen.Pattern `table:"tracks_by_isrc,unique" pk:"isrc" doc:"the track with an ISRC"`
	_ cqlgen.Pattern `index:"tracks_by_genre" on:"tracks_by_album" col:"genre" pk:"album_id" doc:"an album's tracks of a genre"`

	TrackID string    `db:"track_id"`
	AlbumID string    `db:"album_id"`
	AddedAt time.Time `db:"added_at"`
	ISRC    string    `db:"isrc"`
	Genre   string    `db:"genre"`
}
