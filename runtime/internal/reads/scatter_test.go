package reads

import (
	"context"
	"fmt"
	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
)

// scatterRow is a row of a table keyed by a bucket and k; only k is
// scanned into it (the bucket goes to the read), so k tells its bucket:
// 100 times it, plus the row's place.
type scatterRow struct {
	bucket int32
	k      int64
}

// replay is a session whose every read returns rows, in the order given,
// each scanned as k and then its bucket, as a scatter statement selects
// them.
type replay struct {
	rows  []scatterRow
	reads int
	// With filter, a read that names a list of buckets returns only
	// their rows; named are the buckets each read named.
	filter bool
	mu     sync.Mutex
	named  [][]int32
}

func (r *replay) Exec(context.Context, cqldriver.Query) error { return nil }
func (r *replay) ExecCAS(context.Context, cqldriver.Query, ...any) (bool, error) {
	return true, nil
}
func (r *replay) Batch(context.Context, cqldriver.BatchKind, []cqldriver.Query) error { return nil }
func (r *replay) Iter(_ context.Context, q cqldriver.Query) cqldriver.Iter {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reads++
	bs, ok := q.Values[1].([]int32)
	if !ok || !r.filter {
		return &replayIter{rows: r.rows}
	}
	r.named = append(r.named, bs)
	var rows []scatterRow
	for _, row := range r.rows {
		if slices.Contains(bs, row.bucket) {
			rows = append(rows, row)
		}
	}
	return &replayIter{rows: rows}
}

type replayIter struct {
	rows []scatterRow
	next int
}

func (it *replayIter) Scan(dest ...any) bool {
	if it.next == len(it.rows) {
		return false
	}
	row := it.rows[it.next]
	it.next++
	*dest[0].(*int64), *dest[1].(*int32) = row.k, row.bucket
	return true
}
func (it *replayIter) PageState() []byte { return nil }
func (it *replayIter) Close() error      { return nil }

func scatterSpec(n int) ReadSpecOf[*scatterRow] {
	c := desc.TableCQL{{Statement: cqlspec.Statement{Slot: cqlspec.SlotFirst}, Text: "first"}}
	for slot, text := range map[cqlspec.Slot]string{
		cqlspec.SlotFirst: "first", cqlspec.SlotFirstFrom: "from", cqlspec.SlotFirstTo: "to", cqlspec.SlotFirstFromTo: "from to",
		cqlspec.SlotAfter: "after", cqlspec.SlotAfterTo: "after to", cqlspec.SlotAtOrAfter: "at", cqlspec.SlotAtOrAfterTo: "at to",
	} {
		c = append(c, desc.RenderedCQL{Statement: cqlspec.Statement{Slot: slot, Scatter: true}, Text: text})
	}
	table := desc.NewTableFrom(desc.TableSpec{
		Name:         "t",
		PartitionKey: []desc.Column{{Name: "p", Type: "text"}, {Name: "bucket", Type: "int"}},
		Clustering:   []desc.Column{{Name: "k", Type: "bigint"}},
	}, c)
	return ReadSpecOf[*scatterRow]{
		NewRow:      RowArena[*scatterRow](),
		Table:       table,
		Partition:   []any{"p"},
		HashBuckets: n,
		Scan:        func(it cqldriver.Iter, r *scatterRow) bool { return it.Scan(&r.k) },
	}
}

// However a coordinator orders the buckets' rows in its reply, grouped
// or interleaved, each bucket's list holds its rows in the order they
// came, up to per; a row of a bucket outside the read is an error.
func TestScatterBucketsOrderOfReply(t *testing.T) {
	const n, per = 4, 3
	var grouped, interleaved []scatterRow
	for b := range int32(n) {
		for k := range int64(b) + 1 { // bucket b holds b+1 rows
			grouped = append(grouped, scatterRow{b, 100*int64(b) + k})
		}
	}
	for k := range int64(n) {
		for b := range int32(n) {
			if k <= int64(b) {
				interleaved = append(interleaved, scatterRow{b, 100*int64(b) + k})
			}
		}
	}
	reversed := slices.Clone(grouped)
	slices.Reverse(reversed)
	for name, rows := range map[string][]scatterRow{"grouped": grouped, "interleaved": interleaved, "reversed": reversed} {
		lists, err := scatterBuckets(context.Background(), &replay{rows: rows}, scatterSpec(n), nil, 0, per)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for b, l := range lists {
			var want []int64 // the rows of bucket b in the order sent
			for _, r := range rows {
				if r.bucket == int32(b) && len(want) < per {
					want = append(want, r.k)
				}
			}
			var got []int64
			for _, r := range l {
				if r.k/100 != int64(b) {
					t.Errorf("%s: bucket %d's list holds a row of bucket %d", name, b, r.k/100)
				}
				got = append(got, r.k)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: bucket %d: %v, want %v", name, b, got, want)
			}
		}
	}
	_, err := scatterBuckets(context.Background(), &replay{rows: append(slices.Clone(grouped), scatterRow{n, 0})}, scatterSpec(n), nil, 0, per)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("bucket %d, outside", n)) {
		t.Errorf("a row of bucket %d of %d: %v, want an error", n, n, err)
	}
}

// bucketShare asks each bucket for the fewest rows that leave at most one
// page in a hundred needing more, with rows hashed at random: computed
// here by simulation, against the figure it gives and the one below it.
func TestBucketShare(t *testing.T) {
	for _, c := range []struct{ want, n, share int }{
		{101, 16, 15}, {101, 100, 6}, {101, 4, 38}, {1001, 16, 89}, {101, 2, 63},
		{21, 100, 3}, {101, 1000, 3}, {2, 16, 2}, {1, 16, 1}, {101, 1, 101},
	} {
		if got := bucketShare(c.want, c.n); got != c.share {
			t.Errorf("bucketShare(%d, %d) = %d, want %d", c.want, c.n, got, c.share)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	overflows := func(want, n, per int) float64 {
		const pages = 20000
		bad := 0
		counts := make([]int, n)
		for range pages {
			clear(counts)
			for range want {
				counts[rng.IntN(n)]++
			}
			if slices.Max(counts) > per {
				bad++
			}
		}
		return float64(bad) / pages
	}
	for _, c := range []struct{ want, n int }{{101, 16}, {101, 4}, {1001, 16}, {101, 100}} {
		per := bucketShare(c.want, c.n)
		if f := overflows(c.want, c.n, per); f > 0.012 {
			t.Errorf("want %d over %d buckets, %d a bucket: %.2f%% of pages need more", c.want, c.n, per, 100*f)
		}
		if f := overflows(c.want, c.n, per-1); f < 0.005 {
			t.Errorf("want %d over %d buckets: %d a bucket would do (%.2f%% of pages need more)", c.want, c.n, per-1, 100*f)
		}
	}
	// A large page over two buckets, whose first term underflows.
	if got := bucketShare(20001, 2); got <= 10000 || got >= 20001 {
		t.Errorf("bucketShare(20001, 2) = %d", got)
	}
}

// mergeRefill gives the rows of merging the whole lists, ties in list
// order, whatever part of each list it starts with: random lists whose
// keys tie across lists (as rows of two buckets tie on their clustering
// key; within a list keys are distinct, as in a partition), empty and
// exhausted lists, every limit. It refills at most once, and never asks
// a list for more than the limit.
func TestMergeRefillAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 27))
	cmp := func(a, b *int) int { return *a - *b }
	byValue := func(a, b int) int { return a - b }
	for round := range 3000 {
		n := 1 + rng.IntN(12)
		full := make([][]int, n)
		for i := range full {
			seen := map[int]bool{}
			for range rng.IntN(30) {
				seen[rng.IntN(40)] = true // keys in a small range: ties across lists
			}
			for k := range seen {
				full[i] = append(full[i], k)
			}
			slices.Sort(full[i])
		}
		limit := 1 + rng.IntN(60)
		want, wantFrom := Merge(full, cmp, limit)
		lists := make([][]int, n)
		more := make([]bool, n)
		for i, l := range full {
			// A first read of a bucket that has rows returns at least
			// one; with none, the bucket has none.
			cut := 0
			if len(l) > 0 {
				cut = 1 + rng.IntN(len(l))
			}
			lists[i] = slices.Clone(l[:cut])
			more[i] = cut < len(l) || cut > 0 && rng.IntN(4) == 0 // sometimes "may have more" of a list that has none
		}
		refills := 0
		got, from, err := mergeRefill(lists, more, byValue, limit, func(ds []drained[int]) ([][]int, error) {
			refills++
			out := make([][]int, len(ds))
			for k, d := range ds {
				if d.need < 1 || d.need > limit {
					t.Fatalf("round %d: list %d asked for %d rows, limit %d", round, d.list, d.need, limit)
				}
				l := full[d.list]
				at, ok := slices.BinarySearch(l, d.last)
				if !ok {
					t.Fatalf("round %d: list %d: its last row %d is not its own", round, d.list, d.last)
				}
				out[k] = l[at+1 : min(at+1+d.need, len(l))]
			}
			return out, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || !slices.Equal(from, wantFrom) {
			t.Fatalf("round %d, limit %d over %v:\ngot  %v from %v\nwant %v from %v", round, limit, full, got, from, want, wantFrom)
		}
		if refills > 1 {
			t.Fatalf("round %d: %d refills", round, refills)
		}
	}
}

// A read over more buckets than one request names splits them into
// requests of at most scatterGroup buckets each, every bucket named once
// a request kind, and gathers each bucket's rows from its own: from the
// start, and from a position (after the row for buckets up to the
// cursor's, at it for the others).
func TestScatterBucketsGroups(t *testing.T) {
	const n, per = 120, 3
	var rows []scatterRow
	for b := range int32(n) {
		for k := range int64(b%5) + 1 { // bucket b holds b%5+1 rows
			rows = append(rows, scatterRow{b, 100*int64(b) + k})
		}
	}
	for _, pos := range [][][]byte{nil, {{0, 0, 0, 0, 0, 0, 0, 1}}} {
		r := &replay{rows: rows, filter: true}
		lists, err := scatterBuckets(context.Background(), r, scatterSpec(n), pos, 41, per)
		if err != nil {
			t.Fatal(err)
		}
		named := map[int32]int{}
		for _, bs := range r.named {
			if len(bs) > scatterGroup {
				t.Errorf("position %v: a request names %d buckets, more than %d", pos, len(bs), scatterGroup)
			}
			for _, b := range bs {
				named[b]++
			}
		}
		if len(named) != n {
			t.Errorf("position %v: %d buckets named, want %d", pos, len(named), n)
		}
		for b, c := range named {
			if c != 1 {
				t.Errorf("position %v: bucket %d named %d times", pos, b, c)
			}
		}
		// From the start, 120 buckets in 3 requests of 40; from a
		// position in bucket 41, 42 buckets after the row in one request
		// and 78 at it in two of 39.
		if len(r.named) != 3 {
			t.Errorf("position %v: %d requests, want 3", pos, len(r.named))
		}
		for b, l := range lists {
			want := min(b%5+1, per)
			if len(l) != want {
				t.Errorf("position %v: bucket %d: %d rows, want %d", pos, b, len(l), want)
			}
			for i, row := range l {
				if row.k != 100*int64(b)+int64(i) {
					t.Errorf("position %v: bucket %d row %d is %d", pos, b, i, row.k)
				}
			}
		}
	}
}

// A read's buckets are read by several goroutines, each taking rows from
// the read's one arena: every row handed out is a row of its own.
func TestRowArenaConcurrent(t *testing.T) {
	next := RowArena[*scatterRow]()
	const workers, each = 8, 2000
	got := make([][]*scatterRow, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				got[w] = append(got[w], next())
			}
		})
	}
	wg.Wait()
	seen := map[*scatterRow]bool{}
	for _, rows := range got {
		for _, r := range rows {
			if seen[r] {
				t.Fatalf("a row handed out twice")
			}
			seen[r] = true
		}
	}
}
