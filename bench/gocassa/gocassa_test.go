// Package gocassa_test runs the workloads gocassa shares with cqlgen
// (insert, get, a page of rows, fan-out to four tables) with gocassa
// v1.2.0, next to raw gocql of the same version, v1.0.0: gocassa compiles
// with no later gocql, so it cannot share a binary, or a session, with
// cqlgen. The data, the schema and the cluster settings are the same as
// the main benchmarks'; see ../README.md.
package gocassa_test

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/hailocab/gocassa"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	os.Exit(code)
}

var shared = &benchenv.Shared{Prefix: "cqlgen_bench_gocassa", Schema: schema(), Load: load}

// schema is the main benchmarks' generated schema.cql: the model package
// itself cannot be imported here, as it needs gocql v1.7.0.
func schema() string {
	b, err := os.ReadFile("../model/schema.cql")
	if err != nil {
		panic(err)
	}
	return string(b)
}

var nUsers int

func load(e *benchenv.Env, small bool) error {
	s := e.Session(benchenv.Coalescing[0])
	nUsers = benchenv.Users
	events := benchenv.Events
	if small {
		nUsers, events = benchenv.SmallUsers, benchenv.SmallEvents
	}
	if err := benchenv.LoadUsers(s, nUsers); err != nil {
		return err
	}
	return benchenv.LoadEvents(s, benchenv.Stream, events)
}

// The entities as gocassa maps them: by `cql` tags.
type (
	user struct {
		UserID    string    `cql:"user_id"`
		Name      string    `cql:"name"`
		Email     string    `cql:"email"`
		Country   string    `cql:"country"`
		Age       int32     `cql:"age"`
		Score     int64     `cql:"score"`
		CreatedAt time.Time `cql:"created_at"`
	}
	event struct {
		StreamID string    `cql:"stream_id"`
		At       time.Time `cql:"at"`
		EventID  string    `cql:"event_id"`
		Kind     string    `cql:"kind"`
		Payload  string    `cql:"payload"`
		Value    float64   `cql:"value"`
	}
	message struct {
		MessageID      string    `cql:"message_id"`
		ConversationID string    `cql:"conversation_id"`
		SenderID       string    `cql:"sender_id"`
		RecipientID    string    `cql:"recipient_id"`
		SentAt         time.Time `cql:"sent_at"`
		Body           string    `cql:"body"`
	}
)

func toUser(r benchenv.UserRow) user {
	return user{UserID: r.UserID, Name: r.Name, Email: r.Email, Country: r.Country, Age: r.Age, Score: r.Score, CreatedAt: r.CreatedAt}
}

// peers are one coalescing setting's session and gocassa's tables on it,
// named as the schema names them (gocassa's own names carry their keys).
type peers struct {
	s                                       *gocql.Session
	users, events                           gocassa.Table
	messages, byConv, bySender, byRecipient gocassa.Table
}

func newPeers(e *benchenv.Env, s *gocql.Session) peers {
	ks := gocassa.NewConnection(gocassa.GoCQLSessionToQueryExecutor(s)).KeySpace(e.Keyspace)
	table := func(name string, row any, pk string, ck ...string) gocassa.Table {
		return ks.Table(name, row, gocassa.Keys{PartitionKeys: []string{pk}, ClusteringColumns: ck}).
			WithOptions(gocassa.Options{TableName: name})
	}
	return peers{
		s:           s,
		users:       table("users", &user{}, "user_id"),
		events:      table("events_by_stream", &event{}, "stream_id", "at", "event_id"),
		messages:    table("messages", &message{}, "message_id"),
		byConv:      table("messages_by_conversation", &message{}, "conversation_id", "sent_at", "message_id"),
		bySender:    table("messages_by_sender", &message{}, "sender_id", "sent_at", "message_id"),
		byRecipient: table("messages_by_recipient", &message{}, "recipient_id", "sent_at", "message_id"),
	}
}

func eachCoalescing(b *testing.B, f func(b *testing.B, p peers)) {
	env := shared.Get(b)
	for _, c := range benchenv.Coalescing {
		b.Run(c.Name, func(b *testing.B) { f(b, newPeers(env, env.Session(c))) })
	}
}

func run(b *testing.B, warm int, impls ...benchenv.Impl) {
	for _, im := range impls {
		b.Run("impl="+im.Name, func(b *testing.B) { benchenv.Measure(b, warm, im.Op) })
	}
}

// warmCalls is as in the main benchmarks; gocassa's writes get more (warm).
func warmCalls() int {
	if benchenv.Small() {
		return 2
	}
	return 200
}

// gocassa writes a row as an UPDATE whose SET clause lists the columns in
// Go's map order, which changes from call to call: each new order is a new
// statement for gocql to prepare, a round trip the first time a session
// sees it. The six non-key columns of users have 720 orders; 3000 calls
// prepare all but about 1.5% of them (of messages' five, 120 orders, 1000
// calls nearly all), so that the measurement sees gocassa's steady state
// rather than its warm-up.
const (
	usersWarm    = 3000
	messagesWarm = 1000
)

const (
	rawImpl    = "gocql-v1.0.0"
	insertUser = "INSERT INTO users (user_id, name, email, country, age, score, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
	getUser    = "SELECT user_id, name, email, country, age, score, created_at FROM users WHERE user_id = ?"
	selectPage = "SELECT stream_id, at, event_id, kind, payload, value FROM events_by_stream WHERE stream_id = ?"
)

func ring(prefix string) []user {
	us := make([]user, 1024)
	for i := range us {
		us[i] = toUser(benchenv.User(prefix, i))
	}
	return us
}

func insertImpls(p peers) []benchenv.Impl {
	raw, gc := ring("ins-gocql-"), ring("ins-gocassa-")
	return []benchenv.Impl{
		{Name: rawImpl, Op: func(i int) error {
			u := &raw[i%len(raw)]
			return p.s.Query(insertUser, u.UserID, u.Name, u.Email, u.Country, u.Age, u.Score, u.CreatedAt).Exec()
		}},
		{Name: "gocassa", Op: func(i int) error { return p.users.Set(gc[i%len(gc)]).Run() }},
	}
}

func BenchmarkInsert(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		warm(b, p, insertImpls(p)[1], usersWarm)
		run(b, warmCalls(), insertImpls(p)...)
	})
}

func BenchmarkInsertPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		warm(b, p, insertImpls(p)[1], usersWarm)
		benchenv.Paired(b, warmCalls(), insertImpls(p)...)
	})
}

// warmed records the gocassa writes already warmed up, by session and
// impl: gocql keeps its prepared statements per session.
var warmed = map[string]bool{}

// warm runs gocassa's writes until most of their statements are
// prepared, once per session.
func warm(b *testing.B, p peers, im benchenv.Impl, calls int) {
	key := fmt.Sprintf("%p/%s", p.s, im.Name)
	if warmed[key] {
		return
	}
	if benchenv.Small() {
		calls = 2
	}
	for i := range calls {
		if err := im.Op(i); err != nil {
			b.Fatalf("%s: warm-up: %v", im.Name, err)
		}
	}
	warmed[key] = true
}

func getImpls(p peers) []benchenv.Impl {
	keys := make([]string, nUsers)
	for i := range keys {
		keys[i] = benchenv.UserKey(i, nUsers)
	}
	check := func(got, want string, err error) error {
		if err == nil && got != want {
			err = fmt.Errorf("got user %q, want %q", got, want)
		}
		return err
	}
	return []benchenv.Impl{
		{Name: rawImpl, Op: func(i int) error {
			key := keys[i%len(keys)]
			var u user
			err := p.s.Query(getUser, key).Scan(&u.UserID, &u.Name, &u.Email, &u.Country, &u.Age, &u.Score, &u.CreatedAt)
			return check(u.UserID, key, err)
		}},
		{Name: "gocassa", Op: func(i int) error {
			key := keys[i%len(keys)]
			var u user
			err := p.users.Where(gocassa.Eq("user_id", key)).ReadOne(&u).Run()
			return check(u.UserID, key, err)
		}},
	}
}

func BenchmarkGet(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { run(b, warmCalls(), getImpls(p)...) })
}

func BenchmarkGetPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { benchenv.Paired(b, warmCalls(), getImpls(p)...) })
}

func pageImpls(p peers) []benchenv.Impl {
	want := func(n int, err error) error {
		if err == nil && n != benchenv.PageRows {
			err = fmt.Errorf("%d rows, want %d", n, benchenv.PageRows)
		}
		return err
	}
	return []benchenv.Impl{
		{Name: rawImpl, Op: func(int) error {
			it := p.s.Query(selectPage, benchenv.Stream).PageSize(benchenv.PageRows).PageState(nil).Iter()
			var rows []event
			var e event
			for it.Scan(&e.StreamID, &e.At, &e.EventID, &e.Kind, &e.Payload, &e.Value) {
				rows = append(rows, e)
			}
			return want(len(rows), it.Close())
		}},
		{Name: "gocassa", Op: func(int) error {
			// gocassa has no paging: a LIMIT is as near as it gets.
			var rows []event
			err := p.events.Where(gocassa.Eq("stream_id", benchenv.Stream)).Read(&rows).WithOptions(gocassa.Options{Limit: benchenv.PageRows}).Run()
			return want(len(rows), err)
		}},
	}
}

func BenchmarkPage(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { run(b, warmCalls(), pageImpls(p)...) })
}

func BenchmarkPagePaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { benchenv.Paired(b, warmCalls(), pageImpls(p)...) })
}

var fanOutStmts = [4]string{
	"INSERT INTO messages (message_id, conversation_id, sender_id, recipient_id, sent_at, body) VALUES (?, ?, ?, ?, ?, ?)",
	"INSERT INTO messages_by_conversation (conversation_id, sent_at, message_id, sender_id, recipient_id, body) VALUES (?, ?, ?, ?, ?, ?)",
	"INSERT INTO messages_by_sender (sender_id, sent_at, message_id, conversation_id, recipient_id, body) VALUES (?, ?, ?, ?, ?, ?)",
	"INSERT INTO messages_by_recipient (recipient_id, sent_at, message_id, conversation_id, sender_id, body) VALUES (?, ?, ?, ?, ?, ?)",
}

func messages(prefix string) []message {
	ms := make([]message, 4096)
	for i := range ms {
		r := benchenv.Message(prefix, i)
		ms[i] = message{MessageID: r.MessageID, ConversationID: r.ConversationID, SenderID: r.SenderID, RecipientID: r.RecipientID, SentAt: r.SentAt, Body: r.Body}
	}
	return ms
}

func fanOutImpls(p peers) []benchenv.Impl {
	rawC, gcRun, gcAtomic := messages("gc-"), messages("gr-"), messages("ga-")
	op := func(m message) gocassa.Op {
		return p.messages.Set(m).Add(p.byConv.Set(m), p.bySender.Set(m), p.byRecipient.Set(m))
	}
	return []benchenv.Impl{
		{Name: rawImpl + "-concurrent", Op: func(i int) error {
			m := &rawC[i%len(rawC)]
			vals := [4][]any{
				{m.MessageID, m.ConversationID, m.SenderID, m.RecipientID, m.SentAt, m.Body},
				{m.ConversationID, m.SentAt, m.MessageID, m.SenderID, m.RecipientID, m.Body},
				{m.SenderID, m.SentAt, m.MessageID, m.ConversationID, m.RecipientID, m.Body},
				{m.RecipientID, m.SentAt, m.MessageID, m.ConversationID, m.SenderID, m.Body},
			}
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
		// Run runs a multi-op's statements one after the other.
		{Name: "gocassa-multiop", Op: func(i int) error { return op(gcRun[i%len(gcRun)]).Run() }},
		// RunAtomically sends them as one logged batch.
		{Name: "gocassa-batch", Op: func(i int) error { return op(gcAtomic[i%len(gcAtomic)]).RunAtomically() }},
	}
}

func BenchmarkFanOut(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		im := fanOutImpls(p)
		warm(b, p, im[1], messagesWarm)
		warm(b, p, im[2], messagesWarm)
		run(b, warmCalls(), im...)
	})
}

func BenchmarkFanOutPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		im := fanOutImpls(p)
		warm(b, p, im[1], messagesWarm)
		warm(b, p, im[2], messagesWarm)
		benchenv.Paired(b, warmCalls(), im...)
	})
}
