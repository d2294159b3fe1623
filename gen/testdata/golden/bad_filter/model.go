// Package bad_filter declares filter patterns that cannot work on
// Cassandra 5.0, the default target.
package bad_filter

//cqlgen:tenant org

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Item breaks each rule of filter patterns once.
type Item struct {
	_ cqlgen.Pattern `table:"items,canonical" pk:"org" ck:"at, id" cols:"title, tags, attrs, n, flag, vec" size:"rows=1k"`
	_ cqlgen.Pattern `table:"items_by_day" pk:"org" ck:"at, id" bucket:"day(at)" cols:"n, title"`
	_ cqlgen.Pattern `index:"i_title" col:"title" pk:"org"`
	_ cqlgen.Pattern `index:"i_tags" col:"tags" pk:"org"`
	_ cqlgen.Pattern `index:"i_n" col:"n" match:"range" pk:"org"`
	_ cqlgen.Pattern `index:"i_day_n" on:"items_by_day" col:"n" match:"range" ignore:"tenant-key: the test reads it"`
	_ cqlgen.Pattern `filter:"title eq and titel eq" pk:"org" name:"Unknown"`
	_ cqlgen.Pattern `filter:"title eq and flag eq" pk:"org" name:"NotIndexed"`
	_ cqlgen.Pattern `filter:"title eq and hidden eq" pk:"org" name:"NotStored"`
	_ cqlgen.Pattern `filter:"title contains and n eq" pk:"org" name:"ContainsOne"`
	_ cqlgen.Pattern `filter:"tags contains key and n eq" pk:"org" name:"KeyOfSet"`
	_ cqlgen.Pattern `filter:"attrs contains key and n eq" pk:"org" name:"MapKeys"`
	_ cqlgen.Pattern `filter:"tags eq and n eq" pk:"org" name:"EqOnSet"`
	_ cqlgen.Pattern `filter:"title range and n eq" pk:"org" name:"RangeOnText"`
	_ cqlgen.Pattern `filter:"title eq and n between" pk:"org" name:"Between"`
	_ cqlgen.Pattern `filter:"title in and n eq" pk:"org" name:"In"`
	_ cqlgen.Pattern `filter:"title not in and n eq" pk:"org" name:"NotIn"`
	_ cqlgen.Pattern `filter:"title like and n eq" pk:"org" name:"Like"`
	_ cqlgen.Pattern `filter:"title eq or n eq" pk:"org" name:"Or"`
	_ cqlgen.Pattern `filter:"n range and title eq and n eq" pk:"org" name:"Twice"`
	_ cqlgen.Pattern `filter:"title eq and n eq" pk:"id" name:"WrongPK"`
	_ cqlgen.Pattern `filter:"title eq and n eq" name:"Scatter"`
	_ cqlgen.Pattern `filter:"title eq and n eq" on:"itemz" pk:"org" name:"NoTable"`
	_ cqlgen.Pattern `filter:"n range" on:"items_by_day" pk:"org" name:"Bucketed"`
	_ cqlgen.Pattern `filter:"org eq and n eq" pk:"org" name:"PartitionKey"`
	_ cqlgen.Pattern `filter:"title eq and n eq" pk:"org" name:"lower"`
	_ cqlgen.Pattern `filter:"title eq and n eq" pk:"org" name:"Ignored" ignore:"growth-unknown: no"`
	_ cqlgen.Pattern `index:"i_keys_title" col:"keys(title)" pk:"org"`
	_ cqlgen.Pattern `index:"i_values" col:"values(attrs)" pk:"org"`
	_ cqlgen.Pattern `index:"i_keys_range" col:"keys(attrs)" match:"range" pk:"org"`
	_ cqlgen.Pattern `index:"i_vec" col:"vec" match:"ann" pk:"org"`
	_ cqlgen.Pattern `filter:"vec eq and n eq" pk:"org" name:"Vector"`

	Org    string            `db:"org"`
	At     time.Time         `db:"at"`
	ID     int64             `db:"id"`
	Title  string            `db:"title"`
	Tags   []string          `db:"tags" cql:"set<text>"`
	Attrs  map[string]string `db:"attrs"`
	N      int               `db:"n"`
	Flag   bool              `db:"flag"`
	Hidden string            `db:"hidden"`
	Vec    []float32         `db:"vec" cql:"vector<float, 3>"`
}
