package bad_identifier

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

// Item uses names CQL cannot take unquoted.
type Item struct {
	_ cqlgen.Pattern `table:"Items,canonical" pk:"ItemID"`
	_ cqlgen.Pattern `table:"items_with_a_name_that_is_far_longer_than_cassandra_allows" pk:"ItemID" name:"lowercase"`
	_ cqlgen.Pattern `table:"items_x" pk:"ItemID" bucket:"hash(n) % 4 as 9lives"`

	ItemID string `db:"ItemID"`
	Émoji  string
	Dash   string `db:"a-b"`
	N      int    `db:"n"`
}
