package bench

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/example/quickstart"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// BenchmarkPlainWrites measures the allocations of the writes of entities
// written without the write protocol (issue 36: every entity kind through
// its descriptor) on the in-memory Cassandra, whose own share is the same
// before and after: messaging's immutable Message, quickstart's Note in
// one table, helpdesk's counter table. allocs/op is the figure; the time
// is cqltest's as much as the repository's.
//
//	cd bench && go test -run '^$' -bench BenchmarkPlainWrites -benchmem .
func BenchmarkPlainWrites(b *testing.B) {
	ctx := context.Background()
	mem := func(file string) *cqltest.Session {
		schema, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		s, err := cqltest.New(string(schema))
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	id := gocql.TimeUUID()
	msgs := messaging.NewMessageRepo(mem("../example/messaging/schema.cql"))
	m := &messaging.Message{ConversationID: "c1", MessageID: id, UserID: "ada", SentAt: t0, Text: "hi"}
	notes := quickstart.NewNoteRepo(mem("../example/quickstart/schema.cql"))
	n := &quickstart.Note{UserID: "ada", CreatedAt: t0, NoteID: "n1", Text: "t"}
	loads := helpdesk.NewAgentLoadRepo(mem("../example/helpdesk/schema.cql"))
	l := &helpdesk.AgentLoad{OrgID: "o", AgentID: "a", Opened: 1}
	for _, c := range []struct {
		name string
		op   func() error
	}{
		{"messaging/Insert", func() error { return msgs.Insert(ctx, m) }},
		{"messaging/Insert+Delete", func() error {
			if err := msgs.Insert(ctx, m); err != nil {
				return err
			}
			return msgs.Delete(ctx, m)
		}},
		{"quickstart/Insert", func() error { return notes.Insert(ctx, n) }},
		{"quickstart/Update", func() error { return notes.Update(ctx, n) }},
		{"quickstart/Delete", func() error { return notes.Delete(ctx, n) }},
		{"quickstart/Get", func() error { _, err := notes.Get(ctx, "ada", t0, "n1"); return err }},
		{"agent_load/Add", func() error { return loads.Add(ctx, l) }},
		{"agent_load/Delete", func() error { return loads.Delete(ctx, l) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.op(); err != nil && c.name != "quickstart/Get" {
					b.Fatal(err)
				}
			}
		})
	}
}
