package impl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
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
}

func (r *replay) Exec(context.Context, cqldriver.Query) error { return nil }
func (r *replay) ExecCAS(context.Context, cqldriver.Query, ...any) (bool, error) {
	return true, nil
}
func (r *replay) Batch(context.Context, cqldriver.BatchKind, []cqldriver.Query) error { return nil }
func (r *replay) Iter(_ context.Context, q cqldriver.Query) cqldriver.Iter {
	r.reads++
	return &replayIter{rows: r.rows}
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

func scatterSpec(n int) readSpec[*scatterRow] {
	page := pageCQL{First: "first", FirstFrom: "from", FirstTo: "to", FirstFromTo: "from to", After: []string{"after"}, AfterTo: "after to", AtOrAfter: "at", AtOrAfterTo: "at to"}
	table := newTable(TableSpec{
		Name:         "t",
		PartitionKey: []Column{{Name: "p", Type: "text"}, {Name: "bucket", Type: "int"}},
		Clustering:   []Column{{Name: "k", Type: "bigint"}},
	}, tableCQL{First: "first", Scatter: []pageCQL{page}})
	return readSpec[*scatterRow]{
		newRow:      rowArena[scatterRow](),
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
