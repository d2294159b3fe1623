package no_partition_key

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Event has a pattern without pk and one with an empty pk.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical" ck:"id"`
	_ cqlgen.Pattern `table:"events_by_kind" pk:"" ck:"kind, id"`

	ID   string `db:"id"`
	Kind string `db:"kind"`
}
