// Package bad_index declares index patterns that cannot work.
package bad_index

//cqlgen:tenant org

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Item breaks each rule of index patterns once.
type Item struct {
	_ cqlgen.Pattern `table:"items,canonical" pk:"org" ck:"at, id" cols:"blob, dur, frozen, attrs, title, tags, n" size:"rows=1k"`
	_ cqlgen.Pattern `table:"items_by_day" pk:"org" ck:"at, id" bucket:"day(at)" cols:"n, title"`
	_ cqlgen.Pattern `index:"i_on" on:"itemz" col:"title" pk:"org"`
	_ cqlgen.Pattern `index:"i_col" col:"titel" pk:"org"`
	_ cqlgen.Pattern `index:"i_pk" col:"org" pk:"org"`
	_ cqlgen.Pattern `index:"i_first" col:"at" pk:"org"`
	_ cqlgen.Pattern `index:"i_blob" col:"blob" pk:"org"`
	_ cqlgen.Pattern `index:"i_dur" col:"dur" pk:"org"`
	_ cqlgen.Pattern `index:"i_frozen" col:"frozen" pk:"org"`
	_ cqlgen.Pattern `index:"i_map" col:"attrs" pk:"org"`
	_ cqlgen.Pattern `index:"i_text_range" col:"title" match:"range" pk:"org"`
	_ cqlgen.Pattern `index:"i_set_range" col:"tags" match:"range" pk:"org"`
	_ cqlgen.Pattern `index:"i_pk_partial" col:"n" pk:"id"`
	_ cqlgen.Pattern `index:"i_bucketed" on:"items_by_day" col:"n" pk:"org"`
	_ cqlgen.Pattern `index:"i_scatter" col:"tags"`
	_ cqlgen.Pattern `index:"i_dup" col:"tags" pk:"org" name:"ByTag"`
	_ cqlgen.Pattern `index:"i_dup" on:"items_by_day" col:"title" name:"ByTitle" ignore:"tenant-key: every tenant's titles are public"`
	_ cqlgen.Pattern `index:"table" col:"hidden" pk:"org"`
	_ cqlgen.Pattern `index:"i_match" col:"id" match:"between" pk:"org"`
	_ cqlgen.Pattern `index:"i_nocol" pk:"org"`
	_ cqlgen.Pattern `index:"i_both" table:"x" col:"n"`
	_ cqlgen.Pattern `table:"items_on" pk:"org" ck:"at, id" cols:"n" size:"rows=1k" on:"items"`

	Org    string            `db:"org"`
	At     time.Time         `db:"at"`
	ID     int64             `db:"id"`
	Blob   []byte            `db:"blob"`
	Dur    time.Duration     `db:"dur" cql:"duration"`
	Frozen []int             `db:"frozen" cql:"frozen<list<int>>"`
	Attrs  map[string]string `db:"attrs"`
	Title  string            `db:"title"`
	Tags   []string          `db:"tags" cql:"set<text>"`
	N      int               `db:"n"`
	Hidden string            `db:"hidden"`
}
