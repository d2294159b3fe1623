package cqltest

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
)

const indexSchema = `
CREATE TABLE notes (
    space  text,
    at     int,
    seq    int,
    size   int,
    author text,
    tags   set<text>,
    body   text,
    PRIMARY KEY (space, at, seq)
) WITH CLUSTERING ORDER BY (at DESC, seq ASC);
CREATE CUSTOM INDEX IF NOT EXISTS notes_by_size ON notes (size) USING 'StorageAttachedIndex';
CREATE CUSTOM INDEX IF NOT EXISTS notes_by_author ON notes (author) USING 'StorageAttachedIndex';
CREATE CUSTOM INDEX IF NOT EXISTS notes_by_tags ON notes (tags) USING 'StorageAttachedIndex';
`

type note struct {
	space       string
	at, seq     int32
	size        int32
	author      string
	tags        []string
	token       int64
	sizeMissing bool
}

// Reads through storage-attached indexes, as cqlgen's index reads run
// them: within a partition, equal to a value, in a range of each choice
// of operators, or containing an element, with the clustering key's
// continuation after a row; and over every partition, in token order,
// continued with token(space) > token(?). Each read, paged with several
// page sizes, gives the rows of a reference filter in the table's order.
// A column without an index still needs ALLOW FILTERING.
func TestIndexReads(t *testing.T) {
	s := newSession(t, indexSchema)
	var all []note
	for sp := range 5 {
		for i := range 20 {
			n := note{space: fmt.Sprintf("s%d", sp), at: int32(i % 4), seq: int32(i), size: int32(i % 7), author: []string{"ann", "bob"}[i%2],
				tags: []string{[]string{"red", "blue"}[i%3%2], fmt.Sprint("t", i%5)}}
			n.sizeMissing = i == 13
			if n.sizeMissing {
				mustExec(t, s, "INSERT INTO notes (space, at, seq, author, tags) VALUES (?, ?, ?, ?, ?)", n.space, n.at, n.seq, n.author, n.tags)
			} else {
				mustExec(t, s, "INSERT INTO notes (space, at, seq, size, author, tags) VALUES (?, ?, ?, ?, ?, ?)", n.space, n.at, n.seq, n.size, n.author, n.tags)
			}
			n.token = murmur3Token(serializePartitionKey([][]byte{[]byte(n.space)}))
			all = append(all, n)
		}
	}
	// The table's order: token, then at descending, then seq.
	slices.SortFunc(all, func(a, b note) int {
		if a.token != b.token {
			return cmpInt(a.token, b.token)
		}
		if a.at != b.at {
			return cmpInt(b.at, a.at)
		}
		return cmpInt(a.seq, b.seq)
	})
	ids := func(ns []note) []string {
		var out []string
		for _, n := range ns {
			out = append(out, fmt.Sprintf("%s/%d", n.space, n.seq))
		}
		return out
	}
	got := func(rows [][][]byte) []string {
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%s/%d", r[0], int32(binary.BigEndian.Uint32(r[1]))))
		}
		return out
	}
	filter := func(keep func(note) bool) []note {
		var out []note
		for _, n := range all {
			if keep(n) {
				out = append(out, n)
			}
		}
		return out
	}
	ops := map[string]func(a, b int32) bool{
		">=": func(a, b int32) bool { return a >= b }, ">": func(a, b int32) bool { return a > b },
		"<": func(a, b int32) bool { return a < b }, "<=": func(a, b int32) bool { return a <= b },
	}
	for _, lo := range []string{">=", ">"} {
		for _, hi := range []string{"<", "<="} {
			in := func(n note) bool { return !n.sizeMissing && ops[lo](n.size, 2) && ops[hi](n.size, 5) }
			want := filter(func(n note) bool { return n.space == "s1" && in(n) })
			cond := "size " + lo + " ? AND size " + hi + " ?"
			for _, ps := range []int{1, 3, 100} {
				rows := selectAll(t, s, ps, 2, "SELECT space, seq FROM notes WHERE space = ? AND "+cond, "s1", 2, 5)
				if !slices.Equal(got(rows), ids(want)) {
					t.Errorf("%s in s1, pages of %d:\n got %v\nwant %v", cond, ps, got(rows), ids(want))
				}
			}
			// The continuation within a partition, after (at 2, seq 6): at
			// = 2 and seq > 6, then at < 2.
			rows := selectAll(t, s, 100, 2, "SELECT space, seq FROM notes WHERE space = ? AND "+cond+" AND at = ? AND seq > ?", "s1", 2, 5, 2, 6)
			rows = append(rows, selectAll(t, s, 100, 2, "SELECT space, seq FROM notes WHERE space = ? AND "+cond+" AND at < ?", "s1", 2, 5, 2)...)
			var after []note
			for _, n := range want {
				if n.at == 2 && n.seq > 6 || n.at < 2 {
					after = append(after, n)
				}
			}
			if !slices.Equal(got(rows), ids(after)) {
				t.Errorf("%s in s1 after (2, 6):\n got %v\nwant %v", cond, got(rows), ids(after))
			}
			// Over every partition, in token order; then the partitions
			// after s1's token.
			want = filter(in)
			for _, ps := range []int{1, 7, 1000} {
				rows := selectAll(t, s, ps, 2, "SELECT space, seq FROM notes WHERE "+cond, 2, 5)
				if !slices.Equal(got(rows), ids(want)) {
					t.Errorf("%s over every partition, pages of %d:\n got %v\nwant %v", cond, ps, got(rows), ids(want))
				}
			}
			s1 := murmur3Token(serializePartitionKey([][]byte{[]byte("s1")}))
			rows = selectAll(t, s, 1000, 2, "SELECT space, seq FROM notes WHERE token(space) > token(?) AND "+cond, "s1", 2, 5)
			if want := filter(func(n note) bool { return in(n) && n.token > s1 }); !slices.Equal(got(rows), ids(want)) || len(want) == 0 {
				t.Errorf("%s after s1's token:\n got %v\nwant %v", cond, got(rows), ids(want))
			}
		}
	}
	for _, c := range []struct {
		cql  string
		vals []any
		keep func(note) bool
	}{
		{"SELECT space, seq FROM notes WHERE space = ? AND author = ?", []any{"s2", "bob"}, func(n note) bool { return n.space == "s2" && n.author == "bob" }},
		{"SELECT space, seq FROM notes WHERE author = ?", []any{"ann"}, func(n note) bool { return n.author == "ann" }},
		{"SELECT space, seq FROM notes WHERE space = ? AND tags CONTAINS ?", []any{"s3", "red"}, func(n note) bool { return n.space == "s3" && slices.Contains(n.tags, "red") }},
		{"SELECT space, seq FROM notes WHERE tags CONTAINS ? AND author = ?", []any{"t2", "ann"}, func(n note) bool { return slices.Contains(n.tags, "t2") && n.author == "ann" }},
	} {
		want := filter(c.keep)
		if len(want) == 0 {
			t.Fatalf("%s: nothing to read", c.cql)
		}
		if rows := selectAll(t, s, 2, 2, c.cql, c.vals...); !slices.Equal(got(rows), ids(want)) {
			t.Errorf("%s %v:\n got %v\nwant %v", c.cql, c.vals, got(rows), ids(want))
		}
	}
	wantInvalid(t, s.Iter(ctx, q("SELECT space FROM notes WHERE space = ? AND body = ?", "s1", "x")).Close(), "ALLOW FILTERING")
	wantInvalid(t, s.Iter(ctx, q("SELECT space FROM notes WHERE size > ?", nil)).Close(), "Invalid null value for column size")
}

func cmpInt[T int32 | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// BETWEEN ? AND ? (Cassandra 6.0) on an indexed column reads both ends
// inclusive, the rows of >= ? AND <= ?, alone and ANDed with other
// indexed columns, within a partition and over every partition.
func TestIndexBetween(t *testing.T) {
	s := newSession(t, indexSchema)
	for sp := range 3 {
		for i := range 15 {
			mustExec(t, s, "INSERT INTO notes (space, at, seq, size, author, tags) VALUES (?, ?, ?, ?, ?, ?)",
				fmt.Sprintf("s%d", sp), i%4, i, i%7, []string{"ann", "bob"}[i%2], []string{fmt.Sprint("t", i%3)})
		}
	}
	for _, c := range []struct {
		between, ranged string
		vals            []any
	}{
		{"space = ? AND size BETWEEN ? AND ?", "space = ? AND size >= ? AND size <= ?", []any{"s1", 2, 5}},
		{"size BETWEEN ? AND ? AND author = ?", "size >= ? AND size <= ? AND author = ?", []any{1, 4, "bob"}},
		{"tags CONTAINS ? AND size BETWEEN ? AND ?", "tags CONTAINS ? AND size >= ? AND size <= ?", []any{"t1", 0, 3}},
	} {
		want := selectAll(t, s, 100, 2, "SELECT space, seq FROM notes WHERE "+c.ranged, c.vals...)
		if len(want) < 3 {
			t.Fatalf("%s: %d rows, too few to tell", c.ranged, len(want))
		}
		for _, ps := range []int{1, 4, 100} {
			got := selectAll(t, s, ps, 2, "SELECT space, seq FROM notes WHERE "+c.between, c.vals...)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s, pages of %d:\n got %q\nwant %q", c.between, ps, got, want)
			}
		}
	}
}
