package runtime_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/robust"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Histories of Get, Insert, Update, Modify, IfVersion and Delete of three
// tracks from four clients at once, through a proxy that cuts every
// connection at points the seed draws, each checked for linearizability
// with porcupine (integration/robust): every call must take effect at one
// instant between its call and its return, as docs/repositories.md says
// it does; a call whose outcome is unknown may have applied or not (with
// CQLGEN_ROBUST_RESEND=n, such a write is sent again with its idempotency
// key, which must settle it). Each history ends with serial reads of
// every track.
//
// make test runs 3 histories of 300 calls, with a seed from the clock;
// make robust SEEDS=N OPS=M runs more. A failure prints its seed and the
// command that runs it again, and saves porcupine's visualization under
// integration/out/robust.
func TestLinearizable(t *testing.T) {
	runs := robust.FromEnv(t, 3, 300)
	direct, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, music.Schema)
	var tot robust.Totals
	var cuts int64
	for i, seed := range runs.Seeds {
		// Unless told otherwise, the last history sends its writes of
		// unknown outcome again with their idempotency keys.
		runs := runs
		if i == len(runs.Seeds)-1 && i > 0 && os.Getenv(robust.EnvResend) == "" {
			runs.Resend = 5
		}
		// A proxy and a session of its own for each history, as a replay
		// has: in runs of 2,000-call histories sharing one, the session
		// stopped getting through after the 9th to 20th history ("gocql:
		// connection closed waiting for response" for minutes, with one
		// connection left through the proxy).
		p := startProxy(t, cassandratest.Hosts(t)[0])
		raw := proxied(t, ks, p)
		repo := music.NewTrackRepo(gocqlv1.NewSession(raw, faultOptions(nil)), cqlgen.WithAttempts(20))
		cfg := robust.Config{Seed: seed, Clients: 4, Keys: 3, Ops: runs.Ops, Faults: max(1, runs.Ops/15), OpTimeout: 10 * time.Second, Resend: runs.Resend}
		stores := make([]robust.Store, cfg.Clients)
		for c := range stores {
			stores[c] = &robust.Tracks{Repo: repo, Prefix: fmt.Sprint("h", seed)}
		}
		// The serial reads that end the history go straight to the node:
		// once, after a nightly history's cuts, the proxied session failed
		// them for minutes ("connection closed waiting for response").
		cfg.Final = &robust.Tracks{Repo: music.NewTrackRepo(gocqlv1.NewSession(direct, nil)), Prefix: fmt.Sprint("h", seed)}
		inject := func(_ context.Context, f robust.Fault) {
			switch f.Arg % 3 {
			case 0, 1: // a cut, with a reset or a FIN
				p.cut(f.Arg%3 == 0)
			case 2: // replies held a while, then a cut: requests that applied lose their reply
				release := p.hold()
				time.Sleep(time.Duration(20+f.Arg%200) * time.Millisecond)
				p.cut(true)
				release()
			}
		}
		ctx := ctxTimeout(t, 10*time.Minute+time.Duration(runs.Ops)*100*time.Millisecond)
		name := fmt.Sprintf("single-%d", seed)
		runs.RunAndCheck(t, ctx, cfg, stores, inject, 2*time.Minute, name,
			runs.Replay(seed, "./runtime", "TestLinearizable", "CASSANDRA_HOSTS="+cassandratest.Hosts(t)[0]), &tot)
		cuts += p.cuts.Load()
		raw.Close()
		p.close()
	}
	t.Logf("single node, connection cuts: %s; %d connections cut", tot, cuts)
}
