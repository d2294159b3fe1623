// Command clustertable turns the output of BenchmarkClusterPaxos (make
// bench-cluster) into the Markdown tables of bench/README.md, "Issue 27,
// goal 3": for each workload and peer, the median over the turns of its
// p50 under Paxos v1 and under v2, their ratio, and each peer's ratio to
// the first (hand-written) peer of its workload, paired within each turn.
//
//	go run ./cmd/clustertable out/cluster.txt
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// name: BenchmarkClusterPaxos/paxos=v1#01/entity=tally/op=insert-2
var nameRe = regexp.MustCompile(`^BenchmarkClusterPaxos/paxos=(v\d)(?:#\d+)?/(.+)-\d+$`)

// figures of one workload under one variant: per peer, its p50 in each
// turn, and its p50 ratio to the base peer in each turn.
type figures struct {
	p50   map[string][]float64
	ratio map[string][]float64
	peers []string // in the order of the output (the base peer last)
	base  string
}

func main() {
	in := io.Reader(os.Stdin)
	if len(os.Args) > 1 {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	data := map[string]map[string]*figures{} // workload → variant → figures
	var workloads []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 {
			continue
		}
		m := nameRe.FindStringSubmatch(f[0])
		if m == nil {
			continue
		}
		variant, work := m[1], m[2]
		if data[work] == nil {
			data[work] = map[string]*figures{}
			workloads = append(workloads, work)
		}
		fg := data[work][variant]
		if fg == nil {
			fg = &figures{p50: map[string][]float64{}, ratio: map[string][]float64{}}
			data[work][variant] = fg
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			unit := f[i+1]
			switch {
			case strings.HasSuffix(unit, "-p50-µs"):
				peer := strings.TrimSuffix(unit, "-p50-µs")
				if _, seen := fg.p50[peer]; !seen {
					fg.peers = append(fg.peers, peer)
				}
				fg.p50[peer] = append(fg.p50[peer], v)
			case strings.HasSuffix(unit, "-p50") && strings.Contains(unit, "/"):
				peer, base, _ := strings.Cut(strings.TrimSuffix(unit, "-p50"), "/")
				fg.ratio[peer] = append(fg.ratio[peer], v)
				fg.base = base
			}
		}
	}
	fmt.Println("| workload | peer | v1 p50 µs | v2 p50 µs | v2 ÷ v1 | ÷ hand-written, v1 | ÷ hand-written, v2 |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
	for _, w := range workloads {
		v1, v2 := data[w]["v1"], data[w]["v2"]
		if v1 == nil || v2 == nil {
			continue
		}
		peers := append([]string{v1.base}, v1.peers...)
		peers = slices.Compact(slices.DeleteFunc(peers, func(p string) bool { return p == "" }))
		seen := map[string]bool{}
		for _, p := range peers {
			if seen[p] {
				continue
			}
			seen[p] = true
			a, b := median(v1.p50[p]), median(v2.p50[p])
			fmt.Printf("| %s | %s | %s | %s | %.2f | %s | %s |\n", w, p, spread(v1.p50[p]), spread(v2.p50[p]), b/a, ratio(v1, p), ratio(v2, p))
		}
	}
}

func ratio(fg *figures, peer string) string {
	if peer == fg.base {
		return "1"
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", median(fg.ratio[peer]), slices.Min(fg.ratio[peer]), slices.Max(fg.ratio[peer]))
}

// spread is the median and, with several turns, the range.
func spread(vs []float64) string {
	if len(vs) == 1 {
		return fmt.Sprintf("%.0f", vs[0])
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", median(vs), slices.Min(vs), slices.Max(vs))
}

func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
