package v2

import (
	"context"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/integration/v2model"
)

// Verify on the v2 driver finds tables in step after a workload, then
// exactly the drift made by hand with plain gocql (a row missing from a
// plain table, a stale value in a hash-bucketed one, a row no ticket
// implies in a time-bucketed one, a claim no ticket holds); Repair
// leaves none, and every table holds what the tickets imply; a backfill
// fills a table emptied by hand, and run again under its job does
// nothing.
func TestVerifyAndRepair(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	const n = 60
	live := map[gocql.UUID]*v2model.Ticket{}
	var ids []gocql.UUID
	for i := range n {
		tk := ticket(i)
		must(t, repo.Insert(ctx, tk))
		live[tk.TicketID] = tk
		ids = append(ids, tk.TicketID)
	}
	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	if rep.Drift() != 0 || rep.Rows != n {
		t.Fatalf("verify after the inserts: %d rows, drift %d: %+v", rep.Rows, rep.Drift(), rep.Tables)
	}

	// The drift, by hand, through the v1 session.
	a, b := live[ids[1]], live[ids[2]]
	must(t, e.raw.Query("DELETE FROM tickets_by_owner WHERE owner = ? AND ticket_id = ?", a.Owner, a.TicketID.String()).Exec())
	must(t, e.raw.Query("UPDATE tickets_by_board SET subject = 'tampered' WHERE board = ? AND shard = ? AND opened_at = ? AND ticket_id = ?",
		b.Board, shardOf(b.TicketID), b.OpenedAt, b.TicketID.String()).Exec())
	ghost := gocql.MustRandomUUID().String()
	ghostAt := time.Date(2026, 11, 3, 4, 5, 6, 0, time.UTC)
	must(t, e.raw.Query("INSERT INTO tickets_by_day (queue, day, opened_at, ticket_id, subject) VALUES ('q0', ?, ?, ?, 'ghost') USING TIMESTAMP 1000",
		ghostAt.Truncate(24*time.Hour), ghostAt, ghost).Exec())
	must(t, e.raw.Query("INSERT INTO tickets_by_ref (ref, ticket_id, cqlgen_claim) VALUES ('EXT-ghost', ?, 1) IF NOT EXISTS", ghost).Exec())

	rep, err = repo.Verify(ctx, nil)
	must(t, err)
	want := map[string][3]int64{ // missing, stale, orphans
		"tickets_by_owner": {1, 0, 0},
		"tickets_by_board": {0, 1, 0},
		"tickets_by_day":   {0, 0, 1},
		"tickets_by_ref":   {0, 0, 1},
	}
	for _, tr := range rep.Tables {
		w := want[tr.Table]
		if tr.Missing != w[0] || tr.Stale != w[1] || tr.Orphans != w[2] {
			t.Errorf("verify of %s: missing %d, stale %d, orphans %d; want %v (%+v)", tr.Table, tr.Missing, tr.Stale, tr.Orphans, w, tr)
		}
	}
	if rep.Drift() != 4 {
		t.Errorf("verify found drift %d, want 4", rep.Drift())
	}

	rep, err = repo.Repair(ctx, nil)
	must(t, err)
	var inserted, deleted int64
	for _, tr := range rep.Tables {
		inserted += tr.Inserted
		deleted += tr.Deleted
	}
	if inserted != 2 || deleted != 2 {
		t.Errorf("repair wrote %d rows and deleted %d; want 2 and 2 (%+v)", inserted, deleted, rep.Tables)
	}
	rep, err = repo.Verify(ctx, &cqlmaintain.Options{Ranges: 16})
	must(t, err)
	if rep.Drift() != 0 {
		t.Errorf("verify after repair: drift %d: %+v", rep.Drift(), rep.Tables)
	}
	checkTables(t, e.raw, live, "after repair")

	// A table emptied by hand is written again by a backfill, which
	// records its progress under the job's name.
	must(t, e.raw.Query("TRUNCATE tickets_by_board").Exec())
	rep, err = repo.Backfill(ctx, "tickets_by_board", &cqlmaintain.Options{Job: "board-again", Ranges: 8})
	must(t, err)
	if len(rep.Tables) != 1 || rep.Tables[0].Inserted != n {
		t.Errorf("backfill of tickets_by_board: %+v, want %d rows written", rep.Tables, n)
	}
	checkTables(t, e.raw, live, "after the backfill")
	if done := rows(t, e.raw, "SELECT job, range_index FROM cqlgen_progress"); len(done) != 8 {
		t.Errorf("the backfill recorded %d of 8 ranges done: %v", len(done), done)
	}
	// Run again under its job, it finds every range done and writes
	// nothing.
	rep, err = repo.Backfill(ctx, "tickets_by_board", &cqlmaintain.Options{Job: "board-again", Ranges: 8})
	must(t, err)
	if len(rep.Tables) != 1 || rep.Tables[0].Inserted != 0 {
		t.Errorf("the backfill run again: %+v, want nothing written", rep.Tables)
	}
}

// The immutable entity on v2: Insert writes both tables (the second
// bucketed by the month of a v2 timeuuid), reads page newest first
// across months, Delete by key removes both rows, and Verify agrees.
func TestImmutableEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewEventRepo(e.s)
	tk := gocql.MustRandomUUID()
	var all []*v2model.Event
	for i := range 9 {
		// Three months, three events each, a timeuuid of its time.
		at := time.Date(2026, time.Month(9+i/3), 10+i, 12, 0, 0, 0, time.UTC)
		ev := &v2model.Event{TicketID: tk, EventID: gocql.UUIDFromTime(at), Actor: "ann", Kind: "edit"}
		must(t, repo.Insert(ctx, ev))
		all = append(all, ev)
	}
	// Newest first, across the months, four at a time.
	var got []string
	cursor := ""
	for {
		p, err := repo.EventsByActor(ctx, "ann", &v2model.EventsByActorOptions{Limit: 4, Cursor: cursor,
			Start: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), LookBack: 3})
		must(t, err)
		for _, ev := range p.Rows {
			got = append(got, ev.EventID.String())
		}
		if cursor = p.Cursor; cursor == "" {
			break
		}
	}
	var want []string
	for i := len(all) - 1; i >= 0; i-- {
		want = append(want, all[i].EventID.String())
	}
	if len(got) != len(want) {
		t.Fatalf("EventsByActor read %d events, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("EventsByActor order: %v, want %v", got, want)
		}
	}
	if n := len(rows(t, e.raw, "SELECT bucket FROM events_by_actor")); n != 9 {
		t.Errorf("events_by_actor holds %d rows, want 9", n)
	}
	if bs := rows(t, e.raw, "SELECT DISTINCT actor, bucket FROM events_by_actor"); len(bs) != 3 {
		t.Errorf("events_by_actor has partitions %v, want one a month for three months", bs)
	}

	must(t, repo.Delete(ctx, &v2model.Event{TicketID: tk, EventID: all[4].EventID}))
	for _, q := range []string{"SELECT event_id FROM events", "SELECT event_id FROM events_by_actor"} {
		rs := rows(t, e.raw, q)
		if len(rs) != 8 {
			t.Errorf("%s: %d rows after a Delete, want 8", q, len(rs))
		}
		for _, r := range rs {
			if r == line("event_id", all[4].EventID) {
				t.Errorf("%s: the deleted event is still there", q)
			}
		}
	}
	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	if rep.Drift() != 0 || rep.Rows != 8 {
		t.Errorf("verify: %d rows, drift %d: %+v", rep.Rows, rep.Drift(), rep.Tables)
	}
}
