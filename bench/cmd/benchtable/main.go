// Command benchtable turns the output of the benchmarks of this module
// and of bench/gocassa into the Markdown tables of bench/README.md: the
// median over runs of every figure, the ratios against raw gocql, and
// whether each goal is met.
//
//	go run ./cmd/benchtable out/cqlgen.txt out/gocassa.txt > out/results.md
//	go run ./cmd/benchtable -readme README.md out/cqlgen.txt out/gocassa.txt
//
// With -readme, it also writes the tables into that file, between its
// benchtable markers, which is how make bench keeps README.md current.
//
// benchstat (go tool benchstat) gives the same medians with their
// confidence intervals; this only lays them out by workload.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// results holds every value of every benchmark, by name (without the
// GOMAXPROCS suffix) and unit, one per run.
type results map[string]map[string][]float64

var procs = regexp.MustCompile(`-\d+$`)

func parse(r io.Reader, into results) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		name := procs.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		if into[name] == nil {
			into[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return fmt.Errorf("%s: %q: %v", name, f[i], err)
			}
			into[name][f[i+1]] = append(into[name][f[i+1]], v)
		}
	}
	return sc.Err()
}

func median(vs []float64) float64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// get is the median of a figure; ok is false when it was not measured.
func (r results) get(name, unit string) (float64, bool) {
	vs := r[name][unit]
	if len(vs) == 0 {
		return 0, false
	}
	return median(vs), true
}

// ratio is the median over runs of a/b, two figures of the same runs.
func (r results) ratio(nameA, unitA, nameB, unitB string) (float64, bool) {
	a, b := r[nameA][unitA], r[nameB][unitB]
	if len(a) == 0 || len(a) != len(b) {
		return 0, false
	}
	q := make([]float64, len(a))
	for i := range a {
		q[i] = a[i] / b[i]
	}
	return median(q), true
}

type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(t.head, " | "))
	seps := make([]string, len(t.head))
	for i := range seps {
		seps[i] = "---"
		if i > 0 {
			seps[i] = "---:"
		}
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(seps, " | "))
	for _, r := range t.rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
	fmt.Fprintln(w)
}

func num(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	switch a := v; {
	case a >= 10000:
		return commas(fmt.Sprintf("%.0f", v))
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func ratio(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.3f×", v)
}

func commas(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

var coalescing = []string{"coalesce=0", "coalesce=200us"}

// peer is one row of a server workload: where its figures are, and the raw
// gocql it is compared with in its paired benchmark.
type peer struct {
	impl, base string
}

func main() {
	readme := flag.String("readme", "", "also write the tables into this file, between its benchtable markers")
	flag.Parse()
	r := results{}
	for _, path := range flag.Args() {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		err = parse(f, r)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(1)
		}
	}
	var tables bytes.Buffer
	w := bufio.NewWriter(&tables)
	g := &goals{}
	bind(w, r)
	for _, wl := range []struct {
		title, name string
		peers       []peer
	}{
		{"2a. Insert one entity into its one table", "Insert", []peer{{"gocql", "gocql"}, {"gocqlx", "gocql"}, {"cqlgen", "gocql"}, {"gocql-v1.0.0", "gocql-v1.0.0"}, {"gocassa", "gocql-v1.0.0"}}},
		{"2b. Get one entity by key", "Get", []peer{{"gocql", "gocql"}, {"gocqlx", "gocql"}, {"cqlgen", "gocql"}, {"gocql-v1.0.0", "gocql-v1.0.0"}, {"gocassa", "gocql-v1.0.0"}}},
		{"3. A page of 100 rows from one partition", "Page", []peer{{"gocql", "gocql"}, {"gocqlx", "gocql"}, {"cqlgen", "gocql"}, {"gocql-v1.0.0", "gocql-v1.0.0"}, {"gocassa", "gocql-v1.0.0"}}},
		{"4. Fan-out of one entity to four tables", "FanOut", []peer{{"gocql-concurrent", "gocql-concurrent"}, {"gocql-batch", "gocql-concurrent"}, {"cqlgen-concurrent", "gocql-concurrent"}, {"cqlgen-batch", "gocql-concurrent"}, {"gocql-v1.0.0-concurrent", "gocql-v1.0.0-concurrent"}, {"gocassa-multiop", "gocql-v1.0.0-concurrent"}, {"gocassa-batch", "gocql-v1.0.0-concurrent"}}},
	} {
		server(w, r, wl.title, wl.name, wl.peers)
	}
	scatter(w, r)
	generator(w, r)
	price(w, r)
	g.check(r)
	g.priceGoals(r)
	g.write(w)
	w.Flush()
	os.Stdout.Write(tables.Bytes())
	if *readme != "" {
		if err := spliceFile(*readme, tables.Bytes()); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(1)
		}
	}
}

func bind(w io.Writer, r results) {
	fmt.Fprintln(w, "### 1. Bind an entity's values to an insert (no server)")
	fmt.Fprintln(w)
	t := &table{head: []string{"impl", "ns/op", "B/op", "allocs/op", "time ÷ gocql"}}
	for _, impl := range []string{"gocql", "gocqlx-value", "gocqlx-pointer", "cqlgen"} {
		n := "Bind/impl=" + impl
		ns, ok := r.get(n, "ns/op")
		q, qok := r.ratio(n, "ns/op", "Bind/impl=gocql", "ns/op")
		t.add(impl, num(ns, ok), num(r.get(n, "B/op")), num(r.get(n, "allocs/op")), ratio(q, qok))
	}
	t.write(w)
}

// server lays out a workload run against Cassandra: each peer's own
// figures (run alone) and its paired ratio against raw gocql.
func server(w io.Writer, r results, title, name string, peers []peer) {
	fmt.Fprintf(w, "### %s\n\n", title)
	t := &table{head: []string{"coalescing", "impl", "p50 µs", "p99 µs", "paired p50 ÷ raw", "paired p99 ÷ raw", "ns/op", "B/op", "allocs/op", "allocs − raw"}}
	for _, c := range coalescing {
		for _, p := range peers {
			n := name + "/" + c + "/impl=" + p.impl
			if _, ok := r[n]; !ok {
				continue
			}
			paired := name + "Paired/" + c
			p50, p99 := "1 (base)", "1 (base)"
			if p.impl != p.base {
				p50 = ratio(r.get(paired, p.impl+"/"+p.base+"-p50"))
				p99 = ratio(r.get(paired, p.impl+"/"+p.base+"-p99"))
				if p.base != "gocql" && p.base != "gocql-concurrent" {
					p50 += " (v1.0.0)"
				}
			}
			allocs, aok := r.get(n, "allocs/op")
			base, bok := r.get(name+"/"+c+"/impl="+p.base, "allocs/op")
			t.add(c, p.impl, num(r.get(n, "p50-µs")), num(r.get(n, "p99-µs")), p50, p99,
				num(r.get(n, "ns/op")), num(r.get(n, "B/op")), num(allocs, aok), signed(allocs-base, aok && bok))
		}
	}
	t.write(w)
}

func signed(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%+.0f", v)
}

var scatterImpls = []string{"gocql-concurrent", "gocql-sequential", "cqlgen", "cqlgen-client", "proto-adaptive", "server-in", "floor", "floor-in", "gocql-1partition", "cqlgen-1partition"}

func scatter(w io.Writer, r results) {
	fmt.Fprintln(w, "### 5. Scatter-gather: the best 100 rows over 16 and 100 hash buckets")
	fmt.Fprintln(w)
	t := &table{head: []string{"coalescing", "buckets", "impl", "p50 µs", "p99 µs", "paired p50 ÷ raw concurrent", "paired p50 ÷ one partition", "ns/op", "B/op", "allocs/op"}}
	for _, c := range coalescing {
		for _, n := range []string{"16", "100"} {
			paired := "ScatterPaired/" + c + "/buckets=" + n
			for _, impl := range scatterImpls {
				name := "Scatter/" + c + "/buckets=" + n + "/impl=" + impl
				if _, ok := r[name]; !ok {
					continue
				}
				vsRaw := "1 (base)"
				if impl != "gocql-concurrent" {
					vsRaw = ratio(r.get(paired, impl+"/gocql-concurrent-p50"))
				}
				vsOne := ratio(r.ratio(paired, impl+"-p50-µs", paired, "gocql-1partition-p50-µs"))
				t.add(c, n, impl, num(r.get(name, "p50-µs")), num(r.get(name, "p99-µs")), vsRaw, vsOne,
					num(r.get(name, "ns/op")), num(r.get(name, "B/op")), num(r.get(name, "allocs/op")))
			}
		}
	}
	t.write(w)
	fmt.Fprintln(w, "The merge alone, on each bucket's 101 best rows already fetched:")
	fmt.Fprintln(w)
	t = &table{head: []string{"buckets", "impl", "ns/op", "B/op", "allocs/op"}}
	for _, n := range []string{"16", "100"} {
		for _, impl := range []string{"sort", "cqlgen"} {
			name := "Merge/buckets=" + n + "/impl=" + impl
			label := impl
			if impl == "cqlgen" {
				label = "cqlgenimpl.Merge"
			} else {
				label = "append all + sort"
			}
			t.add(n, label, num(r.get(name, "ns/op")), num(r.get(name, "B/op")), num(r.get(name, "allocs/op")))
		}
	}
	t.write(w)
}

func generator(w io.Writer, r results) {
	fmt.Fprintln(w, "### 6. The generator: 50 entities, 200 access patterns")
	fmt.Fprintln(w)
	t := &table{head: []string{"what", "ms/op", "÷ bare Load", "B/op", "allocs/op"}}
	for _, impl := range []struct{ name, what string }{
		{"load", "one bare packages.Load (the floor)"},
		{"generate", "gen.Generate"},
		{"models", "gen.Models (load, model, validate)"},
		{"load-overlay", "bare packages.Load with one overlaid file"},
	} {
		n := "Generate/impl=" + impl.name
		ns, ok := r.get(n, "ns/op")
		q, qok := r.ratio(n, "ns/op", "Generate/impl=load", "ns/op")
		t.add(impl.what, num(ns/1e6, ok), ratio(q, qok), num(r.get(n, "B/op")), num(r.get(n, "allocs/op")))
	}
	for _, st := range []struct{ name, what string }{
		{"schema", "cqlschema.Schema (model made beforehand)"},
		{"repositories", "emit.Repositories (model made beforehand)"},
		{"format-only", "go/format alone on emit.Repositories' output, on every core: its floor"},
	} {
		n := "Emit/stage=" + st.name
		ns, ok := r.get(n, "ns/op")
		q, qok := r.ratio(n, "ns/op", "Generate/impl=load", "ns/op")
		t.add(st.what, num(ns/1e6, ok), ratio(q, qok), num(r.get(n, "B/op")), num(r.get(n, "allocs/op")))
	}
	t.write(w)
	q, ok := r.get("GeneratePaired", "generate/load-p50")
	fmt.Fprintf(w, "Paired, alternating the two call by call: gen.Generate ÷ bare Load = %s (median of the runs' medians).\n\n", ratio(q, ok))
}

type goal struct {
	what, measured string
	met            bool
	ok             bool
}

type goals struct{ list []goal }

func (g *goals) add(what string, v float64, ok bool, limit float64, format func(float64, bool) string) {
	g.list = append(g.list, goal{what: what, measured: format(v, ok), met: v <= limit, ok: ok})
}

func (g *goals) check(r results) {
	for _, c := range coalescing {
		for _, wl := range []string{"Insert", "Get"} {
			v, ok := r.get(wl+"Paired/"+c, "cqlgen/gocql-p50")
			g.add(fmt.Sprintf("%s p50 ≤ 1.05× raw gocql (%s)", wl, c), v, ok, 1.05, ratio)
			a, aok := r.get(wl+"/"+c+"/impl=cqlgen", "allocs/op")
			b, bok := r.get(wl+"/"+c+"/impl=gocql", "allocs/op")
			g.add(fmt.Sprintf("%s allocs ≤ raw gocql + 2 (%s)", wl, c), a-b, aok && bok, 2, signed)
		}
		v, ok := r.ratio("PagePaired/"+c, "cqlgen-p50-µs", "PagePaired/"+c, "gocqlx-p50-µs")
		g.add("page of 100 rows p50 ≤ 1.0× gocqlx ("+c+")", v, ok, 1.0, ratio)
		v, ok = r.get("FanOutPaired/"+c, "cqlgen-concurrent/gocql-concurrent-p50")
		g.add("fan-out p50 ≤ 1.10× raw concurrent ("+c+")", v, ok, 1.10, ratio)
		for _, n := range []string{"16", "100"} {
			p := "ScatterPaired/" + c + "/buckets=" + n
			v, ok = r.get(p, "cqlgen/gocql-concurrent-p50")
			g.add(fmt.Sprintf("scatter-gather over %s p50 ≤ 1.10× raw concurrent (%s)", n, c), v, ok, 1.10, ratio)
			v, ok = r.ratio(p, "cqlgen-p50-µs", p, "gocql-1partition-p50-µs")
			g.add(fmt.Sprintf("scatter-gather over %s p50 ≤ 2× one partition read (%s)", n, c), v, ok, 2, ratio)
		}
		// gocassa runs in its own binary: compared by the medians of
		// runs interleaved with the main benchmarks'.
		// runs interleaved with the main benchmarks'. The chained figure
		// goes through the paired ratios instead: cqlgen ÷ its raw gocql,
		// over gocassa ÷ its raw gocql (v1.0.0), times raw ÷ raw.
		for _, cmp := range []struct{ what, name, ours, theirs, raw string }{
			{"insert", "Insert", "cqlgen", "gocassa", "gocql"},
			{"get", "Get", "cqlgen", "gocassa", "gocql"},
			{"page of 100 rows", "Page", "cqlgen", "gocassa", "gocql"},
			{"fan-out, logged batch", "FanOut", "cqlgen-batch", "gocassa-batch", "gocql-concurrent"},
			{"fan-out, unbatched", "FanOut", "cqlgen-concurrent", "gocassa-multiop", "gocql-concurrent"},
		} {
			a, aok := r.get(cmp.name+"/"+c+"/impl="+cmp.ours, "p50-µs")
			b, bok := r.get(cmp.name+"/"+c+"/impl="+cmp.theirs, "p50-µs")
			old := strings.Replace(cmp.raw, "gocql", "gocql-v1.0.0", 1)
			po, pook := r.get(cmp.name+"Paired/"+c, cmp.ours+"/"+cmp.raw+"-p50")
			pt, ptok := r.get(cmp.name+"Paired/"+c, cmp.theirs+"/"+old+"-p50")
			ro, rook := r.get(cmp.name+"/"+c+"/impl="+cmp.raw, "p50-µs")
			rt, rtok := r.get(cmp.name+"/"+c+"/impl="+old, "p50-µs")
			chained := ratio(po/pt*ro/rt, pook && ptok && rook && rtok)
			g.add(fmt.Sprintf("%s faster than gocassa: p50 %s ÷ %s < 1 (%s)", cmp.what, cmp.ours, cmp.theirs, c), a/b, aok && bok, 0.99999,
				func(v float64, ok bool) string { return ratio(v, ok) + " (chained: " + chained + ")" })
		}
	}
	v, ok := r.ratio("Generate/impl=generate", "ns/op", "Generate/impl=load", "ns/op")
	g.add("generating 200 patterns ≤ 1.5× one bare Load", v, ok, 1.5, ratio)
}

func (g *goals) write(w io.Writer) {
	fmt.Fprintln(w, "### Goals")
	fmt.Fprintln(w)
	t := &table{head: []string{"goal", "measured", "verdict"}}
	for _, x := range g.list {
		verdict := "met"
		switch {
		case !x.ok:
			verdict = "not measured"
		case !x.met:
			verdict = "**missed**"
		}
		t.add(x.what, x.measured, verdict)
	}
	t.write(w)
}
