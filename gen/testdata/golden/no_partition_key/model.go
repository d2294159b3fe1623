package no_partition_key

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Event has a pattern without pk and one with an empty pk.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical" ck:"id"`
	_ cqlgen.Pattern `table:"events_by_kind" pk:"" ck:"kind, id"`

	ID   string `db:"id"`
	Kind string `db:"kind"`
}

// Sample keys by a hash bucket alone, which splits nothing a query names.
type Sample struct {
	_ cqlgen.Pattern `table:"samples" ck:"id" bucket:"hash(id) % 8"`

	ID string `db:"id"`
}
