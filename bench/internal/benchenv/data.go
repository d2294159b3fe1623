package benchenv

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// Epoch is the time the data sets start at; whole milliseconds, as
// Cassandra stores timestamps, so rows read back equal rows written.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Sizes of the data sets, and their smoke-run sizes.
const (
	Users       = 1024
	SmallUsers  = 64
	Events      = 1000 // rows of the one stream read a page at a time
	SmallEvents = 150  // still more than a page, so every read returns a cursor
	// Stream is the partition key of the events read a page at a time.
	Stream = "stream-1"
	// PageRows is the page size of the page reads.
	PageRows = 100
)

// UserRow is the data of one user, for the peers to put in their own
// types.
type UserRow struct {
	UserID, Name, Email, Country string
	Age                          int32
	Score                        int64
	CreatedAt                    time.Time
}

var countries = []string{"FR", "DE", "US", "JP", "BR", "IN", "NG", "CA"}

// User is the i-th user, with an id made of prefix and i.
func User(prefix string, i int) UserRow {
	return UserRow{
		UserID:    fmt.Sprintf("%s%06d", prefix, i),
		Name:      fmt.Sprintf("User Number %d", i),
		Email:     fmt.Sprintf("user%d@example.com", i),
		Country:   countries[i%len(countries)],
		Age:       int32(18 + i%60),
		Score:     int64(i) * 37,
		CreatedAt: Epoch.Add(time.Duration(i) * time.Second),
	}
}

// UserKey is the id of the i-th stored user, of those LoadUsers wrote.
func UserKey(i, n int) string { return fmt.Sprintf("u-%06d", i%n) }

// EventRow is the data of one event.
type EventRow struct {
	StreamID      string
	At            time.Time
	EventID       string
	Kind, Payload string
	Value         float64
}

var kinds = []string{"click", "view", "purchase", "share"}

// Event is the i-th event of a stream, at i seconds after Epoch.
func Event(stream string, i int) EventRow {
	return EventRow{
		StreamID: stream,
		At:       Epoch.Add(time.Duration(i) * time.Second),
		EventID:  fmt.Sprintf("ev-%06d", i),
		Kind:     kinds[i%len(kinds)],
		Payload:  strings.Repeat(string(rune('a'+i%26)), 64),
		Value:    float64(i) * 1.5,
	}
}

// MessageRow is the data of one message.
type MessageRow struct {
	MessageID, ConversationID, SenderID, RecipientID string
	SentAt                                           time.Time
	Body                                             string
}

// Message is the i-th message with ids made of prefix and i: each write
// goes to new partitions of every table but the conversation's, shared by
// 16 messages.
func Message(prefix string, i int) MessageRow {
	return MessageRow{
		MessageID:      fmt.Sprintf("%sm-%07d", prefix, i),
		ConversationID: fmt.Sprintf("%sc-%05d", prefix, i/16),
		SenderID:       fmt.Sprintf("%ss-%05d", prefix, i%997),
		RecipientID:    fmt.Sprintf("%sr-%05d", prefix, i%991),
		SentAt:         Epoch.Add(time.Duration(i) * time.Millisecond),
		Body:           "Hello there, this is message number " + fmt.Sprint(i) + " of the benchmark.",
	}
}

// LoadUsers writes n users, u-000000 on, into users.
func LoadUsers(s *gocql.Session, n int) error {
	const stmt = "INSERT INTO users (user_id, name, email, country, age, score, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
	return Parallel(n, 16, func(i int) error {
		u := User("u-", i)
		return s.Query(stmt, u.UserID, u.Name, u.Email, u.Country, u.Age, u.Score, u.CreatedAt).Exec()
	})
}

// LoadEvents writes n events of one stream, in unlogged batches of one
// partition.
func LoadEvents(s *gocql.Session, stream string, n int) error {
	const stmt = "INSERT INTO events_by_stream (stream_id, at, event_id, kind, payload, value) VALUES (?, ?, ?, ?, ?, ?)"
	const per = 50
	return Parallel((n+per-1)/per, 8, func(k int) error {
		b := s.NewBatch(gocql.UnloggedBatch)
		for i := k * per; i < min(n, (k+1)*per); i++ {
			e := Event(stream, i)
			b.Query(stmt, e.StreamID, e.At, e.EventID, e.Kind, e.Payload, e.Value)
		}
		return s.ExecuteBatch(b)
	})
}

// Parallel runs f(0) to f(n-1), at most limit at once, and returns the
// first error.
func Parallel(n, limit int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, limit)
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}
