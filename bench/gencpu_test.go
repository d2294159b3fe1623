package bench_test

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/gen"
)

// BenchmarkGenerateCPU alternates gen.Generate and the bare Load as
// BenchmarkGeneratePaired does, on the synthetic package and on two
// examples, and reports beside their median wall times (generate-ms,
// load-ms) the CPU time of each call: user + system, of this process and
// of the go command it waits for (getrusage). It reports their medians as
// generate-cpu-ms and load-cpu-ms, and the ratios generate/load-p50 (wall)
// and generate/load-cpu-p50. On a machine shared with other work the wall
// time of a call moves with the load, its CPU time much less; the CPU time
// counts what both cores do at once twice, though, so its ratio is above
// the wall ratio of a quiet machine.
func BenchmarkGenerateCPU(b *testing.B) {
	for _, pkg := range []struct{ name, dir string }{
		{"synth", ""},
		{"music", "../example/music"},
		{"helpdesk", "../example/helpdesk"},
	} {
		b.Run("package="+pkg.name, func(b *testing.B) {
			dir := pkg.dir
			if dir == "" {
				dir = synthModule(b)
			}
			pairedCPU(b, dir)
		})
	}
}

func pairedCPU(b *testing.B, dir string) {
	impls := []func() error{
		func() error { return bareLoad(dir, false) },
		func() error {
			res, err := gen.Generate(gen.Options{Dir: dir, Patterns: []string{"."}, CacheDir: "off"})
			if err != nil {
				return fmt.Errorf("%w\n%v", err, res.Diags)
			}
			return nil
		},
	}
	for _, op := range impls {
		if err := op(); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	var wall, cpu [2][]float64
	round := 1
	for b.Loop() {
		for k := range impls {
			j := (round + k) % len(impls)
			start, before := time.Now(), cpuTime()
			if err := impls[j](); err != nil {
				b.Fatal(err)
			}
			cpu[j] = append(cpu[j], float64(cpuTime()-before)/1e6)
			wall[j] = append(wall[j], float64(time.Since(start))/1e6)
		}
		round++
	}
	med := func(xs []float64) float64 {
		xs = slices.Sorted(slices.Values(xs))
		return xs[len(xs)/2]
	}
	b.ReportMetric(med(wall[0]), "load-ms")
	b.ReportMetric(med(wall[1]), "generate-ms")
	b.ReportMetric(med(wall[1])/med(wall[0]), "generate/load-p50")
	b.ReportMetric(med(cpu[0]), "load-cpu-ms")
	b.ReportMetric(med(cpu[1]), "generate-cpu-ms")
	b.ReportMetric(med(cpu[1])/med(cpu[0]), "generate/load-cpu-p50")
}

// cpuTime is the CPU time this process and its waited-for children have
// used so far.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	var total time.Duration
	for _, u := range []syscall.Rusage{self, children} {
		total += time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	return total
}
