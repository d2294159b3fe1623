package cqltest

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/gocql/gocql"
)

const kvSchema = `
CREATE TABLE kv (
    k   text,
    c   int,
    a   text,
    b   bigint,
    s   text STATIC,
    PRIMARY KEY (k, c)
);
CREATE TABLE one (k text PRIMARY KEY, a text, b int) WITH default_time_to_live = 100;
`

func count(t *testing.T, s *Session, table string) int {
	t.Helper()
	rows, err := s.Rows(table)
	if err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

func TestDeleteThenInsertTimestamps(t *testing.T) {
	s := newSession(t, kvSchema)
	const ins = "INSERT INTO kv (k, c, a) VALUES (?, ?, ?) USING TIMESTAMP ?"
	const del = "DELETE FROM kv USING TIMESTAMP ? WHERE k = ? AND c = ?"

	// A delete at ts and an insert at ts+1: the row is back.
	mustExec(t, s, ins, "x", 1, "old", int64(100))
	mustExec(t, s, del, int64(100), "x", 1)
	mustExec(t, s, ins, "x", 1, "new", int64(101))
	if rows, _ := s.Rows("kv"); len(rows) != 1 || rows[0]["a"] != "new" {
		t.Errorf("insert at ts+1 after a delete at ts: %v, want the new row", rows)
	}

	// Both at ts: the delete wins, whatever the order.
	mustExec(t, s, del, int64(200), "y", 1)
	mustExec(t, s, ins, "y", 1, "v", int64(200))
	mustExec(t, s, ins, "z", 1, "v", int64(200))
	mustExec(t, s, del, int64(200), "z", 1)
	if n := count(t, s, "kv"); n != 1 {
		t.Errorf("delete and insert at the same timestamp: %d rows, want only x", n)
	}

	// The same in one batch, as a careless DeleteThenInsert would send it.
	err := s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{q(del, int64(300), "w", 1), q(ins, "w", 1, "v", int64(300))})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "kv"); n != 1 {
		t.Errorf("batch of a delete and an insert at one timestamp: %d rows, want 1", n)
	}
	err = s.Batch(ctx, cqldriver.Logged, []cqldriver.Query{q(del, int64(300), "w", 1), q(ins, "w", 1, "v", int64(301))})
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "kv"); n != 2 {
		t.Errorf("batch of a delete at ts and an insert at ts+1: %d rows, want 2", n)
	}

	// A late write with an older timestamp loses to the delete.
	mustExec(t, s, ins, "x", 1, "late", int64(99))
	mustExec(t, s, del, int64(150), "x", 1)
	mustExec(t, s, ins, "x", 1, "late", int64(149))
	if rows, _ := s.Rows("kv"); len(rows) != 1 {
		t.Errorf("rows %v, want w alone", rows)
	}
}

func TestCellReconciliation(t *testing.T) {
	s := newSession(t, kvSchema)
	read := func() map[string]any {
		rows, err := s.Rows("kv")
		if err != nil || len(rows) != 1 {
			t.Fatalf("rows %v, %v", rows, err)
		}
		return rows[0]
	}
	mustExec(t, s, "INSERT INTO kv (k, c, a, b) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", "k", 1, "m", int64(1), int64(10))
	// Higher timestamp wins, whatever the arrival order.
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET a = ? WHERE k = ? AND c = ?", int64(9), "older", "k", 1)
	if got := read()["a"]; got != "m" {
		t.Errorf("a = %v after an older write, want m", got)
	}
	// Equal timestamps between live values: the greater value wins.
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET a = ? WHERE k = ? AND c = ?", int64(10), "a", "k", 1)
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET a = ? WHERE k = ? AND c = ?", int64(10), "z", "k", 1)
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET a = ? WHERE k = ? AND c = ?", int64(10), "n", "k", 1)
	if got := read()["a"]; got != "z" {
		t.Errorf("a = %v, want z, the greatest value at the timestamp", got)
	}
	// Equal timestamps, a tombstone and a value: the tombstone wins.
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET b = ? WHERE k = ? AND c = ?", int64(10), nil, "k", 1)
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET b = ? WHERE k = ? AND c = ?", int64(10), int64(7), "k", 1)
	if got, ok := read()["b"]; ok {
		t.Errorf("b = %v, want null: a tombstone wins at equal timestamps", got)
	}
	// Equal timestamps: an expiring value wins over one that does not
	// expire, even a greater one (CASSANDRA-14592).
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? AND TTL 1000 SET a = ? WHERE k = ? AND c = ?", int64(20), "b", "k", 1)
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET a = ? WHERE k = ? AND c = ?", int64(20), "zz", "k", 1)
	if got := read()["a"]; got != "b" {
		t.Errorf("a = %v, want the expiring b", got)
	}
	// Equal timestamps, a tombstone and an expiring value: the tombstone.
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? SET a = null WHERE k = ? AND c = ?", int64(30), "k", 1)
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? AND TTL 1000 SET a = ? WHERE k = ? AND c = ?", int64(30), "c", "k", 1)
	if got, ok := read()["a"]; ok {
		t.Errorf("a = %v, want null: a tombstone wins over an expiring value", got)
	}
	// Two expiring values: the later expiry wins, whatever the values.
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? AND TTL 2000 SET a = ? WHERE k = ? AND c = ?", int64(40), "long", "k", 1)
	mustExec(t, s, "UPDATE kv USING TIMESTAMP ? AND TTL 1000 SET a = ? WHERE k = ? AND c = ?", int64(40), "short", "k", 1)
	if got := read()["a"]; got != "long" {
		t.Errorf("a = %v, want the value that expires last", got)
	}
}

func TestRowLiveness(t *testing.T) {
	s := newSession(t, kvSchema)
	// An UPDATE writes no row marker: the row lives by its cells only.
	mustExec(t, s, "UPDATE kv USING TIMESTAMP 1 SET a = ? WHERE k = ? AND c = ?", "v", "u", 1)
	if n := count(t, s, "kv"); n != 1 {
		t.Fatalf("%d rows after UPDATE", n)
	}
	mustExec(t, s, "UPDATE kv USING TIMESTAMP 2 SET a = null WHERE k = ? AND c = ?", "u", 1)
	if n := count(t, s, "kv"); n != 0 {
		t.Errorf("%d rows after nulling the only cell of an updated row, want 0", n)
	}
	// An INSERT writes one: the row outlives its cells.
	mustExec(t, s, "INSERT INTO kv (k, c, a) VALUES (?, ?, ?) USING TIMESTAMP 1", "i", 1, "v")
	mustExec(t, s, "UPDATE kv USING TIMESTAMP 2 SET a = null WHERE k = ? AND c = ?", "i", 1)
	rows, _ := s.Rows("kv")
	if len(rows) != 1 || !reflect.DeepEqual(rows[0], map[string]any{"k": "i", "c": 1}) {
		t.Errorf("rows %v, want the inserted row with no values", rows)
	}
	// A partition deletion hides every row written at or before it.
	mustExec(t, s, "INSERT INTO kv (k, c) VALUES (?, ?) USING TIMESTAMP 5", "i", 2)
	mustExec(t, s, "DELETE FROM kv USING TIMESTAMP 5 WHERE k = ?", "i")
	mustExec(t, s, "INSERT INTO kv (k, c) VALUES (?, ?) USING TIMESTAMP 6", "i", 3)
	if rows := selectAll(t, s, 0, 1, "SELECT c FROM kv WHERE k = ?", "i"); len(rows) != 1 || rows[0][0][3] != 3 {
		t.Errorf("after a partition deletion: %v, want row 3 only", rows)
	}
}

func TestUnsetAndNull(t *testing.T) {
	s := newSession(t, kvSchema)
	mustExec(t, s, "INSERT INTO kv (k, c, a, b) VALUES (?, ?, ?, ?)", "k", 1, "a", int64(2))
	mustExec(t, s, "INSERT INTO kv (k, c, a, b) VALUES (?, ?, ?, ?)", "k", 1, gocql.UnsetValue, nil)
	it := s.Iter(ctx, q("SELECT a, b FROM kv WHERE k = ? AND c = ?", "k", 1))
	var a *string
	var bi *int64
	if !it.Scan(&a, &bi) {
		t.Fatal(it.Close())
	}
	if a == nil || *a != "a" || bi != nil {
		t.Errorf("a = %v, b = %v; want a kept (unset) and b null", a, bi)
	}
	// A key may not be unset or null.
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO kv (k, c) VALUES (?, ?)", gocql.UnsetValue, 1)), "unset", "k")
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO kv (k, c) VALUES (?, ?)", "k", nil)), "null", "c")
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO kv (k, c) VALUES (?, ?)", "", 1)), "Key may not be empty")
}

func TestTTLExpiresWithTheClock(t *testing.T) {
	clock := newClock()
	s := newSession(t, kvSchema, WithClock(clock.Now))
	mustExec(t, s, "INSERT INTO kv (k, c, a) VALUES (?, ?, ?) USING TTL ?", "k", 1, "v", 10)
	mustExec(t, s, "UPDATE kv USING TTL 5 SET b = ? WHERE k = ? AND c = ?", int64(1), "k", 1)
	mustExec(t, s, "INSERT INTO one (k, a) VALUES (?, ?)", "d", "default")
	mustExec(t, s, "INSERT INTO one (k, a) VALUES (?, ?) USING TTL 0", "z", "forever")

	it := s.Iter(ctx, q("SELECT writetime(a), ttl(a), ttl(b) FROM kv WHERE k = ?", "k"))
	var wt int64
	var ttlA, ttlB int
	if !it.Scan(&wt, &ttlA, &ttlB) || wt != clock.Now().UnixMicro() || ttlA != 10 || ttlB != 5 {
		t.Errorf("writetime %d ttl %d %d, %v; want the clock's time, 10 and 5", wt, ttlA, ttlB, it.Close())
	}
	clock.Add(4*time.Second + 999*time.Millisecond)
	if rows, _ := s.Rows("kv"); len(rows) != 1 || rows[0]["b"] != int64(1) {
		t.Errorf("before 5 s: %v", rows)
	}
	clock.Add(time.Millisecond)
	if rows, _ := s.Rows("kv"); len(rows) != 1 || rows[0]["b"] != nil {
		t.Errorf("at 5 s: %v, want b expired", rows)
	}
	clock.Add(5 * time.Second)
	if n := count(t, s, "kv"); n != 0 {
		t.Errorf("at 10 s: %d rows, want the row expired with its marker", n)
	}
	if n := count(t, s, "one"); n != 2 {
		t.Errorf("at 10 s: %d rows in one", n)
	}
	clock.Add(90 * time.Second)
	if rows, _ := s.Rows("one"); len(rows) != 1 || rows[0]["a"] != "forever" {
		t.Errorf("after default_time_to_live: %v, want only the TTL 0 row", rows)
	}
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO one (k) VALUES (?) USING TTL ?", "n", -1)), "TTL must be greater or equal to 0")
}

func TestStaticColumns(t *testing.T) {
	s := newSession(t, kvSchema)
	mustExec(t, s, "INSERT INTO kv (k, c, a, s) VALUES (?, ?, ?, ?) USING TIMESTAMP 1", "p", 1, "one", "shared")
	mustExec(t, s, "INSERT INTO kv (k, c, a) VALUES (?, ?, ?) USING TIMESTAMP 1", "p", 2, "two")
	rows := selectAll(t, s, 0, 2, "SELECT c, s FROM kv WHERE k = ?", "p")
	if len(rows) != 2 || string(rows[0][1]) != "shared" || string(rows[1][1]) != "shared" {
		t.Errorf("rows %q, want the static value on each", rows)
	}
	// A row deletion leaves the static value; with no row left, a read of
	// the whole partition returns one row of it, nulls elsewhere.
	mustExec(t, s, "DELETE FROM kv USING TIMESTAMP 2 WHERE k = ? AND c = ?", "p", 1)
	mustExec(t, s, "DELETE FROM kv USING TIMESTAMP 2 WHERE k = ? AND c = ?", "p", 2)
	rows = selectAll(t, s, 0, 3, "SELECT k, c, a FROM kv WHERE k = ?", "p")
	if len(rows) != 1 || string(rows[0][0]) != "p" || rows[0][1] != nil || rows[0][2] != nil {
		t.Errorf("static-only partition: %q, want one row with nulls", rows)
	}
	if rows := selectAll(t, s, 0, 1, "SELECT a FROM kv WHERE k = ? AND c > ?", "p", 0); len(rows) != 0 {
		t.Errorf("with a clustering restriction: %q, want none", rows)
	}
	// Static columns alone need no clustering key; with one, UPDATE refuses.
	mustExec(t, s, "UPDATE kv SET s = ? WHERE k = ?", "q-static", "q")
	wantInvalid(t, s.Exec(ctx, q("UPDATE kv SET s = ? WHERE k = ? AND c = ?", "x", "q", 1)), "modifies only static columns")
	wantInvalid(t, s.Exec(ctx, q("UPDATE kv SET a = ? WHERE k = ?", "x", "q")), "Some clustering keys are missing: c")
}

func TestCollections(t *testing.T) {
	s := newSession(t, `CREATE TABLE col (k int PRIMARY KEY, tags set<text>, attrs map<text, int>, seq list<int>, f frozen<set<int>>)`)
	mustExec(t, s, "INSERT INTO col (k, tags, attrs, seq, f) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP 10",
		1, []string{"b", "a", "b"}, map[string]int{"y": 2, "x": 1}, []int{3, 1, 2}, []int{3, 1})
	rows, _ := s.Rows("col")
	want := map[string]any{"k": 1, "tags": []string{"a", "b"}, "attrs": map[string]int{"x": 1, "y": 2}, "seq": []int{3, 1, 2}, "f": []int{1, 3}}
	if len(rows) != 1 || !reflect.DeepEqual(rows[0], want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	// A write with the same timestamp merges with the collection (its
	// deletion is at ts-1); a later one replaces it.
	mustExec(t, s, "UPDATE col USING TIMESTAMP 10 SET tags = ? WHERE k = ?", []string{"c"}, 1)
	mustExec(t, s, "UPDATE col USING TIMESTAMP 11 SET attrs = ? WHERE k = ?", map[string]int{"z": 0}, 1)
	mustExec(t, s, "UPDATE col USING TIMESTAMP 11 SET seq = ? WHERE k = ?", []int{}, 1)
	rows, _ = s.Rows("col")
	want = map[string]any{"k": 1, "tags": []string{"a", "b", "c"}, "attrs": map[string]int{"z": 0}, "f": []int{1, 3}}
	if !reflect.DeepEqual(rows[0], want) {
		t.Errorf("rows %v, want %v", rows, want)
	}
}

func TestLightweightTransactions(t *testing.T) {
	clock := newClock()
	s := newSession(t, `CREATE TABLE acct (id text, n int, owner text, balance bigint, PRIMARY KEY (id, n))`, WithClock(clock.Now))
	const ins = "INSERT INTO acct (id, n, owner, balance) VALUES (?, ?, ?, ?) IF NOT EXISTS"
	applied, err := s.ExecCAS(ctx, q(ins, "a", 1, "ann", int64(10)))
	if err != nil || !applied {
		t.Fatalf("first insert: %v %v", applied, err)
	}
	// Not applied: the whole row, in SELECT * order (key, then by name).
	var id, owner string
	var n int
	var balance int64
	applied, err = s.ExecCAS(ctx, q(ins, "a", 1, "bob", int64(0)), &id, &n, &balance, &owner)
	if err != nil || applied || id != "a" || n != 1 || balance != 10 || owner != "ann" {
		t.Errorf("second insert: applied %v %v; current %s %d %d %s", applied, err, id, n, balance, owner)
	}
	_, err = s.ExecCAS(ctx, q(ins, "a", 1, "bob", int64(0)), &id)
	wantErr(t, err, "not enough columns to scan into: have 2 want 5")

	m := map[string]any{}
	applied, err = s.ExecCASMap(ctx, q(ins, "a", 1, "bob", int64(0)), m)
	if err != nil || applied || !reflect.DeepEqual(m, map[string]any{"id": "a", "n": 1, "owner": "ann", "balance": int64(10)}) {
		t.Errorf("ExecCASMap: %v %v %v", applied, err, m)
	}

	// IF c = ?: the current values of the condition's columns, in its order.
	const upd = "UPDATE acct SET balance = ? WHERE id = ? AND n = ? IF owner = ? AND balance = ?"
	applied, err = s.ExecCAS(ctx, q(upd, int64(5), "a", 1, "ann", int64(9)), &owner, &balance)
	if err != nil || applied || owner != "ann" || balance != 10 {
		t.Errorf("stale condition: %v %v %s %d", applied, err, owner, balance)
	}
	applied, err = s.ExecCAS(ctx, q(upd, int64(5), "a", 1, "ann", int64(10)), &owner, &balance)
	if err != nil || !applied {
		t.Errorf("condition that holds: %v %v", applied, err)
	}
	// The write's timestamp is the ballot's: the clock, made greater than
	// the ballot before, which every transaction takes, applied or not:
	// this is the sixth at the same clock.
	it := s.Iter(ctx, q("SELECT writetime(owner), writetime(balance) FROM acct WHERE id = ? AND n = ?", "a", 1))
	var wOwner, wBalance int64
	if !it.Scan(&wOwner, &wBalance) || wOwner != clock.Now().UnixMicro() || wBalance != wOwner+5 {
		t.Errorf("writetimes %d %d, want the clock and +5", wOwner, wBalance)
	}
	clock.Add(time.Second)
	if _, err := s.ExecCAS(ctx, q(upd, int64(6), "a", 1, "ann", int64(5))); err != nil {
		t.Fatal(err)
	}
	it = s.Iter(ctx, q("SELECT writetime(balance) FROM acct WHERE id = ? AND n = ?", "a", 1))
	if !it.Scan(&wBalance) || wBalance != clock.Now().UnixMicro() {
		t.Errorf("writetime %d, want the clock %d", wBalance, clock.Now().UnixMicro())
	}

	// An absent row: not applied, and no values; it compares as null.
	m = map[string]any{}
	applied, err = s.ExecCASMap(ctx, q(upd, int64(5), "a", 2, "ann", int64(10)), m)
	if err != nil || applied || len(m) != 0 {
		t.Errorf("absent row: %v %v %v", applied, err, m)
	}
	applied, err = s.ExecCAS(ctx, q("UPDATE acct SET balance = ? WHERE id = ? AND n = ? IF owner = null", int64(1), "a", 2))
	if err != nil || !applied {
		t.Errorf("IF owner = null on an absent row: %v %v, want applied", applied, err)
	}
	applied, err = s.ExecCAS(ctx, q("DELETE FROM acct WHERE id = ? AND n = ? IF EXISTS", "a", 3))
	if err != nil || applied {
		t.Errorf("DELETE IF EXISTS of nothing: %v %v", applied, err)
	}
	applied, err = s.ExecCAS(ctx, q("DELETE FROM acct WHERE id = ? AND n = ? IF EXISTS", "a", 2))
	if err != nil || !applied || count(t, s, "acct") != 1 {
		t.Errorf("DELETE IF EXISTS: %v %v", applied, err)
	}

	wantInvalid(t, s.Exec(ctx, q("INSERT INTO acct (id, n) VALUES (?, ?) IF NOT EXISTS USING TIMESTAMP ?", "a", 9, int64(1))),
		"Cannot provide custom timestamp for conditional updates")
	wantInvalid(t, s.Exec(ctx, q("UPDATE acct SET owner = ? WHERE id = ? AND n = ? IF n = ?", "x", "a", 1, 1)),
		"PRIMARY KEY column 'n' cannot have IF conditions")
	_, err = s.ExecCAS(ctx, q("UPDATE acct SET owner = ? WHERE id = ? AND n = ?", "x", "a", 1))
	wantErr(t, err, "not a conditional statement")
}

// Of many concurrent conditional inserts of one key (as callers acquire
// an idempotency key's lease), one applies.
func TestConcurrentConditionalInserts(t *testing.T) {
	s := newSession(t, cqlgenimpl.IdempotencyTableCQL)
	const acquire = "INSERT INTO cqlgen_idempotency (key, owner) VALUES (?, ?) IF NOT EXISTS"
	results := make(chan bool, 32)
	for range cap(results) {
		go func() {
			applied, err := s.ExecCAS(ctx, q(acquire, "k", gocql.MustRandomUUID()), new(string), new([]byte), new(time.Time), new(string), new(gocql.UUID), new(string), new(int64))
			if err != nil {
				t.Error(err)
			}
			results <- applied
		}()
	}
	n := 0
	for range cap(results) {
		if <-results {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d inserts applied, want 1", n)
	}
}

// A conditional write on a row's column and a static one, as the write
// protocol runs on a table with statics: null matches a column never
// written, the static is the partition's, and when it does not apply on
// a row not there yet, the partition's static comes back, as Cassandra
// returns it.
func TestCASOnStaticAndRow(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, "CREATE TABLE h (p text, c text, u text STATIC, v bigint, sv bigint STATIC, PRIMARY KEY (p, c));")
	const upd = "UPDATE h SET u = ?, v = ?, sv = ? WHERE p = ? AND c = ? IF v = ? AND sv = ?"
	cas := func(vals ...any) (bool, map[string]any) {
		t.Helper()
		cur := map[string]any{}
		applied, err := s.ExecCASMap(ctx, q(upd, vals...), cur)
		if err != nil {
			t.Fatal(err)
		}
		return applied, cur
	}
	if ok, cur := cas("joe", int64(10), int64(10), "o1", "a", nil, nil); !ok {
		t.Fatalf("first row of an empty partition, both null: not applied, %v", cur)
	}
	// Another row, the static version expected null: the partition has one.
	ok, cur := cas("jen", int64(11), int64(11), "o1", "b", nil, nil)
	if ok || cur["sv"] != int64(10) {
		t.Errorf("row b on a stale static version: applied %v, current %v; want not applied, sv 10", ok, cur)
	}
	if ok, cur := cas("jen", int64(11), cqldriver.Unset, "o1", "b", nil, int64(10)); !ok {
		t.Errorf("row b on the static version read, leaving it unset: not applied, %v", cur)
	}
	// Row a's condition on its own version holds, the static's no longer.
	if ok, _ := cas("kim", int64(12), int64(12), "o1", "a", int64(10), int64(9)); ok {
		t.Error("applied on a static version that is not the partition's")
	}
}

// A duration is negative or positive as a whole: Cassandra refuses one
// whose months, days and nanoseconds have mixed signs, alone or in a
// collection. Found by TestDifferential: cqltest stored (0, 3, -1).
func TestDurationOfMixedSignsRefused(t *testing.T) {
	s := newSession(t, `CREATE TABLE durs (k int PRIMARY KEY, d duration, ds list<duration>);`)
	mustExec(t, s, "INSERT INTO durs (k, d) VALUES (?, ?)", 1, gocql.Duration{Months: -1, Days: -3, Nanoseconds: -1})
	mustExec(t, s, "INSERT INTO durs (k, d) VALUES (?, ?)", 2, gocql.Duration{Days: 3})
	mixed := gocql.Duration{Days: 3, Nanoseconds: -1}
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO durs (k, d) VALUES (?, ?)", 3, mixed)),
		"The duration months, days and nanoseconds must be all of the same sign (0, 3, -1)")
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO durs (k, ds) VALUES (?, ?)", 4, []gocql.Duration{{Days: 1}, mixed})),
		"The duration months, days and nanoseconds must be all of the same sign (0, 3, -1)")
}

// A duration's fields are Cassandra's variable-length integers, not
// protobuf's varints: the two differ from 128 on (a zig-zag encoded 64).
// Found by TestDifferential: the duration (1, 7, 100) was refused as
// malformed once durations were validated.
func TestDurationFieldsDecodedAsCassandra(t *testing.T) {
	s := newSession(t, `CREATE TABLE durs (k int PRIMARY KEY, d duration);`)
	want := []Duration{
		{Months: 1, Days: 7, Nanoseconds: 100},
		{Months: 14, Days: 400, Nanoseconds: int64(90 * time.Minute)},
		{Months: -2000000, Days: -1, Nanoseconds: math.MinInt64},
		{Nanoseconds: math.MaxInt64},
	}
	for i, d := range want {
		mustExec(t, s, "INSERT INTO durs (k, d) VALUES (?, ?)", i, gocql.Duration{Months: d.Months, Days: d.Days, Nanoseconds: d.Nanoseconds})
	}
	rows, err := s.Rows("durs")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]Duration{}
	for _, r := range rows {
		got[r["k"].(int)] = r["d"].(Duration)
	}
	for i, d := range want {
		if got[i] != d {
			t.Errorf("duration %d: read %+v, wrote %+v", i, got[i], d)
		}
	}
	wantInvalid(t, s.Exec(ctx, q("INSERT INTO durs (k, d) VALUES (?, ?)", 9, gocql.Duration{Days: 300, Nanoseconds: -int64(90 * time.Minute)})),
		"must be all of the same sign (0, 300, -5400000000000)")
}
