// Package bad_field_name names columns by their Go field names, which a
// pattern does not take: it names the columns the fields are stored as.
package bad_field_name

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Note is named by Go field names where column names belong.
type Note struct {
	_ cqlgen.Pattern `table:"notes,canonical" pk:"UserID" ck:"note_id" size:"rows=1k"`
	_ cqlgen.Pattern `table:"notes_by_title" pk:"Title" ck:"NoteID" cols:"UserID" size:"rows=1k"`
	_ cqlgen.Pattern `table:"notes_by_day" pk:"user_id" bucket:"day(CreatedAt)" ck:"note_id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"notes_title" on:"notes" col:"Title" pk:"user_id"`
	_ cqlgen.Pattern `index:"notes_title_pk" on:"notes" col:"title" pk:"UserID"`

	UserID    string    `db:"user_id"`
	NoteID    string    `db:"note_id"`
	CreatedAt time.Time `db:"created_at"`
	Title     string    `db:"title"`
}
