package v2

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// Unique claims on the v2 driver: a reference another ticket holds is a
// *cqlgen.UniqueConflictError and nothing of the loser is written; a new
// reference gives the old one up, which another ticket can then take;
// a Delete gives its reference up too.
func TestUniqueClaims(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	a, b := ticket(1), ticket(2)
	a.Ref, b.Ref = "EXT-1", "EXT-1"
	must(t, repo.Insert(ctx, a))

	err := repo.Insert(ctx, b)
	var conflict *cqlgen.UniqueConflictError
	if !errors.As(err, &conflict) || !errors.Is(err, cqlgen.ErrNotApplied) || conflict.Table != "tickets_by_ref" || !slices.Equal(conflict.Columns, []string{"ref"}) {
		t.Fatalf("a second ticket with EXT-1: %v; want a *cqlgen.UniqueConflictError on tickets_by_ref (ref)", err)
	}
	if _, err := repo.Get(ctx, b.TicketID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("the losing ticket was written: %v", err)
	}
	if got := rows(t, e.raw, "SELECT ticket_id FROM tickets_by_queue WHERE queue = ?", b.Queue); slices.Contains(got, line("ticket_id", b.TicketID)) {
		t.Error("the losing ticket has a row in tickets_by_queue")
	}
	owner, err := repo.TicketByRef(ctx, "EXT-1")
	if err != nil || owner.TicketID != a.TicketID {
		t.Fatalf("TicketByRef(EXT-1): %+v, %v; want ticket a", owner, err)
	}

	// a moves to EXT-2: EXT-1 is free for b.
	a.Ref = "EXT-2"
	must(t, repo.Update(ctx, a))
	must(t, repo.Insert(ctx, b))
	for ref, want := range map[string]gocql.UUID{"EXT-1": b.TicketID, "EXT-2": a.TicketID} {
		if got, err := repo.TicketByRef(ctx, ref); err != nil || got.TicketID != want {
			t.Errorf("TicketByRef(%s): %+v, %v; want %v", ref, got, err, want)
		}
	}
	// And a takes nothing from b.
	a.Ref = "EXT-1"
	if err := repo.Update(ctx, a); !errors.As(err, &conflict) {
		t.Errorf("a taking b's EXT-1: %v, want a conflict", err)
	}

	// Deleting b frees EXT-1; the claims table then holds only a's.
	must(t, repo.Delete(ctx, &v2model.Ticket{TicketID: b.TicketID}))
	if _, err := repo.TicketByRef(ctx, "EXT-1"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("TicketByRef(EXT-1) after b's Delete: %v, want ErrNotFound", err)
	}
	if got, want := rows(t, e.raw, "SELECT ref, ticket_id FROM tickets_by_ref"), []string{line("ref", "EXT-2", "ticket_id", a.TicketID)}; !slices.Equal(got, want) {
		t.Errorf("tickets_by_ref holds %v, want %v", got, want)
	}
}

// A ticket enters the sparse table of open, assigned tickets when it is
// assigned, moves when it is reassigned, leaves when it is closed and
// enters again when it is reopened: read through the repository and with
// plain gocql.
func TestSparseEnterAndLeave(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	tk := ticket(0) // unassigned
	if tk.Assignee != "" {
		t.Fatal("ticket 0 is assigned")
	}
	must(t, repo.Insert(ctx, tk))
	holds := func(when string, want map[string]bool) {
		t.Helper()
		for assignee, in := range want {
			p, err := repo.OpenTicketsByAssignee(ctx, assignee, nil)
			must(t, err)
			got := len(p.Rows) == 1 && p.Rows[0].TicketID == tk.TicketID && p.Rows[0].Status == v2model.StatusOpen
			if got != in || len(p.Rows) > 1 {
				t.Errorf("%s: %s's open tickets: %+v; want the ticket: %v", when, assignee, p.Rows, in)
			}
		}
		var all []string
		for assignee, in := range want {
			if in {
				all = append(all, line("assignee", assignee, "ticket_id", tk.TicketID))
			}
		}
		if got := rows(t, e.raw, "SELECT assignee, ticket_id FROM open_tickets_by_assignee"); !slices.Equal(got, all) {
			t.Errorf("%s: open_tickets_by_assignee holds %v, want %v", when, got, all)
		}
	}
	holds("unassigned", map[string]bool{"ann": false})
	tk.Assignee = "ann"
	must(t, repo.Update(ctx, tk))
	holds("assigned to ann", map[string]bool{"ann": true})
	tk.Assignee = "bob"
	must(t, repo.Update(ctx, tk))
	holds("reassigned to bob", map[string]bool{"ann": false, "bob": true})
	tk.Status = v2model.StatusClosed
	must(t, repo.Update(ctx, tk))
	holds("closed", map[string]bool{"bob": false})
	got, err := repo.Modify(ctx, tk.TicketID, func(k *v2model.Ticket) error { k.Status = v2model.StatusOpen; return nil })
	must(t, err)
	if got.Status != v2model.StatusOpen {
		t.Errorf("Modify returned %+v", got)
	}
	holds("reopened", map[string]bool{"bob": true})
	must(t, repo.Delete(ctx, &v2model.Ticket{TicketID: tk.TicketID}))
	holds("deleted", map[string]bool{"bob": false})
}

// Counters keyed by a v2 UUID: concurrent Adds sum exactly, a negative
// amount takes back, an idempotency key is refused before anything is
// sent, and Delete removes the row.
func TestCounters(t *testing.T) {
	t.Parallel()
	onBoth(t, testCounters)
}

func testCounters(t *testing.T, e *env) {
	ctx := context.Background()
	repo := v2model.NewQueueLoadRepo(e.s)
	q := gocql.MustRandomUUID()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				if err := repo.Add(ctx, &v2model.QueueLoad{QueueID: q, Opened: 1, Closed: 2}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Add: %v", err)
	}
	must(t, repo.Add(ctx, &v2model.QueueLoad{QueueID: q, Closed: -50}))
	got, err := repo.Get(ctx, q)
	must(t, err)
	if got.Opened != workers*each || got.Closed != 2*workers*each-50 {
		t.Errorf("after %d Adds: opened %d, closed %d; want %d, %d", workers*each, got.Opened, got.Closed, workers*each, 2*workers*each-50)
	}
	if mem, ok := e.s.(*cqltest.Session); ok {
		// The table as cqltest holds it, read without the repository.
		rs, err := mem.Rows("queue_load")
		must(t, err)
		if len(rs) != 1 || rs[0]["queue_id"] != [16]byte(q) || rs[0]["opened"] != int64(workers*each) || rs[0]["closed"] != int64(2*workers*each-50) {
			t.Errorf("queue_load holds %v", rs)
		}
	} else if got, want := rows(t, e.raw, "SELECT queue_id, opened, closed FROM queue_load"), []string{line("queue_id", q, "opened", workers*each, "closed", 2*workers*each-50)}; !slices.Equal(got, want) {
		t.Errorf("queue_load holds %v, want %v", got, want)
	}

	var oe *cqlgen.InputError
	if err := repo.Add(ctx, &v2model.QueueLoad{QueueID: q, Opened: 1}, cqlgen.WithIdempotencyKey("k")); !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) {
		t.Errorf("Add with an idempotency key: %v, want an *cqlgen.InputError (ErrInvalidOption)", err)
	}
	if n, _ := repo.Get(ctx, q); n.Opened != workers*each {
		t.Errorf("the refused Add counted: opened %d", n.Opened)
	}
	must(t, repo.Delete(ctx, &v2model.QueueLoad{QueueID: q}))
	if _, err := repo.Get(ctx, q); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
}

// Four writers each add ten edits to one ticket through Modify, at once:
// all forty count, in the source of truth and in the projection that
// stores the count. Then a copy read before the last change cannot
// overwrite it (IfVersion), nor delete it; IfAbsent creates only; and a
// write that finds its own result is no conflict.
func TestModifyAndIfVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s, cqlgen.WithAttempts(100))
	tk := ticket(3)
	must(t, repo.Insert(ctx, tk))
	const writers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for range writers {
		wg.Go(func() {
			for range each {
				if _, err := repo.Modify(ctx, tk.TicketID, func(k *v2model.Ticket) error { k.Edits++; return nil }); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Modify: %v", err)
	}
	want := writers * each
	for _, q := range []string{"SELECT edits FROM tickets", "SELECT edits FROM tickets_by_queue"} {
		if got := rows(t, e.raw, q); !slices.Equal(got, []string{line("edits", want)}) {
			t.Errorf("%s: %v after %d concurrent Modify calls, want edits=%d", q, got, want, want)
		}
	}

	cur, v, err := repo.GetVersioned(ctx, tk.TicketID)
	must(t, err)
	if cur.Edits != int32(want) || v <= 0 {
		t.Fatalf("GetVersioned: %d edits at version %d", cur.Edits, v)
	}
	stale := *cur
	cur.Subject = "first edit"
	must(t, repo.Update(ctx, cur, cqlgen.IfVersion(v)))
	_, v2, err := repo.GetVersioned(ctx, tk.TicketID)
	must(t, err)
	stale.Subject = "overwrites the first edit"
	err = repo.Update(ctx, &stale, cqlgen.IfVersion(v))
	var conflict *cqlgen.VersionConflictError
	if !errors.As(err, &conflict) || !errors.Is(err, cqlgen.ErrNotApplied) || conflict.Expected != v || conflict.Actual != v2 {
		t.Fatalf("Update of a stale copy: %v; want a *cqlgen.VersionConflictError expecting %d, finding %d", err, v, v2)
	}
	if err := repo.Delete(ctx, &stale, cqlgen.IfVersion(v)); !errors.As(err, &conflict) {
		t.Errorf("Delete of a stale copy: %v, want a conflict", err)
	}
	got, err := repo.Get(ctx, tk.TicketID)
	must(t, err)
	if got.Subject != "first edit" {
		t.Errorf("after the stale writes the subject is %q", got.Subject)
	}
	if rs := rows(t, e.raw, "SELECT subject FROM tickets_by_board"); !slices.Equal(rs, []string{line("subject", "first edit")}) {
		t.Errorf("tickets_by_board holds %v", rs)
	}
	// A write with IfVersion or IfAbsent that finds exactly what it would
	// write counts as itself sent again after a lost reply, and succeeds:
	// the ticket's policy holds a set, which must compare the same
	// whatever order its Go map gives its elements in.
	for range 5 {
		if err := repo.Update(ctx, cur, cqlgen.IfVersion(v)); err != nil {
			t.Fatalf("the applied Update, sent again: %v", err)
		}
		if err := repo.Insert(ctx, got, cqlgen.IfAbsent()); err != nil {
			t.Fatalf("Insert IfAbsent of the ticket as stored, as if sent again: %v", err)
		}
	}
	other := *got
	other.Subject = "another create"
	if err := repo.Insert(ctx, &other, cqlgen.IfAbsent()); !errors.As(err, &conflict) || conflict.Expected != cqlgen.Absent {
		t.Errorf("Insert IfAbsent over an existing ticket: %v, want a conflict", err)
	}
	fresh := ticket(4)
	must(t, repo.Insert(ctx, fresh, cqlgen.IfAbsent()))
	must(t, repo.Delete(ctx, got, cqlgen.IfVersion(v2)))
	if _, err := repo.Get(ctx, tk.TicketID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after a Delete at the current version: %v", err)
	}
}

// An Insert with an idempotency key applies once: sent by twelve
// goroutines at once, then again after an Update changed the ticket, it
// returns the first outcome and does not write the ticket back; another
// ticket under the key is a conflict, and is not written.
func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	tk := ticket(5)
	key := cqlgen.WithIdempotencyKey("create-" + tk.TicketID.String())
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() { errs[i] = repo.Insert(ctx, tk, key) })
	}
	wg.Wait()
	must(t, errors.Join(errs...))

	edited := *tk
	edited.Subject = "changed after the create"
	must(t, repo.Update(ctx, &edited))
	must(t, repo.Insert(ctx, tk, key)) // the create, sent again
	got, err := repo.Get(ctx, tk.TicketID)
	must(t, err)
	if got.Subject != edited.Subject {
		t.Errorf("the create sent again with its key wrote the ticket back: subject %q", got.Subject)
	}
	for _, q := range []string{"SELECT subject FROM tickets_by_queue", "SELECT subject FROM tickets_by_owner"} {
		if rs := rows(t, e.raw, q); !slices.Equal(rs, []string{line("subject", edited.Subject)}) {
			t.Errorf("%s: %v", q, rs)
		}
	}
	var state string
	must(t, e.raw.Query("SELECT state FROM cqlgen_idempotency WHERE key = ?", "create-"+tk.TicketID.String()).Scan(&state))
	if state == "" {
		t.Error("the key left no record")
	}

	other := ticket(6)
	if err := repo.Insert(ctx, other, key); !errors.Is(err, cqlgen.ErrIdempotencyConflict) {
		t.Errorf("another ticket under the same key: %v, want ErrIdempotencyConflict", err)
	}
	if _, err := repo.Get(ctx, other.TicketID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("the conflicting ticket was written: %v", err)
	}
	if n := len(rows(t, e.raw, "SELECT ticket_id FROM tickets_by_ref")); n != 1 {
		t.Errorf("tickets_by_ref holds %d claims, want 1", n)
	}
}
