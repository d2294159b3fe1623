package v2

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// base is the time the workloads' tickets open around, on a whole
// millisecond (Cassandra keeps timestamps to the millisecond).
var base = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// ticket is the i-th ticket of a workload: spread over 3 queues, 4
// owners, 2 boards and two days; every fifth unassigned, every fourth
// closed, so that the sparse table holds some and not others.
func ticket(i int) *v2model.Ticket {
	tk := &v2model.Ticket{
		TicketID: gocql.MustRandomUUID(),
		Queue:    fmt.Sprintf("q%d", i%3),
		Owner:    fmt.Sprintf("o%d", i%4),
		Board:    fmt.Sprintf("b%d", i%2),
		Assignee: fmt.Sprintf("a%d", i%3),
		Ref:      fmt.Sprintf("ref-%d", i),
		Status:   v2model.StatusOpen,
		OpenedAt: base.Add(time.Duration(i) * 37 * time.Minute),
		Subject:  fmt.Sprintf("subject %d", i),
		Sla:      gocql.Duration{Days: int32(i % 3), Nanoseconds: int64(i) * int64(time.Second)},
		Policy: v2model.Policy{Name: fmt.Sprint("policy ", i%2), Wait: time.Duration(i) * time.Minute,
			Labels: map[string]struct{}{"l" + fmt.Sprint(i%3): {}, "all": {}}},
	}
	if i%5 == 0 {
		tk.Assignee = ""
	}
	if i%4 == 3 {
		tk.Status = v2model.StatusClosed
	}
	return tk
}

// shardOf is the hash bucket of a ticket id in tickets_by_board, worked
// out here as docs/repositories.md specifies it (FNV-1a-32 of the uuid's
// 16 bytes, modulo 8), not by the runtime's code.
func shardOf(id gocql.UUID) int32 {
	h := fnv.New32a()
	h.Write(id[:])
	return int32(h.Sum32() % 8)
}

// tableQueries read every table of Ticket with plain gocql, each column
// the check compares.
var tableQueries = map[string]string{
	"tickets":                  "SELECT ticket_id, queue, owner, board, assignee, ref, status, opened_at, subject, edits, cqlgen_deleted FROM tickets",
	"tickets_by_queue":         "SELECT queue, opened_at, ticket_id, owner, subject, edits FROM tickets_by_queue",
	"tickets_by_owner":         "SELECT owner, ticket_id, queue, subject FROM tickets_by_owner",
	"tickets_by_board":         "SELECT board, shard, opened_at, ticket_id, subject FROM tickets_by_board",
	"tickets_by_day":           "SELECT queue, day, opened_at, ticket_id, subject FROM tickets_by_day",
	"open_tickets_by_assignee": "SELECT assignee, ticket_id, status, subject FROM open_tickets_by_assignee",
	"tickets_by_ref":           "SELECT ref, ticket_id FROM tickets_by_ref",
}

// expectedRows are the rows each table must hold for the live tickets:
// what the source of truth implies, worked out from the tickets
// themselves.
func expectedRows(live map[gocql.UUID]*v2model.Ticket) map[string][]string {
	want := map[string][]string{}
	add := func(table string, kv ...any) { want[table] = append(want[table], line(kv...)) }
	for _, tk := range live {
		add("tickets", "ticket_id", tk.TicketID, "queue", tk.Queue, "owner", tk.Owner, "board", tk.Board, "assignee", tk.Assignee,
			"ref", tk.Ref, "status", tk.Status, "opened_at", tk.OpenedAt, "subject", tk.Subject, "edits", tk.Edits, "cqlgen_deleted", false)
		add("tickets_by_queue", "queue", tk.Queue, "opened_at", tk.OpenedAt, "ticket_id", tk.TicketID, "owner", tk.Owner, "subject", tk.Subject, "edits", tk.Edits)
		add("tickets_by_owner", "owner", tk.Owner, "ticket_id", tk.TicketID, "queue", tk.Queue, "subject", tk.Subject)
		add("tickets_by_board", "board", tk.Board, "shard", shardOf(tk.TicketID), "opened_at", tk.OpenedAt, "ticket_id", tk.TicketID, "subject", tk.Subject)
		add("tickets_by_day", "queue", tk.Queue, "day", tk.OpenedAt.UTC().Truncate(24*time.Hour), "opened_at", tk.OpenedAt, "ticket_id", tk.TicketID, "subject", tk.Subject)
		if tk.Status == v2model.StatusOpen && tk.Assignee != "" {
			add("open_tickets_by_assignee", "assignee", tk.Assignee, "ticket_id", tk.TicketID, "status", tk.Status, "subject", tk.Subject)
		}
		add("tickets_by_ref", "ref", tk.Ref, "ticket_id", tk.TicketID)
	}
	for _, rs := range want {
		sort.Strings(rs)
	}
	return want
}

// checkTables reads every table of Ticket with plain gocql v1 and
// compares it, row for row, with what the live tickets imply: no row
// missing, none stale, no orphan. Graves (the deleted tickets' canonical
// rows) are not live rows.
func checkTables(t *testing.T, raw *gocqlv1.Session, live map[gocql.UUID]*v2model.Ticket, when string) {
	t.Helper()
	want := expectedRows(live)
	for table, cql := range tableQueries {
		got := slices.DeleteFunc(rows(t, raw, cql), func(r string) bool { return strings.HasSuffix(r, "cqlgen_deleted=true") })
		if !slices.Equal(got, want[table]) {
			t.Errorf("%s: %s holds %d rows, want %d:\n got %s\nwant %s", when, table, len(got), len(want[table]),
				strings.Join(diff(got, want[table]), "\n     "), strings.Join(diff(want[table], got), "\n     "))
		}
	}
}

// diff is what a holds and b does not.
func diff(a, b []string) []string {
	var out []string
	for _, r := range a {
		if !slices.Contains(b, r) {
			out = append(out, r)
		}
	}
	return out
}

// Insert, Update and Delete of an entity in seven tables (plain, hash
// bucketed, time bucketed, partial, sparse and unique), on the v2 driver:
// after each phase every table holds exactly what the source of truth
// implies, read with plain gocql. The updates change values only, move
// rows between partitions (a new queue, board or day), change the unique
// key, and make tickets enter and leave the sparse table; deletes are by
// key alone; each write under one of the three strategies. Verify then
// agrees that nothing drifted.
func TestFanOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	const n = 40
	// Each write fans out under one of the strategies: a logged batch, at
	// most 4 statements at once, or an unlogged batch, which the session
	// refuses (the tables' partitions differ, as the v2 adapter's routing
	// keys tell) before the write goes out statement by statement.
	strategies := []cqlgen.Option{cqlgen.WithStrategy(cqlgen.LoggedBatch), cqlgen.WithStrategy(cqlgen.Concurrent(4)), cqlgen.WithStrategy(cqlgen.UnloggedBatch)}
	live := map[gocql.UUID]*v2model.Ticket{}
	ids := make([]gocql.UUID, n)
	for i := range n {
		tk := ticket(i)
		must(t, repo.Insert(ctx, tk, strategies[i%3]))
		ids[i] = tk.TicketID
		live[tk.TicketID] = tk
	}
	checkTables(t, e.raw, live, "after the inserts")

	// Every other ticket changes; which of its columns depends on i.
	moved, entered, left := 0, 0, 0
	for i := 0; i < n; i += 2 {
		tk := *live[ids[i]]
		tk.Subject += " (edited)"
		tk.Edits++
		if i%6 == 0 {
			tk.Queue += "-moved" // a new partition in tickets_by_queue and tickets_by_day
			moved++
		}
		if i%8 == 0 {
			tk.Board = "b-other"                           // a new partition, and perhaps shard, in tickets_by_board
			tk.OpenedAt = tk.OpenedAt.Add(-50 * time.Hour) // another day bucket
		}
		if i%10 == 4 {
			tk.Ref += "-renamed" // the old claim given up, a new one made
		}
		was := tk.Status == v2model.StatusOpen && tk.Assignee != ""
		switch i % 5 {
		case 0: // unassigned until now: assigned, and open
			tk.Assignee, tk.Status = "a-new", v2model.StatusOpen
		case 1, 3:
			tk.Status = v2model.StatusClosed
		case 2:
			tk.Assignee = "a-other" // moves within the sparse table if it holds it
		}
		is := tk.Status == v2model.StatusOpen && tk.Assignee != ""
		if is && !was {
			entered++
		}
		if was && !is {
			left++
		}
		must(t, repo.Update(ctx, &tk, strategies[i/2%3]))
		live[tk.TicketID] = &tk
	}
	if moved == 0 || entered == 0 || left == 0 {
		t.Fatalf("the workload moved %d, entered %d, left %d: it must do each", moved, entered, left)
	}
	checkTables(t, e.raw, live, "after the updates")

	// Deletes by key alone: the other tables' keys come from the
	// canonical row, and the unique claims are given up.
	for i := 1; i < n; i += 3 {
		must(t, repo.Delete(ctx, &v2model.Ticket{TicketID: ids[i]}, strategies[i/3%3]))
		delete(live, ids[i])
	}
	checkTables(t, e.raw, live, "after the deletes")
	for i := 1; i < n; i += 3 {
		if _, err := repo.Get(ctx, ids[i]); err == nil {
			t.Errorf("ticket %d: Get found it after its Delete", i)
		}
	}

	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	if rep.Drift() != 0 || rep.Rows != int64(len(live)) {
		t.Errorf("verify: %d live rows, drift %d (%+v); want %d rows and none", rep.Rows, rep.Drift(), rep.Tables, len(live))
	}
	want := expectedRows(live)
	for _, tr := range rep.Tables {
		if w, ok := want[tr.Table]; !ok || tr.Expected != int64(len(w)) || tr.Present != int64(len(w)) {
			t.Errorf("verify of %s: expected %d, present %d; the table holds %d", tr.Table, tr.Expected, tr.Present, len(w))
		}
	}
}
