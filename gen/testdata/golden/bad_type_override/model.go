package bad_type_override

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Row gives overrides its Go types cannot carry.
type Row struct {
	_ cqlgen.Pattern `table:"rows" pk:"id"`

	ID    string     `db:"id" cql:"uuid"`
	At    time.Time  `db:"at" cql:"timeuuid"`
	U     gocql.UUID `db:"u" cql:"text"`
	L     []string   `db:"l" cql:"map<text, text>"`
	M     []int      `db:"m" cql:"list<text>"`
	N     int        `db:"n" cql:"list"`
	F     []string   `db:"f" cql:"frozen<text>"`
	Bad   string     `db:"bad" cql:"list<"`
	Total int32      `db:"total" cql:"counter"`
}
