package not_unique

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Message has a table whose key cannot tell two messages apart, and an id
// that is not in the canonical key.
type Message struct {
	_ cqlgen.Pattern `table:"messages,canonical" pk:"conversation_id" ck:"sent_at desc, message_id"`
	_ cqlgen.Pattern `table:"messages_by_user" pk:"user_id" ck:"sent_at desc"`
	_ cqlgen.Pattern `table:"latest_by_user" pk:"user_id" id:"user_id"`

	ConversationID string    `db:"conversation_id"`
	MessageID      string    `db:"message_id"`
	UserID         string    `db:"user_id"`
	SentAt         time.Time `db:"sent_at"`
}

// Note declares an id that its canonical key does not hold.
type Note struct {
	_ cqlgen.Pattern `table:"notes" pk:"owner" id:"note_id"`

	Owner  string `db:"owner"`
	NoteID string `db:"note_id"`
}
