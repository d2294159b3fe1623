// Package messaging is the worked example of a chat application: the same
// message stored twice, once by conversation and once by sender, so that
// each of the two queries reads one partition.
package messaging

//go:generate go tool cqlgen generate .

// Replication factor 1 is for the demo and tests on one node only; a
// production keyspace wants NetworkTopologyStrategy and 3 per datacenter.
//cqlgen:keyspace messaging {'class': 'SimpleStrategy', 'replication_factor': 1}

import (
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Message is one chat message. Messages are immutable (an edit is a new
// message), so the two copies never disagree about content. message_id is
// a time-based UUID, unique on its own: that is what lets messages_by_user
// leave conversation_id out of its key.
type Message struct {
	_ cqlgen.Pattern `table:"messages_by_conversation,canonical,immutable" pk:"conversation_id" ck:"sent_at desc, message_id" id:"message_id" doc:"the messages of a conversation, newest first" ignore:"growth-unknown: the seed keeps a conversation in one partition, and bucket:\"month(sent_at)\" is the fix if conversations outgrow it"`
	_ cqlgen.Pattern `table:"messages_by_user" pk:"user_id" ck:"sent_at desc, message_id" doc:"the messages a user sent, newest first" ignore:"growth-unknown: as for messages_by_conversation"`

	ConversationID string     `db:"conversation_id"`
	MessageID      gocql.UUID `db:"message_id" cql:"timeuuid"`
	UserID         string     `db:"user_id"`
	SentAt         time.Time  `db:"sent_at"`
	Text           string     `db:"text"`
}
