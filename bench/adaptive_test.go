package bench_test

import (
	"container/heap"
	"sync"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/model"
)

// adaptiveRead is not a peer: it prototypes, with raw gocql, the
// scatter-gather read this benchmark suggests for cqlgen's runtime (see
// README.md). Today every bucket is asked for limit+1 rows, so a read of
// 100 rows over 100 buckets fetches and decodes 10,100. Hashing spreads
// rows evenly, so the best limit+1 rows hold about (limit+1)/N of each
// bucket: asking each for twice that, plus two, and fetching a bucket's
// next page only when the merge drains it while it has more, returns the
// same rows from a few hundred.
func adaptiveRead(s *gocql.Session, stmt string, buckets, limit int) ([]model.Score, error) {
	per := 2*((limit+1+buckets-1)/buckets) + 2
	h := &bucketHeap{bs: make([]*bucketPage, buckets)}
	var (
		wg   sync.WaitGroup
		errs = make([]error, buckets)
		sem  = make(chan struct{}, scatterConcurrency)
	)
	for shard := range buckets {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			b := &bucketPage{shard: int32(shard)}
			errs[shard] = b.fetch(s, stmt, per)
			h.bs[shard] = b
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	h.items = h.items[:0]
	for _, b := range h.bs {
		if len(b.rows) > 0 {
			h.items = append(h.items, b)
		}
	}
	heap.Init(h)
	out := make([]model.Score, 0, limit)
	for h.Len() > 0 && len(out) < limit {
		b := h.items[0]
		out = append(out, b.rows[b.next])
		b.next++
		if b.next == len(b.rows) && len(b.state) > 0 {
			// Drained while it has more: its next row may be the next
			// best, so the merge waits for it.
			if err := b.fetch(s, stmt, limit-len(out)); err != nil {
				return nil, err
			}
		}
		if b.next == len(b.rows) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return out, nil
}

type bucketPage struct {
	shard int32
	rows  []model.Score
	next  int
	state []byte
}

func (b *bucketPage) fetch(s *gocql.Session, stmt string, n int) error {
	it := s.Query(stmt, Board, b.shard).PageSize(max(n, 1)).PageState(b.state).Iter()
	b.rows, b.next = b.rows[:0], 0
	var r model.Score
	for it.Scan(&r.Board, &r.Points, &r.PlayerID, &r.Name) {
		b.rows = append(b.rows, r)
	}
	b.state = it.PageState()
	return it.Close()
}

type bucketHeap struct {
	bs    []*bucketPage
	items []*bucketPage
}

func (h *bucketHeap) Len() int { return len(h.items) }
func (h *bucketHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if c := model.CompareBoard(&a.rows[a.next], &b.rows[b.next]); c != 0 {
		return c < 0
	}
	return a.shard < b.shard
}
func (h *bucketHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *bucketHeap) Push(x any)    { h.items = append(h.items, x.(*bucketPage)) }
func (h *bucketHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}
