package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Modify, IfVersion and IfAbsent: the compare-and-set of a whole entity.

// Writers who each add one reply to the same ticket, at once, through
// Modify: every reply counts. The same through Get and Update loses some.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestModifyLosesNoUpdate(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewTicketRepo(s, cqlgen.WithAttempts(100))
	tk := ticket("acme", 1, "ann", helpdesk.StatusOpen)
	must(t, repo.Insert(ctx, tk))
	const writers, each = 6, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				_, err := repo.Modify(ctx, tk.OrgID, tk.TicketID, func(k *helpdesk.Ticket) error { k.Replies++; return nil })
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("modify: %v", err)
	}
	var replies int
	must(t, raw.Query("SELECT replies FROM tickets WHERE org_id = ? AND ticket_id = ?", tk.OrgID, tk.TicketID).Scan(&replies))
	if replies != writers*each {
		t.Errorf("after %d concurrent Modify calls the ticket has %d replies", writers*each, replies)
	}

	// A Modify whose conditional write applied and lost its reply learns
	// so from the serial read that follows, and succeeds. Run again with
	// its idempotency key, it counts once; without one, the second call
	// is a second increment.
	for _, keyed := range []bool{true, false} {
		var opts []cqlgen.Option
		if keyed {
			opts = append(opts, cqlgen.WithIdempotencyKey(fmt.Sprint("reply-", tk.TicketID)))
		}
		before := replies
		// Modify reads once, then its change (its write starts from
		// Modify's read: docs/protocol.md).
		fs := &faultSession{Session: s, k: 2, f: lostReply} // state, change
		if keyed {
			fs.k = 3 // the key's lease first
		}
		fs.armed.Store(true)
		inc := func(k *helpdesk.Ticket) error { k.Replies++; return nil }
		if _, err := helpdesk.NewTicketRepo(fs).Modify(ctx, tk.OrgID, tk.TicketID, inc, opts...); err != nil {
			t.Errorf("keyed %v: a Modify whose change applied and lost its reply: %v, want it settled as applied", keyed, err)
		}
		if fs.n.Load() < fs.k {
			t.Errorf("keyed %v: Modify sent %d statements; the fault on call %d never fired", keyed, fs.n.Load(), fs.k)
		}
		fs.armed.Store(false)
		got, err := repo.Modify(ctx, tk.OrgID, tk.TicketID, inc, opts...)
		must(t, err)
		want := before + 1
		if !keyed {
			want = before + 2
		}
		must(t, raw.Query("SELECT replies FROM tickets WHERE org_id = ? AND ticket_id = ?", tk.OrgID, tk.TicketID).Scan(&replies))
		if replies != want || int(got.Replies) != want {
			t.Errorf("keyed %v: a Modify run again after its lost reply: %d replies (returned %d), want %d", keyed, replies, got.Replies, want)
		}
	}

	// The same increments as a read, then an Update: lost updates show.
	// This is what Modify is for; the test keeps the contrast honest.
	tk2 := ticket("acme", 2, "ann", helpdesk.StatusOpen)
	must(t, repo.Insert(ctx, tk2))
	var wg2 sync.WaitGroup
	for range writers {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			for range each {
				k, err := repo.Get(ctx, tk2.OrgID, tk2.TicketID)
				if err != nil {
					t.Error(err)
					return
				}
				k.Replies++
				if err := repo.Update(ctx, k); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg2.Wait()
	must(t, raw.Query("SELECT replies FROM tickets WHERE org_id = ? AND ticket_id = ?", tk2.OrgID, tk2.TicketID).Scan(&replies))
	t.Logf("Get then Update: %d of %d increments survived; Modify: all", replies, writers*each)
}

// A stale copy cannot overwrite a newer one, nor delete it; IfAbsent
// creates and never replaces.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestIfVersion(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewTicketRepo(s)
	tk := ticket("acme", 1, "ann", helpdesk.StatusOpen)
	must(t, repo.Insert(ctx, tk, cqlgen.IfAbsent()))
	var conflict *cqlgen.VersionConflictError
	if err := repo.Insert(ctx, ticket("acme", 1, "bob", helpdesk.StatusOpen), cqlgen.IfAbsent()); !errors.As(err, &conflict) || conflict.Expected != cqlgen.Absent {
		t.Fatalf("IfAbsent over an existing ticket: %v", err)
	}
	mine, v1, err := repo.GetVersioned(ctx, tk.OrgID, tk.TicketID)
	must(t, err)
	theirs := *mine
	theirs.AgentID = "bob"
	must(t, repo.Update(ctx, &theirs, cqlgen.IfVersion(v1)))
	mine.Subject = "stale edit"
	if err := repo.Update(ctx, mine, cqlgen.IfVersion(v1)); !errors.As(err, &conflict) || conflict.Expected != v1 || conflict.Actual <= v1 || !errors.Is(err, cqlgen.ErrNotApplied) {
		t.Fatalf("Update of a stale copy: %v", err)
	}
	if err := repo.Delete(ctx, mine, cqlgen.IfVersion(v1)); !errors.As(err, &conflict) {
		t.Fatalf("Delete of a stale copy: %v", err)
	}
	// Nothing of the stale copy reached any table, and bob holds it.
	if q := queueOf(t, repo, "acme", "bob"); len(q) != 1 || q[0] != "subject 1/OPEN" {
		t.Errorf("bob's queue: %q", q)
	}
	if d := queueDrift(t, raw, "acme"); d != nil {
		t.Error(d)
	}
	_, v2, err := repo.GetVersioned(ctx, tk.OrgID, tk.TicketID)
	must(t, err)
	must(t, repo.Delete(ctx, tk, cqlgen.IfVersion(v2)))
	if _, _, err := repo.GetVersioned(ctx, tk.OrgID, tk.TicketID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
	// A deleted ticket is absent: IfAbsent creates it again.
	must(t, repo.Insert(ctx, tk, cqlgen.IfAbsent()))
	// A write with IfVersion whose reply is lost after it applied, run
	// again, finds its own result: no conflict. So does IfAbsent. The
	// lost reply of the conditional write itself (call 2) is settled by
	// the serial read after it: the call succeeds at once.
	for k := int64(1); k <= 3; k++ {
		cur, v3, err := repo.GetVersioned(ctx, tk.OrgID, tk.TicketID)
		must(t, err)
		cur.Subject = fmt.Sprint("edit ", k)
		fs := &faultSession{Session: s, k: k, f: lostReply}
		fs.armed.Store(true)
		flaky := helpdesk.NewTicketRepo(fs)
		if err := flaky.Update(ctx, cur, cqlgen.IfVersion(v3)); (err == nil) != (k == 2) {
			t.Errorf("call %d lost its reply: Update returned %v", k, err)
		}
		fs.armed.Store(false)
		if err := flaky.Update(ctx, cur, cqlgen.IfVersion(v3)); err != nil {
			t.Errorf("call %d: Update run again after its reply was lost: %v", k, err)
		}
	}
	// A new ticket's Insert sends its conditional write first (the direct
	// create, docs/protocol.md): call 1, where it was call 2 after a read.
	fresh := ticket("acme", 7, "cat", helpdesk.StatusOpen)
	fs := &faultSession{Session: s, k: 1, f: lostReply}
	fs.armed.Store(true)
	if err := helpdesk.NewTicketRepo(fs).Insert(ctx, fresh, cqlgen.IfAbsent()); err != nil {
		t.Errorf("IfAbsent whose conditional write lost its reply: %v, want it settled as applied", err)
	}
	if err := repo.Insert(ctx, fresh, cqlgen.IfAbsent()); err != nil {
		t.Errorf("IfAbsent run again after its reply was lost: %v", err)
	}
	if d := queueDrift(t, raw, "acme"); d != nil {
		t.Error(d)
	}
	// Repositories without versions refuse the option rather than ignore it.
	var oe *cqlgen.InputError
	if err := music.NewPlayRepo(s).Insert(ctx, &music.Play{UserID: "u", TrackID: "t"}, cqlgen.IfVersion(v2)); !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) {
		t.Errorf("IfVersion on an entity without versions: %v", err)
	}
}

// Modify writes only the tables that store a changed field, refuses a
// change of the key, and writes nothing when the change fails.
func TestModifyTouchesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewTicketRepo(s)
	tk := ticket("acme", 1, "ann", helpdesk.StatusOpen)
	must(t, repo.Insert(ctx, tk))
	writetimes := func() (canon, byRequester, queue int64) {
		must(t, raw.Query("SELECT writetime(body) FROM tickets WHERE org_id = ? AND ticket_id = ?", tk.OrgID, tk.TicketID).Scan(&canon))
		must(t, raw.Query("SELECT writetime(subject) FROM tickets_by_requester WHERE org_id = ? AND requester = ?", tk.OrgID, tk.Requester).Scan(&byRequester))
		must(t, raw.Query("SELECT writetime(subject) FROM open_tickets_by_agent WHERE org_id = ? AND agent_id = 'ann'", tk.OrgID).Scan(&queue))
		return
	}
	c0, r0, q0 := writetimes()
	got, err := repo.Modify(ctx, tk.OrgID, tk.TicketID, func(k *helpdesk.Ticket) error { k.Body = "more detail"; return nil })
	must(t, err)
	c1, r1, q1 := writetimes()
	if got.Body != "more detail" || c1 <= c0 || r1 != r0 || q1 != q0 {
		t.Errorf("a change of body, which only tickets stores: writetimes %d→%d, %d→%d, %d→%d", c0, c1, r0, r1, q0, q1)
	}
	_, err = repo.Modify(ctx, tk.OrgID, tk.TicketID, func(k *helpdesk.Ticket) error { k.Subject = "renamed"; return nil })
	must(t, err)
	_, r2, q2 := writetimes()
	if r2 <= r1 || q2 <= q1 {
		t.Errorf("a change of subject, which every table stores: writetimes %d→%d, %d→%d", r1, r2, q1, q2)
	}
	if _, err := repo.Modify(ctx, tk.OrgID, tk.TicketID, func(k *helpdesk.Ticket) error { k.OrgID = "other"; return nil }); !errors.Is(err, cqlgen.ErrKeyChanged) {
		t.Errorf("a change of the key: %v", err)
	}
	boom := fmt.Errorf("refused")
	if _, err := repo.Modify(ctx, tk.OrgID, tk.TicketID, func(k *helpdesk.Ticket) error { k.Subject = "never"; return boom }); err != boom {
		t.Errorf("a change that fails: %v", err)
	}
	var ek *cqlgen.InputError
	if _, err := repo.Modify(ctx, tk.OrgID, tk.TicketID, func(k *helpdesk.Ticket) error { k.Requester = ""; return nil }); !(errors.As(err, &ek) && ek.Err == cqlgen.ErrEmptyKey) {
		t.Errorf("a change that empties a key of another table: %v", err)
	}
	k, err := repo.Get(ctx, tk.OrgID, tk.TicketID)
	must(t, err)
	if k.Subject != "renamed" || k.OrgID != "acme" || k.Requester != tk.Requester {
		t.Errorf("after the refused changes: %+v", k)
	}
	if _, err := repo.Modify(ctx, tk.OrgID, ticketID(99), func(*helpdesk.Ticket) error { return nil }); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Modify of no ticket: %v", err)
	}
	if d := queueDrift(t, raw, "acme"); d != nil {
		t.Error(d)
	}
}
