// Package model is the generated repository the counting adapter runs:
// notes kept in one table, and tracks kept in two (a source of truth and
// an artist's top tracks), written through the write protocol.
package model

//go:generate go tool cqlgen generate .

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Note is a note a user keeps, newest first.
type Note struct {
	_ cqlgen.Pattern `table:"notes_by_user" pk:"user_id" ck:"created_at desc, note_id" size:"rows=1000" doc:"a user's notes, newest first"`

	UserID    string    `db:"user_id"`
	CreatedAt time.Time `db:"created_at"`
	NoteID    string    `db:"note_id"`
	Text      string    `db:"text"`
}

// Track is a track and its play count, which orders an artist's top
// tracks: a change of the count moves the track's row there.
type Track struct {
	_ cqlgen.Pattern `table:"tracks,canonical" pk:"track_id" doc:"a track by its id"`
	_ cqlgen.Pattern `table:"top_tracks_by_artist" pk:"artist_id" ck:"play_count desc, track_id" cols:"name" size:"rows=500" doc:"an artist's top tracks, most played first"`

	TrackID   string `db:"track_id"`
	ArtistID  string `db:"artist_id"`
	PlayCount int64  `db:"play_count"`
	Name      string `db:"name"`
}
