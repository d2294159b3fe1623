package cqltest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/gocql/gocql"
)

func TestSchemas(t *testing.T) {
	for _, path := range []string{"../../example/music/schema.cql", "../../example/messaging/schema.cql",
		// Counters, user-defined types and a vector.
		"../../example/helpdesk/schema.cql", "../../gen/testdata/golden/udt_v2/schema.cql"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(string(b)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	s := newSession(t, `
		/* a block
		   comment */ CREATE KEYSPACE IF NOT EXISTS ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		USE ks;
		// a comment
		create table if not exists KS.Mixed ("Quoted" int, plain text, PRIMARY KEY (("Quoted"), plain))
			WITH comment = 'it''s' AND gc_grace_seconds = 10 AND compaction = {'class': 'LeveledCompactionStrategy'};
		CREATE TABLE IF NOT EXISTS mixed (x int PRIMARY KEY); -- ignored: it exists
	`)
	mustExec(t, s, `INSERT INTO mixed ("Quoted", plain) VALUES (?, ?)`, 1, "a")
	if rows, _ := s.Rows("mixed"); len(rows) != 1 || rows[0]["Quoted"] != 1 {
		t.Errorf("rows %v", rows)
	}
	for _, tc := range []struct{ schema, msg string }{
		{"CREATE TABLE t (k int PRIMARY KEY, n counter, v int)", "Cannot mix counter and non counter columns"},
		{"CREATE TABLE t (k counter PRIMARY KEY, n counter)", "counter type is not supported for PRIMARY KEY column 'k'"},
		{"CREATE TABLE t (k int PRIMARY KEY, n counter) WITH default_time_to_live = 10", "Cannot set default_time_to_live on a table with counters"},
		{"CREATE TABLE t (k int PRIMARY KEY, l list<counter>)", "Counters are not allowed inside collections"},
		{"CREATE TABLE t (k int PRIMARY KEY, n mytype)", "Unknown type mytype"},
		{"CREATE TYPE a (x int); CREATE TABLE t (k int PRIMARY KEY, l list<a>)", "Non-frozen UDTs are not allowed inside collections"},
		{"CREATE TYPE a (x int, x text)", "Duplicate field name x"},
		{"CREATE TYPE a (x set<int>); CREATE TABLE t (k int PRIMARY KEY, v a)", "Non-frozen UDTs with nested non-frozen collections are not supported"},
		{"CREATE TYPE a (x int); CREATE TYPE b (y a)", "A user type cannot contain non-frozen UDTs"},
		{"CREATE TYPE a (x counter)", "Counters are not allowed"},
		{"CREATE TYPE a (x int); CREATE TYPE a (y int)", "a user type of name a already exists"},
		{"CREATE TABLE t (k int, v int)", "no PRIMARY KEY"},
		{"CREATE TABLE t (k int, v int, PRIMARY KEY (k, x))", "unknown definition x"},
		{"CREATE TABLE t (k list<int> PRIMARY KEY)", "non-frozen collection"},
		{"CREATE TABLE t (k int PRIMARY KEY, s int STATIC)", "static columns are only useful"},
		{"CREATE TABLE t (k int, a int, b int, PRIMARY KEY (k, a, b)) WITH CLUSTERING ORDER BY (b ASC, a DESC)", "must match"},
		{"CREATE TABLE t (k int PRIMARY KEY, l list<list<int>>)", "Non-frozen collections are not allowed inside collections"},
		{"CREATE TABLE t (k int PRIMARY KEY);\nCREATE FUNCTION f (x int);", "line 2:0 mismatched input 'CREATE' expecting CREATE TABLE"},
		{"CREATE TABLE t (k int PRIMARY KEY v int)", "line 1:34 mismatched input 'v' expecting ','"},
	} {
		_, err := New(tc.schema)
		wantErr(t, err, tc.msg)
	}
}

func TestStatementErrors(t *testing.T) {
	s := newSession(t, kvSchema+`CREATE TABLE ids (k int PRIMARY KEY, tu timeuuid, u uuid);`)
	for _, tc := range []struct {
		cql  string
		vals []any
		msg  string
		code int // 0: not a request error
	}{
		{"INSERT INTO kv (k, c, a) VALUES (?, ?, ?)", []any{"k", 1}, "expected 3 values, got 2", 0},
		{"INSERT INTO kv (k, c, a) VALUES (?, ?, ?)", []any{"k", 1, "a", "b"}, "expected 3 values, got 4", 0},
		{"INSERT INTO kv (k, c, nope) VALUES (?, ?, ?)", []any{"k", 1, 2}, "Undefined column name nope in table kv", gocql.ErrCodeInvalid},
		{"INSERT INTO kv (k, c, a) VALUES (?, ?)", []any{"k", 1}, "Unmatched column names/values", gocql.ErrCodeInvalid},
		{"INSERT INTO kv (c, a) VALUES (?, ?)", []any{1, "a"}, "Some partition key parts are missing: k", gocql.ErrCodeInvalid},
		{"INSERT INTO kv (k, a) VALUES (?, ?)", []any{"k", "a"}, "Some clustering keys are missing: c", gocql.ErrCodeInvalid},
		{"INSERT INTO nope (k) VALUES (?)", []any{1}, "unconfigured table nope", gocql.ErrCodeInvalid},
		{"UPDATE kv SET a = ? WHERE c = ?", []any{"a", 1}, "Some partition key parts are missing: k", gocql.ErrCodeInvalid},
		{"UPDATE kv SET c = ? WHERE k = ? AND c = ?", []any{1, "k", 1}, "PRIMARY KEY part c found in SET part", gocql.ErrCodeInvalid},
		{"UPDATE kv SET a = ? WHERE k = ? AND c > ?", []any{"a", "k", 1}, "Slice restrictions are not supported", gocql.ErrCodeInvalid},
		{"UPDATE kv SET a = ? WHERE k = ? AND c = ? AND a = ?", []any{"a", "k", 1, "x"}, "Non PRIMARY KEY columns found in where clause: a", gocql.ErrCodeInvalid},
		{"DELETE a FROM kv WHERE k = ?", []any{"k"}, "Range deletions are not supported for specific columns", gocql.ErrCodeInvalid},
		{"DELETE FROM kv WHERE k = ? IF EXISTS", []any{"k"}, "must restrict all PRIMARY KEY columns", gocql.ErrCodeInvalid},
		// Values of the wrong type, or raw bytes of the wrong size, fail.
		{"INSERT INTO kv (k, c) VALUES (?, ?)", []any{"k", "one"}, "can not marshal string to int", 0},
		{"INSERT INTO kv (k, c) VALUES (?, ?)", []any{"k", raw{0, 0, 0, 0, 0, 0, 0, 1}}, "Expected 4 byte int value (8)", gocql.ErrCodeInvalid},
		{"INSERT INTO ids (k, tu) VALUES (?, ?)", []any{1, gocql.MustRandomUUID()}, "Invalid version for TimeUUID type", gocql.ErrCodeInvalid},
		{"INSERT INTO kv (k, c, a) VALUES (?, ?, ?)", []any{"k", 1, raw{0xff}}, "String didn't validate", gocql.ErrCodeInvalid},
		{"INSERT INTO kv (k, c, a) VALUES (?, ?, 1)", []any{"k", 1}, "Invalid INTEGER constant (1) for \"a\" of type text", gocql.ErrCodeInvalid},
		// Syntax.
		{"SELEC a FROM kv", nil, "line 1:0 mismatched input 'SELEC'", gocql.ErrCodeSyntax},
		{"SELECT a FROM kv WHERE k = ? AND", []any{"k"}, "mismatched input <EOF>", gocql.ErrCodeSyntax},
		{"INSERT INTO kv (k, c) VALUES (?, ?) USING TTL ? IF NOT EXISTS", []any{"k", 1, 1}, "mismatched input 'IF'", gocql.ErrCodeSyntax},
	} {
		err := s.Exec(ctx, q(tc.cql, tc.vals...))
		wantErr(t, err, tc.msg)
		var re gocql.RequestError
		if got := errors.As(err, &re); got != (tc.code != 0) || got && re.Code() != tc.code {
			t.Errorf("%s: error %v: not a request error of code %#x", tc.cql, err, tc.code)
		}
		if code, ok := cqldriver.ServerCode(err); ok != (tc.code != 0) || code != tc.code {
			t.Errorf("%s: error %v: the runtime reads code %#x (%v), want %#x", tc.cql, err, code, ok, tc.code)
		}
	}
	// Not supported here, and said so.
	for _, cql := range []string{
		"SELECT a FROM kv LIMIT 1",
		"SELECT a FROM kv WHERE k = ? AND c IN ?",
		"SELECT a FROM kv WHERE k IN (?, ?)",
		"DELETE FROM kv WHERE k IN ?",
		"SELECT a FROM kv WHERE token(k) = ?",
	} {
		wantErr(t, s.Exec(ctx, q(cql)), "cqltest:", "is not supported")
	}
}

func TestLayoutAndLiterals(t *testing.T) {
	s := newSession(t, cqlgenimpl.IdempotencyTableCQL)
	// Newlines and tabs anywhere between tokens; string literals, as the
	// runtime's idempotency statements use them.
	acquire := "INSERT\tINTO cqlgen_idempotency\n\t(key, fingerprint, state)\n VALUES (?,?,'pending')\nIF NOT EXISTS\n\tUSING TTL ?"
	if applied, err := s.ExecCAS(ctx, q(acquire, "k", []byte{1}, 60)); err != nil || !applied {
		t.Fatalf("acquire: %v %v", applied, err)
	}
	done := "UPDATE cqlgen_idempotency USING TTL ? SET state = 'done', outcome = 'it''s' WHERE key = ? IF state = 'pending' AND outcome = null"
	if applied, err := s.ExecCAS(ctx, q(done, 60, "k")); err != nil || !applied {
		t.Fatalf("update: %v %v", applied, err)
	}
	rows, _ := s.Rows("cqlgen_idempotency")
	if len(rows) != 1 || rows[0]["state"] != "done" || rows[0]["outcome"] != "it's" {
		t.Errorf("rows %v", rows)
	}
}

func TestBatchRules(t *testing.T) {
	s := newSession(t, kvSchema)
	err := s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{q("INSERT INTO kv (k, c) VALUES (?, ?)", "k", 1), q("SELECT a FROM kv WHERE k = ?", "k")})
	wantInvalid(t, err, "only UPDATE, INSERT and DELETE statements are allowed")
	err = s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{q("INSERT INTO kv (k, c) VALUES (?, ?)", "k", 1), q("INSERT INTO kv (k, c) VALUES (?, ?)", nil, 2)})
	wantInvalid(t, err, "Invalid null value for partition key part k")
	if n := count(t, s, "kv"); n != 0 {
		t.Errorf("a batch that failed wrote %d rows", n)
	}
	// Statements without a timestamp share the batch's.
	clock := newClock()
	s = newSession(t, kvSchema, WithClock(clock.Now))
	err = s.Batch(ctx, cqldriver.Unlogged, []cqldriver.Query{
		q("INSERT INTO kv (k, c, a) VALUES (?, ?, ?)", "k", 1, "x"),
		q("INSERT INTO kv (k, c, a) VALUES (?, ?, ?) USING TIMESTAMP 7", "k", 2, "y"),
		q("INSERT INTO kv (k, c, a) VALUES (?, ?, ?)", "j", 3, "z"),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		k  string
		c  int
		ts int64
	}{{"k", 1, clock.Now().UnixMicro()}, {"k", 2, 7}, {"j", 3, clock.Now().UnixMicro()}} {
		var ts int64
		it := s.Iter(ctx, q("SELECT writetime(a) FROM kv WHERE k = ? AND c = ?", want.k, want.c))
		if !it.Scan(&ts) || ts != want.ts {
			t.Errorf("%s/%d: writetime %d, want %d", want.k, want.c, ts, want.ts)
		}
	}
}

func TestHookFailsBeforeOrAfterApplying(t *testing.T) {
	errDown := errors.New("node down")
	errTimeout := errors.New("write timeout")
	var fail map[int]error // by call number, from 1
	n := 0
	s := newSession(t, kvSchema, WithHook(func(_ context.Context, c Call) error {
		n++
		return fail[n]
	}))
	ins := func(c int) cqldriver.Query { return q("INSERT INTO kv (k, c) VALUES (?, ?)", "k", c) }

	fail = map[int]error{1: errDown, 2: LostReply(errTimeout), 3: LostReply(nil)}
	if err := s.Exec(ctx, ins(1)); err != errDown {
		t.Errorf("call 1: %v", err)
	}
	if err := s.Exec(ctx, ins(2)); err != errTimeout {
		t.Errorf("call 2: %v, want the lost reply's error itself", err)
	}
	err := s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{ins(3), ins(4)})
	wantErr(t, err, "reply was lost")
	if rows := selectAll(t, s, 0, 1, "SELECT c FROM kv WHERE k = ?", "k"); len(rows) != 3 {
		t.Errorf("rows %v: want 2, 3 and 4, which applied, and not 1", rows)
	}

	// A conditional write whose reply was lost applied; asking again
	// finds the row, as the runtime expects when it acquires an idempotency
	// key's lease.
	fail = map[int]error{n + 1: LostReply(errTimeout)}
	insert := q("INSERT INTO kv (k, c, a) VALUES (?, ?, ?) IF NOT EXISTS", "k", 5, "mine")
	if applied, err := s.ExecCASMap(ctx, insert, map[string]any{}); applied || err != errTimeout {
		t.Errorf("lost CAS: %v %v", applied, err)
	}
	m := map[string]any{}
	if applied, err := s.ExecCASMap(ctx, insert, m); applied || err != nil || m["a"] != "mine" {
		t.Errorf("CAS again: %v %v %v", applied, err, m)
	}

	// A cancelled context fails the call before it applies.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Exec(cctx, ins(6)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if rows := selectAll(t, s, 0, 1, "SELECT c FROM kv WHERE k = ? AND c = ?", "k", 6); len(rows) != 0 {
		t.Error("a call with a cancelled context applied")
	}

	calls := s.Calls()
	if len(calls) != n+1 || calls[2].Op != OpBatch || len(calls[2].Queries) != 2 || calls[4].Op != OpCAS || calls[3].Op != OpIter {
		var ops []string
		for _, c := range calls {
			ops = append(ops, c.Op.String())
		}
		t.Errorf("calls %s", strings.Join(ops, " "))
	}
}

// Bad input fails; it never panics. Every prefix of valid statements, and
// random bytes bound for every type.
func TestNoPanicOnBadInput(t *testing.T) {
	var schema strings.Builder
	schema.WriteString(kvSchema)
	for i, tc := range orderCases {
		fmt.Fprintf(&schema, "CREATE TABLE r%d (k int, c %s, v %s, PRIMARY KEY (k, c));\n", i, tc.typ, tc.typ)
	}
	s := newSession(t, schema.String())
	stmts := []string{
		"INSERT INTO kv (k, c, a, b, s) VALUES (?, ?, 'x', -1, ?) IF NOT EXISTS USING TTL ? AND TIMESTAMP ?",
		"UPDATE kv USING TTL ? AND TIMESTAMP ? SET a = ?, b = ? WHERE k = ? AND c = ? IF a = 'x' AND b != ?",
		"DELETE a, s FROM kv USING TIMESTAMP ? WHERE k = ? AND c = ? IF EXISTS",
		"SELECT k, c, writetime(a), ttl(b) AS t FROM kv WHERE k = ? AND c >= ? AND c < ?;",
		"SELECT k, c, s, writetime(a) FROM kv WHERE token(k) > ? AND token(k) <= ?",
	}
	for _, cql := range stmts {
		for i := range len(cql) + 1 {
			for _, vals := range [][]any{nil, {"k", 1, 2, 3, 4, 5, 6, 7}, {nil, nil, nil}, {raw{}, raw{}, raw{}, raw{}, raw{}, raw{}, raw{}}} {
				_ = s.Exec(ctx, q(cql[:i], vals...))
				_ = s.Iter(ctx, q(cql[:i], vals...)).Close()
				_, _ = s.ExecCAS(ctx, q(cql[:i], vals...))
			}
		}
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range orderCases {
		for range 200 {
			b := make([]byte, rng.IntN(24))
			for j := range b {
				b[j] = byte(rng.IntN(256))
			}
			if rng.IntN(4) == 0 && len(b) >= 4 { // a plausible collection header
				binary.BigEndian.PutUint32(b, uint32(rng.IntN(3)))
			}
			table := fmt.Sprintf("r%d", i)
			_ = s.Exec(ctx, q("INSERT INTO "+table+" (k, c, v) VALUES (?, ?, ?)", 1, raw(b), raw(b)))
			_, _ = s.ExecCAS(ctx, q("UPDATE "+table+" SET v = ? WHERE k = ? AND c = ? IF v > ?", raw(b), 1, raw(b), raw(b)))
			_ = s.Iter(ctx, q("SELECT c, v FROM "+table+" WHERE k = ? AND c > ?", 1, raw(b))).Close()
			_ = s.Exec(ctx, q("INSERT INTO kv (k, c) VALUES (?, ?) USING TTL ? AND TIMESTAMP ?", "k", 1, raw(b), raw(b)))
		}
		if _, err := s.Rows(fmt.Sprintf("r%d", i)); err != nil {
			t.Error(err)
		}
	}
	// A conditional write of static columns alone that does not apply.
	mustExec(t, s, "UPDATE kv SET s = ? WHERE k = ?", "v", "static")
	m := map[string]any{}
	if applied, err := s.ExecCASMap(ctx, q("UPDATE kv SET s = ? WHERE k = ? IF s = ?", "w", "static", "other"), m); applied || err != nil || m["s"] != "v" {
		t.Errorf("static condition: %v %v %v", applied, err, m)
	}
	m = map[string]any{}
	if applied, err := s.ExecCASMap(ctx, q("INSERT INTO kv (k, s) VALUES (?, ?) IF NOT EXISTS", "static", "w"), m); applied || err != nil || m["s"] != "v" || m["k"] != "static" {
		t.Errorf("static IF NOT EXISTS: %v %v %v", applied, err, m)
	}
}

// TestSchemaWithIndex loads a schema with a storage-attached index, as
// cqlgen writes one, and refuses one on a column the table lacks.
func TestSchemaWithIndex(t *testing.T) {
	const table = "CREATE TABLE articles (org_id text, id int, tags set<text>, PRIMARY KEY (org_id, id));\n"
	if _, err := New(table + "CREATE CUSTOM INDEX IF NOT EXISTS articles_by_tag ON articles (tags)\n    USING 'StorageAttachedIndex';"); err != nil {
		t.Fatalf("a schema with an index: %v", err)
	}
	for _, bad := range []string{
		"CREATE CUSTOM INDEX i ON articles (nope) USING 'StorageAttachedIndex';",
		"CREATE CUSTOM INDEX i ON nope (tags) USING 'StorageAttachedIndex';",
	} {
		if _, err := New(table + bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// An index may go unnamed, as Cassandra allows.
func TestSchemaWithUnnamedIndex(t *testing.T) {
	if _, err := New("CREATE TABLE t (k int PRIMARY KEY, v int);\nCREATE INDEX ON t (v);"); err != nil {
		t.Fatal(err)
	}
}
