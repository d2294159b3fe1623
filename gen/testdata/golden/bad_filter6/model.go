// Package bad_filter6 targets Cassandra 6.0: its indexes serve BETWEEN,
// and still not OR, IN, NOT IN nor LIKE.
package bad_filter6

//cqlgen:cassandra 6.0
//cqlgen:cassandra 5.0

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Item reads through operators 6.0-alpha2 does not serve.
type Item struct {
	_ cqlgen.Pattern `table:"items" pk:"org" ck:"id" size:"rows=1k"`
	_ cqlgen.Pattern `index:"i_title" col:"title" pk:"org"`
	_ cqlgen.Pattern `index:"i_n" col:"n" match:"range" pk:"org"`
	_ cqlgen.Pattern `filter:"title in and n between" pk:"org" name:"In"`
	_ cqlgen.Pattern `filter:"title not in and n eq" pk:"org" name:"NotIn"`
	_ cqlgen.Pattern `filter:"title like and n eq" pk:"org" name:"Like"`
	_ cqlgen.Pattern `filter:"title eq or n between" pk:"org" name:"Or"`

	Org   string `db:"org"`
	ID    int64  `db:"id"`
	Title string `db:"title"`
	N     int    `db:"n"`
}
