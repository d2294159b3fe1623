package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// BenchmarkMaintainMemory is issue 38's item 2: the peak heap of every
// maintenance mode on one table of CQLGEN_BENCH_MAINTAIN_ROWS tallies
// (20,000 by default), so that runs at 100,000 and 1,000,000 rows give
// the ratio (at most 1.5× is the goal). One load serves every mode, in
// this order: a backfill of tallies_by_board (unthrottled); a verify in
// step; then drift spread over the table (1% of its rows deleted, 0.1%
// changed, and 0.1% as many rows no tally implies), and a verify of it
// (bounded by Options.Hold, the default), the same verify holding every
// row of its mismatched buckets (Hold unbounded: the comparison before
// issue 38); a repair of it; an adopt of the 1% of tallies written
// without a version; a verify by job. The heap is collected before each
// and sampled every 5 ms during it. A pattern leaves modes out (the
// unbounded verify holds 576 MB at 1,000,000 rows): the load and the
// drift are made whatever it matches.
func BenchmarkMaintainMemory(b *testing.B) {
	if os.Getenv("CQLGEN_BENCH_PEAK_PROFILES") != "" {
		// A sample every 4 KB: the modes' few megabytes in detail.
		runtime.MemProfileRate = 4096
	}
	env := shared.Get(b)
	s := env.Session(benchenv.Coalescing[0])
	n := maintainRows(b)
	board := fmt.Sprintf("mm%d-", time.Now().UnixNano())
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	load := time.Now()
	loadTallies(b, s, board, n, 32, func(i int) any {
		if i%100 == 37 {
			return nil // written outside the protocol: adopt's
		}
		return versioned(i)
	})
	if b.Failed() {
		return
	}
	fmt.Printf("loaded %d tallies in %v\n", n, time.Since(load).Round(time.Second))
	repo := model.NewTallyRepo(gocqlv1.NewSession(s, nil))
	run := func(name string, f func() (*cqlmaintain.Report, error)) {
		b.Run(fmt.Sprintf("%s/rows=%d", name, n), func(b *testing.B) {
			for b.Loop() {
				var rep *cqlmaintain.Report
				var err error
				runtime.GC()
				start := time.Now()
				// CQLGEN_BENCH_PEAK_PROFILES=dir: each mode's heap at its peak.
				profile := ""
				if dir := os.Getenv("CQLGEN_BENCH_PEAK_PROFILES"); dir != "" {
					profile = filepath.Join(dir, fmt.Sprintf("%s-%d.pprof", name, n))
				}
				peak, live := peakHeapProfile(func() { rep, err = f() }, profile)
				must(err)
				b.ReportMetric(float64(rep.Rows)/time.Since(start).Seconds(), "rows/s")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(live)/(1<<20), "peak-live-MB")
				var t cqlmaintain.TableReport
				if len(rep.Tables) > 0 {
					t = rep.Tables[0]
				}
				b.ReportMetric(float64(t.Held), "rows-held")
				b.ReportMetric(float64(t.Rounds), "rounds")
				b.ReportMetric(float64(t.Compared), "rows-compared")
				b.ReportMetric(float64(rep.Drift()), "drift")
				b.ReportMetric(float64(t.Inserted+t.Deleted+rep.Adopted), "rows-written")
			}
		})
	}
	run("backfill", func() (*cqlmaintain.Report, error) { return repo.Backfill(ctx, "tallies_by_board", nil) })
	run("verify-clean", func() (*cqlmaintain.Report, error) { return repo.Verify(ctx, nil) })
	// Spread drift: every 100th row missing, every 1000th changed, and
	// an extra row for every 1000.
	drift := time.Now()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < n; i += 16 {
				t := tally(board, i)
				var err error
				switch {
				case i%100 == 0:
					err = s.Query("DELETE FROM tallies_by_board WHERE board = ? AND points = ? AND tally_id = ?", t.Board, t.Points, t.TallyID).Exec()
				case i%1000 == 1:
					err = s.Query("UPDATE tallies_by_board SET name = 'changed' WHERE board = ? AND points = ? AND tally_id = ?", t.Board, t.Points, t.TallyID).Exec()
				case i%1000 == 2:
					err = s.Query("INSERT INTO tallies_by_board (board, points, tally_id, name) VALUES (?, ?, ?, 'ghost')", t.Board, t.Points, "ghost-"+t.TallyID).Exec()
				}
				if err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	fmt.Printf("drift made in %v\n", time.Since(drift).Round(time.Second))
	run("verify-spread-drift", func() (*cqlmaintain.Report, error) { return repo.Verify(ctx, nil) })
	run("verify-spread-drift-hold-unbounded", func() (*cqlmaintain.Report, error) {
		return repo.Verify(ctx, &cqlmaintain.Options{Hold: 1 << 40})
	})
	run("repair-spread-drift", func() (*cqlmaintain.Report, error) { return repo.Repair(ctx, nil) })
	run("adopt", func() (*cqlmaintain.Report, error) { return repo.Repair(ctx, &cqlmaintain.Options{Adopt: true}) })
	// Last, being the slowest (two reads by key a row): of the table in
	// step again, one range's rows held at most whatever the drift.
	run("verify-by-job", func() (*cqlmaintain.Report, error) {
		return repo.Verify(ctx, &cqlmaintain.Options{Job: board + "by-job", Ranges: 256})
	})
}
