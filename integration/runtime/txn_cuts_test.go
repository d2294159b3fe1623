package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/txnmodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// TestCassandra6TransactionalUnderCuts is TestProtocolUnderCuts in the
// transactional mode, on the Cassandra 6 node (CASSANDRA6_HOSTS, which
// make test-integration-c6 sets; skipped without it): random Inserts,
// Updates (moving rows, entering and leaving the sparse table, changing
// the email) and Deletes of 40 members through a proxy that cuts every
// connection at random, so that transactions lose their replies for
// real. Then every call that failed runs again on a healthy session, and
// Verify, over every table, must find no drift, and no canonical row a
// pending record.
func TestCassandra6TransactionalUnderCuts(t *testing.T) {
	if os.Getenv("CASSANDRA6_HOSTS") == "" {
		t.Skip("CASSANDRA6_HOSTS is not set: run make test-integration-c6")
	}
	direct, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, txnmodel.Schema)
	p := startProxy(t, cassandratest.Hosts(t)[0])
	opts := faultOptions(nil)
	opts.ReadConsistency, opts.WriteConsistency, opts.SerialConsistency = cqldriver.Quorum, cqldriver.Quorum, cqldriver.Serial
	repo := txnmodel.NewMemberRepo(gocqlv1.NewSession(proxied(t, ks, p), opts), cqlgen.WithAttempts(50))

	const writes, members, workers = 400, 40, 4
	wantCuts := 20
	rng := rand.New(rand.NewPCG(writes, 11))
	type op struct {
		kind byte
		m    txnmodel.Member
	}
	ops := make([]op, writes)
	for i := range ops {
		id := rng.IntN(members)
		ops[i] = op{[]byte{'i', 'u', 'u', 'u', 'd'}[rng.IntN(5)], txnmodel.Member{
			MemberID: fmt.Sprintf("m%02d", id), Team: fmt.Sprintf("team-%d", rng.IntN(3)), Name: fmt.Sprintf("name-%d", rng.IntN(2)),
			// The email changes now and then, and stays the member's own.
			Email: fmt.Sprintf("m%02d-%d@x", id, rng.IntN(2)), Flagged: rng.IntN(2) == 0, Score: int64(i),
		}}
	}
	do := func(ctx context.Context, r *txnmodel.MemberRepo, o op) error {
		switch o.kind {
		case 'i':
			return r.Insert(ctx, &o.m)
		case 'u':
			if err := r.Update(ctx, &o.m); !errors.Is(err, cqlgen.ErrNotFound) {
				return err
			}
			return nil
		}
		return r.Delete(ctx, &o.m)
	}
	var inflight atomic.Int32
	var next atomic.Int64
	cutsDone, writesDone := make(chan struct{}), make(chan struct{})
	var cuts int
	go cutWhile(p, &inflight, &next, int64(max(1, writes/(2*wantCuts))), wantCuts, &cuts, writesDone, cutsDone)
	results := make([]error, writes)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= writes {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				inflight.Add(1)
				results[i] = do(ctx, repo, ops[i])
				inflight.Add(-1)
				cancel()
			}
		})
	}
	wg.Wait()
	close(writesDone)
	<-cutsDone

	healthyOpts := &cqlgen.SessionOptions{ReadConsistency: cqldriver.Quorum, WriteConsistency: cqldriver.Quorum, SerialConsistency: cqldriver.Serial}
	healthy := txnmodel.NewMemberRepo(gocqlv1.NewSession(direct, healthyOpts))
	failed := 0
	for i, err := range results {
		if err == nil {
			continue
		}
		failed++
		if rerr := do(context.Background(), healthy, ops[i]); rerr != nil {
			t.Errorf("re-running write %d: %v", i, rerr)
		}
	}
	rep, err := healthy.Verify(context.Background(), nil)
	t.Logf("%d writes, %d cuts, %d failed and ran again; verify: %d rows, drift %d", writes, cuts, failed, rep.Rows, rep.Drift())
	if err != nil || rep.Drift() != 0 || rep.Rows == 0 {
		t.Errorf("verify after the cuts: %+v, %v", rep, err)
	}
	if cuts < wantCuts/2 {
		t.Errorf("only %d cuts happened during the writes, want at least %d", cuts, wantCuts/2)
	}
	var n int
	if err := direct.Query("SELECT count(*) FROM members WHERE cqlgen_pending > 0x ALLOW FILTERING").Consistency(gocql.Quorum).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d canonical rows hold a pending record (%v)", n, err)
	}
}
