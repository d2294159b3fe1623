package helpdesk

import (
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// CannedReply is a reply an organisation's agents send again and again.
// Each carries the embedding of its text, 384 floats from a sentence
// model, stored as a Cassandra 5 vector<float, 384>: while an agent
// writes, the desk embeds the ticket and SimilarReplies finds the replies
// nearest it by cosine similarity, through a storage-attached ANN index
// restricted to the tenant's partition. An embedding of another length
// is refused before anything is written.
type CannedReply struct {
	_ cqlgen.Pattern `table:"canned_replies" pk:"org_id" ck:"reply_id" size:"rows=2k, rowbytes=3k" doc:"an organisation's canned replies"`
	_ cqlgen.Pattern `index:"canned_replies_by_embedding" col:"embedding" match:"ann" pk:"org_id" name:"SimilarReplies" doc:"an organisation's canned replies nearest a text's embedding"`

	OrgID     string     `db:"org_id"`
	ReplyID   gocql.UUID `db:"reply_id" cql:"timeuuid"`
	Title     string     `db:"title"`
	Body      string     `db:"body"`
	Embedding []float32  `db:"embedding" cql:"vector<float, 384>"`
}
