package benchenv

import (
	"fmt"
	"testing"
	"time"
)

// Measure runs op in b.Loop, timing every call into a histogram, and
// reports its median and 99th percentile (p50-µs, p99-µs) next to ns/op,
// B/op and allocs/op. op gets the call's index, to pick its data. The
// warm calls before the loop prepare statements and fill the connection
// pool; b.Loop leaves them out of every figure.
func Measure(b *testing.B, warm int, op func(i int) error) {
	b.Helper()
	for i := range warm {
		if err := op(i); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	var h Hist
	b.ReportAllocs()
	i := warm
	for b.Loop() {
		start := time.Now()
		if err := op(i); err != nil {
			b.Fatal(err)
		}
		h.Record(time.Since(start))
		i++
	}
	ReportLatency(b, "", &h)
}

// ReportLatency reports h's median and 99th percentile in microseconds, as
// prefix+"p50-µs" and prefix+"p99-µs".
func ReportLatency(b *testing.B, prefix string, h *Hist) {
	b.ReportMetric(h.Quantile(0.50)/1e3, prefix+"p50-µs")
	b.ReportMetric(h.Quantile(0.99)/1e3, prefix+"p99-µs")
}

// Impl is one way of doing a workload: raw gocql, gocqlx, the generated
// repository...
type Impl struct {
	Name string
	Op   func(i int) error
}

// PlainImpl names the impl that writes the same rows in one plain logged
// batch: Paired also reports every other impl's p50 as a ratio to its
// (but the first's, whose ratio to it is the inverse of the one reported).
const PlainImpl = "gocql-plain"

// Paired runs impls in turn, one call each per round and in a rotating
// order, so that whatever the machine and the node do meanwhile (two cores
// shared with Cassandra: compactions, GC, the JIT) falls on every impl
// alike. Run one after the other, the same impls drift apart by more than
// the differences sought. It reports each impl's p50 and p99 as
// "<name>-p50-µs" and "<name>-p99-µs" and, for every impl after the first,
// its ratio to the first, "<name>/<first>-p50" and "-p99". b.N counts
// rounds.
func Paired(b *testing.B, warm int, impls ...Impl) {
	b.Helper()
	for _, im := range impls {
		for i := range warm {
			if err := im.Op(i); err != nil {
				b.Fatalf("%s: warm-up: %v", im.Name, err)
			}
		}
	}
	hs := make([]Hist, len(impls))
	round := warm
	for b.Loop() {
		for k := range impls {
			j := (round + k) % len(impls)
			start := time.Now()
			if err := impls[j].Op(round); err != nil {
				b.Fatalf("%s: %v", impls[j].Name, err)
			}
			hs[j].Record(time.Since(start))
		}
		round++
	}
	base := impls[0].Name
	plain := -1
	for j, im := range impls {
		if im.Name == PlainImpl {
			plain = j
		}
	}
	for j, im := range impls {
		ReportLatency(b, im.Name+"-", &hs[j])
		if j > 0 {
			b.ReportMetric(hs[j].Quantile(0.50)/hs[0].Quantile(0.50), fmt.Sprintf("%s/%s-p50", im.Name, base))
			b.ReportMetric(hs[j].Quantile(0.99)/hs[0].Quantile(0.99), fmt.Sprintf("%s/%s-p99", im.Name, base))
		}
		if plain > 0 && j != plain && j != 0 {
			b.ReportMetric(hs[j].Quantile(0.50)/hs[plain].Quantile(0.50), fmt.Sprintf("%s/%s-p50", im.Name, PlainImpl))
		}
	}
}
