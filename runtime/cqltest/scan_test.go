package cqltest

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/gocql/gocql"
)

const scanSchema = `
CREATE TABLE items (
    tenant text,
    bucket int,
    seq    int,
    name   text,
    v      int,
    s      int STATIC,
    PRIMARY KEY ((tenant, bucket), seq, name)
) WITH CLUSTERING ORDER BY (seq DESC, name ASC);
CREATE TABLE ints (k int PRIMARY KEY, v int);
`

// scanCols is what the scans of items select, as verify and repair select
// it: keys, values and write timestamps.
const scanCols = "tenant, bucket, seq, name, v, writetime(v), s"

// itemRow is a row of items as a scan returns it; nil is null.
type itemRow struct {
	tenant    string
	bucket    int32
	seq       *int32
	name      *string
	v         *int32
	writetime *int64
	s         *int32
}

func (r itemRow) String() string {
	f := func(p any) string {
		v := reflect.ValueOf(p)
		if v.IsNil() {
			return "null"
		}
		return fmt.Sprint(v.Elem().Interface())
	}
	return fmt.Sprintf("(%s,%d)/%s/%s v=%s wt=%s s=%s", r.tenant, r.bucket, f(r.seq), f(r.name), f(r.v), f(r.writetime), f(r.s))
}

func decodeItems(rows [][][]byte) []string {
	out := make([]string, len(rows))
	i32 := func(b []byte) *int32 {
		if b == nil {
			return nil
		}
		v := int32(binary.BigEndian.Uint32(b))
		return &v
	}
	for i, r := range rows {
		it := itemRow{tenant: string(r[0]), bucket: *i32(r[1]), seq: i32(r[2]), v: i32(r[4]), s: i32(r[6])}
		if r[3] != nil {
			n := string(r[3])
			it.name = &n
		}
		if r[5] != nil {
			w := int64(binary.BigEndian.Uint64(r[5]))
			it.writetime = &w
		}
		out[i] = it.String()
	}
	return out
}

// itemsKey is the serialized partition key of items, as Cassandra hashes
// it.
func itemsKey(tenant string, bucket int32) []byte {
	return serializePartitionKey([][]byte{[]byte(tenant), intKey(bucket)})
}

// fillItems writes partitions of items in a random order: some with rows
// (a few of them deleted), some with a static value too, some with only a
// static value, and some whose every row is deleted, which a scan does not
// return. It returns what a scan of the whole table returns, in order:
// partitions by token, then by key bytes; rows in clustering order.
func fillItems(t *testing.T, s *Session, partitions int) []string {
	type part struct {
		tenant string
		bucket int32
		ser    []byte
		rows   []itemRow
		static *int32
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var parts []*part
	ts := int64(1000)
	for i := range partitions {
		p := &part{tenant: fmt.Sprintf("tenant%d", i%7), bucket: int32(i / 7)}
		p.ser = itemsKey(p.tenant, p.bucket)
		kind := rng.IntN(10)
		if kind < 3 { // a static value
			v := int32(rng.IntN(1000))
			p.static = &v
			ts++
			mustExec(t, s, "INSERT INTO items (tenant, bucket, s) VALUES (?, ?, ?) USING TIMESTAMP ?", p.tenant, p.bucket, v, ts)
		}
		if kind == 0 { // static only
			parts = append(parts, p)
			continue
		}
		n := 1 + rng.IntN(8)
		for j := range n {
			seq, name, v := int32(rng.IntN(4)), fmt.Sprintf("n%d", j), int32(rng.IntN(1000))
			ts++
			mustExec(t, s, "INSERT INTO items (tenant, bucket, seq, name, v) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?", p.tenant, p.bucket, seq, name, v, ts)
			if rng.IntN(6) == 0 || kind == 9 { // deleted; every row when kind is 9
				ts++
				mustExec(t, s, "DELETE FROM items USING TIMESTAMP ? WHERE tenant = ? AND bucket = ? AND seq = ? AND name = ?", ts, p.tenant, p.bucket, seq, name)
				continue
			}
			wt := ts
			p.rows = append(p.rows, itemRow{tenant: p.tenant, bucket: p.bucket, seq: &seq, name: &name, v: &v, writetime: &wt, s: p.static})
		}
		parts = append(parts, p)
	}
	slices.SortFunc(parts, func(a, b *part) int {
		return cmp.Or(cmp.Compare(murmur3Token(a.ser), murmur3Token(b.ser)), bytes.Compare(a.ser, b.ser))
	})
	var want []string
	for _, p := range parts {
		// Clustering order: seq descending, then name ascending.
		slices.SortFunc(p.rows, func(a, b itemRow) int { return cmp.Or(cmp.Compare(*b.seq, *a.seq), cmp.Compare(*a.name, *b.name)) })
		for _, r := range p.rows {
			want = append(want, r.String())
		}
		if len(p.rows) == 0 && p.static != nil {
			want = append(want, itemRow{tenant: p.tenant, bucket: p.bucket, s: p.static}.String())
		}
	}
	return want
}

// splitRing splits the ring into n equal ranges (start, end], as a scan
// in parallel would: the first starts at the minimum token, the last ends
// at the maximum.
func splitRing(n int) [][2]int64 {
	width := new(big.Int).Div(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(int64(n)))
	bound := func(k int) int64 {
		if k == n {
			return math.MaxInt64
		}
		b := new(big.Int).Mul(width, big.NewInt(int64(k)))
		return b.Add(b, big.NewInt(math.MinInt64)).Int64()
	}
	ranges := make([][2]int64, n)
	for k := range n {
		ranges[k] = [2]int64{bound(k), bound(k + 1)}
	}
	return ranges
}

const scanRange = "SELECT " + scanCols + " FROM items WHERE token(tenant, bucket) > ? AND token(tenant, bucket) <= ?"

// A scan of the table split into 1, 4 and 64 token ranges returns every
// live row once, in token order, whatever the page size.
func TestScanByTokenRangesCoversTable(t *testing.T) {
	s := newSession(t, scanSchema)
	want := fillItems(t, s, 300)
	if len(want) < 500 {
		t.Fatalf("only %d rows", len(want))
	}
	for _, n := range []int{1, 4, 64} {
		for _, size := range []int{0, 1, 7, 100} {
			var got []string
			nonEmpty := 0
			for _, r := range splitRing(n) {
				rows := decodeItems(selectAll(t, s, size, 7, scanRange, r[0], r[1]))
				if len(rows) > 0 {
					nonEmpty++
				}
				got = append(got, rows...)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%d ranges, pages of %d: %d rows, want %d\n%s", n, size, len(got), len(want), diff(got, want))
			}
			if n == 64 && nonEmpty < 32 {
				t.Errorf("64 ranges: only %d hold rows", nonEmpty)
			}
		}
	}
	// Without a WHERE clause, the same scan.
	if got := decodeItems(selectAll(t, s, 0, 7, "SELECT "+scanCols+" FROM items")); !slices.Equal(got, want) {
		t.Errorf("SELECT without WHERE:\n%s", diff(got, want))
	}
}

func diff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		g, w := "<none>", "<none>"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("first difference at row %d: got %s, want %s", i, g, w)
		}
	}
	return "no difference"
}

// Paging carries on across partitions exactly as within one: pages are
// full until the last, and a full page has a paging state even when
// nothing follows (Cassandra's range pager).
func TestScanPagingAcrossPartitions(t *testing.T) {
	s := newSession(t, scanSchema)
	want := fillItems(t, s, 120)
	total := len(want)
	for _, cql := range []string{
		"SELECT " + scanCols + " FROM items",
		"SELECT " + scanCols + " FROM items WHERE token(tenant, bucket) >= ?",
		"SELECT " + scanCols + " FROM items WHERE token(tenant, bucket) < ?",
	} {
		vals := []any{int64(math.MinInt64)}[:countMarks(cql)]
		for _, size := range []int{1, 2, 3, 5, 8, 13, 64, total - 1, total, total + 1} {
			query := q(cql, vals...)
			query.PageSize = size
			var got []string
			var pages []int
			for {
				it := s.Iter(ctx, query)
				var page [][][]byte
				for {
					row := make([][]byte, 7)
					dest := make([]any, 7)
					for i := range row {
						dest[i] = rawScan{&row[i]}
					}
					if !it.Scan(dest...) {
						break
					}
					page = append(page, row)
				}
				if err := it.Close(); err != nil {
					t.Fatal(err)
				}
				got = append(got, decodeItems(page)...)
				pages = append(pages, len(page))
				if (it.PageState() != nil) != (len(page) == size) {
					t.Fatalf("%s, pages of %d: a page of %d rows, paging state %x", cql, size, len(page), it.PageState())
				}
				if query.PageState = it.PageState(); query.PageState == nil {
					break
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, pages of %d:\n%s", cql, size, diff(got, want))
			}
			if wantPages := total/size + 1; len(pages) != wantPages {
				t.Errorf("%s, pages of %d: %d pages, want %d", cql, size, len(pages), wantPages)
			}
		}
	}
}

// Partitions come back in the order of their Murmur3 tokens, which are
// those Cassandra computes: the int keys 1 to 20 and their tokens are
// cassandra-dtest's (replication_test.py, murmur3_hashes).
func TestScanTokenOrder(t *testing.T) {
	s := newSession(t, scanSchema)
	tokens := map[int32]int64{
		1: -4069959284402364209, 2: -3248873570005575792, 3: 9010454139840013625,
		4: -2729420104000364805, 5: -7509452495886106294, 6: 2705480034054113608,
		7: 1634052884888577606, 8: -3799847372828181882, 9: 3728482343045213994,
		10: -6715243485458697746, 11: -4156302194539278891, 12: 8582886034424406875,
		13: -5034495173465742853, 14: 4279681877540623768, 15: -1191135763843456182,
		16: -5477287129830487822, 17: 5467144456125416399, 18: -2695747960476065067,
		19: -3974532302236993209, 20: 1388667306199997068,
	}
	var byToken []int32
	for k := range tokens {
		mustExec(t, s, "INSERT INTO ints (k, v) VALUES (?, ?)", k, k*10)
		byToken = append(byToken, k)
	}
	slices.SortFunc(byToken, func(a, b int32) int { return cmp.Compare(tokens[a], tokens[b]) })
	keys := func(rows [][][]byte) []int32 {
		out := make([]int32, len(rows))
		for i, r := range rows {
			out[i] = int32(binary.BigEndian.Uint32(r[0]))
		}
		return out
	}
	for _, size := range []int{0, 1, 3, 20} {
		if got := keys(selectAll(t, s, size, 1, "SELECT k FROM ints")); !slices.Equal(got, byToken) {
			t.Errorf("pages of %d: keys %v, want %v", size, got, byToken)
		}
	}
	// Bounds on the known tokens select the keys whose tokens are in
	// range: > and <= exclude and include the bound's own key.
	const r = "SELECT k FROM ints WHERE token(k) > ? AND token(k) <= ?"
	lo, hi := tokens[8], tokens[7] // -3799847372828181882, 1634052884888577606
	var want []int32
	for _, k := range byToken {
		if tokens[k] > lo && tokens[k] <= hi {
			want = append(want, k)
		}
	}
	if got := keys(selectAll(t, s, 0, 1, r, lo, hi)); !slices.Equal(got, want) || slices.Contains(got, 8) || !slices.Contains(got, 7) {
		t.Errorf("(%d, %d]: keys %v, want %v", lo, hi, got, want)
	}

	// The same for a composite key: the order of the serialized keys'
	// tokens.
	type key struct {
		tenant string
		bucket int32
	}
	var parts []key
	for i := range 50 {
		k := key{fmt.Sprintf("t%d", i%5), int32(i)}
		parts = append(parts, k)
		mustExec(t, s, "INSERT INTO items (tenant, bucket, seq, name) VALUES (?, ?, 0, 'x')", k.tenant, k.bucket)
	}
	slices.SortFunc(parts, func(a, b key) int {
		return cmp.Compare(murmur3Token(itemsKey(a.tenant, a.bucket)), murmur3Token(itemsKey(b.tenant, b.bucket)))
	})
	var got []key
	for _, row := range selectAll(t, s, 7, 2, "SELECT tenant, bucket FROM items") {
		got = append(got, key{string(row[0]), int32(binary.BigEndian.Uint32(row[1]))})
	}
	if !slices.Equal(got, parts) {
		t.Errorf("composite keys in order %v, want %v", got, parts)
	}
}

// The bounds as Cassandra reads them: inclusive or not; a range whose
// start is above its end is empty; the minimum token stands for the start
// of the ring as a lower bound and for its end as an upper bound.
func TestScanBounds(t *testing.T) {
	s := newSession(t, scanSchema)
	for k := range int32(21) {
		mustExec(t, s, "INSERT INTO ints (k, v) VALUES (?, ?)", k, k)
	}
	all := selectAll(t, s, 0, 1, "SELECT k FROM ints")
	if len(all) != 21 {
		t.Fatalf("%d rows", len(all))
	}
	t1, t2 := int64(-4069959284402364209), int64(9010454139840013625) // keys 1 and 3
	const minT, maxT = int64(math.MinInt64), int64(math.MaxInt64)
	count := func(ks []int32, keep func(int64) bool) int {
		n := 0
		for _, k := range ks {
			if keep(murmur3Token(intKey(k))) {
				n++
			}
		}
		return n
	}
	var ks []int32
	for k := range int32(21) {
		ks = append(ks, k)
	}
	for _, tc := range []struct {
		where string
		vals  []any
		want  int
	}{
		{"token(k) >= ? AND token(k) <= ?", []any{t1, t1}, 1},
		{"token(k) > ? AND token(k) <= ?", []any{t1, t1}, 0},
		{"token(k) >= ? AND token(k) < ?", []any{t1, t1}, 0},
		{"token(k) > ? AND token(k) < ?", []any{t2, t1}, 0},
		{"token(k) >= ? AND token(k) <= ?", []any{t2, t1}, 0},
		{"token(k) >= ?", []any{t1}, count(ks, func(x int64) bool { return x >= t1 })},
		{"token(k) > ?", []any{t1}, count(ks, func(x int64) bool { return x > t1 })},
		{"token(k) < ?", []any{t2}, count(ks, func(x int64) bool { return x < t2 })},
		{"token(k) <= ?", []any{t2}, count(ks, func(x int64) bool { return x <= t2 })},
		{"token(k) <= ? AND token(k) > ?", []any{t2, t1}, count(ks, func(x int64) bool { return x > t1 && x <= t2 })},
		{"token(k) > ? AND token(k) <= ?", []any{minT, maxT}, 21},
		{"token(k) >= ? AND token(k) <= ?", []any{minT, minT}, 21},
		{"token(k) > ? AND token(k) < ?", []any{t1, minT}, count(ks, func(x int64) bool { return x > t1 })},
		{"token(k) <= ?", []any{minT}, 21},
		{"token(k) > ?", []any{maxT}, 0},
		{"token(k) > ? AND token(k) <= ?", []any{maxT, minT}, 0},
		{"token(k) > -4069959284402364209 AND token(k) <= 9010454139840013625", nil, count(ks, func(x int64) bool { return x > t1 && x <= t2 })},
		{"token(k) > ? AND token(k) <= ?", []any{raw{0x80, 0, 0, 0, 0, 0, 0, 0}, raw{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, 21},
	} {
		cql := "SELECT k FROM ints WHERE " + tc.where
		if got := len(selectAll(t, s, 0, 1, cql, tc.vals...)); got != tc.want {
			t.Errorf("%s %v: %d rows, want %d", tc.where, tc.vals, got, tc.want)
		}
	}
}

func TestScanRestrictionsAsCassandra(t *testing.T) {
	s := newSession(t, scanSchema)
	const tok = "token(tenant, bucket)"
	for _, tc := range []struct {
		cql  string
		vals []any
		msg  string
	}{
		{"SELECT v FROM items WHERE token(bucket, tenant) > ?", []any{int64(0)}, "The token function arguments must be in the partition key order: tenant, bucket"},
		{"SELECT v FROM items WHERE token(tenant) > ?", []any{int64(0)}, "The token() function must be applied to all partition key components or none of them"},
		{"SELECT v FROM items WHERE token(tenant, bucket, bucket) > ?", []any{int64(0)}, "The token() function contains duplicate partition key components"},
		{"SELECT v FROM items WHERE token(tenant, bucket, seq) > ?", []any{int64(0)}, "The token() function must contains only partition key components"},
		{"SELECT v FROM items WHERE token(tenant, nope) > ?", []any{int64(0)}, "Undefined column name nope in table items"},
		{"SELECT v FROM items WHERE " + tok + " > ? AND " + tok + " >= ?", []any{int64(0), int64(1)}, "More than one restriction was found for the start bound on tenant, bucket"},
		{"SELECT v FROM items WHERE " + tok + " < ? AND " + tok + " <= ?", []any{int64(0), int64(1)}, "More than one restriction was found for the end bound on tenant, bucket"},
		{"SELECT v FROM items WHERE " + tok + " = ? AND " + tok + " > ?", []any{int64(0), int64(1)}, "tenant, bucket cannot be restricted by more than one relation if it includes an Equal"},
		{"SELECT v FROM items WHERE " + tok + " > ? AND " + tok + " = ?", []any{int64(0), int64(1)}, `Columns "tenant, bucket" cannot be restricted by both an equality and an inequality relation`},
		{"SELECT v FROM items WHERE " + tok + " > ? AND seq = ?", []any{int64(0), 1}, "ALLOW FILTERING"},
		{"SELECT v FROM items WHERE " + tok + " > ? AND seq > ?", []any{int64(0), 1}, "ALLOW FILTERING"},
		{"SELECT v FROM items WHERE " + tok + " > ? AND v = ?", []any{int64(0), 1}, "ALLOW FILTERING"},
		{"SELECT v FROM items WHERE " + tok + " > ? AND tenant = ?", []any{int64(0), "a"}, "ALLOW FILTERING"},
		{"SELECT v FROM items WHERE " + tok + " > ? AND tenant = ? AND bucket > ?", []any{int64(0), "a", 1}, "ALLOW FILTERING"},
		{"SELECT v FROM items WHERE " + tok + " > ?", []any{nil}, "Invalid null token value"},
		{"SELECT v FROM items WHERE " + tok + " > 'x'", nil, `Invalid STRING constant (x) for "partition key token" of type bigint`},
		{"UPDATE items SET v = ? WHERE " + tok + " > ?", []any{1, int64(0)}, "The token function cannot be used in WHERE clauses for UPDATE statements"},
		{"DELETE FROM items WHERE " + tok + " > ?", []any{int64(0)}, "The token function cannot be used in WHERE clauses for DELETE statements"},
		{"DELETE FROM items WHERE " + tok + " = ?", []any{int64(0)}, "The token function cannot be used in WHERE clauses for DELETE statements"},
	} {
		wantInvalid(t, s.Iter(ctx, q(tc.cql, tc.vals...)).Close(), tc.msg)
	}
	// Accepted by Cassandra, not implemented here, and said so.
	for _, tc := range []struct {
		cql  string
		vals []any
	}{
		{"SELECT v FROM items WHERE " + tok + " = ?", []any{int64(0)}},
		{"SELECT v FROM items WHERE " + tok + " > ? AND tenant = ? AND bucket = ?", []any{int64(0), "a", 1}},
		{"SELECT v FROM items WHERE " + tok + " > ? ALLOW FILTERING", []any{int64(0)}},
		{"SELECT v FROM items WHERE " + tok + " > ? LIMIT 10", []any{int64(0)}},
		{"SELECT v FROM items WHERE " + tok + " IN ?", []any{[]int64{0}}},
	} {
		wantErr(t, s.Iter(ctx, q(tc.cql, tc.vals...)).Close(), "cqltest:", "is not supported")
	}
	// Values of the wrong type for a token fail as any value would.
	wantErr(t, s.Iter(ctx, q("SELECT v FROM items WHERE "+tok+" > ?", "x")).Close(), "can not marshal string to bigint")
	var re gocql.RequestError
	if err := s.Iter(ctx, q("SELECT v FROM items WHERE "+tok+" > ?", raw{1, 2})).Close(); err == nil {
		t.Error("a 2-byte token was accepted")
	} else if !errors.As(err, &re) || re.Code() != gocql.ErrCodeInvalid {
		t.Errorf("a 2-byte token: %v", err)
	}
	// A column named token is a column.
	s2 := newSession(t, `CREATE TABLE tk (token int PRIMARY KEY, v int);`)
	mustExec(t, s2, "INSERT INTO tk (token, v) VALUES (?, ?)", 1, 2)
	if rows := selectAll(t, s2, 0, 1, "SELECT v FROM tk WHERE token = ?", 1); len(rows) != 1 {
		t.Errorf("WHERE token = ?: %d rows", len(rows))
	}
	if rows := selectAll(t, s2, 0, 1, "SELECT v FROM tk WHERE token(token) > ?", int64(math.MinInt64)); len(rows) != 1 {
		t.Errorf("WHERE token(token) > ?: %d rows", len(rows))
	}
}

// A scan resumes after the last row returned even when that row is
// deleted meanwhile, and sees what was written after the position; a
// paging state is checked.
func TestScanPagingStateAfterChanges(t *testing.T) {
	s := newSession(t, scanSchema)
	for k := range int32(10) {
		mustExec(t, s, "INSERT INTO ints (k, v) VALUES (?, ?)", k, k)
	}
	read := q("SELECT k FROM ints")
	read.PageSize = 4
	it := s.Iter(ctx, read)
	var got []int32
	for k := int32(0); it.Scan(&k); {
		got = append(got, k)
	}
	state := it.PageState()
	if len(got) != 4 || state == nil {
		t.Fatalf("first page %v, state %x", got, state)
	}
	last := got[3]
	mustExec(t, s, "DELETE FROM ints WHERE k = ?", last)
	// Keys written now: those whose tokens are after the last one
	// returned are read; those before are not.
	var after, before []int32
	for k := int32(100); len(after) == 0 || len(before) == 0; k++ {
		if murmur3Token(intKey(k)) > murmur3Token(intKey(last)) {
			after = append(after, k)
		} else {
			before = append(before, k)
		}
		mustExec(t, s, "INSERT INTO ints (k, v) VALUES (?, ?)", k, k)
	}
	read.PageState, read.PageSize = state, 0
	it = s.Iter(ctx, read)
	for k := int32(0); it.Scan(&k); {
		got = append(got, k)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 10-1+len(after)+1 || !slices.Contains(got, after[0]) || slices.Contains(got, before[0]) {
		t.Errorf("rows %v; written after the position %v, before it %v", got, after, before)
	}
	for i := 1; i < len(got); i++ {
		if murmur3Token(intKey(got[i-1])) >= murmur3Token(intKey(got[i])) {
			t.Errorf("rows %v not in token order", got)
		}
	}

	bad := q("SELECT k FROM ints")
	bad.PageState = []byte("junk")
	wantErr(t, s.Iter(ctx, bad).Close(), "Invalid value for the paging state")
	bad = q("SELECT tenant FROM items")
	bad.PageState = state
	wantErr(t, s.Iter(ctx, bad).Close(), "belongs to table ints")
}
