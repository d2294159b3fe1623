package duplicate_table

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// A declares table t.
type A struct {
	_ cqlgen.Pattern `table:"t" pk:"id"`

	ID string `db:"id"`
}

// B declares table t again, and a second pattern with A's method name.
type B struct {
	_ cqlgen.Pattern `table:"t" pk:"id"`
	_ cqlgen.Pattern `table:"u,canonical" pk:"id" name:"T"`

	ID string `db:"id"`
}
