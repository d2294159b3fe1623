package bench_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Issue 37, item 5: a stream's memory is flat. One partition of
// events_by_stream of 100,000 rows and one of 1,000,000, written by an
// unlogged concurrent loader into a keyspace of this benchmark's own
// (dropped after), each read to its end three ways, pages of 1,000 rows:
//
//   - pages: the page API's loop over cursors, each page dropped;
//   - stream: cqlgen.Stream over EventsByStream, each row counted and
//     dropped;
//   - collect: every row appended to one slice, what a caller without
//     either holds.
//
// peak-heap-MB is the most the heap's objects (runtime/metrics
// /memory/classes/heap/objects:bytes, live and not yet swept) rose above
// what they were after a GC before the read, sampled every 500 µs by a
// goroutine during it: what the process held, garbage included, which
// the GC's pacing (a heap goal of at least 4 MB) dominates for small
// live heaps. peak-live-MB is the most the live heap the last GC marked
// (/gc/heap/live:bytes) rose above its value after that GC: what the read
// kept reachable. Both are the largest of many samples, each caught at
// whatever point of a page the GC or the sampler met it, so a longer
// read, with more GC cycles, tends to catch a larger one: the -held
// runs measure instead after a full GC every 10,000 rows, at the same
// point each time (held-MB). The target: a stream's peak at 1M rows at
// most 1.2× its peak at 100k. With -short: 1,000 and 10,000 rows.
func BenchmarkStreamMemory(b *testing.B) {
	hosts := benchenv.Hosts()
	if len(hosts) == 0 {
		if os.Getenv("CI") == "true" {
			b.Fatal("no Cassandra: set " + benchenv.EnvHosts)
		}
		b.Skip("no Cassandra: set " + benchenv.EnvHosts)
	}
	env, err := benchenv.Open(hosts, "cqlgen_stream", model.Schema)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := env.Close(); err != nil {
			// A drop on a busy node can outlast the driver's timeout and
			// apply all the same: asked again, with time to answer.
			c := benchenv.NewCluster(hosts, "", 0)
			c.Timeout = time.Minute
			s, err := c.CreateSession()
			if err == nil {
				err = s.Query("DROP KEYSPACE IF EXISTS " + env.Keyspace).Exec()
				s.Close()
			}
			if err != nil {
				b.Errorf("dropping %s: %v", env.Keyspace, err)
			}
		}
	}()
	raw := env.Session(benchenv.Coalescing[0])
	sizes := []int{100_000, 1_000_000}
	if benchenv.Small() {
		sizes = []int{1_000, 10_000}
	}
	for _, n := range sizes {
		start := time.Now()
		if err := loadStream(raw, streamID(n), n); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "stream bench: %d rows written in %v\n", n, time.Since(start).Round(time.Millisecond))
	}
	if !benchenv.Small() {
		// The node flushes and compacts what was written in the seconds
		// after: the first read measured would pay for it.
		time.Sleep(10 * time.Second)
	}
	repo := model.NewEventRepo(gocqlv1.NewSession(raw, nil))
	const limit = 1000
	ctx := context.Background()
	modes := []struct {
		name string
		// read reads partition id to its end, calling probe with the
		// rows handled so far after each row (after each page, for
		// pages).
		read func(id string, probe func(n int)) (int, error)
	}{
		{"pages", func(id string, probe func(int)) (int, error) {
			n, c := 0, ""
			for {
				pg, err := repo.EventsByStream(ctx, id, &model.EventsByStreamOptions{Limit: limit, Cursor: c})
				if err != nil {
					return n, err
				}
				n += len(pg.Rows)
				probe(n)
				if c = pg.Cursor; c == "" {
					return n, nil
				}
			}
		}},
		{"stream", func(id string, probe func(int)) (int, error) {
			rows, _ := cqlgen.Stream(ctx, "", func(ctx context.Context, c string) (cqlgen.Page[model.Event], error) {
				return repo.EventsByStream(ctx, id, &model.EventsByStreamOptions{Limit: limit, Cursor: c})
			})
			n := 0
			for _, err := range rows {
				if err != nil {
					return n, err
				}
				n++
				probe(n)
			}
			return n, nil
		}},
		{"collect", func(id string, probe func(int)) (int, error) {
			var all []model.Event
			c := ""
			for {
				pg, err := repo.EventsByStream(ctx, id, &model.EventsByStreamOptions{Limit: limit, Cursor: c})
				if err != nil {
					return len(all), err
				}
				for _, e := range pg.Rows {
					all = append(all, e)
					probe(len(all))
				}
				if c = pg.Cursor; c == "" {
					runtime.KeepAlive(all)
					return len(all), nil
				}
			}
		}},
	}
	// Every mode's first read, before any is measured: the session's
	// first use of the statements (preparing them, its caches) would
	// count against whichever mode came first.
	for _, n := range sizes {
		pg, err := repo.EventsByStream(ctx, streamID(n), &model.EventsByStreamOptions{Limit: limit})
		if err == nil {
			_, err = repo.EventsByStream(ctx, streamID(n), &model.EventsByStreamOptions{Limit: limit, Cursor: pg.Cursor})
		}
		rows, _ := cqlgen.Stream(ctx, "", func(ctx context.Context, c string) (cqlgen.Page[model.Event], error) {
			return repo.EventsByStream(ctx, streamID(n), &model.EventsByStreamOptions{Limit: limit, Cursor: c})
		})
		k := 0
		for _, e := range rows {
			if err, k = cmp.Or(err, e), k+1; err != nil || k == 2*limit {
				break
			}
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, n := range sizes {
		for _, m := range modes {
			b.Run(fmt.Sprintf("rows=%d/%s", n, m.name), func(b *testing.B) {
				b.ReportAllocs()
				var peak, live uint64
				for b.Loop() {
					w := watchHeap()
					got, err := m.read(streamID(n), func(int) {})
					p, l := w.stop()
					peak, live = max(peak, p), max(live, l)
					if err != nil {
						b.Fatal(err)
					}
					if got != n {
						b.Fatalf("%d rows read, want %d", got, n)
					}
				}
				b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
				b.ReportMetric(float64(live)/1e6, "peak-live-MB")
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
	// held-MB: a full GC every 10,000 rows (a tenth of a short run's),
	// at the same point of the read each time (right after the row, or
	// the page, that reaches the multiple), and the live heap it leaves
	// above the one a GC left before the read: what the read keeps
	// reachable as it goes, free of the GC's pacing and of the phase a
	// sampled GC happened to catch.
	for _, n := range sizes {
		for _, m := range modes {
			b.Run(fmt.Sprintf("rows=%d/%s-held", n, m.name), func(b *testing.B) {
				var held uint64
				for b.Loop() {
					runtime.GC()
					_, base := heapSample()
					step := min(10_000, n/10)
					next := step
					got, err := m.read(streamID(n), func(k int) {
						if k < next {
							return
						}
						next += step
						runtime.GC()
						if _, l := heapSample(); l > base {
							held = max(held, l-base)
						}
					})
					if err != nil {
						b.Fatal(err)
					}
					if got != n {
						b.Fatalf("%d rows read, want %d", got, n)
					}
				}
				b.ReportMetric(float64(held)/1e6, "held-MB")
			})
		}
	}
}

func streamID(n int) string { return fmt.Sprintf("stream-bench-%d", n) }

// loadStream writes n small events into partition id, in unlogged
// batches of one partition, 16 at once.
func loadStream(s *gocql.Session, id string, n int) error {
	const stmt = "INSERT INTO events_by_stream (stream_id, at, event_id, kind, payload, value) VALUES (?, ?, ?, ?, ?, ?)"
	const per = 100
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return benchenv.Parallel((n+per-1)/per, 16, func(k int) error {
		batch := s.NewBatch(gocql.UnloggedBatch)
		for i := k * per; i < min(n, (k+1)*per); i++ {
			batch.Query(stmt, id, epoch.Add(time.Duration(i)*time.Millisecond), fmt.Sprintf("e%07d", i), "view", "p", float64(i))
		}
		return s.ExecuteBatch(batch)
	})
}

// heapWatch samples the heap every 500 µs until stopped: its objects
// (live and garbage not yet swept) and the live heap the last GC marked.
type heapWatch struct {
	base, peak         atomic.Uint64
	liveBase, livePeak atomic.Uint64
	done               chan struct{}
	stopped            chan struct{}
}

// heapSample is the heap's objects and the live heap of the last GC.
func heapSample() (objects, live uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

func (w *heapWatch) sample() {
	v, l := heapSample()
	if v > w.peak.Load() {
		w.peak.Store(v)
	}
	if l > w.livePeak.Load() {
		w.livePeak.Store(l)
	}
}

// watchHeap collects garbage, notes the heap's objects as the base, and
// starts sampling.
func watchHeap() *heapWatch {
	runtime.GC()
	w := &heapWatch{done: make(chan struct{}), stopped: make(chan struct{})}
	v, l := heapSample()
	w.base.Store(v)
	w.liveBase.Store(l)
	go func() {
		defer close(w.stopped)
		t := time.NewTicker(500 * time.Microsecond)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.done:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// stop ends the sampling and returns the peaks above the bases: of the
// heap's objects, and of the live heap a GC marked during the read.
func (w *heapWatch) stop() (objects, live uint64) {
	w.sample()
	close(w.done)
	<-w.stopped
	return max(w.peak.Load(), w.base.Load()) - w.base.Load(), max(w.livePeak.Load(), w.liveBase.Load()) - w.liveBase.Load()
}
