// Package keyspace_injection tries to smuggle a statement into schema.cql
// through the keyspace directive, which schema.cql's readers run with
// cqlsh -f.
package keyspace_injection

//cqlgen:keyspace shop {'class': 'SimpleStrategy', 'replication_factor': 1}; DROP KEYSPACE prod; {'a': 'b'}

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Item is fine.
type Item struct {
	_ cqlgen.Pattern `table:"items" pk:"id"`

	ID string `db:"id"`
}
