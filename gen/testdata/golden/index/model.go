// Package index declares storage-attached indexes (a CONTAINS read and a
// range read restricted to a partition, and a scatter) and table options.
package index

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Doc is a document, found by tag within a space, by size within a
// space, and by author anywhere.
type Doc struct {
	_ cqlgen.Pattern `table:"docs" pk:"space" ck:"updated_at desc, doc_id" compaction:"lcs" gc_grace:"1d" comment:"documents by space; it's the source of truth" size:"rows=1k"`
	_ cqlgen.Pattern `index:"docs_by_tag" col:"tags" pk:"space"`
	_ cqlgen.Pattern `index:"docs_by_size" col:"bytes" match:"range" pk:"space" name:"DocsSized"`
	_ cqlgen.Pattern `index:"docs_by_author" on:"docs" col:"author" doc:"an author's documents, over every space"`

	Space     string              `db:"space"`
	UpdatedAt time.Time           `db:"updated_at"`
	DocID     gocql.UUID          `db:"doc_id"`
	Author    string              `db:"author"`
	Tags      map[string]struct{} `db:"tags"`
	Bytes     int32               `db:"bytes"`
}

// Event is a time series that expires; one declares TWCS, the other is
// left to the review page's recommendation.
type Event struct {
	_ cqlgen.Pattern `table:"events,canonical,immutable" pk:"source" ck:"at desc, id" ttl:"7d" compaction:"twcs(6h)" id:"id" doc:"a source's events, newest first"`
	_ cqlgen.Pattern `table:"events_by_kind" pk:"kind" ck:"at desc, id" bucket:"day(at)" ttl:"90d"`

	Source string     `db:"source"`
	Kind   string     `db:"kind"`
	At     time.Time  `db:"at"`
	ID     gocql.UUID `db:"id" cql:"timeuuid"`
}
