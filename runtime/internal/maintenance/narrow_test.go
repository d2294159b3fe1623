package maintenance

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
)

func testRow(k string) *row { return &row{cols: [][]byte{[]byte(k), nil}, nkey: 1} }

// keyHash is the hash bucket takes modulo the buckets: the buckets of
// the digests and of the narrowing are the same.
func TestKeyHashIsBucketsHash(t *testing.T) {
	for i := range 1000 {
		r := testRow(fmt.Sprint("key-", i))
		for _, n := range []int{1, 7, 4096} {
			if got, want := int(r.keyHash()%uint64(n)), r.bucket(n); got != want {
				t.Fatalf("key %d, %d buckets: keyHash gives bucket %d, bucket %d", i, n, got, want)
			}
		}
	}
}

// A row falls, after a split, in the sub-bucket splitNode names for the
// index child gives it, and in no other node: the sums refine adds up by
// child index are the rows of the nodes it returns.
func TestSplitNamesTheChildOfEachRow(t *testing.T) {
	const buckets = 16
	s := newNodes(buckets, 1, 0)
	for b := 0; b < buckets; b += 3 { // some buckets only
		s.add(node{b: b}, 0)
	}
	for depth, f := range []int{8, 3, 2, 5} {
		children := newNodes(buckets, s.split*uint64(f), 0)
		for j := range s.list {
			for c := range f {
				children.add(s.splitNode(j, f, c), 0)
			}
		}
		for i := range 5000 {
			kh := testRow(fmt.Sprint("k", i)).keyHash()
			x, in := s.child(kh, f)
			got, inChild := children.of(kh)
			if in != inChild {
				t.Fatalf("depth %d, key %d: in a node %v, in its children %v", depth, i, in, inChild)
			}
			if in && children.list[got] != s.splitNode(x/f, f, x%f) {
				t.Fatalf("depth %d, key %d: child %d is node %+v, the row is in %+v", depth, i, x, s.splitNode(x/f, f, x%f), children.list[got])
			}
		}
		// Keep every other child, as a refinement keeps those that differ.
		next := newNodes(buckets, children.split, 0)
		for j, n := range children.list {
			if j%2 == 0 {
				next.add(n, 0)
			}
		}
		s = next
	}
}

// Batches hold at most hold present rows, but for a node of more alone,
// and each node is in exactly one.
func TestBatchesBoundThePresentRows(t *testing.T) {
	s := newNodes(64, 1, 0)
	present := []int64{3, 9, 0, 4, 12, 1, 1, 1, 7, 2}
	for b, p := range present {
		s.add(node{b: b * 5}, p)
	}
	of, n := s.batches(10)
	sums := make([]int64, n)
	nodes := make([]int, n)
	for j, b := range of {
		if b < 0 || b >= n {
			t.Fatalf("node %d in batch %d of %d", j, b, n)
		}
		sums[b] += present[j]
		nodes[b]++
	}
	for b, sum := range sums {
		if sum > 10 && nodes[b] > 1 {
			t.Errorf("batch %d holds %d rows in %d nodes, over 10", b, sum, nodes[b])
		}
	}
	if n < 5 { // 40 rows, one node of 12
		t.Errorf("%d batches for 40 rows at 10 a batch", n)
	}
	if _, n := newNodes(4, 1, 0).batches(10); n != 0 {
		t.Errorf("no node: %d batches", n)
	}
}

// Splitting keeps within nodeCap and stops at about one row a node.
func TestFanout(t *testing.T) {
	s := newNodes(4096, 1, 0)
	for b := range 4096 {
		s.add(node{b: b}, 250)
	}
	if f := s.fanout(); 4096*f > nodeCap || f < 2 {
		t.Errorf("4096 nodes of 250 rows: split into %d", f)
	}
	one := newNodes(4, 1, 0)
	one.add(node{b: 1}, 1000)
	if f := one.fanout(); f != 1000 {
		t.Errorf("one node of 1000 rows: split into %d, want 1000", f)
	}
	full := newNodes(nodeCap, 1, 0)
	for b := range nodeCap/2 + 1 {
		full.add(node{b: b}, 2)
	}
	if f := full.fanout(); f != 0 {
		t.Errorf("%d nodes: split into %d, past nodeCap", len(full.list), f)
	}
	deep := newNodes(4, maxSplit/3, 0)
	deep.add(node{b: 1}, 1000)
	if f := deep.fanout(); f != 3 {
		t.Errorf("split %d times already: split into %d, want 3 (at most %d in all)", deep.split, f, uint64(maxSplit))
	}
}

// keyRow decodes what key encodes: a held row's key columns, empty
// included.
func TestKeyRowDecodesKey(t *testing.T) {
	tab := &desc.Table{}
	tab.Spec.PartitionKey = make([]cqlspec.Column, 2)
	tab.Spec.Clustering = make([]cqlspec.Column, 1)
	r := &row{cols: [][]byte{[]byte("board-3"), {}, bytes.Repeat([]byte{7}, 300), []byte("value")}, nkey: 3}
	got := keyRow(r.key(), tab)
	if got.nkey != 3 || len(got.cols) != 3 || got.key() != r.key() {
		t.Fatalf("keyRow(key) = %q (%d columns), want the key columns of %q", got.cols, len(got.cols), r.cols[:3])
	}
	for j := range 3 {
		if !bytes.Equal(got.cols[j], r.cols[j]) {
			t.Errorf("column %d: %q, want %q", j, got.cols[j], r.cols[j])
		}
	}
}
