package integration

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TestCounters runs the helpdesk's counter repository on the real node:
// Add increments and decrements, Get reads the counts back, concurrent
// Adds from many goroutines sum exactly, an idempotency key is refused
// unsent, and Delete removes the row.
//
// It runs on the node and on cqltest (onBoth).
func TestCounters(t *testing.T) { onBoth(t, helpdesk.Schema, testCounters) }

func testCounters(t *testing.T, raw *gocql.Session, s cqlgen.Session) {
	ctx := context.Background()
	repo := helpdesk.NewAgentLoadRepo(s)

	if _, err := repo.Get(ctx, "acme", "ann"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Fatalf("Get before any Add: %v, want ErrNotFound", err)
	}
	must(t, repo.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann", Opened: 3}))
	must(t, repo.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann", Opened: 2, Closed: 4}))
	must(t, repo.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann", Opened: -1, Closed: -1}))
	got, err := repo.Get(ctx, "acme", "ann")
	must(t, err)
	if want := (helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann", Opened: 4, Closed: 3}); *got != want {
		t.Fatalf("after +3, +2/+4, -1/-1: %+v, want %+v", *got, want)
	}
	// Another tenant's agent of the same id is another row.
	must(t, repo.Add(ctx, &helpdesk.AgentLoad{OrgID: "globex", AgentID: "ann", Closed: 7}))
	if other, err := repo.Get(ctx, "globex", "ann"); err != nil || other.Opened != 0 || other.Closed != 7 {
		t.Fatalf("globex/ann: %+v, %v", other, err)
	}

	// Concurrent increments: 16 goroutines × 50 Adds of +1 opened, +2
	// closed. Counter updates commute, and none is ever sent twice.
	const workers, each = 16, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for range workers {
		wg.Go(func() {
			for range each {
				if err := repo.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "bob", Opened: 1, Closed: 2}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Add: %v", err)
	}
	bob, err := repo.Get(ctx, "acme", "bob")
	must(t, err)
	if bob.Opened != workers*each || bob.Closed != 2*workers*each {
		t.Fatalf("after %d concurrent Adds: opened %d, closed %d; want %d and %d", workers*each, bob.Opened, bob.Closed, workers*each, 2*workers*each)
	}

	// An idempotency key is refused before anything is sent.
	err = repo.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "bob", Opened: 100}, cqlgen.WithIdempotencyKey("req-1"))
	if !errors.Is(err, cqlgen.ErrInvalidOption) {
		t.Fatalf("Add with an idempotency key: %v, want an *InputError (ErrInvalidOption)", err)
	}
	if again, _ := repo.Get(ctx, "acme", "bob"); again.Opened != workers*each {
		t.Fatalf("the refused Add counted: opened %d", again.Opened)
	}
	// An empty key is refused too.
	if err := repo.Add(ctx, &helpdesk.AgentLoad{OrgID: "acme", Opened: 1}); !errors.Is(err, cqlgen.ErrEmptyKey) {
		t.Fatalf("Add with an empty agent_id: %v", err)
	}

	must(t, repo.Delete(ctx, &helpdesk.AgentLoad{OrgID: "acme", AgentID: "ann"}))
	if _, err := repo.Get(ctx, "acme", "ann"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Fatalf("Get after Delete: %v, want ErrNotFound", err)
	}
	if raw == nil {
		return
	}
	// What the table holds, read with plain gocql.
	rows := scanTable(t, raw, "SELECT org_id, agent_id, opened, closed FROM agent_load")
	if len(rows) != 2 {
		t.Fatalf("agent_load holds %d rows, want 2 (acme/bob, globex/ann): %q", len(rows), rows)
	}
}
