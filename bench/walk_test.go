package bench_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Workload 8: a page of 10 pings that crosses 1, 5 or 30 day buckets,
// all but the last empty, which holds more than a page: the walk back in
// rounds of 1, 2, 4 ... buckets, each round one request naming its
// buckets (coordinator, the default) or a request per bucket at once
// (parallel), against the same walk one bucket at a time (sequential,
// how it read first).
func BenchmarkWalkPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
		for _, crosses := range []int{1, 5, 30} {
			device := fmt.Sprintf("walk-%d-%d", crosses, time.Now().UnixNano())
			loader := model.NewPingRepo(p.cq, cqlgen.WithClock(func() time.Time { return start }))
			day := start.AddDate(0, 0, -(crosses - 1))
			for i := range 20 { // more than a page: the page is full in that bucket
				pg := model.Ping{Device: device, At: day.Add(time.Duration(i) * time.Minute), Seq: int64(i)}
				if err := loader.Insert(ctx, &pg); err != nil {
					b.Fatal(err)
				}
			}
			read := func(concurrency int, mode cqlgen.Scatter) func(int) error {
				repo := model.NewPingRepo(p.cq, cqlgen.WithConcurrency(concurrency), cqlgen.WithScatter(mode))
				return func(int) error {
					page, err := repo.PingsByDay(ctx, device, &model.PingsByDayOptions{Start: start, Limit: 10, LookBack: 30})
					if err == nil && len(page.Rows) != 10 {
						err = fmt.Errorf("%d rows, want 10", len(page.Rows))
					}
					return err
				}
			}
			b.Run(fmt.Sprintf("crosses=%d", crosses), func(b *testing.B) {
				benchenv.Paired(b, warmCalls(),
					benchenv.Impl{Name: "sequential", Op: read(1, cqlgen.ScatterClient)},
					benchenv.Impl{Name: "parallel", Op: read(16, cqlgen.ScatterClient)},
					benchenv.Impl{Name: "coordinator", Op: read(16, cqlgen.ScatterCoordinator)})
			})
		}
	})
}
