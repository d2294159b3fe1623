package bench_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Workload 4: one entity written to four tables (its source of truth and
// three projections, each under another partition key).

// The statements a hand-written fan-out runs: the same columns the
// generated code writes, less its version column and client timestamp.
var fanOutStmts = [4]string{
	"INSERT INTO messages (message_id, conversation_id, sender_id, recipient_id, sent_at, body) VALUES (?, ?, ?, ?, ?, ?)",
	"INSERT INTO messages_by_conversation (conversation_id, sent_at, message_id, sender_id, recipient_id, body) VALUES (?, ?, ?, ?, ?, ?)",
	"INSERT INTO messages_by_sender (sender_id, sent_at, message_id, conversation_id, recipient_id, body) VALUES (?, ?, ?, ?, ?, ?)",
	"INSERT INTO messages_by_recipient (recipient_id, sent_at, message_id, conversation_id, sender_id, body) VALUES (?, ?, ?, ?, ?, ?)",
}

func fanOutValues(m *model.Message) [4][]any {
	return [4][]any{
		{m.MessageID, m.ConversationID, m.SenderID, m.RecipientID, m.SentAt, m.Body},
		{m.ConversationID, m.SentAt, m.MessageID, m.SenderID, m.RecipientID, m.Body},
		{m.SenderID, m.SentAt, m.MessageID, m.ConversationID, m.RecipientID, m.Body},
		{m.RecipientID, m.SentAt, m.MessageID, m.ConversationID, m.SenderID, m.Body},
	}
}

func messages(prefix string) []model.Message {
	ms := make([]model.Message, 4096)
	for i := range ms {
		r := benchenv.Message(prefix, i)
		ms[i] = model.Message{MessageID: r.MessageID, ConversationID: r.ConversationID, SenderID: r.SenderID, RecipientID: r.RecipientID, SentAt: r.SentAt, Body: r.Body}
	}
	return ms
}

func fanOutImpls(b *testing.B, p peers) []benchenv.Impl {
	// An unlogged batch is refused before it is sent: the four tables have
	// four different partition keys, and an unlogged batch across
	// partitions has no batch log to finish it after a coordinator
	// failure. There is nothing to measure.
	m := messages("unlogged-")[0]
	if err := model.NewMessageRepo(p.cq, cqlgen.WithStrategy(cqlgen.UnloggedBatch)).Insert(ctx, &m); !errors.Is(err, cqlgen.ErrCrossPartition) {
		b.Fatalf("an unlogged batch over four partitions: got %v, want ErrCrossPartition", err)
	}

	logged := model.NewMessageRepo(p.cq) // LoggedBatch is the default
	concurrent := model.NewMessageRepo(p.cq, cqlgen.WithStrategy(cqlgen.Concurrent(4)))
	rawC, rawB, genC, genB := messages("gc-"), messages("gb-"), messages("cc-"), messages("cb-")
	return []benchenv.Impl{
		{Name: "gocql-concurrent", Op: func(i int) error {
			vals := fanOutValues(&rawC[i%len(rawC)])
			var wg sync.WaitGroup
			var errs [4]error
			for t := range fanOutStmts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[t] = p.s.Query(fanOutStmts[t], vals[t]...).Exec()
				}()
			}
			wg.Wait()
			return errors.Join(errs[:]...)
		}},
		{Name: "gocql-batch", Op: func(i int) error {
			vals := fanOutValues(&rawB[i%len(rawB)])
			batch := p.s.NewBatch(gocql.LoggedBatch)
			for t := range fanOutStmts {
				batch.Query(fanOutStmts[t], vals[t]...)
			}
			return p.s.ExecuteBatch(batch)
		}},
		{Name: "cqlgen-concurrent", Op: func(i int) error {
			return concurrent.Insert(ctx, &genC[i%len(genC)])
		}},
		{Name: "cqlgen-batch", Op: func(i int) error {
			return logged.Insert(ctx, &genB[i%len(genB)])
		}},
	}
}

func BenchmarkFanOut(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { run(b, warmCalls(), fanOutImpls(b, p)...) })
}

func BenchmarkFanOutPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { benchenv.Paired(b, warmCalls(), fanOutImpls(b, p)...) })
}
