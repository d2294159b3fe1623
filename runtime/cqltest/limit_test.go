package cqltest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/gocql/gocql"
)

const limitSchema = `
CREATE TABLE ppl (
    a int,
    b text,
    c int,
    d text,
    v int,
    PRIMARY KEY ((a, b), c, d)
) WITH CLUSTERING ORDER BY (c DESC, d ASC);
`

// fillLimits writes 10 rows in each of the partitions (1, x), (1, y) and
// (2, x), and one in (1, z); in clustering order, the rows of a full
// partition are 4p 4q 3p 3q ... 0p 0q.
func fillLimits(t *testing.T, s *Session) {
	for _, pk := range []struct {
		a int
		b string
		n int
	}{{1, "x", 5}, {1, "y", 5}, {2, "x", 5}, {1, "z", 1}} {
		for c := range pk.n {
			for _, d := range []string{"q", "p"} {
				if pk.n == 1 && d == "q" {
					continue
				}
				mustExec(t, s, "INSERT INTO ppl (a, b, c, d, v) VALUES (?, ?, ?, ?, ?)", pk.a, pk.b, c, d, c)
			}
		}
	}
}

// limitRows reads rows of ppl (a, b, c, d selected) to the end in pages
// of pageSize and writes each as a/b/cd.
func limitRows(t *testing.T, s *Session, pageSize int, cql string, vals ...any) []string {
	t.Helper()
	var out []string
	for _, r := range selectAll(t, s, pageSize, 4, cql, vals...) {
		out = append(out, fmt.Sprintf("%d/%s/%d%s", int32(binary.BigEndian.Uint32(r[0])), r[1], int32(binary.BigEndian.Uint32(r[2])), r[3]))
	}
	return out
}

func TestPerPartitionLimitOfAPartition(t *testing.T) {
	s := newSession(t, limitSchema)
	fillLimits(t, s)
	const sel = "SELECT a, b, c, d FROM ppl WHERE a = ? AND b = ?"
	all := []string{"1/x/4p", "1/x/4q", "1/x/3p", "1/x/3q", "1/x/2p", "1/x/2q", "1/x/1p", "1/x/1q", "1/x/0p", "1/x/0q"}
	for _, tc := range []struct {
		cql  string
		vals []any
		want []string
	}{
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", 3}, all[:3]},
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", 1}, all[:1]},
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", 10}, all},
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", 50}, all},
		{sel + " PER PARTITION LIMIT 4", []any{1, "x"}, all[:4]},
		{sel + " per partition limit 2;", []any{1, "x"}, all[:2]},
		{sel + " PER PARTITION LIMIT ?", []any{1, "z", 3}, []string{"1/z/0p"}},
		{sel + " PER PARTITION LIMIT ?", []any{1, "none", 3}, nil},
		// An unset limit is no limit, as in Cassandra.
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", cqldriver.Unset}, all},
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", gocql.UnsetValue}, all},
		// The limit counts the rows the restrictions select.
		{sel + " AND c < ? PER PARTITION LIMIT ?", []any{1, "x", 3, 3}, all[4:7]},
		{sel + " AND c <= ? AND c > ? PER PARTITION LIMIT ?", []any{1, "x", 3, 0, 5}, all[2:7]},
		{sel + " AND c = ? AND d > ? PER PARTITION LIMIT ?", []any{1, "x", 2, "a", 1}, all[4:5]},
		{sel + " AND (c, d) < (?, ?) PER PARTITION LIMIT ?", []any{1, "x", 3, "q", 2}, []string{"1/x/3p", "1/x/2p"}},
		{sel + " AND c = ? AND d = ? PER PARTITION LIMIT ?", []any{1, "x", 2, "q", 1}, all[5:6]},
	} {
		full := limitRows(t, s, 0, tc.cql, tc.vals...)
		if !reflect.DeepEqual(full, tc.want) {
			t.Errorf("%s %v: %v, want %v", tc.cql, tc.vals, full, tc.want)
			continue
		}
		// Paged, the limit holds across pages.
		for _, size := range []int{1, 2, 3, 4, 5, 6, 11} {
			if got := limitRows(t, s, size, tc.cql, tc.vals...); !reflect.DeepEqual(got, full) {
				t.Errorf("%s %v, pages of %d: %v, want %v", tc.cql, tc.vals, size, got, full)
			}
		}
	}
}

// Rows that are not live do not count towards the limit.
func TestPerPartitionLimitCountsLiveRows(t *testing.T) {
	s := newSession(t, limitSchema)
	fillLimits(t, s)
	mustExec(t, s, "DELETE FROM ppl WHERE a = ? AND b = ? AND c = ? AND d = ?", 1, "x", 4, "q")
	mustExec(t, s, "DELETE FROM ppl WHERE a = ? AND b = ? AND c = ?", 1, "x", 3)
	want := []string{"1/x/4p", "1/x/2p", "1/x/2q"}
	for _, size := range []int{0, 1, 2, 3} {
		if got := limitRows(t, s, size, "SELECT a, b, c, d FROM ppl WHERE a = ? AND b = ? PER PARTITION LIMIT ?", 1, "x", 3); !reflect.DeepEqual(got, want) {
			t.Errorf("pages of %d: %v, want %v", size, got, want)
		}
	}
}

// As Cassandra's single-partition pager, a page that reaches the limit
// ends the read: no paging state, even when the page is full.
func TestPerPartitionLimitEndsPaging(t *testing.T) {
	s := newSession(t, limitSchema)
	fillLimits(t, s)
	for _, tc := range []struct {
		limit, size int
		pages       []int
	}{
		{4, 2, []int{2, 2}},
		{5, 2, []int{2, 2, 1}},
		{3, 3, []int{3}},
		{3, 5, []int{3}},
		{10, 5, []int{5, 5}},
		{11, 5, []int{5, 5, 0}},
		{20, 5, []int{5, 5, 0}},
	} {
		read := q("SELECT c FROM ppl WHERE a = ? AND b = ? PER PARTITION LIMIT ?", 1, "x", tc.limit)
		read.PageSize = tc.size
		var pages []int
		for len(pages) < 20 {
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
		if !reflect.DeepEqual(pages, tc.pages) {
			t.Errorf("limit %d, pages of %d: pages of %v rows, want %v", tc.limit, tc.size, pages, tc.pages)
		}
	}
}

func TestPerPartitionLimitWithIn(t *testing.T) {
	s := newSession(t, limitSchema)
	fillLimits(t, s)
	const sel = "SELECT a, b, c, d FROM ppl WHERE a = ? AND b IN ? PER PARTITION LIMIT ?"
	for _, tc := range []struct {
		vals []any
		want []string
	}{
		{[]any{1, []string{"y", "z", "x", "w"}, 2}, []string{"1/y/4p", "1/y/4q", "1/z/0p", "1/x/4p", "1/x/4q"}},
		{[]any{1, []string{"x", "y"}, 3}, []string{"1/x/4p", "1/x/4q", "1/x/3p", "1/y/4p", "1/y/4q", "1/y/3p"}},
		{[]any{2, []string{"x", "y"}, 1}, []string{"2/x/4p"}},
	} {
		if got := limitRows(t, s, 0, sel, tc.vals...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.vals, got, tc.want)
		}
	}
	// With bounds on the clustering column, the limit counts the rows
	// they select.
	got := limitRows(t, s, 0, "SELECT a, b, c, d FROM ppl WHERE a = ? AND b IN ? AND c <= ? PER PARTITION LIMIT ?", 1, []string{"x", "y"}, 1, 3)
	want := []string{"1/x/1p", "1/x/1q", "1/x/0p", "1/y/1p", "1/y/1q", "1/y/0p"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("IN and c <= 1: %v, want %v", got, want)
	}
	// The IN read is not paged: its rows, the limit applied, must fit
	// the page.
	if got := limitRows(t, s, 4, sel, 1, []string{"x", "y"}, 2); len(got) != 4 {
		t.Errorf("a page of 4: %d rows", len(got))
	}
}

func TestPerPartitionLimitOfAScan(t *testing.T) {
	s := newSession(t, limitSchema)
	fillLimits(t, s)
	full := limitRows(t, s, 0, "SELECT a, b, c, d FROM ppl")
	firsts := func(n int) []string {
		var out []string
		seen := map[string]int{}
		for _, r := range full {
			pk := r[:len("1/x")]
			if seen[pk] < n {
				out = append(out, r)
			}
			seen[pk]++
		}
		return out
	}
	for _, n := range []int{1, 2, 3, 10} {
		want := firsts(n)
		for _, size := range []int{0, 1, 2, 3, 4, 5, 7} {
			got := limitRows(t, s, size, "SELECT a, b, c, d FROM ppl PER PARTITION LIMIT ?", n)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("limit %d, pages of %d: %v, want %v", n, size, got, want)
			}
			got = limitRows(t, s, size, "SELECT a, b, c, d FROM ppl WHERE token(a, b) >= ? PER PARTITION LIMIT ?", int64(minToken), n)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("token range, limit %d, pages of %d: %v, want %v", n, size, got, want)
			}
		}
	}
	if got := firsts(2); len(got) != 7 {
		t.Errorf("limit 2 over the scan: %d rows, want 7", len(got))
	}
}

func TestPerPartitionLimitRefusals(t *testing.T) {
	s := newSession(t, limitSchema)
	fillLimits(t, s)
	const sel = "SELECT c FROM ppl WHERE a = ? AND b = ?"
	// Cassandra's messages, which are LIMIT's (SelectStatement.getLimit).
	for _, tc := range []struct {
		cql  string
		vals []any
		msg  string
	}{
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", 0}, "LIMIT must be strictly positive"},
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", -2}, "LIMIT must be strictly positive"},
		{sel + " PER PARTITION LIMIT 0", []any{1, "x"}, "LIMIT must be strictly positive"},
		{sel + " PER PARTITION LIMIT -3", []any{1, "x"}, "LIMIT must be strictly positive"},
		{sel + " PER PARTITION LIMIT ?", []any{1, "x", nil}, "Invalid null value of limit"},
		{"SELECT c FROM ppl WHERE a = ? AND b IN ? PER PARTITION LIMIT ?", []any{1, []string{"x"}, 0}, "LIMIT must be strictly positive"},
		{"SELECT c FROM ppl PER PARTITION LIMIT ?", []any{nil}, "Invalid null value of limit"},
		{"SELECT c FROM ppl WHERE token(a, b) > ? PER PARTITION LIMIT ?", []any{int64(0), -1}, "LIMIT must be strictly positive"},
	} {
		wantInvalid(t, s.Iter(ctx, q(tc.cql, tc.vals...)).Close(), tc.msg)
	}
	// An empty value, on which Cassandra fails with a server error, is
	// refused as a malformed one.
	wantInvalid(t, s.Iter(ctx, q(sel+" PER PARTITION LIMIT ?", 1, "x", cqldriver.Encoded{})).Close(), "Invalid limit value")
	// The marker is an int named as Cassandra names it.
	wantErr(t, s.Iter(ctx, q(sel+" PER PARTITION LIMIT ?", 1, "x", "two")).Close(), "[per_partition_limit] (int)")
	// Cassandra's grammar takes an integer or a marker, after WHERE and
	// before LIMIT and ALLOW FILTERING.
	for _, cql := range []string{
		sel + " PER PARTITION LIMIT 'two'",
		sel + " PER PARTITION LIMIT 1.5",
		sel + " PER PARTITION LIMIT null",
		sel + " PER PARTITION LIMIT",
		sel + " PER PARTITION LIMIT ? PER PARTITION LIMIT ?",
		sel + " PER PARTITION LIMIT ? ORDER BY c",
		"SELECT c FROM ppl PER PARTITION LIMIT ? WHERE a = ? AND b = ?",
	} {
		var re gocql.RequestError
		err := s.Iter(ctx, q(cql, 1, "x", 1)).Close()
		if err == nil {
			t.Errorf("%s: accepted", cql)
		} else if code, ok := cqldriver.ServerCode(err); !ok || code != cqldriver.CodeSyntax {
			t.Errorf("%s: %v, want a syntax error", cql, err)
		} else if !errors.As(err, &re) {
			t.Errorf("%s: %v is no RequestError", cql, err)
		}
	}
	// LIMIT over several partitions, ALLOW FILTERING, ORDER BY and GROUP
	// BY are still refused as not implemented.
	for _, cql := range []string{
		sel + " PER PARTITION LIMIT 2 ALLOW FILTERING",
		sel + " ORDER BY c PER PARTITION LIMIT ?",
		sel + " GROUP BY c",
		sel + " ALLOW FILTERING",
	} {
		wantErr(t, s.Iter(ctx, q(cql, 1, "x", 1, 1)).Close(), "cqltest:", "is not supported")
	}
	wantErr(t, s.Iter(ctx, q("SELECT c FROM ppl WHERE a = ? AND b IN ? LIMIT ?", 1, []string{"x"}, 1)).Close(), "cqltest:", "is not supported")
	wantErr(t, s.Iter(ctx, q("SELECT c FROM ppl LIMIT 1")).Close(), "cqltest:", "is not supported")
}

// cqldriver.Unpaged reads every row in one page: an IN over more rows than
// DefaultPageSize, which the fake refuses to page, and a partition read
// with no paging state.
func TestUnpaged(t *testing.T) {
	s := newSession(t, "CREATE TABLE wide (a int, b int, c int, PRIMARY KEY ((a, b), c));")
	const per = 2600 // two partitions of them: more than DefaultPageSize
	for b := range 2 {
		for c := range per {
			mustExec(t, s, "INSERT INTO wide (a, b, c) VALUES (?, ?, ?)", 1, b, c)
		}
	}
	in := q("SELECT c FROM wide WHERE a = ? AND b IN ? PER PARTITION LIMIT ?", 1, []int{0, 1}, per)
	in.PageSize = 0
	it := s.Iter(ctx, in)
	for it.Scan(new(int)) {
	}
	if err := it.Close(); err == nil {
		t.Errorf("an IN of %d rows in pages of %d: no error", 2*per, DefaultPageSize)
	}
	for _, c := range []struct {
		query cqldriver.Query
		rows  int
	}{{in, 2 * per}, {q("SELECT c FROM wide WHERE a = ? AND b = ?", 1, 0), per}} {
		c.query.PageSize = cqldriver.Unpaged
		it := s.Iter(ctx, c.query)
		n := 0
		for it.Scan(new(int)) {
			n++
		}
		if err := it.Close(); err != nil || n != c.rows || len(it.PageState()) != 0 {
			t.Errorf("%s unpaged: %d rows, state %x, %v; want %d rows, no state", c.query.Stmt.CQL, n, it.PageState(), err, c.rows)
		}
	}
}

// LIMIT on a SELECT of one partition returns at most that many rows, the
// lower of it and PER PARTITION LIMIT; a partition holding static values
// alone reads as one row of them, as in Cassandra.
func TestLimitOnePartition(t *testing.T) {
	s := newSession(t, limitSchema)
	fillLimits(t, s)
	count := func(cql string, vals ...any) int {
		t.Helper()
		it := s.Iter(context.Background(), q(cql, vals...))
		n := 0
		var c int
		for it.Scan(&c) {
			n++
		}
		if err := it.Close(); err != nil {
			t.Fatalf("%s: %v", cql, err)
		}
		return n
	}
	const sel = "SELECT c FROM ppl WHERE a = ? AND b = ?"
	all := count(sel, 1, "x")
	if all < 3 {
		t.Fatalf("the fixture's partition holds %d rows; want at least 3", all)
	}
	for _, tc := range []struct {
		cql  string
		vals []any
		want int
	}{
		{sel + " LIMIT 1", []any{1, "x"}, 1},
		{sel + " LIMIT ?", []any{1, "x", 2}, 2},
		{sel + " LIMIT ?", []any{1, "x", 1000}, all},
		{sel + " PER PARTITION LIMIT ? LIMIT ?", []any{1, "x", 3, 2}, 2},
		{sel + " PER PARTITION LIMIT ? LIMIT ?", []any{1, "x", 1, 2}, 1},
	} {
		if got := count(tc.cql, tc.vals...); got != tc.want {
			t.Errorf("%s %v: %d rows, want %d", tc.cql, tc.vals, got, tc.want)
		}
	}
	wantInvalid(t, s.Iter(context.Background(), q(sel+" LIMIT ?", 1, "x", 0)).Close(), "LIMIT must be strictly positive")

	st := newSession(t, "CREATE TABLE h (p text, c text, u text STATIC, v int, PRIMARY KEY (p, c));")
	mustExec(t, st, "UPDATE h SET u = ? WHERE p = ?", "joe", "o1")
	it := st.Iter(context.Background(), q("SELECT c, u FROM h WHERE p = ? LIMIT 1", "o1"))
	var c, u *string
	if !it.Scan(&c, &u) || c != nil || u == nil || *u != "joe" {
		t.Errorf("a partition of statics alone: c %v, u %v; want a row of its statics", c, u)
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
}
