// Package model holds the cqlgen declarations that cqlgen import made from gen/testdata/golden/index/schema.cql:
// an entity a table, or one entity for tables that hold the same rows under
// different keys. It is yours to edit: name the entities, add doc, size
// hints and read method names, then run cqlgen generate. A comment that
// starts with "import:" says where a declaration does not reproduce its
// table exactly.
package model

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/gocql/gocql"
)

// Doc is a row of table docs (gen/testdata/golden/index/schema.cql:6:1).
type Doc struct {
	_ cqlgen.Pattern `table:"docs" pk:"space" ck:"updated_at desc, doc_id" compaction:"lcs" gc_grace:"1d" comment:"documents by space, it's the source of truth"`
	_ cqlgen.Pattern `index:"docs_by_tag" col:"tags"`
	_ cqlgen.Pattern `index:"docs_by_size" col:"bytes"`
	_ cqlgen.Pattern `index:"docs_by_author" col:"author"`

	Space     string     `db:"space"`
	UpdatedAt time.Time  `db:"updated_at"`
	DocID     gocql.UUID `db:"doc_id"`
	Author    string     `db:"author"`
	Tags      []string   `db:"tags" cql:"set<text>"`
	Bytes     int32      `db:"bytes"`
}

// Event is a row of table events (gen/testdata/golden/index/schema.cql:37:1).
type Event struct {
	_ cqlgen.Pattern `table:"events" pk:"source" ck:"at desc, id" ttl:"7d" compaction:"twcs(6h)" comment:"a source's events, newest first"`

	Source string     `db:"source"`
	At     time.Time  `db:"at"`
	ID     gocql.UUID `db:"id" cql:"timeuuid"`
	Kind   string     `db:"kind"`
}

// EventsByKind is a row of table events_by_kind (gen/testdata/golden/index/schema.cql:51:1).
type EventsByKind struct {
	_ cqlgen.Pattern `table:"events_by_kind" pk:"kind, bucket" ck:"at desc, id" ttl:"90d" comment:"Event rows by kind, ordered by at descending, then id ascending"`

	Kind   string     `db:"kind"`
	Bucket time.Time  `db:"bucket" cql:"date"`
	At     time.Time  `db:"at"`
	ID     gocql.UUID `db:"id" cql:"timeuuid"`
	Source string     `db:"source"`
}
