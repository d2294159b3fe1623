// Package bad_near_miss names columns with typos: of a column's name, of
// its case, of a Go field's name, and one near nothing at all.
package bad_near_miss

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Note's patterns each miss a column by a little, but for body_text.
type Note struct {
	_ cqlgen.Pattern `table:"notes,canonical" pk:"usr_id" ck:"Note_ID" cols:"titel, body_text" id:"UsrID" size:"rows=1k"`

	UserID string `db:"user_id"`
	NoteID string `db:"note_id"`
	Title  string `db:"title"`
}
