package integration

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Immutable entities and counters go through their description
// (cqlgenimpl.NewEntity), which derives every statement's binds from the
// tables' descriptions: on the node, an immutable entity's Insert writes
// each table's row at the clock's timestamp, its Delete, given the key
// alone, removes every row, bucketed tables included, and each write is
// one call that a CallObserver sees once.
func TestImmutableAndCountersThroughTheirDescription(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	raw, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, messaging.Schema)
	cassandratest.MustApplyCQL(t, raw, helpdesk.Schema)
	s := gocqlv1.NewSession(raw, &cqlgen.SessionOptions{Observer: rec})
	ctx := context.Background()
	at := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC) // a Thursday
	now := at.Add(time.Hour)
	clock := cqlgen.WithClock(func() time.Time { return now })

	writetime := func(q string, args ...any) (int64, bool) {
		t.Helper()
		var wt int64
		err := raw.Query(q, args...).Scan(&wt)
		if errors.Is(err, gocql.ErrNotFound) {
			return 0, false
		}
		must(t, err)
		return wt, true
	}

	// Message: two tables, neither bucketed.
	msgs := messaging.NewMessageRepo(s, clock)
	id := gocql.TimeUUID()
	m := &messaging.Message{ConversationID: "c1", MessageID: id, UserID: "ada", SentAt: at, Text: "hello"}
	must(t, msgs.Insert(ctx, m))
	for _, q := range []string{
		"SELECT writetime(text) FROM messages_by_conversation WHERE conversation_id = 'c1' AND sent_at = ? AND message_id = ?",
		"SELECT writetime(text) FROM messages_by_user WHERE user_id = 'ada' AND sent_at = ? AND message_id = ?",
	} {
		if wt, ok := writetime(q, at, id); !ok || wt != now.UnixMicro() {
			t.Errorf("%s: written at %d (found %v); want %d", q, wt, ok, now.UnixMicro())
		}
	}
	must(t, msgs.Delete(ctx, &messaging.Message{ConversationID: "c1", SentAt: at, MessageID: id}))
	if p, err := msgs.MessagesByUser(ctx, "ada", nil); err != nil || len(p.Rows) != 0 {
		t.Errorf("messages_by_user after Delete: %+v, %v; want no row", p.Rows, err)
	}
	if _, err := msgs.Get(ctx, "c1", at, id); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after Delete: %v; want ErrNotFound", err)
	}

	// TimeEntry: its source of truth a partition a week from Sunday, its
	// copy a partition a fortnight: the buckets are the runtime's, from
	// the descriptions.
	entries := helpdesk.NewTimeEntryRepo(s, clock)
	eid, tid := gocql.TimeUUID(), gocql.TimeUUID()
	te := &helpdesk.TimeEntry{OrgID: "acme", AgentID: "ann", LoggedAt: at, EntryID: eid, TicketID: tid, Spent: 90 * time.Minute}
	must(t, entries.Insert(ctx, te))
	week := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC) // the Sunday before
	if wt, ok := writetime("SELECT writetime(spent) FROM time_entries WHERE org_id = 'acme' AND agent_id = 'ann' AND week_start = ? AND logged_at = ? AND entry_id = ?", week, at, eid); !ok || wt != now.UnixMicro() {
		t.Errorf("time_entries: the row of week %s written at %d (found %v); want %d", week.Format(time.DateOnly), wt, ok, now.UnixMicro())
	}
	p, err := entries.PayPeriodEntries(ctx, "acme", "ann", &helpdesk.PayPeriodEntriesOptions{Start: at})
	must(t, err)
	if len(p.Rows) != 1 || p.Rows[0].Spent != te.Spent || p.Rows[0].TicketID != tid {
		t.Errorf("PayPeriodEntries: %+v; want the entry", p.Rows)
	}
	rep, err := entries.Verify(ctx, nil)
	must(t, err)
	if rep.Rows != 1 || rep.Tables[0].Missing+rep.Tables[0].Stale+rep.Tables[0].Orphans != 0 {
		t.Errorf("Verify: %+v; want one entry, every table in step", rep)
	}
	must(t, entries.Delete(ctx, &helpdesk.TimeEntry{OrgID: "acme", AgentID: "ann", LoggedAt: at, EntryID: eid}))
	if p, err := entries.PayPeriodEntries(ctx, "acme", "ann", &helpdesk.PayPeriodEntriesOptions{Start: at}); err != nil || len(p.Rows) != 0 {
		t.Errorf("PayPeriodEntries after Delete: %+v, %v; want none", p.Rows, err)
	}
	if _, ok := writetime("SELECT writetime(spent) FROM time_entries WHERE org_id = 'acme' AND agent_id = 'ann' AND week_start = ? AND logged_at = ? AND entry_id = ?", week, at, eid); ok {
		t.Error("time_entries keeps the row after Delete")
	}

	// A counter table: Add's amounts go to the counters, by name.
	loads := helpdesk.NewAgentLoadRepo(s)
	must(t, loads.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann", Opened: 3, Closed: 1}))
	must(t, loads.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann", Opened: 1}))
	var opened, closed int64
	must(t, raw.Query("SELECT opened, closed FROM agent_load WHERE org_id = 'acme' AND agent_id = 'ann'").Scan(&opened, &closed))
	if opened != 4 || closed != 1 {
		t.Errorf("agent_load holds opened %d, closed %d; want 4, 1", opened, closed)
	}
	must(t, loads.Delete(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann"}))
	if _, err := loads.Get(ctx, "acme", "ann"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after Delete: %v; want ErrNotFound", err)
	}

	// One record a call, named by the entity and the method.
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var calls []string
	for _, c := range rec.calls {
		calls = append(calls, c.Call.String())
		if c.Err != nil && c.Method != "Get" { // the Gets after Delete find nothing
			t.Errorf("%v ended with %v", c.Call, c.Err)
		}
	}
	for _, want := range []string{"Message.Insert", "Message.Delete", "TimeEntry.Insert", "TimeEntry.Delete", "AgentLoad.Add", "AgentLoad.Delete"} {
		n := 0
		for _, c := range calls {
			if c == want {
				n++
			}
		}
		if w := map[bool]int{true: 2, false: 1}[want == "AgentLoad.Add"]; n != w {
			t.Errorf("the observer saw %s %d times; want %d (calls: %v)", want, n, w, calls)
		}
	}
	if len(rec.mismatch) > 0 {
		t.Errorf("observations outside their call: %v", rec.mismatch)
	}
	if !slices.Contains(calls, "TimeEntry.Verify") {
		t.Errorf("calls %v lack TimeEntry.Verify", calls)
	}
}
