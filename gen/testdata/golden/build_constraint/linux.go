//go:build linux

package build_constraint

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Device exists on Linux only.
type Device struct {
	_ cqlgen.Pattern `table:"devices" pk:"id"`

	ID string `db:"id"`
}
