package maintenance

import (
	"context"
	"encoding/binary"
	"slices"
	"sync/atomic"
)

// Narrowing a drifted table's comparison (issue 38, item 2). The digests
// of pass 1 name the buckets whose rows differ, but with drift spread
// over the table every bucket differs, and comparing a bucket row by row
// holds its present rows: every row of the table. Instead, while the
// present rows of the mismatched buckets are more than Options.Hold,
// each mismatched bucket is split into sub-buckets, by further bits of a
// hash of the row's key, and both tables are scanned again to sum the
// sub-buckets' digests; only the sub-buckets that differ are kept. The
// drift narrows to the sub-buckets that hold it, a few rows each. The
// rows then compared are held Hold at most at once: sub-buckets are
// compared in batches of at most Hold present rows (by the digests'
// counts), each batch a scan of the table and of the source of truth.
//
// Memory is then bounded whatever the table's size and its drift: the
// sub-buckets' digests (nodeCap at most), and Hold rows. The cost is in
// scans: a refinement is a scan of both tables, and so is each batch.
// With drift in a few buckets (their present rows Hold or fewer), the
// comparison is the buckets', as before: one batch, no refinement.
//
// The drift found is the same: a sub-bucket whose digests agree holds
// the same rows on both sides (as a bucket whose digests agree does), and
// every row of a differing sub-bucket is compared, as every row of a
// differing bucket was.

// nodeCap bounds the sub-buckets a refinement sums digests for (24 bytes
// each, both sides): 768 KB.
const nodeCap = 1 << 15

// maxSplit bounds how far a bucket is split: 2^48 sub-buckets under each
// bucket separate any two keys but for a collision.
const maxSplit = 1 << 48

// keyHash is FNV-1a of the row's key as key encodes it (the hash bucket
// takes modulo the buckets), without building the key.
func (r *row) keyHash() uint64 {
	h := fnvOffset
	var l [binary.MaxVarintLen64]byte
	for _, c := range r.cols[:r.nkey] {
		h = fnvAdd(h, l[:binary.PutUvarint(l[:], uint64(len(c)))])
		h = fnvAdd(h, c)
	}
	return h
}

// mix is splitmix64's finalizer: the bits that split a bucket, spread
// from the whole key hash and independent of the bucket it picked.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// node is a (sub-)bucket: the keys of bucket b whose mixed key hash is
// sub modulo nodes.split.
type node struct {
	b   int
	sub uint64
}

// nodes are the (sub-)buckets under comparison, all split alike: each
// bucket into split sub-buckets (the product of the fanouts so far).
type nodes struct {
	buckets int
	split   uint64
	top     []bool // the buckets with a node, to pass over the others fast
	index   map[node]int
	list    []node
	present []int64 // rows the table holds, by node
}

// newNodes makes room for n nodes: sized once, no garbage of growing.
func newNodes(buckets int, split uint64, n int) *nodes {
	return &nodes{buckets: buckets, split: split, top: make([]bool, buckets), index: make(map[node]int, n),
		list: make([]node, 0, n), present: make([]int64, 0, n)}
}

func (s *nodes) add(n node, present int64) {
	s.top[n.b] = true
	s.index[n] = len(s.list)
	s.list = append(s.list, n)
	s.present = append(s.present, present)
}

// of is the node a row of key hash kh falls in, if any.
func (s *nodes) of(kh uint64) (int, bool) {
	b := int(kh % uint64(s.buckets))
	if !s.top[b] {
		return 0, false
	}
	n := node{b: b}
	if s.split > 1 {
		n.sub = mix(kh) % s.split
	}
	i, ok := s.index[n]
	return i, ok
}

// held is how many present rows a comparison of every node would hold.
func (s *nodes) held() int64 {
	var n int64
	for _, p := range s.present {
		n += p
	}
	return n
}

// mismatchedBuckets are the buckets whose digests differ, as nodes.
func mismatchedBuckets(want, have *digests) *nodes {
	differ := func(b int) bool { return want.sum[b] != have.sum[b] || want.count[b] != have.count[b] }
	n := 0
	for b := range want.sum {
		if differ(b) {
			n++
		}
	}
	s := newNodes(len(want.sum), 1, n)
	for b := range want.sum {
		if differ(b) {
			s.add(node{b: b}, have.count[b])
		}
	}
	return s
}

// fanout is how many sub-buckets to split every node into next: as many
// as keep them within nodeCap, and no more than bring them to about one
// present row each; 0 when they cannot be split further.
func (s *nodes) fanout() int {
	if len(s.list) == 0 {
		return 0
	}
	f := min(nodeCap/len(s.list), int(maxSplit/s.split))
	n := int64(len(s.list))
	if per := (s.held() + n - 1) / n; per >= 2 {
		f = min(f, int(per))
	} else {
		f = min(f, 2)
	}
	if f < 2 {
		return 0
	}
	return f
}

// narrow splits the mismatched buckets of projection i (the k-th under
// check) until their present rows are at most Hold, or splitting no
// longer thins them, and returns the sub-buckets whose digests differ.
func (v *verification) narrow(ctx context.Context, k, i int, want, have *digests) (*nodes, error) {
	s := mismatchedBuckets(want, have)
	hold := int64(v.m.Hold)
	for s.held() > hold {
		f := s.fanout()
		if f == 0 {
			break
		}
		next, err := v.refine(ctx, i, s, f)
		if err != nil {
			return nil, err
		}
		v.rep.Tables[k].Rounds++
		// The drift itself is more than Hold rows (every row an
		// orphan, say): splitting further would not thin it.
		thin := next.held() <= s.held()*3/4
		s = next
		if !thin {
			break
		}
	}
	return s, nil
}

// refine splits every node of s into f: both tables are scanned,
// the digests of the split nodes' rows summed by sub-bucket, and the
// sub-buckets that differ returned.
func (v *verification) refine(ctx context.Context, i int, s *nodes, f int) (*nodes, error) {
	m, ent, p := v.m, v.ent, v.ent.projections[i]
	want, have := newSubDigests(len(s.list)*f), newSubDigests(len(s.list)*f)
	add := func(d *subDigests, r *row) {
		if c, ok := s.child(r.keyHash(), f); ok {
			atomic.AddUint64(&d.sum[c], r.hash())
			atomic.AddInt32(&d.count[c], 1)
		}
	}
	err := m.eachRange(ctx, nil, func(ctx context.Context, _ int, lo, hi int64) error {
		var n scanned
		return v.scanCanonical(ctx, lo, hi, &n, func(st *stateView) error {
			if !ent.holds(i, st.row) {
				return nil
			}
			r, _, err := ent.expected(i, st)
			if err == nil {
				add(want, r)
			}
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	err = m.eachRange(ctx, nil, func(ctx context.Context, _ int, lo, hi int64) error {
		return scanProjection(ctx, v.s, p.table, p.writetimes, lo, hi, func(r *row) { add(have, r) })
	})
	if err != nil {
		return nil, err
	}
	differ := func(x int) bool { return want.sum[x] != have.sum[x] || want.count[x] != have.count[x] }
	n := 0
	for x := range want.sum {
		if differ(x) {
			n++
		}
	}
	out := newNodes(s.buckets, s.split*uint64(f), n)
	for x := range want.sum {
		if differ(x) {
			out.add(s.splitNode(x/f, f, x%f), int64(have.count[x]))
		}
	}
	return out, nil
}

// subDigests are the digests of sub-buckets: 12 bytes each (a sub-bucket
// holds fewer than 2^31 rows: a bucket is split only past Hold rows, into
// more sub-buckets than it holds rows).
type subDigests struct {
	sum   []uint64
	count []int32
}

func newSubDigests(n int) *subDigests {
	return &subDigests{sum: make([]uint64, n), count: make([]int32, n)}
}

// child is the index, among the nodes of s each split into f (node j's
// at j*f to j*f + f-1), of the sub-bucket a row of key hash kh falls in,
// if its node is in s.
func (s *nodes) child(kh uint64, f int) (int, bool) {
	j, ok := s.of(kh)
	if !ok {
		return 0, false
	}
	return j*f + int(mix(kh)/s.split%uint64(f)), true
}

// splitNode is the c-th of the f sub-buckets node j is split into.
func (s *nodes) splitNode(j, f, c int) node {
	n := s.list[j]
	return node{b: n.b, sub: n.sub + uint64(c)*s.split}
}

// batches groups the nodes, in order, into batches of at most hold
// present rows (a node of more is a batch alone), and returns each
// node's batch and the number of batches.
func (s *nodes) batches(hold int64) ([]int, int) {
	of := make([]int, len(s.list))
	order := make([]int, len(s.list))
	for j := range order {
		order[j] = j
	}
	// Bucket by bucket, so that a batch's rows are near in hash order
	// (only for a stable, readable split; any order bounds alike).
	slices.SortFunc(order, func(a, b int) int {
		na, nb := s.list[a], s.list[b]
		if na.b != nb.b {
			return na.b - nb.b
		}
		switch {
		case na.sub < nb.sub:
			return -1
		case na.sub > nb.sub:
			return 1
		}
		return 0
	})
	batch, in := 0, int64(0)
	for _, j := range order {
		if in > 0 && in+s.present[j] > hold {
			batch++
			in = 0
		}
		of[j] = batch
		in += s.present[j]
	}
	if len(order) == 0 {
		return of, 0
	}
	return of, batch + 1
}
