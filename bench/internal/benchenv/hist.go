package benchenv

import (
	"math/bits"
	"time"
)

// Hist is a latency histogram with fixed, logarithmically spaced buckets:
// 128 per power of two, so a quantile is within 0.4% of the true value
// (bucket midpoints). Recording neither allocates nor grows, so it can sit
// inside a measured loop without changing B/op or allocs/op, and the
// percentiles it gives are of every call, not of an average.
type Hist struct {
	counts [histBuckets]uint32
	n      int
}

const (
	subBits     = 7
	subBuckets  = 1 << subBits
	histBuckets = (64 - subBits + 1) * subBuckets
)

func bucketOf(ns uint64) int {
	if ns < subBuckets {
		return int(ns)
	}
	shift := bits.Len64(ns) - subBits - 1
	return (shift+1)*subBuckets + int(ns>>shift) - subBuckets
}

// midpoint is the middle of bucket i, in nanoseconds.
func midpoint(i int) float64 {
	if i < subBuckets {
		return float64(i)
	}
	shift := i/subBuckets - 1
	lo := uint64(subBuckets+i%subBuckets) << shift
	return float64(lo) + float64(uint64(1)<<shift)/2
}

// Record adds one latency.
func (h *Hist) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	h.n++
}

// Len is the number of latencies recorded.
func (h *Hist) Len() int { return h.n }

// Quantile returns the latency at quantile q (0.5 for the median), in
// nanoseconds; 0 when nothing was recorded.
func (h *Hist) Quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	// The rank of the q-quantile, 1-based, as the nearest-rank method
	// defines it.
	rank := int(q*float64(h.n) + 0.999999)
	rank = max(1, min(rank, h.n))
	seen := 0
	for i, c := range h.counts {
		seen += int(c)
		if seen >= rank {
			return midpoint(i)
		}
	}
	return midpoint(histBuckets - 1)
}

// Reset forgets every latency.
func (h *Hist) Reset() { *h = Hist{} }
