// Package quickstart is the model of docs/quickstart.md, cqlgen's first
// five minutes: one entity, one access pattern, and the go:generate line.
package quickstart

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

//go:generate go tool cqlgen generate .

// Note is a note a user keeps.
type Note struct {
	_ cqlgen.Pattern `table:"notes_by_user" pk:"user_id" ck:"created_at desc, note_id" size:"rows=1000" doc:"a user's notes, newest first"`

	UserID    string    `db:"user_id"`
	CreatedAt time.Time `db:"created_at"`
	NoteID    string    `db:"note_id"`
	Text      string    `db:"text"`
}
