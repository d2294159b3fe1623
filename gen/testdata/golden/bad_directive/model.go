// Package bad_directive has directives cqlgen cannot use.
package bad_directive

//cqlgen:keyspace shop
//cqlgen:keyspace shop {'class': 'SimpleStrategy', 'replication_factor': 1}
//cqlgen:keyspace again {'class': 'SimpleStrategy', 'replication_factor': 1}
//cqlgen:tablespace x
//cqlgen:tenant
//cqlgen:tenant tenant_id, shop_id

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Item is fine.
type Item struct {
	_ cqlgen.Pattern `table:"items" pk:"id"`

	ID string `db:"id"`
}
