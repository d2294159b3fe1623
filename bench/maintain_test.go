package bench_test

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Workload 7: verify, repair and backfill of the Tally tables. The rows
// of tallies are written directly (as the write protocol would, with a
// version each), then tallies_by_board is filled by Backfill.

// maintainRows is the table size: CQLGEN_BENCH_MAINTAIN_ROWS, or 20,000
// (500 with -short).
func maintainRows(b *testing.B) int {
	if v := os.Getenv("CQLGEN_BENCH_MAINTAIN_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("CQLGEN_BENCH_MAINTAIN_ROWS=%q", v)
		}
		return n
	}
	if benchenv.Small() {
		return 500
	}
	return 20_000
}

// peakHeap samples the heap in use while f runs and returns its peak.
func peakHeap(f func()) uint64 {
	inuse, _ := peakHeapLive(f)
	return inuse
}

// peakHeapLive is peakHeap's HeapInuse beside the peak of the live heap,
// the bytes the last collection found reachable (runtime/metrics'
// /gc/heap/live:bytes): HeapInuse also holds what became garbage since,
// which grows with how much a run allocates between collections (a
// repair's writes), not with what it keeps.
func peakHeapLive(f func()) (inuse, live uint64) {
	return peakHeapProfile(f, "")
}

// peakHeapProfile is peakHeapLive that also writes, to profile (unless
// ""), a heap profile each time the live heap peaks 2% over the last one
// written: what was live at the peak, by where it was allocated.
func peakHeapProfile(f func(), profile string) (inuse, live uint64) {
	var peak, peakLive atomic.Uint64
	var profiled uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peakLive.Load() {
				peakLive.Store(v)
				if profile != "" && v > profiled+profiled/50 {
					profiled = v
					writeHeapProfile(profile)
				}
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return peak.Load(), peakLive.Load()
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "heap profile:", err)
	}
}

// loadTallies empties tallies and tallies_by_board, then writes n tallies
// of board into tallies by plain INSERTs, writers at once, each at the
// version version(i) gives (nil: written outside the write protocol).
// A failed write is reported on b; the caller checks b.Failed.
func loadTallies(b *testing.B, s *gocql.Session, board string, n, writers int, version func(i int) any) {
	for _, t := range []string{"tallies", "tallies_by_board"} {
		if err := s.Query("TRUNCATE " + t).Exec(); err != nil {
			b.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				t := tally(board, i)
				if err := s.Query("INSERT INTO tallies (tally_id, board, points, name, cqlgen_version) VALUES (?, ?, ?, ?, ?)",
					t.TallyID, t.Board, t.Points, t.Name, version(i)).Exec(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// versioned is the version of tally i loaded as the protocol wrote it.
func versioned(i int) any { return int64(1000 + i) }

// maintainRates are the rates of the backfills: CQLGEN_BENCH_MAINTAIN_RATES,
// comma-separated, or 0 (unthrottled) and 2000. A backfill at 2000 rows a
// second of a million rows takes 8 minutes: CQLGEN_BENCH_MAINTAIN_RATES=0
// leaves it out.
func maintainRates(b *testing.B) []int {
	v := os.Getenv("CQLGEN_BENCH_MAINTAIN_RATES")
	if v == "" {
		return []int{0, 2000}
	}
	var rates []int
	for _, f := range strings.Split(v, ",") {
		r, err := strconv.Atoi(f)
		if err != nil || r < 0 {
			b.Fatalf("CQLGEN_BENCH_MAINTAIN_RATES=%q", v)
		}
		rates = append(rates, r)
	}
	return rates
}

func BenchmarkMaintain(b *testing.B) {
	env := shared.Get(b)
	s := env.Session(benchenv.Coalescing[0])
	n := maintainRows(b)
	board := fmt.Sprintf("m%d-", time.Now().UnixNano())
	// A fresh set of tallies, in a board range of their own.
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	loadTallies(b, s, board, n, 16, versioned)
	if b.Failed() {
		return
	}
	repo := model.NewTallyRepo(gocqlv1.NewSession(s, nil))
	rowsPerSec := func(b *testing.B, rows int64, d time.Duration) {
		b.ReportMetric(float64(rows)/d.Seconds(), "rows/s")
	}
	for _, rate := range maintainRates(b) {
		b.Run(fmt.Sprintf("backfill/rows=%d/rate=%d", n, rate), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				rep, err := repo.Backfill(ctx, "tallies_by_board", &cqlmaintain.Options{Rate: rate})
				must(err)
				rowsPerSec(b, rep.Rows, time.Since(start))
			}
		})
	}
	jobs := 0
	verify := func(name string, o *cqlmaintain.Options) {
		b.Run(fmt.Sprintf("%s/rows=%d", name, n), func(b *testing.B) {
			for b.Loop() {
				var rep *cqlmaintain.Report
				var err error
				if o != nil && o.Job != "" {
					// A job of its own each time: a job run again
					// skips the ranges it recorded.
					jobs++
					o.Job = fmt.Sprintf("%s-%d", board, jobs)
				}
				start := time.Now()
				peak := peakHeap(func() { rep, err = repo.Verify(ctx, o) })
				must(err)
				rowsPerSec(b, rep.Rows, time.Since(start))
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(rep.Tables[0].Compared), "rows-compared")
			}
		})
	}
	verify("verify-clean", nil)
	// One row out of step: digests narrow the comparison to its bucket;
	// with one bucket, every row is compared (a full row comparison).
	t := tally(board, 7)
	must(s.Query("DELETE FROM tallies_by_board WHERE board = ? AND points = ? AND tally_id = ?", t.Board, t.Points, t.TallyID).Exec())
	verify("verify-one-drift", nil)
	verify("verify-one-drift-full-compare", &cqlmaintain.Options{Buckets: 1})
	// By job (issue 38): range by range, every row read by key, so a
	// full comparison that holds one range's rows at most.
	verify("verify-one-drift-by-job", &cqlmaintain.Options{Job: "by-job", Ranges: 256})
}
