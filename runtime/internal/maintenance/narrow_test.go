package maintenance

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
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

// A row falls, after a split, in the sub-bucket splitSub names for the
// index child gives it, and in no other node: the sums refine adds up by
// child index are the rows of the nodes it returns.
func TestSplitNamesTheChildOfEachRow(t *testing.T) {
	const buckets = 16
	s := newNodes(buckets, 1, 0)
	for b := 0; b < buckets; b += 3 { // some buckets only
		s.add(b, node{})
	}
	s.done()
	bucketOf := func(s *nodes, j int) int {
		for b := range s.buckets() {
			if j >= int(s.first[b]) && j < int(s.first[b+1]) {
				return b
			}
		}
		t.Fatalf("node %d in no bucket", j)
		return 0
	}
	for depth, f := range []int{8, 3, 2, 5} {
		// Every child, sorted within its bucket, as refine lists them.
		children := newNodes(buckets, s.split*uint64(f), 0)
		for b := range buckets {
			from := len(children.list)
			for j := int(s.first[b]); j < int(s.first[b+1]); j++ {
				for c := range f {
					children.add(b, node{sub: s.splitSub(j, c)})
				}
			}
			slices.SortFunc(children.list[from:], func(a, b node) int { return cmp.Compare(a.sub, b.sub) })
		}
		children.done()
		for i := range 5000 {
			kh := testRow(fmt.Sprint("k", i)).keyHash()
			x, in := s.child(kh, f)
			got, inChild := children.of(kh)
			if in != inChild {
				t.Fatalf("depth %d, key %d: in a node %v, in its children %v", depth, i, in, inChild)
			}
			if !in {
				continue
			}
			if b := int(kh % buckets); bucketOf(children, got) != b || bucketOf(s, x/f) != b {
				t.Fatalf("depth %d, key %d: bucket %d, child in %d, node in %d", depth, i, b, bucketOf(children, got), bucketOf(s, x/f))
			}
			if want := s.splitSub(x/f, x%f); children.list[got].sub != want {
				t.Fatalf("depth %d, key %d: child %d is sub %d, the row is in %d", depth, i, x, want, children.list[got].sub)
			}
		}
		// Keep every other child, as a refinement keeps those that differ.
		next := newNodes(buckets, children.split, 0)
		for b := range buckets {
			for j := int(children.first[b]); j < int(children.first[b+1]); j++ {
				if j%2 == 0 {
					next.add(b, children.list[j])
				}
			}
		}
		s = next.done()
	}
}

// A row of a bucket without nodes is in none, whatever its neighbours
// hold; the first and last buckets too.
func TestOfEdges(t *testing.T) {
	s := newNodes(8, 1, 0)
	s.add(0, node{present: 1})
	s.add(7, node{present: 2})
	s.done()
	for i := range 2000 {
		kh := testRow(fmt.Sprint("e", i)).keyHash()
		j, ok := s.of(kh)
		switch b := kh % 8; {
		case b == 0 && (!ok || j != 0), b == 7 && (!ok || j != 1):
			t.Fatalf("key in bucket %d: node %d, %v", b, j, ok)
		case b != 0 && b != 7 && ok:
			t.Fatalf("key in bucket %d, which has no node: node %d", b, j)
		}
	}
	if held := s.held(); held != 3 {
		t.Errorf("held %d, want 3", held)
	}
}

// The digests of both sides agree where the same rows were added to
// each, in any order, and differ where one row is missing, extra or
// changed, or two rows swapped their hashes' sum but not their count.
func TestSubDigestsDiffer(t *testing.T) {
	d := newSubDigests(4)
	for x := range 4 {
		for h := range uint64(5) {
			d.want(x, h*7919+uint64(x))
		}
	}
	for h := range uint64(5) {
		d.have(0, (4-h)*7919) // the same, in another order
	}
	for h := range uint64(4) {
		d.have(1, h*7919+1) // one missing
	}
	for h := range uint64(5) {
		d.have(2, h*7919+2+boolToUint(h == 3)) // one changed
	}
	for h := range uint64(6) {
		d.have(3, h*7919+3) // one extra
	}
	for x, want := range []bool{false, true, true, true} {
		if d.differ(x) != want {
			t.Errorf("sub-bucket %d: differ %v, want %v", x, d.differ(x), want)
		}
	}
	if d.present[0] != 5 || d.present[1] != 4 || d.present[3] != 6 {
		t.Errorf("present %v, want 5, 4, 5, 6", d.present)
	}
}

func boolToUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Batches hold at most hold present rows, but for a node of more alone,
// and each node is in exactly one, in order.
func TestBatchesBoundThePresentRows(t *testing.T) {
	s := newNodes(64, 1, 0)
	present := []int64{3, 9, 0, 4, 12, 1, 1, 1, 7, 2}
	for b, p := range present {
		s.add(b*5, node{present: p})
	}
	s.done()
	ends := s.batches(10)
	from := 0
	for k, to := range ends {
		if to <= from || to > len(present) {
			t.Fatalf("batch %d: nodes %d to %d of %d", k, from, to, len(present))
		}
		var sum int64
		for _, p := range present[from:to] {
			sum += p
		}
		if sum > 10 && to-from > 1 {
			t.Errorf("batch %d holds %d rows in %d nodes, over 10", k, sum, to-from)
		}
		from = to
	}
	if from != len(present) {
		t.Errorf("batches end at node %d of %d", from, len(present))
	}
	if len(ends) < 5 { // 40 rows, one node of 12
		t.Errorf("%d batches for 40 rows at 10 a batch", len(ends))
	}
	if n := len(newNodes(4, 1, 0).done().batches(10)); n != 0 {
		t.Errorf("no node: %d batches", n)
	}
}

// Halves are the first half of the nodes and the rest, each found in its
// bucket as before.
func TestHalves(t *testing.T) {
	s := newNodes(8, 4, 0)
	for b := range 8 {
		for sub := range uint64(b % 4) {
			s.add(b, node{sub: sub, present: int64(b*10) + int64(sub)})
		}
	}
	s.done()
	a, b := s.halves()
	if len(a.list) != len(s.list)/2 || len(a.list)+len(b.list) != len(s.list) {
		t.Fatalf("halves of %d nodes: %d and %d", len(s.list), len(a.list), len(b.list))
	}
	if a.held()+b.held() != s.held() {
		t.Errorf("held %d + %d, want %d", a.held(), b.held(), s.held())
	}
	for i := range 3000 {
		kh := testRow(fmt.Sprint("h", i)).keyHash()
		j, in := s.of(kh)
		ja, inA := a.of(kh)
		jb, inB := b.of(kh)
		switch {
		case in != (inA || inB) || inA && inB:
			t.Fatalf("key %d: in s %v, in the halves %v and %v", i, in, inA, inB)
		case inA && a.list[ja] != s.list[j], inB && b.list[jb] != s.list[j]:
			t.Fatalf("key %d: node %+v, in a half %+v %+v", i, s.list[j], a.list[ja], b.list[jb])
		case inA && j >= len(a.list), inB && j < len(a.list):
			t.Fatalf("key %d: node %d of %d in the wrong half", i, j, len(s.list))
		}
	}
}

// Hold sizes the narrowing's budget: 8 sub-buckets a row held.
func TestNodeCapFollowsHold(t *testing.T) {
	for hold, want := range map[int]int{4096: 1 << 15, 16: 128, 1: 16, 1 << 40: 1 << 20} {
		if got := (&maintain{Options: cqlmaintain.Options{Hold: hold}}).nodeCap(); got != want {
			t.Errorf("hold %d: nodeCap %d, want %d", hold, got, want)
		}
	}
}

// Splitting keeps within nodeCap and stops at about one row a node.
func TestFanout(t *testing.T) {
	const nodeCap = 1 << 15
	s := newNodes(4096, 1, 0)
	for b := range 4096 {
		s.add(b, node{present: 250})
	}
	if f := s.done().fanout(nodeCap); 4096*f > nodeCap || f < 2 {
		t.Errorf("4096 nodes of 250 rows: split into %d", f)
	}
	one := newNodes(4, 1, 0)
	one.add(1, node{present: 1000})
	if f := one.done().fanout(nodeCap); f != 1000 {
		t.Errorf("one node of 1000 rows: split into %d, want 1000", f)
	}
	full := newNodes(nodeCap, 1, 0)
	for b := range nodeCap/2 + 1 {
		full.add(b, node{present: 2})
	}
	if f := full.done().fanout(nodeCap); f != 0 {
		t.Errorf("%d nodes: split into %d, past nodeCap", len(full.list), f)
	}
	deep := newNodes(4, maxSplit/3, 0)
	deep.add(1, node{present: 1000})
	if f := deep.done().fanout(nodeCap); f != 3 {
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
