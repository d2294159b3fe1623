// Package constant_partition keys a table by a value that never changes.
package constant_partition

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Scope has one declared value.
type Scope string

// Global is the only scope.
const Global Scope = "global"

// Setting is keyed by its scope: every setting lands in one partition.
type Setting struct {
	_ cqlgen.Pattern `table:"settings" pk:"scope" ck:"name" size:"rows=200"`

	Scope Scope  `db:"scope"`
	Name  string `db:"name"`
	Value string `db:"value"`
}
