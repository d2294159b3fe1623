package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// lossPlan marks, as a context value, the first call of a keyed
// increment: its conditional write on tickets loses its reply (after the
// node applied it, when applies is set), and every serial read that then
// tries to settle it fails, as through a proxy that drops both.
type lossPlan struct {
	applies bool
	lost    atomic.Bool
}

type lossPlanKey struct{}

// lossSession applies the lossPlan of a call's context to the real node's
// session; calls without one pass through.
type lossSession struct{ cqlgen.Session }

func planOf(ctx context.Context, q cqldriver.Query) *lossPlan {
	p, _ := ctx.Value(lossPlanKey{}).(*lossPlan)
	if p == nil || q.Stmt == nil || q.Stmt.Table != "tickets" {
		return nil
	}
	return p
}

func (s lossSession) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	p := planOf(ctx, q)
	if p == nil || p.lost.Swap(true) {
		return s.Session.ExecCAS(ctx, q, dest...)
	}
	if p.applies {
		if _, err := s.Session.ExecCAS(ctx, q, dest...); err != nil {
			return false, err
		}
	}
	return false, fmt.Errorf("reply dropped: %w", errInjected)
}

// ExecCASMap serves the idempotency key's writes, untouched.
func (s lossSession) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	return s.Session.(cqldriver.MapCASer).ExecCASMap(ctx, q, current)
}

func (s lossSession) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	if p := planOf(ctx, q); p != nil && p.lost.Load() && q.Stmt.Kind == cqlgen.SerialRead {
		return failedIter{fmt.Errorf("serial read dropped: %w", errInjected)}
	}
	return s.Session.Iter(ctx, q)
}

// On the real node: every keyed increment applies exactly once after its
// resends when its conditional write's reply is lost (applied or not, in
// turn) and so is every serial read of the call that would settle it;
// with one writer and with two writers racing on the ticket, every
// increment's first call so faulted. The count is read with plain gocql.
// Before, the key recorded "outcome unknown" for good: the resends all
// failed, and the increments that had not applied were lost.
// Checks invariant I9: a lost write is settled, never guessed.
// Checks invariant I10: a keyed call applies at most once.
func TestKeyedIncrementsSettleOnTheNode(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewTicketRepo(lossSession{s}, cqlgen.WithAttempts(50), injected)
	for n, writers := range []int{1, 2} {
		tk := ticket("acme", n+1, "ann", helpdesk.StatusOpen)
		must(t, repo.Insert(ctx, tk))
		const each = 10
		inc := func(k *helpdesk.Ticket) error { k.Replies++; return nil }
		var wg sync.WaitGroup
		errs := make(chan error, 2*writers*each)
		var unknown atomic.Int64
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					key := cqlgen.WithIdempotencyKey(fmt.Sprintf("reply-%d-%d-%d", n, w, i))
					first := context.WithValue(ctx, lossPlanKey{}, &lossPlan{applies: i%2 == 0})
					if _, err := repo.Modify(first, tk.OrgID, tk.TicketID, inc, key); errors.Is(err, cqlgen.ErrOutcomeUnknown) {
						unknown.Add(1)
					} else {
						errs <- fmt.Errorf("writer %d, increment %d: first call: %v, want outcome unknown", w, i, err)
					}
					var err error
					for range 3 {
						if _, err = repo.Modify(ctx, tk.OrgID, tk.TicketID, inc, key); err == nil {
							break
						}
					}
					if err != nil {
						errs <- fmt.Errorf("writer %d, increment %d: resent 3 times: %v", w, i, err)
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		var replies int
		must(t, raw.Query("SELECT replies FROM tickets WHERE org_id = ? AND ticket_id = ?", tk.OrgID, tk.TicketID).Scan(&replies))
		if replies != writers*each {
			t.Errorf("%d writers: %d replies after %d keyed increments (%d first calls unknown) and their resends, want each counted once", writers, replies, writers*each, unknown.Load())
		}
		if rep, err := helpdesk.NewTicketRepo(s).Verify(ctx, nil); err != nil || rep.Drift() != 0 {
			t.Errorf("%d writers: Verify: %+v, %v", writers, rep, err)
		}
	}
}
