// Package build_constraint declares an entity in a file that only some
// builds include; the generated file, which every build includes, would
// then not compile elsewhere.
package build_constraint

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Item is fine.
type Item struct {
	_ cqlgen.Pattern `table:"items" pk:"id"`

	ID string `db:"id"`
}
