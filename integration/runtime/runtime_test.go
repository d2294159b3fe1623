package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// The same key sent 20 times at once applies once, and a different
// payload under it is a conflict. The command's body includes a list
// append, which shows every application.
func TestIdempotencyKeyAppliesOnce(t *testing.T) {
	t.Parallel()
	direct, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, itemsSchema+cqlgenimpl.IdempotencyTableCQL)
	s := gocqlv1.NewSession(direct, nil)
	build := func(it item) func(ts int64) []cqldriver.Query {
		return func(ts int64) []cqldriver.Query {
			return append(it.writes(ts), cqldriver.Query{Stmt: appendRun, Values: []any{[]string{"applied"}, it.id}})
		}
	}
	id := cqlgenimpl.Idempotency{Key: "order-7"}
	var wg sync.WaitGroup
	var failed atomic.Int32
	for range 20 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := cqlgenimpl.Apply(ctx, s, cqlgen.Concurrent(4), id, cqlgenimpl.Timestamp(time.Now()), build(itemOf(7))); err != nil {
				t.Errorf("sender: %v", err)
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	var tokens []string
	if err := direct.Query("SELECT tokens FROM item_runs WHERE id = 7").Scan(&tokens); err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 1 || failed.Load() != 0 {
		t.Errorf("20 concurrent sends: list %v, %d failed; want one application and no failure", tokens, failed.Load())
	}
	for _, table := range itemTables {
		if got := present(t, direct, table)[7]; got != itemOf(7) {
			t.Errorf("%s holds %+v", table, got)
		}
	}

	other := itemOf(7)
	other.v = 99
	err := cqlgenimpl.Apply(ctxTimeout(t, 30*time.Second), s, cqlgen.Concurrent(4), id, cqlgenimpl.Timestamp(time.Now()), build(other))
	var ce *cqlgen.InputError
	if !errors.Is(err, cqlgen.ErrIdempotencyConflict) || !(errors.As(err, &ce) && ce.Err == cqlgen.ErrIdempotencyConflict) || ce.Name != `key "order-7"` {
		t.Fatalf("another payload under the key: err = %v", err)
	}
	if got := present(t, direct, "items_by_id")[7]; got.v != 70 {
		t.Errorf("the conflicting payload was written: %+v", got)
	}
}

const usersSchema = `CREATE TABLE users (id text PRIMARY KEY, name text, email text);`

var (
	createUser = &cqldriver.Statement{CQL: "INSERT INTO users (id, name, email) VALUES (?, ?, ?) IF NOT EXISTS",
		Table: "users", Pattern: "User.Create", Kind: cqlgen.Conditional}
	renameUser = &cqldriver.Statement{CQL: "UPDATE users SET name = ? WHERE id = ? IF name = ?",
		Table: "users", Pattern: "User.Rename", Kind: cqlgen.Conditional}
)

// IF NOT EXISTS on an existing row reports not applied, with the values
// the row holds; never a silent success.
func TestConditionalWrites(t *testing.T) {
	t.Parallel()
	direct, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, usersSchema)
	s := gocqlv1.NewSession(direct, nil)
	ctx := ctxTimeout(t, 30*time.Second)

	res, err := cqlgenimpl.CAS(ctx, s, cqldriver.Query{Stmt: createUser, Values: []any{"u1", "Ann", "ann@example.com"}})
	if err != nil || !res.Applied || res.Err() != nil {
		t.Fatalf("first create: %+v, %v", res, err)
	}
	res, err = cqlgenimpl.CAS(ctx, s, cqldriver.Query{Stmt: createUser, Values: []any{"u1", "Bob", "bob@example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"id": "u1", "name": "Ann", "email": "ann@example.com"}
	if res.Applied || len(res.Current) != len(want) {
		t.Fatalf("second create: %+v; want not applied with the row %v", res, want)
	}
	for k, v := range want {
		if res.Current[k] != v {
			t.Errorf("current %s = %v, want %v", k, res.Current[k], v)
		}
	}
	var na *cqlgen.NotAppliedError
	if err := res.Err(); !errors.Is(err, cqlgen.ErrNotApplied) || !errors.As(err, &na) || na.Current["name"] != "Ann" {
		t.Errorf("Err() = %v", err)
	}

	// IF col = ?: the current value of the condition's column.
	res, err = cqlgenimpl.CAS(ctx, s, cqldriver.Query{Stmt: renameUser, Values: []any{"Cleo", "u1", "Bob"}})
	if err != nil || res.Applied || res.Current["name"] != "Ann" {
		t.Errorf("rename on a stale name: %+v, %v", res, err)
	}
	// The positional form of the Session serves IF col = ? too.
	var current string
	applied, err := s.ExecCAS(ctx, cqldriver.Query{Stmt: renameUser, Values: []any{"Cleo", "u1", "Ann"}}, &current)
	if err != nil || !applied {
		t.Errorf("rename: applied %v, %v", applied, err)
	}
	var name string
	if err := direct.Query("SELECT name FROM users WHERE id = 'u1'").Scan(&name); err != nil || name != "Cleo" {
		t.Errorf("name %q, %v", name, err)
	}
}

// An oversized batch gets the typed error and never reaches the server:
// the proxy in front of it forwards no more than heartbeats meanwhile,
// and the same batch, once the limit is lifted, is refused by Cassandra
// itself (its batch_size_fail_threshold is the same 50 KiB).
func TestBatchTooLargeNeverReachesTheServer(t *testing.T) {
	t.Parallel()
	direct, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, itemsSchema)
	p := startProxy(t, cassandratest.Hosts(t)[0])
	viaProxy := proxied(t, ks, p)
	ctx := ctxTimeout(t, 30*time.Second)

	big := strings.Repeat("x", 20<<10)
	var qs []cqldriver.Query
	for i := range 3 {
		it := itemOf(i)
		it.name = big
		qs = append(qs, it.writes(cqlgenimpl.Timestamp(time.Now()))[0])
	}
	var observed []cqlobserve.Observation
	s := gocqlv1.NewSession(viaProxy, &cqlgen.SessionOptions{Observer: observerFunc(func(_ context.Context, o cqlobserve.Observation) {
		observed = append(observed, o)
	})})
	before := p.upstream.Load()
	err := cqlgen.LoggedBatch.Apply(ctx, s, qs)
	sent := p.upstream.Load() - before
	var tl *cqlgen.InputError
	tooLarge := func(reason string) bool { b, limit := batchSize(reason); return b > 60<<10 && limit == 50<<10 }
	if !errors.Is(err, cqlgen.ErrBatchTooLarge) || !(errors.As(err, &tl) && tl.Err == cqlgen.ErrBatchTooLarge) || !tooLarge(tl.Reason) {
		t.Fatalf("err = %v", err)
	}
	if sent > 1024 {
		t.Errorf("%d bytes went to the server during the refused batch (%s)", sent, tl.Reason)
	}
	if len(observed) != 3 || observed[0].Attempt != 0 {
		t.Errorf("observations %+v; want the 3 statements refused at attempt 0", observed)
	}

	unlimited := gocqlv1.NewSession(viaProxy, &cqlgen.SessionOptions{BatchFailBytes: -1})
	before = p.upstream.Load()
	err = cqlgen.LoggedBatch.Apply(ctx, unlimited, qs)
	sent = p.upstream.Load() - before
	if err == nil || !strings.Contains(err.Error(), "Batch too large") {
		t.Errorf("without the limit, Cassandra answered %v; want its own batch too large error", err)
	}
	if b, _ := batchSize(tl.Reason); sent < int64(b) {
		t.Errorf("without the limit only %d bytes went out; the proxy does not see the batch", sent)
	}
	if n := len(present(t, direct, "items_by_id")); n != 0 {
		t.Errorf("%d rows written", n)
	}
}

// An unlogged batch goes out only when every statement writes one
// partition: here two tables keyed by the same owner.
func TestUnloggedBatchMustStayInOnePartition(t *testing.T) {
	t.Parallel()
	direct, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, itemsSchema+`
CREATE TABLE owner_stats (owner text PRIMARY KEY, items int);`)
	s := gocqlv1.NewSession(direct, nil)
	ctx := ctxTimeout(t, 30*time.Second)
	ts := cqlgenimpl.Timestamp(time.Now())
	stats := stmt("owner_stats", "INSERT INTO owner_stats (owner, items) VALUES (?, ?) USING TIMESTAMP ?", true)

	a, b := itemOf(1), itemOf(2) // different owners
	err := cqlgen.UnloggedBatch.Apply(ctx, s, []cqldriver.Query{a.writes(ts)[1], b.writes(ts)[1]})
	var cp *cqlgen.InputError
	if !errors.Is(err, cqlgen.ErrCrossPartition) || !(errors.As(err, &cp) && cp.Err == cqlgen.ErrCrossPartition) || !strings.Contains(cp.Reason, "items_by_owner") {
		t.Errorf("two partitions: err = %v", err)
	}
	if n := len(present(t, direct, "items_by_owner")); n != 0 {
		t.Errorf("the refused batch wrote %d rows", n)
	}

	c := itemOf(8) // owner-1, as a
	same := []cqldriver.Query{a.writes(ts)[1], c.writes(ts)[1], {Stmt: stats, Values: []any{a.owner, 2, ts}}}
	if err := cqlgen.UnloggedBatch.Apply(ctx, s, same); err != nil {
		t.Fatalf("one partition: %v", err)
	}
	var items int
	if err := direct.Query("SELECT items FROM owner_stats WHERE owner = ?", a.owner).Scan(&items); err != nil || items != 2 {
		t.Errorf("owner_stats: %d, %v", items, err)
	}
	if n := len(present(t, direct, "items_by_owner")); n != 2 {
		t.Errorf("%d rows in items_by_owner, want 2", n)
	}
}

// Errors the server gives for a bad statement are never retried, however
// idempotent the statement says it is, and reach the caller as they are.
func TestRequestErrorsAreNotRetried(t *testing.T) {
	t.Parallel()
	direct, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, itemsSchema)
	var attempts atomic.Int32
	s := gocqlv1.NewSession(direct, &cqlgen.SessionOptions{Observer: observerFunc(func(context.Context, cqlobserve.Observation) { attempts.Add(1) })})
	ctx := ctxTimeout(t, 30*time.Second)
	for _, c := range []struct {
		name, cql string
		values    []any
		code      int
	}{
		{"syntax", "INSERT INTO items_by_id (id) VALUES (?) USING BOGUS", []any{1}, gocql.ErrCodeSyntax},
		{"invalid", "INSERT INTO no_such_table (id) VALUES (?)", []any{1}, gocql.ErrCodeInvalid},
		{"invalid value", "INSERT INTO items_by_id (id, v) VALUES (?, ?) USING TTL ?", []any{1, 2, -5}, gocql.ErrCodeInvalid},
	} {
		attempts.Store(0)
		err := s.Exec(ctx, cqldriver.Query{Stmt: stmt("items_by_id", c.cql, true), Values: c.values})
		var re gocql.RequestError
		if !errors.As(err, &re) || re.Code() != c.code || errors.Is(err, cqlgen.ErrRetriesExhausted) {
			t.Errorf("%s: err = %v; want the server's code %#x as is", c.name, err, c.code)
		}
		if retry, _ := cqlgenimpl.Retryable(err, cqlgen.Write); retry {
			t.Errorf("%s: classified as retryable", c.name)
		}
		if n := attempts.Load(); n != 1 {
			t.Errorf("%s: %d attempts observed, want 1", c.name, n)
		}
	}
}

// Reads go through the same path: one page, its rows, and errors at Close.
func TestReadsAndObservations(t *testing.T) {
	t.Parallel()
	direct, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, direct, itemsSchema)
	var mu sync.Mutex
	var seen []cqlobserve.Observation
	s := gocqlv1.NewSession(direct, &cqlgen.SessionOptions{Observer: observerFunc(func(_ context.Context, o cqlobserve.Observation) {
		mu.Lock()
		seen = append(seen, o)
		mu.Unlock()
	})})
	ctx := ctxTimeout(t, 30*time.Second)
	for i := range 5 {
		if err := cqlgen.LoggedBatch.Apply(ctx, s, itemOf(7*i).writes(cqlgenimpl.Timestamp(time.Now()))); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 15 || seen[0].Attempt != 1 || seen[0].Batch != 3 || seen[0].Latency <= 0 || seen[0].Err != nil || seen[0].Table != "items_by_id" {
		t.Errorf("observations of 5 batches of 3: %d, first %+v", len(seen), seen[0])
	}

	byOwner := &cqldriver.Statement{CQL: "SELECT id FROM items_by_owner WHERE owner = ?", Table: "items_by_owner", Pattern: "Item.ByOwner", Kind: cqlgen.Read, Idempotent: true}
	it := s.Iter(ctx, cqldriver.Query{Stmt: byOwner, Values: []any{"owner-0"}, PageSize: 2})
	var ids []int
	var id int
	for it.Scan(&id) {
		ids = append(ids, id)
	}
	state := it.PageState()
	if err := it.Close(); err != nil || len(ids) != 2 || len(state) == 0 {
		t.Fatalf("first page %v, state %x, %v; want 2 rows and a page state", ids, state, err)
	}
	it = s.Iter(ctx, cqldriver.Query{Stmt: byOwner, Values: []any{"owner-0"}, PageSize: 2, PageState: state})
	for it.Scan(&id) {
		ids = append(ids, id)
	}
	if err := it.Close(); err != nil || len(ids) != 4 || ids[2] != 14 {
		t.Errorf("two pages %v, %v", ids, err)
	}
	last := seen[len(seen)-1]
	if last.Pattern != "Item.ByOwner" || last.Kind != cqlgen.Read || last.Batch != 0 {
		t.Errorf("read observation %+v", last)
	}

	bad := &cqldriver.Statement{CQL: "SELECT id FROM no_such_table", Table: "no_such_table", Kind: cqlgen.Read, Idempotent: true}
	it = s.Iter(ctx, cqldriver.Query{Stmt: bad})
	if it.Scan(&id) || it.Close() == nil {
		t.Error("a failed read scanned a row or closed without error")
	}
}

type observerFunc func(context.Context, cqlobserve.Observation)

func (f observerFunc) Observe(ctx context.Context, o cqlobserve.Observation) { f(ctx, o) }

// batchSize reads the estimated size and the limit out of the reason of
// a batch refused as too large.
func batchSize(reason string) (bytes, limit int) {
	var n int
	fmt.Sscanf(reason, "%d statements of about %d bytes, over the %d-byte limit", &n, &bytes, &limit)
	return bytes, limit
}
