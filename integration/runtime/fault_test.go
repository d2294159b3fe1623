package runtime_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// One entity, three access patterns: the same item in three tables.
const itemsSchema = `
CREATE TABLE items_by_id (id int PRIMARY KEY, owner text, name text, v int);
CREATE TABLE items_by_owner (owner text, id int, name text, v int, PRIMARY KEY (owner, id));
CREATE TABLE items_by_name (name text, id int, owner text, v int, PRIMARY KEY (name, id));
-- One list element per run of a command: a non-idempotent write, so a
-- statement applied twice shows.
CREATE TABLE item_runs (id int PRIMARY KEY, tokens list<text>);
`

func stmt(table, cql string, idempotent bool) *cqldriver.Statement {
	return &cqldriver.Statement{CQL: cql, Table: table, Pattern: "Item.Insert", Kind: cqlgen.Write, Idempotent: idempotent}
}

var (
	insByID    = stmt("items_by_id", "INSERT INTO items_by_id (id, owner, name, v) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", true)
	insByOwner = stmt("items_by_owner", "INSERT INTO items_by_owner (owner, id, name, v) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", true)
	insByName  = stmt("items_by_name", "INSERT INTO items_by_name (name, id, owner, v) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", true)
	appendRun  = stmt("item_runs", "UPDATE item_runs SET tokens = tokens + ? WHERE id = ?", false)
)

type item struct {
	id          int
	owner, name string
	v           int
}

func itemOf(i int) item {
	return item{id: i, owner: fmt.Sprintf("owner-%d", i%7), name: fmt.Sprintf("name-%d", i%13), v: i * 10}
}

func (it item) writes(ts int64) []cqldriver.Query {
	return []cqldriver.Query{
		{Stmt: insByID, Values: []any{it.id, it.owner, it.name, it.v, ts}},
		{Stmt: insByOwner, Values: []any{it.owner, it.id, it.name, it.v, ts}},
		{Stmt: insByName, Values: []any{it.name, it.id, it.owner, it.v, ts}},
	}
}

// cutter cuts every proxied connection, n times, each time while at least
// one logical write is in flight and after at least every more writes have
// started since the last cut, at random intervals of 10-40ms; half the
// cuts are resets. Pacing cuts by progress, not by the clock, keeps the
// workload the same on a loaded machine. It gives up after 60 s whatever
// it has done, records the cuts it made and closes done.
func cutter(p *faultProxy, inflight *atomic.Int32, started *atomic.Int64, every int64, n int, cuts *int, done chan<- struct{}) {
	defer close(done)
	deadline := time.Now().Add(60 * time.Second)
	last := int64(0)
	for *cuts < n && time.Now().Before(deadline) {
		time.Sleep(time.Duration(10+rand.IntN(30)) * time.Millisecond)
		if now := started.Load(); inflight.Load() > 0 && now-last >= every && p.cut(*cuts%2 == 0) > 0 {
			*cuts++
			last = now
		}
	}
}

// present reads a table into id → item.
func present(t *testing.T, s *gocql.Session, table string) map[int]item {
	t.Helper()
	got := map[int]item{}
	it := s.Query("SELECT id, owner, name, v FROM " + table).Iter()
	var r item
	for it.Scan(&r.id, &r.owner, &r.name, &r.v) {
		got[r.id] = r
	}
	if err := it.Close(); err != nil {
		t.Fatalf("reading %s: %v", table, err)
	}
	return got
}

var itemTables = []string{"items_by_id", "items_by_owner", "items_by_name"}

// With the logged-batch strategy, a logical write that returned success is
// in every table, however often the connections under it are cut; and one
// that failed is in all of them or none.
func TestFaultsLoggedBatch(t *testing.T) {
	direct, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, itemsSchema)
	p := startProxy(t, cassandratest.Hosts(t)[0])
	var failed failures
	s := gocqlv1.NewSession(proxied(t, ks, p), faultOptions(&failed))

	const wantCuts, maxWrites, workers = 40, 20000, 4
	var inflight atomic.Int32
	cutsDone := make(chan struct{})
	var cuts int
	var next atomic.Int64
	go cutter(p, &inflight, &next, 2, wantCuts, &cuts, cutsDone)

	results := make([]error, maxWrites)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-cutsDone:
					return
				default:
				}
				i := int(next.Add(1)) - 1
				if i >= maxWrites {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				inflight.Add(1)
				results[i] = cqlgen.LoggedBatch.Apply(ctx, s, itemOf(i).writes(cqlgenimpl.Timestamp(time.Now())))
				inflight.Add(-1)
				cancel()
			}
		})
	}
	wg.Wait()
	<-cutsDone
	if cuts < wantCuts {
		t.Errorf("only %d of %d cuts happened during the writes", cuts, wantCuts)
	}
	writes := min(int(next.Load()), maxWrites)
	// A batch whose connection was cut is still being applied by the
	// node, whether or not its client saw the reply.
	time.Sleep(500 * time.Millisecond)

	tables := make([]map[int]item, len(itemTables))
	for i, name := range itemTables {
		tables[i] = present(t, direct, name)
	}
	var ok, failedWrites, absent int
	causes := map[string]int{}
	for i := range writes {
		want := itemOf(i)
		var in []string
		for j, tab := range tables {
			if got, found := tab[i]; found {
				in = append(in, itemTables[j])
				if got != want {
					t.Errorf("write %d: %s holds %+v, want %+v", i, itemTables[j], got, want)
				}
			}
		}
		if results[i] == nil {
			ok++
			if len(in) != len(itemTables) {
				t.Errorf("write %d succeeded but is only in %v", i, in)
			}
			continue
		}
		failedWrites++
		causes[errorKind(results[i])]++
		switch len(in) {
		case 0:
			absent++
		case len(itemTables):
		default:
			t.Errorf("failed write %d is in %v only: a logged batch applied in part", i, in)
		}
	}
	t.Logf("logged batch: %d cuts (%d connections) during %d logical writes of 3 tables: %d succeeded, %d failed (%d of them absent everywhere, the rest everywhere); failures: %v; failed attempts by table: %v",
		cuts, p.cuts.Load(), writes, ok, failedWrites, absent, causes, &failed)
	if writes < 50 || ok < writes/2 {
		t.Errorf("only %d of %d writes succeeded: the runtime does not ride out cuts", ok, writes)
	}
}

// failures counts the failed attempts a session observes, by table.
type failures struct {
	mu      sync.Mutex
	byTable map[string]int
}

func (f *failures) Observe(_ context.Context, o cqlobserve.Observation) {
	if o.Err == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.byTable == nil {
		f.byTable = map[string]int{}
	}
	f.byTable[o.Table]++
}

func (f *failures) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return fmt.Sprint(f.byTable)
}

// errorKind names an error for the test log.
func errorKind(err error) string {
	var re *cqlgen.RetriesExhaustedError
	switch {
	case errors.As(err, &re):
		return fmt.Sprintf("retries exhausted (%s)", errorKind(re.Last))
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	}
	s := err.Error()
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// With the concurrent strategy and idempotency keys, no statement applies
// twice: each command is sent by two senders at once, each retrying on
// error with the same key, while connections are cut under them.
//
// What is asserted, per command:
//   - the non-idempotent list append of one run of the command is never
//     applied twice (the session never retries it);
//   - a command none of whose runs failed ran exactly once, though sent at
//     least twice: its list holds one element;
//   - a command whose run failed was completed by a later run with the
//     first claim's timestamp (the tables' write times prove it), and its
//     list holds at most one element per run;
//   - once done, the command never runs again: every command is resent
//     afterwards, and none runs.
func TestFaultsConcurrentIdempotent(t *testing.T) {
	direct, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, itemsSchema+cqlgenimpl.IdempotencyTableCQL)
	p := startProxy(t, cassandratest.Hosts(t)[0])
	var failed failures
	s := gocqlv1.NewSession(proxied(t, ks, p), faultOptions(&failed))
	strategy := cqlgen.Concurrent(3)

	type run struct {
		token string
		ts    int64
		err   error
	}
	var (
		mu     sync.Mutex
		runs   = map[int][]run{}
		seq    atomic.Int64
		sendOK atomic.Int64
	)
	command := func(i int) func(ctx context.Context, ts int64) error {
		return func(ctx context.Context, ts int64) error {
			token := fmt.Sprintf("%d/%d", i, seq.Add(1))
			qs := append(itemOf(i).writes(ts), cqldriver.Query{Stmt: appendRun, Values: []any{[]string{token}, i}})
			err := strategy.Apply(ctx, s, qs)
			mu.Lock()
			runs[i] = append(runs[i], run{token, ts, err})
			mu.Unlock()
			return err
		}
	}
	payload := func(i int) []byte {
		sum := sha256.Sum256(fmt.Appendf(nil, "%+v", itemOf(i)))
		return sum[:]
	}
	idem := func(i int) cqlgenimpl.Idempotency {
		return cqlgenimpl.Idempotency{Key: fmt.Sprintf("cmd-%d", i), TTL: time.Hour, Lease: 3 * time.Second}
	}
	send := func(sess cqlgen.Session, i int, fn func(context.Context, int64) error) error {
		var err error
		for range 30 {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			err = cqlgenimpl.Idempotent(ctx, sess, idem(i), cqlgenimpl.Timestamp(time.Now()), payload(i), fn)
			cancel()
			if err == nil || errors.Is(err, cqlgen.ErrIdempotencyConflict) {
				return err
			}
			time.Sleep(20 * time.Millisecond)
		}
		return err
	}

	const wantCuts, maxCommands, workers = 30, 2000, 3
	var inflight atomic.Int32
	cutsDone := make(chan struct{})
	var cuts int
	var next atomic.Int64
	go cutter(p, &inflight, &next, 1, wantCuts, &cuts, cutsDone)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-cutsDone:
					return
				default:
				}
				i := int(next.Add(1)) - 1
				if i >= maxCommands {
					return
				}
				inflight.Add(1)
				var senders sync.WaitGroup
				for range 2 {
					senders.Go(func() {
						if err := send(s, i, command(i)); err != nil {
							t.Errorf("command %d: gave up: %v", i, err)
						} else {
							sendOK.Add(1)
						}
					})
				}
				senders.Wait()
				inflight.Add(-1)
			}
		})
	}
	wg.Wait()
	<-cutsDone
	if cuts < wantCuts {
		t.Errorf("only %d of %d cuts happened during the commands", cuts, wantCuts)
	}
	commands := min(int(next.Load()), maxCommands)
	time.Sleep(500 * time.Millisecond) // let cut requests finish on the node

	// Resend every command on a healthy connection: none may run again.
	healthy := gocqlv1.NewSession(direct, nil)
	runsBefore := seq.Load()
	for i := range commands {
		if err := send(healthy, i, command(i)); err != nil {
			t.Errorf("resending command %d: %v", i, err)
		}
	}
	if n := seq.Load() - runsBefore; n != 0 {
		t.Errorf("resending %d done commands ran %d of them again", commands, n)
	}

	lists := map[int][]string{}
	it := direct.Query("SELECT id, tokens FROM item_runs").Iter()
	var id int
	var tokens []string
	for it.Scan(&id, &tokens) {
		lists[id] = tokens
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	writeTS := map[int]int64{}
	it = direct.Query("SELECT id, WRITETIME(v) FROM items_by_id").Iter()
	var ts int64
	for it.Scan(&id, &ts) {
		writeTS[id] = ts
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	tables := make([]map[int]item, len(itemTables))
	for i, name := range itemTables {
		tables[i] = present(t, direct, name)
	}

	var totalRuns, failedRuns, rerun int
	for i := range commands {
		rs := runs[i]
		totalRuns += len(rs)
		var state string
		var recordTS int64
		if err := direct.Query("SELECT state, write_ts FROM "+cqlgenimpl.IdempotencyTable+" WHERE key = ?", idem(i).Key).Scan(&state, &recordTS); err != nil || state != "done" {
			t.Errorf("command %d: record state %q, %v; want done", i, state, err)
		}
		tokens := lists[i]
		sorted := slices.Clone(tokens)
		sort.Strings(sorted)
		if len(slices.Compact(sorted)) != len(tokens) {
			t.Errorf("command %d: a run's append applied twice: %v", i, tokens)
		}
		ran := map[string]bool{}
		anyFailed := false
		for _, r := range rs {
			ran[r.token] = true
			anyFailed = anyFailed || r.err != nil
			if r.err != nil {
				failedRuns++
			}
			if r.ts != recordTS {
				t.Errorf("command %d: a run used timestamp %d, the claim %d", i, r.ts, recordTS)
			}
		}
		for _, tok := range tokens {
			if !ran[tok] {
				t.Errorf("command %d: list holds %s, which no run of it wrote", i, tok)
			}
		}
		if len(rs) > 1 {
			rerun++
		}
		if !anyFailed && (len(rs) != 1 || len(tokens) != 1) {
			t.Errorf("command %d: sent at least twice, no run failed, yet %d runs and list %v; want exactly one", i, len(rs), tokens)
		}
		for j, tab := range tables {
			if tab[i] != itemOf(i) {
				t.Errorf("command %d: %s holds %+v", i, itemTables[j], tab[i])
			}
		}
		if writeTS[i] != recordTS {
			t.Errorf("command %d: written at %d, claimed at %d", i, writeTS[i], recordTS)
		}
	}
	t.Logf("concurrent + idempotency keys: %d cuts (%d connections) during %d commands sent twice each (%d sends succeeded): %d runs of the command body, %d of them failed, %d commands completed by a later run; after, %d resends ran nothing; failed attempts by table: %v",
		cuts, p.cuts.Load(), commands, sendOK.Load(), totalRuns, failedRuns, rerun, commands, &failed)
	if commands < 20 {
		t.Errorf("only %d commands ran during the cuts", commands)
	}
}
