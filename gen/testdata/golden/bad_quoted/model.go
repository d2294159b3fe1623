package bad_quoted

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Transfer is a new table: its reserved and mixed-case column names are
// refused, with the opt-in an existing table may use named; the opt-in
// itself is refused where a name needs no quotes or cannot be quoted, and
// on the field of a user-defined type.
type Transfer struct {
	_ cqlgen.Pattern `table:"transfers" pk:"from" ck:"to" size:"rows=1k"`

	From      string `db:"from"`
	To        string `db:"to"`
	CreatedAt string `db:"createdAt"`
	Amount    int64  `db:"amount,quoted"`
	Note      string `db:"the note,quoted"`
	Version   int64  `db:"cqlgen_Version,quoted"`
	Route     Route  `db:"route"`
}

// Route is a user-defined type: its field names are never quoted.
type Route struct {
	From string `db:"from,quoted"`
}
