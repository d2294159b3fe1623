package v2

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/gocqlv2"
)

// replyProxy forwards TCP connections from a loopback port to the node
// and can hold back the node's replies while requests still reach it: a
// client then sees a request time out that the node has applied. (The v1
// suite's fault proxy, in integration/runtime, lives in that package's
// tests; this one does the one thing these tests need.)
type replyProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	conns   []net.Conn
	holding chan struct{} // non-nil while replies are held
	closed  bool
	wg      sync.WaitGroup
}

func startReplyProxy(t *testing.T, target string) *replyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &replyProxy{ln: ln, target: target}
	p.wg.Go(p.serve)
	t.Cleanup(p.close)
	return p
}

func (p *replyProxy) addr() *net.TCPAddr { return p.ln.Addr().(*net.TCPAddr) }

func (p *replyProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		node, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			client.Close()
			node.Close()
			return
		}
		p.conns = append(p.conns, client, node)
		p.mu.Unlock()
		p.wg.Go(func() { forward(node, client, nil) })
		p.wg.Go(func() { forward(client, node, p.wait) })
	}
}

// forward copies src to dst until either fails, then closes both; gate,
// if set, runs before each write and may hold it.
func forward(dst, src net.Conn, gate func()) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if gate != nil {
				gate()
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// hold stops forwarding replies until release is called; release may be
// called any number of times.
func (p *replyProxy) hold() (release func()) {
	ch := make(chan struct{})
	p.mu.Lock()
	p.holding = ch
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			p.holding = nil
			p.mu.Unlock()
			close(ch)
		})
	}
}

func (p *replyProxy) wait() {
	p.mu.Lock()
	ch := p.holding
	p.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func (p *replyProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	if p.holding != nil {
		close(p.holding)
		p.holding = nil
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
}

// faultPlan holds the proxy's replies when a chosen statement of a
// chosen call is about to run, and lets them through again once an
// attempt has failed: exactly one attempt loses its reply.
type faultPlan struct {
	p      *replyProxy
	armed  atomic.Bool
	method string // the repository method, e.g. Insert
	// after, if set, picks the statement whose success arms the hold for
	// the statement that follows it; nil holds from the start of the call.
	after   func(cqlobserve.Observation) bool
	release func()

	mu     sync.Mutex
	failed []cqlobserve.Observation
	calls  []cqlobserve.CallObservation
}

func (f *faultPlan) StartCall(ctx context.Context, c cqlobserve.Call) context.Context {
	if f.armed.Load() && c.Method == f.method && f.after == nil {
		f.release = f.p.hold()
	}
	return ctx
}

// Observe runs on the goroutine of the statement it reports, before the
// call's next statement is sent, so a hold it starts catches that one.
func (f *faultPlan) Observe(_ context.Context, o cqlobserve.Observation) {
	if o.Err != nil && f.release != nil {
		f.mu.Lock()
		f.failed = append(f.failed, o)
		f.mu.Unlock()
		f.release()
		f.armed.Store(false)
		return
	}
	if f.armed.Load() && f.after != nil && f.release == nil && o.Call.Method == f.method && o.Err == nil && f.after(o) {
		f.release = f.p.hold()
	}
}

func (f *faultPlan) EndCall(_ context.Context, o cqlobserve.CallObservation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, o)
}

// arm makes the next call of method lose the reply of the statement that
// follows the one after picks (of its first statement, for a nil after).
func (f *faultPlan) arm(method string, after func(cqlobserve.Observation) bool) {
	f.mu.Lock()
	f.method, f.after, f.release, f.failed, f.calls = method, after, nil, nil, nil
	f.mu.Unlock()
	f.armed.Store(true)
}

// of picks an observation of a statement of a kind on a table.
func of(kind cqldriver.StatementKind, table string) func(cqlobserve.Observation) bool {
	return func(o cqlobserve.Observation) bool { return o.Kind == kind && o.Table == table }
}

// Lost replies on the v2 driver, made by a proxy that holds the node's
// replies past the driver's timeout: a read whose reply is lost is
// retried and answers; an Insert whose conditional write (its unique
// claim, or the write of its source of truth) applied but lost its reply
// fails as the adapter classifies it (no response, never retried) and,
// sent again, completes the write: every table then holds the ticket
// once, and Verify finds no drift. A counter update whose reply is lost
// is never sent again.
func TestLostReplies(t *testing.T) {
	t.Parallel()
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, v2model.Schema)
	p := startReplyProxy(t, cassandratest.Hosts(t)[0])
	plan := &faultPlan{p: p}
	a := p.addr()
	gs := v2Session(t, ks, func(c *gocql.ClusterConfig) {
		// Every connection, the control connection's and those to the
		// address the node advertises included, goes through the proxy.
		c.Hosts = []string{a.String()}
		c.AddressTranslator = gocql.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) { return a.IP, a.Port })
		// A held reply times out in a second, not the default 11.
		c.Timeout = time.Second
		c.Logger = gocql.NewLogger(gocql.LogLevelNone)
	})
	s := gocqlv2.NewSession(gs, &cqlgen.SessionOptions{Observer: plan,
		MaxAttempts: 4, BaseDelay: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond})
	repo := v2model.NewTicketRepo(s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	tk := ticket(11)
	must(t, repo.Insert(ctx, tk))

	// A read: its first attempt's reply is lost, the second answers. (A
	// Get first prepares its statement, so that the reply held is the
	// read's, not the prepare's.)
	_, err := repo.Get(ctx, tk.TicketID)
	must(t, err)
	plan.arm("Get", nil)
	got, err := repo.Get(ctx, tk.TicketID)
	if err != nil || got.TicketID != tk.TicketID {
		t.Fatalf("Get with its first reply lost: %+v, %v", got, err)
	}
	if len(plan.failed) != 1 || !errors.Is(plan.failed[0].Err, cqlgen.ErrNoResponse) || len(plan.calls) != 1 || plan.calls[0].Retries != 1 {
		t.Errorf("Get: failed attempts %+v, calls %+v; want one attempt without response, retried once", plan.failed, plan.calls)
	}

	// Inserts whose conditional writes apply and lose their replies: the
	// claim of the reference (the Insert's first statement: a new
	// ticket's Insert claims, then creates directly, without a read; see
	// docs/protocol.md), and the write of the source of truth (which
	// follows the claim).
	live := map[gocql.UUID]*v2model.Ticket{tk.TicketID: tk}
	for i, c := range []struct {
		lost           string
		after          func(cqlobserve.Observation) bool
		table, applied string
	}{
		{"the claim's", nil, "tickets_by_ref", "SELECT count(*) FROM tickets_by_ref WHERE ref = ?"},
		{"the source of truth's", of(cqlgen.Conditional, "tickets_by_ref"), "tickets", "SELECT count(*) FROM tickets WHERE ticket_id = ?"},
	} {
		lost := ticket(20 + i)
		key := any(lost.Ref)
		if c.table == "tickets" {
			key = lost.TicketID.String()
		}
		plan.arm("Insert", c.after)
		err := repo.Insert(ctx, lost)
		if len(plan.failed) != 1 || plan.failed[0].Kind != cqlgen.Conditional || plan.failed[0].Table != c.table || !errors.Is(plan.failed[0].Err, cqlgen.ErrNoResponse) {
			t.Fatalf("%s reply: the failed attempts are %+v; want one conditional write to %s, without response", c.lost, plan.failed, c.table)
		}
		var n int
		must(t, raw.Query(c.applied, key).Scan(&n))
		if n != 1 {
			t.Fatalf("%s reply: the conditional write did not apply (%d rows), so no reply was lost after it", c.lost, n)
		}
		t.Logf("an Insert that lost %s reply: %v", c.lost, err)
		if err != nil {
			if !errors.Is(err, cqlgen.ErrNoResponse) {
				t.Errorf("%s reply: the Insert failed with %v; want the adapter's no-response error", c.lost, err)
			}
			// Sent again, it finds its own claim or change and finishes.
			must(t, repo.Insert(ctx, lost))
		}
		live[lost.TicketID] = lost
		checkTables(t, raw, live, "after an Insert that lost "+c.lost+" reply")
	}
	// A Modify whose conditional write applied and lost its reply: the
	// read at the serial level that follows settles it as applied, so the
	// call succeeds; sent again with its idempotency key, it does not
	// edit twice. (Before, the call failed and the key let the resend
	// edit again.)
	edits := func() int32 {
		var n int32
		must(t, raw.Query("SELECT edits FROM tickets WHERE ticket_id = ?", tk.TicketID.String()).Scan(&n))
		return n
	}
	edit := func(e *v2model.Ticket) error { e.Edits++; return nil }
	// A Modify first, unarmed, prepares the statements: the reply held is
	// then the conditional write's, not its prepare's. (The Inserts above
	// sent Create, not Change: docs/protocol.md.)
	_, err = repo.Modify(ctx, tk.TicketID, edit)
	must(t, err)
	before := edits()
	key := cqlgen.WithIdempotencyKey("edit-" + tk.TicketID.String())
	// Modify reads the ticket once, and its write starts from that read
	// (docs/protocol.md): the hold starts after the read.
	plan.arm("Modify", of(cqlgen.PreRead, "tickets"))
	out, err := repo.Modify(ctx, tk.TicketID, edit, key)
	if len(plan.failed) != 1 || plan.failed[0].Kind != cqlgen.Conditional || plan.failed[0].Table != "tickets" || !errors.Is(plan.failed[0].Err, cqlgen.ErrNoResponse) {
		t.Fatalf("Modify: the failed attempts are %+v; want one conditional write to tickets, without response", plan.failed)
	}
	if err != nil || out.Edits != before+1 || edits() != before+1 {
		t.Fatalf("Modify whose reply was lost: %v, edits %d (returned %v), want %d and no error", err, edits(), out, before+1)
	}
	again, err := repo.Modify(ctx, tk.TicketID, edit, key)
	if err != nil || again.Edits != before+1 || edits() != before+1 {
		t.Errorf("Modify sent again with its key: %v, edits %d; want %d", err, edits(), before+1)
	}
	live[tk.TicketID].Edits = before + 1

	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	if rep.Drift() != 0 || rep.Rows != int64(len(live)) {
		t.Errorf("verify: %d rows, drift %d: %+v", rep.Rows, rep.Drift(), rep.Tables)
	}

	// A counter update whose reply is lost is not retried, whatever the
	// retry budget: the error says its outcome is unknown, and it counted
	// once.
	loads := v2model.NewQueueLoadRepo(s)
	q := gocql.MustRandomUUID()
	must(t, loads.Add(ctx, &v2model.QueueLoad{QueueID: q, Opened: 1})) // prepares the update
	plan.arm("Add", nil)
	err = loads.Add(ctx, &v2model.QueueLoad{QueueID: q, Opened: 1})
	if !errors.Is(err, cqlgen.ErrOutcomeUnknown) || errors.Is(err, cqlgen.ErrCounterNotApplied) || !errors.Is(err, cqlgen.ErrNoResponse) {
		t.Errorf("Add with its reply lost: %v; want outcome unknown, no response", err)
	}
	if len(plan.calls) != 1 || plan.calls[0].Attempts != 1 {
		t.Errorf("Add with its reply lost: %+v; want one attempt, never retried", plan.calls)
	}
	var opened int64
	for deadline := time.Now().Add(5 * time.Second); opened < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		must(t, raw.Query("SELECT opened FROM queue_load WHERE queue_id = ?", q.String()).Scan(&opened))
	}
	time.Sleep(200 * time.Millisecond) // anything more would have landed by now
	must(t, raw.Query("SELECT opened FROM queue_load WHERE queue_id = ?", q.String()).Scan(&opened))
	if opened != 2 {
		t.Errorf("after two Adds of 1, the second with its reply lost: opened %d, want 2", opened)
	}
}
