// Package constant_partition keys a table by a value that never changes.
package constant_partition

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

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

// Change is keyed by its scope and a day bucket: one partition a day,
// which takes every change of that day.
type Change struct {
	_ cqlgen.Pattern `table:"changes_by_day" pk:"scope" ck:"at desc, name" bucket:"day(at)" ttl:"30d"`

	Scope Scope     `db:"scope"`
	At    time.Time `db:"at"`
	Name  string    `db:"name"`
}
