package maintenance

import (
	"cmp"
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
// sub-buckets' digests and nodes (nodeCap at most, 8 a held row), and
// Hold rows. The cost is in scans: a refinement is a scan of both
// tables, and so is each batch; drift spread over more sub-buckets than
// nodeCap is narrowed a part at a time (narrow), each part its scans.
// With drift in a few buckets (their present rows Hold or fewer), the
// comparison is the buckets', as before: one batch, no refinement.
//
// The drift found is the same: a sub-bucket whose digests agree holds
// the same rows on both sides (as a bucket whose digests agree does), and
// every row of a differing sub-bucket is compared, as every row of a
// differing bucket was.

// nodeCap bounds the sub-buckets a refinement sums digests for, and the
// nodes it returns, 16 bytes each: 8 for each row Hold lets a comparison
// hold (a held row takes about 100 bytes), so that Hold sizes all of the
// narrowing's memory. At the default Hold, 32,768: 512 KB of digests.
func (m *maintain) nodeCap() int { return min(max(m.Hold, 2), 1<<17) * 8 }

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

// node is a (sub-)bucket of a bucket: the keys whose mixed key hash is
// sub modulo nodes.split, and the rows the table holds there.
type node struct {
	sub     uint64
	present int64
}

// nodes are the (sub-)buckets under comparison, all split alike: each
// bucket into split sub-buckets (the product of the fanouts so far).
// They are listed bucket by bucket, by sub within a bucket: bucket b's
// are list[first[b]:first[b+1]], found by a binary search. 16 bytes a
// node and 4 a bucket, and no garbage of growing: the count is known
// before the list is made.
type nodes struct {
	split uint64
	first []int32
	list  []node
	last  int // the bucket of the last node added
}

// newNodes makes room for n nodes under buckets buckets, added with add
// in order and closed with done.
func newNodes(buckets int, split uint64, n int) *nodes {
	return &nodes{split: split, first: make([]int32, buckets+1), list: make([]node, 0, n), last: -1}
}

func (s *nodes) buckets() int { return len(s.first) - 1 }

// add appends a node of bucket b: b no less than the last node's, sub
// more than its if b is the same.
func (s *nodes) add(b int, n node) {
	for ; s.last < b; s.last++ {
		s.first[s.last+1] = int32(len(s.list))
	}
	s.list = append(s.list, n)
}

// done closes the list: the buckets past the last node's have none.
func (s *nodes) done() *nodes {
	for ; s.last < s.buckets(); s.last++ {
		s.first[s.last+1] = int32(len(s.list))
	}
	return s
}

// of is the index of the node a row of key hash kh falls in, if any.
func (s *nodes) of(kh uint64) (int, bool) {
	b := kh % uint64(s.buckets())
	lo, hi := int(s.first[b]), int(s.first[b+1])
	if lo == hi {
		return 0, false
	}
	if s.split == 1 {
		return lo, true
	}
	sub := mix(kh) % s.split
	j, ok := slices.BinarySearchFunc(s.list[lo:hi], sub, func(n node, sub uint64) int { return cmp.Compare(n.sub, sub) })
	return lo + j, ok
}

// held is how many present rows a comparison of every node would hold.
func (s *nodes) held() int64 {
	var n int64
	for _, x := range s.list {
		n += x.present
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
			s.add(b, node{present: have.count[b]})
		}
	}
	return s.done()
}

// fanout is how many sub-buckets to split every node into next: as many
// as keep them within nodeCap, and no more than bring them to about one
// present row each; 0 when they cannot be split further.
func (s *nodes) fanout(nodeCap int) int {
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

// narrow splits the sub-buckets s of projection i (the k-th under
// check; at first its mismatched buckets) until their present rows are at
// most Hold, or splitting no longer thins them, and hands the
// sub-buckets whose digests differ to compare. A set of more nodes than
// half the budget cannot be split at once: its drift is spread over
// more sub-buckets than the budget holds. It is narrowed half after
// half, each half compared before the next is split, so that memory
// stays within the budget whatever the drift; the cost is more scans.
func (v *verification) narrow(ctx context.Context, k, i int, s *nodes, compare func(*nodes) error) error {
	hold, budget := int64(v.m.Hold), v.m.nodeCap()
	for s.held() > hold {
		if len(s.list) > budget/2 {
			if s.held() <= 4*hold {
				break // a few batches cost less than splitting
			}
			a, b := s.halves()
			if err := v.narrow(ctx, k, i, a, compare); err != nil {
				return err
			}
			return v.narrow(ctx, k, i, b, compare)
		}
		f := s.fanout(budget)
		if f == 0 {
			break
		}
		next, err := v.refine(ctx, i, s, f)
		if err != nil {
			return err
		}
		v.rep.Tables[k].Rounds++
		// Not thinner, though within the budget to split again: the
		// drift itself is more than Hold rows (every row an orphan,
		// say), and splitting further would not thin it. Not thinner
		// for want of budget: halved next.
		thin, wide := next.held() <= s.held()*3/4, len(next.list) > budget/2
		s = next
		if !thin && !wide {
			break
		}
	}
	return compare(s)
}

// halves splits s in two sets of nodes, the first half and the rest.
func (s *nodes) halves() (*nodes, *nodes) {
	m := len(s.list) / 2
	a, b := newNodes(s.buckets(), s.split, m), newNodes(s.buckets(), s.split, len(s.list)-m)
	for bk := range s.buckets() {
		for j := int(s.first[bk]); j < int(s.first[bk+1]); j++ {
			if j < m {
				a.add(bk, s.list[j])
			} else {
				b.add(bk, s.list[j])
			}
		}
	}
	return a.done(), b.done()
}

// refine splits every node of s into f: both tables are scanned,
// the digests of the split nodes' rows summed by sub-bucket, and the
// sub-buckets that differ returned.
func (v *verification) refine(ctx context.Context, i int, s *nodes, f int) (*nodes, error) {
	m, p := v.m, v.ent.projections[i]
	d := newSubDigests(len(s.list) * f)
	err := v.eachExpected(ctx, i, func(_ context.Context, _ *stateView, r *row) error {
		if c, ok := s.child(r.keyHash(), f); ok {
			d.want(c, r.hash())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = m.eachRange(ctx, nil, func(ctx context.Context, _ int, lo, hi int64) error {
		return scanProjection(ctx, v.s, p.table, p.writetimes, lo, hi, func(r *row) {
			if c, ok := s.child(r.keyHash(), f); ok {
				d.have(c, r.hash())
			}
		})
	})
	if err != nil {
		return nil, err
	}
	n := 0
	for x := range d.sum {
		if d.differ(x) {
			n++
		}
	}
	out := newNodes(s.buckets(), s.split*uint64(f), n)
	for b := range s.buckets() {
		from := len(out.list)
		for j := int(s.first[b]); j < int(s.first[b+1]); j++ {
			for c := range f {
				if x := j*f + c; d.differ(x) {
					out.add(b, node{sub: s.splitSub(j, c), present: int64(d.present[x])})
				}
			}
		}
		// A node's children interleave with its neighbours'.
		slices.SortFunc(out.list[from:], func(a, b node) int { return cmp.Compare(a.sub, b.sub) })
	}
	return out.done(), nil
}

// subDigests are the digests of sub-buckets, both sides at once: the
// sums and counts of the rows the source of truth implies less those of
// the rows the table holds (zero both where they agree), and the table's
// count. 16 bytes each (a sub-bucket holds fewer than 2^31 rows: a
// bucket is split only past Hold rows, into more sub-buckets than it
// holds rows).
type subDigests struct {
	sum     []uint64
	count   []int32
	present []int32
}

func newSubDigests(n int) *subDigests {
	return &subDigests{sum: make([]uint64, n), count: make([]int32, n), present: make([]int32, n)}
}

func (d *subDigests) want(x int, h uint64) {
	atomic.AddUint64(&d.sum[x], h)
	atomic.AddInt32(&d.count[x], 1)
}

func (d *subDigests) have(x int, h uint64) {
	atomic.AddUint64(&d.sum[x], -h)
	atomic.AddInt32(&d.count[x], -1)
	atomic.AddInt32(&d.present[x], 1)
}

func (d *subDigests) differ(x int) bool { return d.sum[x] != 0 || d.count[x] != 0 }

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

// splitSub is the sub of the c-th of the sub-buckets node j is split
// into.
func (s *nodes) splitSub(j, c int) uint64 { return s.list[j].sub + uint64(c)*s.split }

// batches groups the nodes, in order, into batches of at most hold
// present rows (a node of more is a batch alone): batch k is the nodes
// from ends[k-1] (0 for the first) to ends[k].
func (s *nodes) batches(hold int64) (ends []int) {
	in := int64(0)
	for j, n := range s.list {
		if in > 0 && in+n.present > hold {
			ends = append(ends, j)
			in = 0
		}
		in += n.present
	}
	if len(s.list) > 0 {
		ends = append(ends, len(s.list))
	}
	return ends
}
