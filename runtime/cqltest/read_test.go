package cqltest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

const pagingSchema = `
CREATE TABLE events (
    p  text,
    a  int,
    b  text,
    v  int,
    PRIMARY KEY (p, a, b)
) WITH CLUSTERING ORDER BY (a DESC, b ASC);
`

type event struct {
	a int32
	b string
}

// fillEvents writes 300 rows of partition "p" (and a few of "other"),
// with repeated values of a, in a random order.
func fillEvents(t *testing.T, s *Session) []event {
	var all []event
	for a := range int32(30) {
		for b := range 10 {
			all = append(all, event{a - 15, fmt.Sprintf("b%02d", b)})
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, i := range rng.Perm(len(all)) {
		e := all[i]
		mustExec(t, s, "INSERT INTO events (p, a, b, v) VALUES (?, ?, ?, ?)", "p", e.a, e.b, i)
		mustExec(t, s, "INSERT INTO events (p, a, b, v) VALUES (?, ?, ?, ?)", fmt.Sprint("other", i%3), e.a, e.b, i)
	}
	// The clustering order: a descending, then b ascending.
	slices.SortFunc(all, func(x, y event) int {
		if x.a != y.a {
			return int(y.a - x.a)
		}
		if x.b < y.b {
			return -1
		}
		return 1
	})
	return all
}

func decodeEvents(rows [][][]byte) []event {
	out := make([]event, len(rows))
	for i, r := range rows {
		out[i] = event{int32(binary.BigEndian.Uint32(r[0])), string(r[1])}
	}
	return out
}

func TestPagingEqualsOneRead(t *testing.T) {
	s := newSession(t, pagingSchema)
	all := fillEvents(t, s)
	reads := []struct {
		cql  string
		vals []any
		keep func(event) bool
	}{
		{"SELECT a, b FROM events WHERE p = ?", []any{"p"}, func(event) bool { return true }},
		{"SELECT a, b FROM events WHERE p = ? AND a >= ? AND a < ?", []any{"p", -3, 7}, func(e event) bool { return e.a >= -3 && e.a < 7 }},
		{"SELECT a, b FROM events WHERE p = ? AND a <= ? AND a > ?", []any{"p", 4, -9}, func(e event) bool { return e.a <= 4 && e.a > -9 }},
		{"SELECT a, b FROM events WHERE p = ? AND a < ?", []any{"p", 0}, func(e event) bool { return e.a < 0 }},
		{"SELECT a, b FROM events WHERE p = ? AND a = ? AND b > ?", []any{"p", 2, "b04"}, func(e event) bool { return e.a == 2 && e.b > "b04" }},
		{"SELECT a, b FROM events WHERE p = ? AND a = ? AND b >= ? AND b < ?", []any{"p", -15, "b01", "b08"}, func(e event) bool { return e.a == -15 && e.b >= "b01" && e.b < "b08" }},
		{"SELECT a, b FROM events WHERE p = ? AND a > ? AND a < ?", []any{"p", 3, 3}, func(event) bool { return false }},
	}
	for _, r := range reads {
		var want []event
		for _, e := range all {
			if r.keep(e) {
				want = append(want, e)
			}
		}
		full := decodeEvents(selectAll(t, s, 0, 2, r.cql, r.vals...))
		if !reflect.DeepEqual(full, want) && len(want)+len(full) > 0 {
			t.Fatalf("%s %v: one read returned %v, want %v", r.cql, r.vals, full, want)
		}
		for _, size := range []int{1, 2, 3, 7, 10, 99, 100, 101, 299, 300, 301} {
			got := decodeEvents(selectAll(t, s, size, 2, r.cql, r.vals...))
			if !reflect.DeepEqual(got, full) && len(got)+len(full) > 0 {
				t.Errorf("%s %v, pages of %d: %v, want %v", r.cql, r.vals, size, got, full)
			}
		}
	}
}

// As Cassandra's pager, a full page carries a paging state even when no
// row follows, and the page after it is empty; a partial page ends.
func TestPageStateOfAFullLastPage(t *testing.T) {
	s := newSession(t, pagingSchema+"CREATE TABLE single (k text PRIMARY KEY, v int);")
	for i := range 4 {
		mustExec(t, s, "INSERT INTO events (p, a, b) VALUES (?, ?, ?)", "p", i, "x")
	}
	read := q("SELECT a FROM events WHERE p = ?", "p")
	read.PageSize = 2
	var pages []int
	for {
		it := s.Iter(ctx, read)
		n := 0
		for it.Scan(new(int)) {
			n++
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, n)
		if read.PageState = it.PageState(); read.PageState == nil {
			break
		}
	}
	if !reflect.DeepEqual(pages, []int{2, 2, 0}) {
		t.Errorf("pages of %v rows, want [2 2 0]", pages)
	}
	// Without clustering columns a partition is one row: no state.
	mustExec(t, s, "INSERT INTO single (k, v) VALUES (?, ?)", "k", 1)
	one := q("SELECT v FROM single WHERE k = ?", "k")
	one.PageSize = 1
	if it := s.Iter(ctx, one); !it.Scan(new(int)) || it.PageState() != nil {
		t.Errorf("a one-row partition has a paging state")
	}
}

func TestPagingStateIsCheckedAndRowsAfterItAreLive(t *testing.T) {
	s := newSession(t, pagingSchema)
	for i := range 5 {
		mustExec(t, s, "INSERT INTO events (p, a, b) VALUES (?, ?, ?)", "p", i, "x")
	}
	read := q("SELECT a FROM events WHERE p = ?", "p")
	read.PageSize = 2
	it := s.Iter(ctx, read)
	var got []int
	for a := 0; it.Scan(&a); {
		got = append(got, a)
	}
	state := it.PageState()
	// The last row returned is deleted, and a row is added before it:
	// the next page continues after it all the same.
	mustExec(t, s, "DELETE FROM events WHERE p = ? AND a = ? AND b = ?", "p", 3, "x")
	mustExec(t, s, "INSERT INTO events (p, a, b) VALUES (?, ?, ?)", "p", 9, "x")
	read.PageState = state
	read.PageSize = 0
	it = s.Iter(ctx, read)
	for a := 0; it.Scan(&a); {
		got = append(got, a)
	}
	if !reflect.DeepEqual(got, []int{4, 3, 2, 1, 0}) {
		t.Errorf("rows %v", got)
	}
	other := q("SELECT a FROM events WHERE p = ?", "q")
	other.PageState = state
	wantErr(t, s.Iter(ctx, other).Close(), "another partition")
	other = q("SELECT a FROM events WHERE p = ?", "p")
	other.PageState = []byte("junk")
	wantErr(t, s.Iter(ctx, other).Close(), "Invalid value for the paging state")
}

// A null single-column bound is, to Cassandra 5.0, the start of the
// column's clustering order, before every value (an empty text too): on
// an ascending column c > null selects every row and c < null none, on a
// descending one the reverse (TestNullSliceBoundAsCassandra holds this to
// the node). Found by TestDifferential: a bound option set to a nil slice
// (a frozen list's) was refused here and read on the node.
func TestSelectNullBoundIsStartOfOrder(t *testing.T) {
	s := newSession(t, `CREATE TABLE nb (k int, c int, d text, v int, PRIMARY KEY (k, c, d));
CREATE TABLE nd (k int, c int, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC);`)
	mustExec(t, s, "INSERT INTO nb (k, c, d, v) VALUES (?, ?, ?, ?)", 1, 1, "a", 1)
	mustExec(t, s, "INSERT INTO nb (k, c, d, v) VALUES (?, ?, ?, ?)", 1, 2, "", 2)
	mustExec(t, s, "INSERT INTO nb (k, c, d, v) VALUES (?, ?, ?, ?)", 1, 2, "b", 3)
	mustExec(t, s, "INSERT INTO nd (k, c, v) VALUES (?, ?, ?)", 1, 1, 1)
	mustExec(t, s, "INSERT INTO nd (k, c, v) VALUES (?, ?, ?)", 1, 2, 2)
	for _, tc := range []struct {
		cql  string
		vals []any
		want []int
	}{
		{"SELECT v FROM nb WHERE k = ? AND c > ?", []any{1, nil}, []int{1, 2, 3}},
		{"SELECT v FROM nb WHERE k = ? AND c < ?", []any{1, nil}, nil},
		{"SELECT v FROM nb WHERE k = ? AND c = ? AND d >= ?", []any{1, 2, nil}, []int{2, 3}},
		{"SELECT v FROM nb WHERE k = ? AND c = ? AND d > ?", []any{1, 2, nil}, []int{2, 3}},
		{"SELECT v FROM nb WHERE k = ? AND c = ? AND d <= ?", []any{1, 2, nil}, nil},
		{"SELECT v FROM nd WHERE k = ? AND c > ?", []any{1, nil}, nil},
		{"SELECT v FROM nd WHERE k = ? AND c <= ?", []any{1, nil}, []int{2, 1}},
	} {
		it := s.Iter(t.Context(), q(tc.cql, tc.vals...))
		var got []int
		for v := 0; it.Scan(&v); {
			got = append(got, v)
		}
		if err := it.Close(); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v: %v, %v; want %v", tc.cql, tc.vals, got, err, tc.want)
		}
	}
}

func TestSelectRestrictionsAsCassandra(t *testing.T) {
	s := newSession(t, pagingSchema+`CREATE TABLE two (x int, y int, c1 int, c2 int, c3 int, v int, PRIMARY KEY ((x, y), c1, c2, c3));`)
	for _, tc := range []struct {
		cql  string
		vals []any
		msg  string
	}{
		{"SELECT v FROM two WHERE x = ?", []any{1}, "Partition key parts: y must be restricted as other parts are"},
		{"SELECT v FROM two WHERE c1 = ?", []any{1}, "ALLOW FILTERING"},
		{"SELECT v FROM two WHERE x = ? AND y = ? AND v = ?", []any{1, 1, 1}, "ALLOW FILTERING"},
		{"SELECT v FROM two WHERE x = ? AND y > ?", []any{1, 1}, "Only EQ and IN relation are supported on the partition key"},
		{"SELECT v FROM two WHERE x = ? AND y = ? AND c2 = ?", []any{1, 1, 1}, `PRIMARY KEY column "c2" cannot be restricted as preceding column "c1" is not restricted`},
		{"SELECT v FROM two WHERE x = ? AND y = ? AND c1 > ? AND c2 = ?", []any{1, 1, 1, 1}, `Clustering column "c2" cannot be restricted (preceding column "c1" is restricted by a non-EQ relation)`},
		{"SELECT v FROM two WHERE x = ? AND y = ? AND c1 > ? AND c1 >= ?", []any{1, 1, 1, 1}, "More than one restriction was found for the start bound on c1"},
		{"SELECT v FROM two WHERE x = ? AND y = ? AND c1 = ? AND c1 < ?", []any{1, 1, 1, 1}, "c1 cannot be restricted by more than one relation if it includes an Equal"},
		{"SELECT nope FROM two WHERE x = ? AND y = ?", []any{1, 1}, "Undefined column name nope"},
		{"SELECT v FROM nope WHERE x = ?", []any{1}, "unconfigured table nope"},
		{"SELECT v FROM two WHERE x = ? AND y = ? AND (c1) > (?)", []any{1, 1, nil}, "Invalid null value in condition for column c1"},
		{"SELECT v FROM two WHERE x = ? AND y = ? AND c1 = ? AND c2 > ?", []any{1, 1, nil, 1}, "Invalid null value in condition for column c1"},
	} {
		wantInvalid(t, s.Iter(ctx, q(tc.cql, tc.vals...)).Close(), tc.msg)
	}
	// Allowed: several bounds on the first clustering column, and equality
	// on a prefix followed by bounds.
	for _, cql := range []string{
		"SELECT v FROM two WHERE x = ? AND y = ? AND c1 > ? AND c1 <= ?",
		"SELECT v FROM two WHERE x = ? AND y = ? AND c1 = ? AND c2 = ? AND c3 < ?",
		"SELECT writetime(v), ttl(v) FROM two WHERE y = ? AND x = ? AND c1 = ?",
	} {
		vals := []any{1, 2, 3, 4, 5}[:countMarks(cql)]
		if err := s.Iter(ctx, q(cql, vals...)).Close(); err != nil {
			t.Errorf("%s: %v", cql, err)
		}
	}
}

func countMarks(cql string) int {
	n := 0
	for _, c := range cql {
		if c == '?' {
			n++
		}
	}
	return n
}

// Multi-column slices compare values column by column whatever the
// clustering orders, as Cassandra 5.0.8 answered the same statements
// (integration's probe of a table ordered a ASC, b DESC, c ASC).
func TestMultiColumnSlices(t *testing.T) {
	s := newSession(t, `CREATE TABLE m (p int, a int, b int, c int, PRIMARY KEY (p, a, b, c)) WITH CLUSTERING ORDER BY (a ASC, b DESC, c ASC);`)
	for a := range 3 {
		for b := range 3 {
			for c := range 2 {
				mustExec(t, s, "INSERT INTO m (p, a, b, c) VALUES (0, ?, ?, ?)", a, b, c)
			}
		}
	}
	read := func(cql string, vals ...any) [][3]int {
		var out [][3]int
		for _, r := range selectAll(t, s, 4, 3, cql, vals...) {
			var k [3]int
			for i := range k {
				k[i] = int(int32(binary.BigEndian.Uint32(r[i])))
			}
			out = append(out, k)
		}
		return out
	}
	for _, c := range []struct {
		cql  string
		vals []any
		want [][3]int
	}{
		{"SELECT a, b, c FROM m WHERE p = 0 AND (a, b, c) > (?, ?, ?)", []any{1, 1, 0},
			[][3]int{{1, 2, 0}, {1, 2, 1}, {1, 1, 1}, {2, 2, 0}, {2, 2, 1}, {2, 1, 0}, {2, 1, 1}, {2, 0, 0}, {2, 0, 1}}},
		{"SELECT a, b, c FROM m WHERE p = 0 AND (a, b, c) > (?, ?, ?) AND (a) <= (?)", []any{1, 1, 0, 1},
			[][3]int{{1, 2, 0}, {1, 2, 1}, {1, 1, 1}}},
		{"SELECT a, b, c FROM m WHERE p = 0 AND a = 1 AND (b, c) >= (?, ?) AND b <= 1", []any{1, 1},
			[][3]int{{1, 1, 1}}},
		{"SELECT a, b, c FROM m WHERE p = 0 AND (a, b) < (0, 1)", nil,
			[][3]int{{0, 0, 0}, {0, 0, 1}}},
	} {
		if got := read(c.cql, c.vals...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %v:\n got %v\nwant %v", c.cql, c.vals, got, c.want)
		}
	}
	for cql, frag := range map[string]string{
		"SELECT a FROM m WHERE p = 0 AND (b, c) > (1, 1)":    "cannot be restricted",
		"SELECT a FROM m WHERE p = 0 AND (a, c) > (1, 1)":    "PRIMARY KEY order",
		"SELECT a FROM m WHERE (p, a) > (1, 1)":              "clustering columns",
		"SELECT a FROM m WHERE p = 0 AND (a, b) > (1)":       "Expected 2 elements",
		"SELECT a FROM m WHERE p = 0 AND (a, b) > (1, 2, 3)": "elements",
	} {
		it := s.Iter(t.Context(), q(cql))
		it.Scan()
		wantInvalid(t, it.Close(), frag)
	}
}
