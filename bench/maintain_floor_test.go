package bench_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Issue 38, item 1: maintenance beside the hand-written floor, paired in
// one process (so that the load of a shared machine hits both sides), at
// the defaults a user gets (Options{}: 64 ranges, 4 at once, writes
// adapting to the latency).
//
//   - backfill against a copy: a token-range paged read (64 ranges, 4 at
//     once, pages of 1,000) of tallies, feeding 32 writers of unlogged
//     single inserts of tallies_by_board's rows at the same timestamps
//     (the entity's version + 1µs);
//   - verify against a scan of both tables at the same page size and
//     concurrency (64 ranges of each, 4 at once, pages of 1,000).
//
// Rounds alternate the two sides; CQLGEN_BENCH_FLOOR_ROUNDS (3) rounds,
// CQLGEN_BENCH_MAINTAIN_ROWS rows (20,000). Each round's figures are
// logged (-v); the metrics are the medians.
func BenchmarkMaintainFloor(b *testing.B) {
	env := shared.Get(b)
	s := env.Session(benchenv.Coalescing[0])
	n := maintainRows(b)
	rounds := 3
	if v := os.Getenv("CQLGEN_BENCH_FLOOR_ROUNDS"); v != "" {
		r, err := strconv.Atoi(v)
		if err != nil || r <= 0 {
			b.Fatalf("CQLGEN_BENCH_FLOOR_ROUNDS=%q", v)
		}
		rounds = r
	}
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	board := fmt.Sprintf("f%d-", time.Now().UnixNano())
	loadTallies(b, s, board, n, 16, versioned)
	if b.Failed() {
		return
	}
	repo := model.NewTallyRepo(gocqlv1.NewSession(s, nil))
	var copyRate, backfillRate, writeRate, scanRate, verifyRate []float64
	// The process's CPU (user and system) a row, for each side.
	var cpu [4]time.Duration
	var perRow [4]int64
	used := func() time.Duration {
		var u syscall.Rusage
		must(syscall.Getrusage(syscall.RUSAGE_SELF, &u))
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	for b.Loop() {
		for r := range rounds {
			must(s.Query("TRUNCATE tallies_by_board").Exec())
			start, c0 := time.Now(), used()
			var copied int64
			var err error
			pprof.Do(ctx, pprof.Labels("side", "copy"), func(context.Context) { copied, err = handCopy(s, 64, 4, 32) })
			must(err)
			c := float64(copied) / time.Since(start).Seconds()
			cpu[0], perRow[0] = cpu[0]+used()-c0, perRow[0]+copied

			must(s.Query("TRUNCATE tallies_by_board").Exec())
			start, c0 = time.Now(), used()
			var rep *cqlmaintain.Report
			pprof.Do(ctx, pprof.Labels("side", "backfill"), func(ctx context.Context) {
				rep, err = repo.Backfill(ctx, "tallies_by_board", &cqlmaintain.Options{})
			})
			must(err)
			took := time.Since(start)
			bf := float64(rep.Rows) / took.Seconds()
			// The backfill's writes alone: without the verify it ends
			// with, which the copy does not do.
			bw := bf
			if rep.After != nil {
				bw = float64(rep.Rows) / (took - rep.After.Elapsed).Seconds()
			}
			cpu[1], perRow[1] = cpu[1]+used()-c0, perRow[1]+rep.Rows
			if rep.Tables[0].Inserted != int64(n) || copied != int64(n) {
				b.Fatalf("copied %d, backfilled %d of %d rows", copied, rep.Tables[0].Inserted, n)
			}

			start, c0 = time.Now(), used()
			var read int64
			pprof.Do(ctx, pprof.Labels("side", "scan"), func(context.Context) { read, err = handScan(s, 64, 4) })
			must(err)
			sc := float64(read) / time.Since(start).Seconds()
			cpu[2], perRow[2] = cpu[2]+used()-c0, perRow[2]+read/2

			start, c0 = time.Now(), used()
			var vrep *cqlmaintain.Report
			pprof.Do(ctx, pprof.Labels("side", "verify"), func(ctx context.Context) { vrep, err = repo.Verify(ctx, nil) })
			must(err)
			vf := float64(vrep.Rows) / time.Since(start).Seconds()
			cpu[3], perRow[3] = cpu[3]+used()-c0, perRow[3]+vrep.Rows
			if read != int64(2*n) || vrep.Rows != int64(n) || vrep.Tables[0].Missing+vrep.Tables[0].Stale+vrep.Tables[0].Orphans != 0 {
				b.Fatalf("scanned %d rows of 2×%d; verify: %+v", read, n, vrep)
			}
			b.Logf("round %d: copy %.0f rows/s, backfill %.0f (%.2f×; its writes alone %.2f×); scan %.0f source rows/s, verify %.0f (%.2f×)", r, c, bf, bf/c, bw/c, sc/2, vf, vf/(sc/2))
			copyRate, backfillRate, writeRate = append(copyRate, c), append(backfillRate, bf), append(writeRate, bw)
			scanRate, verifyRate = append(scanRate, sc/2), append(verifyRate, vf)
		}
	}
	median := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
	ratios := func(a, f []float64) []float64 {
		r := make([]float64, len(a))
		for i := range a {
			r[i] = a[i] / f[i]
		}
		return r
	}
	b.ReportMetric(median(copyRate), "copy-rows/s")
	b.ReportMetric(median(backfillRate), "backfill-rows/s")
	b.ReportMetric(median(ratios(backfillRate, copyRate)), "backfill/copy")
	b.ReportMetric(median(ratios(writeRate, copyRate)), "backfill-writes/copy")
	b.ReportMetric(median(scanRate), "scan-rows/s")
	b.ReportMetric(median(verifyRate), "verify-rows/s")
	b.ReportMetric(median(ratios(verifyRate, scanRate)), "verify/scan")
	for i, name := range []string{"copy", "backfill", "scan", "verify"} {
		// Per row of the source of truth (a scan reads two).
		b.ReportMetric(float64(cpu[i].Microseconds())/float64(perRow[i]), name+"-cpu-µs/row")
	}
}

// tokenRanges splits the ring into n ranges (lo, hi].
func tokenRanges(n int) [][2]int64 {
	out := make([][2]int64, n)
	step := uint64(math.MaxUint64) / uint64(n)
	lo := int64(math.MinInt64)
	for i := range n {
		hi := int64(uint64(lo) + step)
		if i == n-1 {
			hi = math.MaxInt64
		}
		out[i] = [2]int64{lo, hi}
		lo = hi
	}
	return out
}

// eachTokenRange runs f on each of n token ranges, at most conc at once.
func eachTokenRange(n, conc int, f func(lo, hi int64) error) error {
	ranges := make(chan [2]int64)
	errs := make(chan error, conc)
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for r := range ranges {
				if err := f(r[0], r[1]); err != nil {
					errs <- err
					for range ranges {
					}
					return
				}
			}
		})
	}
	for _, r := range tokenRanges(n) {
		ranges <- r
	}
	close(ranges)
	wg.Wait()
	close(errs)
	return <-errs
}

// handCopy is the backfill's floor: tallies read by token range, each
// row's projection row written by one of writers goroutines, unlogged, at
// the entity's version + 1µs.
func handCopy(s *gocql.Session, ranges, scanners, writers int) (int64, error) {
	type projected struct {
		board, id, name string
		points, ts      int64
	}
	rows := make(chan projected, writers*4)
	var mu sync.Mutex
	var written int64
	var werr error
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			var n int64
			for r := range rows {
				if err := s.Query("INSERT INTO tallies_by_board (board, points, tally_id, name) VALUES (?, ?, ?, ?) USING TIMESTAMP ?",
					r.board, r.points, r.id, r.name, r.ts).Exec(); err != nil {
					mu.Lock()
					werr = err
					mu.Unlock()
				} else {
					n++
				}
			}
			mu.Lock()
			written += n
			mu.Unlock()
		})
	}
	err := eachTokenRange(ranges, scanners, func(lo, hi int64) error {
		it := s.Query("SELECT tally_id, board, points, name, cqlgen_version FROM tallies WHERE token(tally_id) > ? AND token(tally_id) <= ?", lo, hi).PageSize(1000).Iter()
		var r projected
		for it.Scan(&r.id, &r.board, &r.points, &r.name, &r.ts) {
			r.ts++
			rows <- r
		}
		return it.Close()
	})
	close(rows)
	wg.Wait()
	if err == nil {
		err = werr
	}
	return written, err
}

// handScan is the verify's floor: every row of both tables read by token
// range, conc ranges at once, pages of 1,000.
func handScan(s *gocql.Session, ranges, conc int) (int64, error) {
	var mu sync.Mutex
	var read int64
	scan := func(cql string) func(lo, hi int64) error {
		return func(lo, hi int64) error {
			it := s.Query(cql, lo, hi).PageSize(1000).Iter()
			var id, board, name string
			var points int64
			var version *int64
			var n int64
			for it.Scan(&id, &board, &points, &name, &version) {
				n++
			}
			mu.Lock()
			read += n
			mu.Unlock()
			return it.Close()
		}
	}
	if err := eachTokenRange(ranges, conc, scan("SELECT tally_id, board, points, name, cqlgen_version FROM tallies WHERE token(tally_id) > ? AND token(tally_id) <= ?")); err != nil {
		return read, err
	}
	err := eachTokenRange(ranges, conc, scan("SELECT tally_id, board, points, name, writetime(name) FROM tallies_by_board WHERE token(board) > ? AND token(board) <= ?"))
	return read, err
}
