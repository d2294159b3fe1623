// Package review declares what the review page's diagram must draw
// without breaking Mermaid: tables named like Mermaid's keywords, and a
// predicate whose string holds a double quote, a #, HTML's < > & and a
// Mermaid entity code.
package review

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Note is a note, kept by id and, while it is tagged so, by owner.
type Note struct {
	_ cqlgen.Pattern `table:"end,canonical" pk:"id"`
	_ cqlgen.Pattern `table:"subgraph" pk:"owner" ck:"id" where:"tag = 'say \"hi\" #1 <b>x</b> & #quot;'" size:"rows=100"`

	ID    string `db:"id"`
	Owner string `db:"owner"`
	Tag   string `db:"tag"`
}
