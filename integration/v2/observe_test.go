package v2

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// recorder is a cqlobserve.CallObserver, and the v2 driver's own
// QueryObserver and BatchObserver, keeping all it is told.
type recorder struct {
	mu      sync.Mutex
	obs     []cqlobserve.Observation
	calls   []cqlobserve.CallObservation
	queries []gocql.ObservedQuery
	batches []gocql.ObservedBatch
	// mismatch records an observation whose context is not its call's.
	mismatch []string
}

type callKey struct{}

func (r *recorder) Observe(ctx context.Context, o cqlobserve.Observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.obs = append(r.obs, o)
	if c, _ := cqlobserve.CallOf(ctx); c != o.Call || ctx.Value(callKey{}) != o.Call.String() {
		r.mismatch = append(r.mismatch, fmt.Sprintf("an attempt of %v observed in the context of %v (%v)", o.Call, c, ctx.Value(callKey{})))
	}
}

func (r *recorder) StartCall(ctx context.Context, c cqlobserve.Call) context.Context {
	return context.WithValue(ctx, callKey{}, c.String())
}

func (r *recorder) EndCall(ctx context.Context, o cqlobserve.CallObservation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Value(callKey{}) != o.Call.String() {
		r.mismatch = append(r.mismatch, fmt.Sprintf("EndCall of %v without StartCall's context", o.Call))
	}
	r.calls = append(r.calls, o)
}

func (r *recorder) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, q)
}

func (r *recorder) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, b)
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.obs, r.calls, r.queries, r.batches, r.mismatch = nil, nil, nil, nil, nil
}

// On the v2 driver, every attempt reaches the session's Observer with the
// node that coordinated it, the keyspace, the rows it returned and the
// repository call it belongs to; every call reaches the CallObserver
// once, with its attempts and rows; and the cluster configuration's own
// observers, chained by the adapter, still see every attempt.
func TestObservers(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	e := newEnv(t, &cqlgen.SessionOptions{Observer: rec}, func(c *gocql.ClusterConfig) {
		c.QueryObserver = rec
		c.BatchObserver = rec
	})
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	loads := v2model.NewQueueLoadRepo(e.s)
	rec.reset() // whatever the driver ran while connecting

	var tks []*v2model.Ticket
	for i := range 3 {
		tk := ticket(i)
		tk.Queue, tk.Board = "q", "b"
		must(t, repo.Insert(ctx, tk))
		tks = append(tks, tk)
	}
	tks[0].Subject = "edited"
	must(t, repo.Update(ctx, tks[0]))
	page, err := repo.TicketsByQueue(ctx, "q", nil)
	must(t, err)
	board, err := repo.TicketsByBoard(ctx, "b", &v2model.TicketsByBoardOptions{Limit: 2})
	must(t, err)
	if _, err := repo.Get(ctx, gocql.MustRandomUUID()); err == nil {
		t.Fatal("Get of a ticket never written found one")
	}
	must(t, loads.Add(ctx, &v2model.QueueLoad{QueueID: gocql.MustRandomUUID(), Opened: 1}))

	rec.mu.Lock()
	for _, m := range rec.mismatch {
		t.Error(m)
	}
	var names []string
	for _, c := range rec.calls {
		names = append(names, c.Call.String())
	}
	want := "Ticket.Insert Ticket.Insert Ticket.Insert Ticket.Update Ticket.TicketsByQueue Ticket.TicketsByBoard Ticket.Get QueueLoad.Add"
	if got := strings.Join(names, " "); got != want {
		rec.mu.Unlock()
		t.Fatalf("calls observed: %q, want %q", got, want)
	}
	if c := rec.calls[4]; c.Err != nil || c.Rows != 3 || len(page.Rows) != 3 || c.Attempts != 1 || c.Latency <= 0 {
		t.Errorf("TicketsByQueue: %+v, want 3 rows in one attempt", c)
	}
	// The buckets are read by one request naming them all
	// (cqlgen.ScatterCoordinator); a page of 2 of 3 tickets needs no
	// bucket read again.
	if c := rec.calls[5]; c.Err != nil || c.Rows < len(board.Rows) || c.Attempts != 1 {
		t.Errorf("TicketsByBoard: %+v, want one attempt for every hash bucket and at least the %d rows of the page", c, len(board.Rows))
	}
	if c := rec.calls[6]; c.Err == nil || c.Attempts != 1 || c.Rows != 0 {
		t.Errorf("Get of a missing ticket: %+v, want ErrNotFound after one attempt", c)
	}

	// Every attempt: a first attempt, on the node, in the keyspace,
	// within a call; what each kind of statement returned.
	host, _, _ := net.SplitHostPort(cassandratest.Hosts(t)[0])
	ips, _ := net.LookupHost(host)
	attempts := map[cqlobserve.Call]int{}
	batches := map[string]bool{}
	kinds := map[cqldriver.StatementKind]int{}
	for i, o := range rec.obs {
		if o.Attempt != 1 || o.Err != nil && o.Call.Method != "Get" {
			t.Errorf("observation %d: %+v", i, o)
		}
		if h, _, err := net.SplitHostPort(o.Host); err != nil || (h != host && (len(ips) == 0 || h != ips[0])) {
			t.Errorf("observation %d: host %q, want %s:port", i, o.Host, host)
		}
		if o.Keyspace != e.ks {
			t.Errorf("observation %d: keyspace %q, want %q", i, o.Keyspace, e.ks)
		}
		if o.Call == (cqlobserve.Call{}) {
			t.Errorf("observation %d belongs to no call: %+v", i, o)
		}
		kinds[o.Kind]++
		switch {
		case o.Kind == cqlgen.Conditional && o.Rows != 1:
			t.Errorf("observation %d: a conditional write returned %d rows, want its one", i, o.Rows)
		case o.Kind == cqlgen.PreRead && o.Call.Method == "Update" && o.Rows != 1:
			t.Errorf("observation %d: Update's pre-read returned %d rows, want the ticket's", i, o.Rows)
		case o.Kind == cqlgen.Read && o.Call.Method == "TicketsByQueue" && o.Rows != 3:
			t.Errorf("observation %d: the page read returned %d rows, want 3", i, o.Rows)
		}
		key := fmt.Sprint(i)
		if o.Batch > 0 {
			key = fmt.Sprintf("%v %v %d", o.Call, o.Latency, o.Batch) // a batch's statements share one attempt
		}
		if !batches[key] {
			batches[key] = true
			attempts[o.Call]++
		}
	}
	for _, kind := range []cqldriver.StatementKind{cqlgen.Read, cqlgen.PreRead, cqlgen.Conditional, cqlgen.Write} {
		if kinds[kind] == 0 {
			t.Errorf("no statement of kind %v was observed: %v", kind, kinds)
		}
	}
	for _, c := range rec.calls {
		attempts[c.Call] -= c.Attempts
	}
	for c, n := range attempts {
		if n != 0 {
			t.Errorf("%v: its attempts' observations and its call records differ by %d", c, n)
		}
	}

	// The driver's own observers saw every statement sent alone and
	// every batch, with the node and the keyspace.
	alone, sent := 0, map[string]bool{}
	for _, o := range rec.obs {
		if o.Batch == 0 {
			alone++
		} else {
			sent[fmt.Sprintf("%v %v", o.Call, o.Latency)] = true
		}
	}
	if len(rec.queries) != alone || len(rec.batches) != len(sent) || len(sent) == 0 {
		t.Errorf("the driver's observers saw %d queries and %d batches; cqlgen's, %d and %d", len(rec.queries), len(rec.batches), alone, len(sent))
	}
	for _, q := range rec.queries {
		if q.Host == nil || q.Keyspace != e.ks {
			t.Errorf("the driver's QueryObserver saw %q on %v in %q", q.Statement, q.Host, q.Keyspace)
		}
	}
	rec.mu.Unlock()

	// An unlogged batch across the tables' partitions is refused before
	// it is sent, from the routing keys the adapter computes: observed at
	// attempt 0, on no node; the write then goes out statement by
	// statement, and succeeds.
	rec.reset()
	must(t, repo.Insert(ctx, ticket(9), cqlgen.WithStrategy(cqlgen.UnloggedBatch)))
	rec.mu.Lock()
	var refused, single []cqlobserve.Observation
	for _, o := range rec.obs {
		var cross *cqlgen.InputError
		switch {
		case o.Attempt == 0 && (errors.As(o.Err, &cross) && cross.Err == cqlgen.ErrCrossPartition):
			refused = append(refused, o)
		case o.Kind == cqlgen.Write && o.Batch == 0 && o.Err == nil:
			single = append(single, o)
		}
	}
	if len(refused) == 0 || refused[0].Host != "" || len(single) != len(refused) {
		t.Errorf("an Insert under the unlogged strategy: %d statements refused at attempt 0 (%+v), %d sent alone; want the batch refused, then each of its statements sent alone", len(refused), refused, len(single))
	}
	if len(rec.calls) != 1 || rec.calls[0].Err != nil {
		t.Errorf("the Insert's call: %+v", rec.calls)
	}
	rec.mu.Unlock()
}
