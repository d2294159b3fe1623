package reserved_word

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Order uses reserved words for a table and columns.
type Order struct {
	_ cqlgen.Pattern `table:"order" pk:"from" ck:"select" bucket:"hash(select) % 4 as token"`

	From   string `db:"from"`
	Select string // the default column name, select, is reserved too
	Limit  int    `db:"LIMIT"`
}
