package tag_syntax

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Item has tags that do not follow the grammar. Each line holds one
// mistake; all of them are reported in one run.
type Item struct {
	_ cqlgen.Pattern `table:"items,canonical" pk:"id" tabel:"x" ck:"id sideways"`
	_ cqlgen.Pattern `table:"items_b" pk:"id" pk:"id"`
	_ cqlgen.Pattern `pk:"id"`
	_ cqlgen.Pattern `table:"items_c,primary" pk:"id"`
	_ cqlgen.Pattern `table:"items_d" pk:"id" size:"rows=lots"`
	_ cqlgen.Pattern `table:"items_e" pk:id`
	_ cqlgen.Pattern `table:"items_f" pk:"id" name:"Read Items"`
	_ cqlgen.Pattern `table:"items_g" pk:"id,"`

	ID   string `db:"id"`
	Name string `db:""`
	Kind string `db:"kind" db:"kind2"`
}
