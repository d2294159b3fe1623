// Package bad_cassandra names a version cqlgen does not target.
package bad_cassandra

//cqlgen:cassandra 4.1

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Item is any entity.
type Item struct {
	_ cqlgen.Pattern `table:"items" pk:"id" size:"rows=1"`

	ID int64 `db:"id"`
}
