package integration

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// A unique table (table:"...,unique") holds claims: no two entities may
// hold one key. These tests race writers for one email, fail every step
// of a claim, pause a writer between its claim and its change while
// another takes the claim over, and then read both tables with plain
// gocql: no email is held twice, and every agent's email is claimed by it.

func agent(org string, n int, email string) *helpdesk.Agent {
	return &helpdesk.Agent{OrgID: org, AgentID: fmt.Sprintf("agent-%03d", n), Email: email, Name: fmt.Sprint("Agent ", n)}
}

// emailDrift checks the two invariants on the live node: no email is held
// by two live agents, and every live agent's email is claimed by that
// agent. It returns what breaks them, and the claims no agent holds.
func emailDrift(t *testing.T, raw *gocql.Session, org string) (broken []string, leftBehind int) {
	t.Helper()
	holders := map[string][]string{}
	it := raw.Query("SELECT agent_id, email, cqlgen_deleted FROM agents WHERE org_id = ? ALLOW FILTERING", org).Iter()
	var id, email string
	var deleted bool
	for it.Scan(&id, &email, &deleted) {
		if !deleted {
			holders[email] = append(holders[email], id)
		}
	}
	must(t, it.Close())
	claims := map[string]string{}
	it = raw.Query("SELECT email, agent_id FROM agents_by_email WHERE org_id = ? ALLOW FILTERING", org).Iter()
	for it.Scan(&email, &id) {
		claims[email] = id
	}
	must(t, it.Close())
	for email, ids := range holders {
		sort.Strings(ids)
		switch {
		case len(ids) > 1:
			broken = append(broken, fmt.Sprintf("%s is held by %v", email, ids))
		case claims[email] != ids[0]:
			broken = append(broken, fmt.Sprintf("%s is held by %s but claimed by %q", email, ids[0], claims[email]))
		}
	}
	for email, id := range claims {
		if ids := holders[email]; len(ids) == 0 || ids[0] != id {
			leftBehind++
		}
	}
	sort.Strings(broken)
	return broken, leftBehind
}

// Checks invariant I12: one owner per unique key.
func TestUniqueClaimAndRelease(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewAgentRepo(s)
	ann := agent("acme", 1, "ann@acme.test")
	must(t, repo.Insert(ctx, ann))
	got, err := repo.AgentByEmail(ctx, "acme", "ann@acme.test")
	if err != nil || got.AgentID != ann.AgentID {
		t.Fatalf("AgentByEmail: %+v, %v", got, err)
	}
	// Another agent cannot take the email, and nothing of it is written.
	bob := agent("acme", 2, "ann@acme.test")
	var conflict *cqlgen.UniqueConflictError
	if err := repo.Insert(ctx, bob); !errors.As(err, &conflict) || !errors.Is(err, cqlgen.ErrNotApplied) || strings.Contains(err.Error(), "ann@") {
		t.Fatalf("a second agent with ann's email: %v (the error must not show the email)", err)
	}
	if _, err := repo.Get(ctx, "acme", bob.AgentID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("the refused agent was written: %v", err)
	}
	// Another organisation may use it: the key is (org_id, email).
	must(t, repo.Insert(ctx, agent("other", 2, "ann@acme.test")))
	// Changing the email releases the old one, which bob then gets.
	ann.Email = "ann.new@acme.test"
	must(t, repo.Update(ctx, ann))
	must(t, repo.Insert(ctx, bob))
	if got, err := repo.AgentByEmail(ctx, "acme", "ann.new@acme.test"); err != nil || got.AgentID != ann.AgentID {
		t.Errorf("ann's new email: %+v, %v", got, err)
	}
	// Deleting an agent releases its email.
	must(t, repo.Delete(ctx, bob))
	if _, err := repo.AgentByEmail(ctx, "acme", "ann@acme.test"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("a deleted agent's email: %v", err)
	}
	must(t, repo.Insert(ctx, agent("acme", 3, "ann@acme.test")))
	// Modify and re-inserting the same agent keep its claim.
	_, err = repo.Modify(ctx, "acme", ann.AgentID, func(a *helpdesk.Agent) error { a.Name = "Ann"; return nil })
	must(t, err)
	must(t, repo.Insert(ctx, ann))
	for _, org := range []string{"acme", "other"} {
		if broken, behind := emailDrift(t, raw, org); broken != nil || behind != 0 {
			t.Errorf("%s: %v, %d claims left behind", org, broken, behind)
		}
	}
	rep, err := repo.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}

// Writers race for one email: exactly one wins.
// Checks invariant I12: one owner per unique key.
func TestUniqueRace(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewAgentRepo(s, cqlgen.WithAttempts(50))
	const writers = 8
	for round := range 3 {
		email := fmt.Sprintf("shared-%d@acme.test", round)
		var wins, conflicts atomic.Int32
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				err := repo.Insert(ctx, agent("race", round*100+w, email))
				var conflict *cqlgen.UniqueConflictError
				switch {
				case err == nil:
					wins.Add(1)
				case errors.As(err, &conflict):
					conflicts.Add(1)
				default:
					t.Errorf("round %d, writer %d: %v", round, w, err)
				}
			}()
		}
		wg.Wait()
		if wins.Load() != 1 || conflicts.Load() != writers-1 {
			t.Errorf("round %d: %d writers won the email, %d got a conflict", round, wins.Load(), conflicts.Load())
		}
	}
	if broken, behind := emailDrift(t, raw, "race"); broken != nil || behind != 0 {
		t.Errorf("%v, %d claims left behind", broken, behind)
	}
}

// Every call of a claiming Insert and of an email change fails in turn, in
// each way; then the call runs again, or another agent claims the email.
// No email is ever held twice, and once the calls have run again every
// agent's email is its own.
// Checks invariant I2: running a call again converges.
// Checks invariant I12: one owner per unique key.
func TestUniqueCrashPoints(t *testing.T) {
	t.Parallel()
	raw, base := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	type path struct {
		name  string
		setup func(r *helpdesk.AgentRepo, n int) error
		op    func(r *helpdesk.AgentRepo, n int) error
	}
	email := func(n int, v string) string { return fmt.Sprintf("a%d-%s@acme.test", n, v) }
	paths := []path{
		{"insert", nil, func(r *helpdesk.AgentRepo, n int) error { return r.Insert(ctx, agent("crash", n, email(n, "x"))) }},
		{"change email",
			func(r *helpdesk.AgentRepo, n int) error { return r.Insert(ctx, agent("crash", n, email(n, "x"))) },
			func(r *helpdesk.AgentRepo, n int) error { return r.Update(ctx, agent("crash", n, email(n, "y"))) }},
		{"delete",
			func(r *helpdesk.AgentRepo, n int) error { return r.Insert(ctx, agent("crash", n, email(n, "x"))) },
			func(r *helpdesk.AgentRepo, n int) error { return r.Delete(ctx, agent("crash", n, "")) }},
	}
	n, runs := 0, 0
	for _, p := range paths {
		count := &faultSession{Session: base}
		n++
		if p.setup != nil {
			must(t, p.setup(helpdesk.NewAgentRepo(count), n))
		}
		before := count.calls.Load()
		must(t, p.op(helpdesk.NewAgentRepo(count), n))
		calls := int(count.calls.Load() - before)
		for k := 1; k <= calls; k++ {
			for _, f := range []fault{failBefore, lostReply, dies} {
				for _, rec := range []string{"rerun", "rival"} {
					n++
					runs++
					name := fmt.Sprintf("%s/call %d of %d/%s/%s", p.name, k, calls, f, rec)
					fs := &faultSession{Session: base, k: int64(k), f: f}
					repo := helpdesk.NewAgentRepo(fs, cqlgen.WithAttempts(5), injected)
					if p.setup != nil {
						must(t, p.setup(repo, n))
					}
					fs.armed.Store(true)
					err := p.op(repo, n)
					fs.armed.Store(false)
					if err == nil && f != lostReply {
						t.Errorf("%s: a failed step went unreported", name)
					}
					if rec == "rerun" {
						if err := p.op(repo, n); err != nil {
							t.Errorf("%s: run again: %v", name, err)
						}
						continue
					}
					// A rival agent wants the email the failed call claimed
					// (or gave up): it gets it unless the failed call landed.
					rival := agent("crash", n+10000, email(n, map[bool]string{true: "x", false: "y"}[p.name == "insert" || p.name == "delete"]))
					err = repo.Insert(ctx, rival)
					var conflict *cqlgen.UniqueConflictError
					if err != nil && !errors.As(err, &conflict) {
						t.Errorf("%s: rival: %v", name, err)
					}
				}
			}
		}
	}
	broken, behind := emailDrift(t, raw, "crash")
	if broken != nil {
		t.Errorf("after %d failed calls: %v", runs, broken)
	}
	// Claims left behind by calls that never ran again are orphans that
	// verify finds and repair removes.
	repo := helpdesk.NewAgentRepo(base)
	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	if got := byTable(rep)["agents_by_email"]; got.Orphans != int64(behind) || got.Missing != 0 || got.Stale != 0 {
		t.Errorf("verify: %+v; want %d orphans, no missing or stale claim", got, behind)
	}
	_, err = repo.Repair(ctx, nil)
	must(t, err)
	if broken, behind := emailDrift(t, raw, "crash"); broken != nil || behind != 0 {
		t.Errorf("after repair: %v, %d claims left behind", broken, behind)
	}
	t.Logf("%d calls failed at a crash point; %d claims were left behind, then repaired", runs, behind)
}

// pauseSession runs pause once, just before the first conditional change
// of an agents row: a writer between its claim and its change.
type pauseSession struct {
	cqlgen.Session
	once  sync.Once
	pause func()
}

func (p *pauseSession) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	if q.Stmt.Table == "agents" && strings.Contains(q.Stmt.CQL, "cqlgen_pending = ?") {
		p.once.Do(p.pause)
	}
	return p.Session.ExecCAS(ctx, q, dest...)
}

// A writer that claimed an email and stalls before its change (a GC pause,
// a slow network) finds, when it goes on, that a rival took the claim
// over after fencing it: its change cannot land, and it gets a conflict.
// Checks invariant I12: one owner per unique key.
func TestUniqueStalledWriterIsFenced(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	rivalRepo := helpdesk.NewAgentRepo(s)
	// The stalled writer is new (no row: fenced with a grave) in round 0,
	// and exists with another email (a live row: fenced by its version) in
	// round 1.
	for round := range 2 {
		email := fmt.Sprintf("contested-%d@acme.test", round)
		slow := agent("fence", round*10+1, email)
		if round == 1 {
			must(t, rivalRepo.Insert(ctx, agent("fence", round*10+1, "before@acme.test")))
		}
		var rivalErr error
		ps := &pauseSession{Session: s, pause: func() {
			// The claim of the stalled writer is there; a rival sees it
			// held by an agent that does not hold the email, and takes it.
			rivalErr = rivalRepo.Insert(ctx, agent("fence", round*10+2, email))
		}}
		err := helpdesk.NewAgentRepo(ps).Insert(ctx, slow)
		var conflict *cqlgen.UniqueConflictError
		if rivalErr != nil || !errors.As(err, &conflict) {
			t.Errorf("round %d: the rival got %v; the stalled writer got %v, want a conflict", round, rivalErr, err)
		}
		got, err := rivalRepo.AgentByEmail(ctx, "fence", email)
		if err != nil || got.AgentID != agent("fence", round*10+2, "").AgentID {
			t.Errorf("round %d: the email is held by %+v, %v", round, got, err)
		}
	}
	if broken, behind := emailDrift(t, raw, "fence"); broken != nil || behind != 0 {
		t.Errorf("%v, %d claims left behind", broken, behind)
	}
}
