package cluster_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/integration/robust"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Histories of Get, Insert, Update, Modify, IfVersion and Delete of three
// tickets from four clients at QUORUM and SERIAL on the three nodes
// (RF=3), while one node, drawn by the seed, stops at a point the seed
// draws and starts again some seconds later, and the clients' clocks are
// off by the seed's choice of ±5 s, ±50 ms or none (cqlgen.WithClock: the
// versions and write timestamps they give). Each history is checked for
// linearizability with porcupine (integration/robust), as
// TestLinearizable does on one node with connection cuts.
//
// The cluster suite runs one history of 300 calls (CQLGEN_ROBUST_SEEDS and
// CQLGEN_ROBUST_OPS run more, make robust-cluster sets them).
func TestLinearizableCluster(t *testing.T) {
	c := need(t)
	runs := robust.FromEnv(t, 1, 300)
	ks := c.keyspace(nil)
	_, s := c.quorum(ks, nil)
	var tot robust.Totals
	for _, seed := range runs.Seeds {
		cfg := robust.Config{Seed: seed, Clients: 4, Keys: 3, Ops: runs.Ops, Faults: 1, OpTimeout: 20 * time.Second, Resend: runs.Resend}
		rng := rand.New(rand.NewPCG(seed, 3))
		ids := make([]gocql.UUID, cfg.Keys)
		for k := range ids {
			ids[k] = gocql.TimeUUID()
		}
		stores := make([]robust.Store, cfg.Clients)
		var skews []time.Duration
		for i := range stores {
			skew := []time.Duration{-5 * time.Second, -50 * time.Millisecond, 0, 50 * time.Millisecond, 5 * time.Second}[rng.IntN(5)]
			skews = append(skews, skew)
			clock := func() time.Time { return time.Now().Add(skew) }
			repo := helpdesk.NewTicketRepo(s, concurrent, cqlgen.WithClock(clock), cqlgen.WithAttempts(20))
			stores[i] = &robust.Tickets{Repo: repo, Org: fmt.Sprint("h", seed), IDs: ids}
		}
		down := 2 + rng.IntN(len(c.nodes)-1) // never node 1, which healthy() and the admin sessions use
		inject := func(ctx context.Context, f robust.Fault) {
			// A clean stop: a node killed with -9 here lost the schema
			// of the keyspace made seconds before (its commit log syncs
			// every 10 s) and came back with INCOMPATIBLE_SCHEMA.
			c.stop(down)
			select {
			case <-time.After(time.Duration(3+f.Arg%8) * time.Second):
			case <-ctx.Done():
			}
			c.start(down)
		}
		t.Logf("seed %d: clocks off by %v; node %d goes down", seed, skews, down)
		ctx := ctxFor(t, 10*time.Minute+time.Duration(runs.Ops)*200*time.Millisecond)
		replay := fmt.Sprintf("flock /tmp/cqlgen-cluster.lock make robust-cluster SEED=%d SEEDS=1 OPS=%d RESEND=%d", seed, runs.Ops, runs.Resend)
		runs.RunAndCheck(t, ctx, cfg, stores, inject, 2*time.Minute, fmt.Sprint("cluster-", seed), replay, &tot)
	}
	t.Logf("three nodes, one down, clocks off: %s", tot)
}
