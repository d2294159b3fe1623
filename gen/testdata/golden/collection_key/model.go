package collection_key

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Post uses collections, a duration and a pointer as keys.
type Post struct {
	_ cqlgen.Pattern `table:"posts" pk:"tags" ck:"labels, took, id, frozen_tags"`

	Tags       []string          `db:"tags" cql:"list<text>"`
	Labels     map[string]string `db:"labels"`
	FrozenTags []string          `db:"frozen_tags" cql:"frozen<set<text>>"`
	Took       time.Duration     `db:"took" cql:"duration"`
	ID         *string           `db:"id"`
}
