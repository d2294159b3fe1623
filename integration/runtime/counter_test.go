package runtime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// TestCounterUpdateIsNeverRetried holds the node's replies at a proxy, so
// that a counter update reaches the node, is applied, and times out at
// the client. The generated Add is attempted once, returns a
// error that says the outcome is unknown (cqlgen.ErrOutcomeUnknown), and counts
// once. The same update marked idempotent, through the same session,
// shows what the harness catches: it is retried on the timeout and
// counts once per attempt.
func TestCounterUpdateIsNeverRetried(t *testing.T) {
	t.Parallel()
	direct, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, helpdesk.Schema)
	p := startProxy(t, cassandratest.Hosts(t)[0])
	via := proxied(t, ks, p, func(c *gocql.ClusterConfig) { c.Timeout = 400 * time.Millisecond })
	var attempts atomic.Int32
	s := gocqlv1.NewSession(via, &cqlgen.SessionOptions{
		MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond,
		Observer: observerFunc(func(_ context.Context, o cqlobserve.Observation) {
			if o.Table == "agent_load" && o.Kind == cqlgen.Write {
				attempts.Add(1)
			}
		}),
	})
	repo := helpdesk.NewAgentLoadRepo(s)
	opened := func(agent string) int64 {
		var n int64
		err := direct.Query("SELECT opened FROM agent_load WHERE org_id = 'acme' AND agent_id = ?", agent).Scan(&n)
		if err != nil && !errors.Is(err, gocql.ErrNotFound) {
			t.Fatal(err)
		}
		return n
	}
	// settle waits until the node has applied what it will (a held update
	// is applied before its reply is), then a little more, and reads.
	settle := func(agent string, want int64) int64 {
		deadline := time.Now().Add(5 * time.Second)
		for opened(agent) < want && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		return opened(agent)
	}

	// The warm-up prepares the statement, so that the held request is
	// the update itself.
	if err := repo.Add(ctxTimeout(t, 10*time.Second), &helpdesk.AgentLoad{OrgID: "acme", AgentID: "warm", Opened: 1}); err != nil {
		t.Fatalf("warm-up: %v", err)
	}
	attempts.Store(0)
	release := p.hold()
	err := repo.Add(ctxTimeout(t, 10*time.Second), &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann", Opened: 1})
	release()
	if !errors.Is(err, cqlgen.ErrOutcomeUnknown) || errors.Is(err, cqlgen.ErrCounterNotApplied) || !errors.Is(err, gocql.ErrTimeoutNoResponse) {
		t.Fatalf("Add with its reply held: %v; want outcome unknown, wrapping the client timeout", err)
	}
	if n := attempts.Load(); n != 1 {
		t.Errorf("the counter update was attempted %d times, want once", n)
	}
	if n := settle("ann", 1); n != 1 {
		t.Errorf("the held counter update counted %d times, want once", n)
	}

	// The control: the same update, marked idempotent, is retried on the
	// timeout and counts once per attempt.
	control := &cqldriver.Statement{CQL: "UPDATE agent_load SET opened = opened + ?, closed = closed + ? WHERE org_id = ? AND agent_id = ?",
		Table: "agent_load", Pattern: "control", Kind: cqlgen.Write, Idempotent: true}
	warm := cqldriver.Query{Stmt: control, Values: []any{int64(1), int64(0), "acme", "warm"}}
	if err := s.Exec(ctxTimeout(t, 10*time.Second), warm); err != nil {
		t.Fatalf("control warm-up: %v", err)
	}
	attempts.Store(0)
	release = p.hold()
	err = s.Exec(ctxTimeout(t, 10*time.Second), cqldriver.Query{Stmt: control, Values: []any{int64(1), int64(0), "acme", "bob"}})
	release()
	tries := attempts.Load()
	if err == nil || tries < 2 {
		t.Fatalf("control: err %v after %d attempts; the harness did not provoke a retry", err, tries)
	}
	if n := settle("bob", int64(tries)); n != int64(tries) {
		t.Errorf("control: %d attempts counted %d; want one count per attempt", tries, n)
	}
	t.Logf("counter update: 1 attempt, counted once; the same update marked idempotent: %d attempts, counted %d times", tries, opened("bob"))
}
