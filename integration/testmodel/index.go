package testmodel

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Note is a note in a space, for the index tests: a read by tag and a
// read by size through storage-attached indexes, each within a space, and
// a scatter by author over every space. Its table orders notes two ways
// (at descending, then seq ascending), so a continuation takes two runs,
// and it declares every table option: a time-window compaction for rows
// that expire, a gc_grace and a comment of its own.
type Note struct {
	_ cqlgen.Pattern `table:"notes" pk:"space" ck:"at desc, seq" ttl:"1d" compaction:"twcs(1h)" gc_grace:"6h" comment:"notes for the index tests; it's a table with every option"`
	_ cqlgen.Pattern `index:"notes_by_tag" col:"tags" pk:"space" doc:"a space's notes with a tag"`
	_ cqlgen.Pattern `index:"notes_by_size" col:"size" match:"range" pk:"space" doc:"a space's notes of a size between two bounds"`
	_ cqlgen.Pattern `index:"notes_by_author" col:"author" doc:"an author's notes, over every space"`

	Space  string    `db:"space"`
	At     time.Time `db:"at"`
	Seq    int64     `db:"seq"`
	Author string    `db:"author"`
	Tags   []string  `db:"tags" cql:"set<text>"`
	Size   int32     `db:"size"`
}
