package main

import (
	"fmt"
	"io"
)

// Issue 27: what each guarantee costs against the hand-written gocql a
// careful engineer writes for the same guarantee (BenchmarkPricePaired,
// BenchmarkMultiGetPaired, BenchmarkProtocolPaired), coalescing off.

const priceCoalescing = "coalesce=0"

// pricePeers are the rows of the price table: the paired benchmark, the
// impl and the impl it is set against.
var pricePeers = []struct{ what, bench, impl, base string }{
	{"multi-table Insert (Tally, 2 tables)", "ProtocolPaired/%s/op=insert", "cqlgen", "gocql-protocol"},
	{"multi-table Insert against a plain logged batch", "ProtocolPaired/%s/op=insert", "cqlgen", "gocql-plain"},
	{"Update moving a row", "ProtocolPaired/%s/op=update", "cqlgen", "gocql-protocol"},
	{"Delete", "ProtocolPaired/%s/op=delete", "cqlgen", "gocql-protocol"},
	{"unique claim, on Insert", "PricePaired/%s/guarantee=claim-insert", "cqlgen", "gocql"},
	{"unique claim, on Insert, against no claim", "PricePaired/%s/guarantee=claim-insert", "cqlgen", "gocql-plain"},
	{"unique claim, on a change of the key", "PricePaired/%s/guarantee=claim-change", "cqlgen", "gocql"},
	{"unique claim, on a change, against no claim", "PricePaired/%s/guarantee=claim-change", "cqlgen", "gocql-plain"},
	{"sparse table, enter", "PricePaired/%s/guarantee=sparse-enter", "cqlgen", "gocql"},
	{"sparse table, enter, against a plain batch", "PricePaired/%s/guarantee=sparse-enter", "cqlgen", "gocql-plain"},
	{"sparse table, leave", "PricePaired/%s/guarantee=sparse-leave", "cqlgen", "gocql"},
	{"sparse table, leave, against a plain batch", "PricePaired/%s/guarantee=sparse-leave", "cqlgen", "gocql-plain"},
	{"Modify", "PricePaired/%s/guarantee=modify", "cqlgen", "gocql-rmw"},
	{"Modify, against a plain read and batch", "PricePaired/%s/guarantee=modify", "cqlgen", "gocql-plain"},
	{"Get then Update (loses concurrent updates)", "PricePaired/%s/guarantee=modify", "cqlgen-get-update", "gocql-rmw"},
	{"GetMany, 10 keys", "MultiGetPaired/%s/keys=10", "cqlgen", "gocql-in"},
	{"concurrent Gets, 10 keys", "MultiGetPaired/%s/keys=10", "gocql-concurrent", "gocql-in"},
	{"GetMany, 100 keys", "MultiGetPaired/%s/keys=100", "cqlgen", "gocql-in"},
	{"concurrent Gets, 100 keys", "MultiGetPaired/%s/keys=100", "gocql-concurrent", "gocql-in"},
}

func price(w io.Writer, r results) {
	fmt.Fprintln(w, "### 7. The price of each guarantee (issue 27), coalescing off")
	fmt.Fprintln(w)
	t := &table{head: []string{"write", "against", "p50 µs", "against, p50 µs", "paired p50 ÷ against", "paired p99 ÷ against"}}
	for _, p := range pricePeers {
		n := fmt.Sprintf(p.bench, priceCoalescing)
		if _, ok := r[n]; !ok {
			continue
		}
		t.add(p.what+" ("+p.impl+")", p.base, num(r.get(n, p.impl+"-p50-µs")), num(r.get(n, p.base+"-p50-µs")),
			ratio(r.ratio(n, p.impl+"-p50-µs", n, p.base+"-p50-µs")), ratio(r.ratio(n, p.impl+"-p99-µs", n, p.base+"-p99-µs")))
	}
	t.write(w)
}

// priceGoals are issue 27's goals that these benchmarks judge: parity
// with the hand-written code for the same guarantee (within 5%, the
// spread of the protocol's own writes), and the goals of a create without
// a read first and of a scatter near its floor.
func (g *goals) priceGoals(r results) {
	c := priceCoalescing
	ins := fmt.Sprintf("ProtocolPaired/%s/op=insert", c)
	v, ok := r.ratio(ins, "cqlgen-p50-µs", ins, "gocql-plain-p50-µs")
	g.add("issue 27: multi-table Insert p50 ≤ 2.0× a plain logged batch ("+c+")", v, ok, 2.0, ratio)
	for _, op := range []string{"update", "delete"} {
		n := fmt.Sprintf("ProtocolPaired/%s/op=%s", c, op)
		v, ok := r.ratio(n, "cqlgen-p50-µs", n, "gocql-plain-p50-µs")
		g.add(fmt.Sprintf("issue 27: %s p50 ≤ 2.5× a plain logged batch (%s)", op, c), v, ok, 2.5, ratio)
	}
	// The floor: one request that reads one row from each bucket
	// (floor-in), the form of the default read; floor, the same rows in
	// one request a bucket, is the client-side scatter's.
	sc := fmt.Sprintf("ScatterPaired/%s/buckets=100", c)
	v, ok = r.ratio(sc, "cqlgen-p50-µs", sc, "floor-in-p50-µs")
	g.add("issue 27: scatter over 100 buckets p50 ≤ 1.3× the floor, one request of a row a bucket ("+c+")", v, ok, 1.3, ratio)
	for _, p := range pricePeers {
		if p.base == "gocql-plain" || p.impl == "gocql-concurrent" || p.impl == "cqlgen-get-update" {
			continue
		}
		n := fmt.Sprintf(p.bench, c)
		v, ok := r.ratio(n, p.impl+"-p50-µs", n, p.base+"-p50-µs")
		g.add(fmt.Sprintf("issue 27: %s p50 ≤ 1.05× hand-written %s (%s)", p.what, p.base, c), v, ok, 1.05, ratio)
	}
}
