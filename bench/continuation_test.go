package bench_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
)

// Workload 9: the second page of 100 rows of one partition, after a
// cursor. log_entries (at, seq) continues in one multi-column slice;
// recent_log_entries (at desc, seq), two runs of one direction, in two
// queries, the first empty: what every table with two clustering columns
// paid before continuations used slices.
func BenchmarkContinuationPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		log := fmt.Sprintf("log-%d", time.Now().UnixNano())
		entries, recent := model.NewEntryRepo(p.cq), model.NewRecentEntryRepo(p.cq)
		start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		for i := range 300 {
			at := start.Add(time.Duration(i) * time.Second)
			text := fmt.Sprintf("line %d of the log", i)
			if err := entries.Insert(ctx, &model.Entry{Log: log, At: at, Seq: int64(i), Text: text}); err != nil {
				b.Fatal(err)
			}
			if err := recent.Insert(ctx, &model.RecentEntry{Log: log, At: at, Seq: int64(i), Text: text}); err != nil {
				b.Fatal(err)
			}
		}
		first, err := entries.LogEntries(ctx, log, &model.LogEntriesOptions{Limit: 100})
		if err != nil {
			b.Fatal(err)
		}
		firstRecent, err := recent.RecentLogEntries(ctx, log, &model.RecentLogEntriesOptions{Limit: 100})
		if err != nil {
			b.Fatal(err)
		}
		check := func(n int, more bool, err error) error {
			if err == nil && (n != 100 || !more) {
				err = fmt.Errorf("%d rows (more: %v), want a full page of 100", n, more)
			}
			return err
		}
		benchenv.Paired(b, warmCalls(),
			benchenv.Impl{Name: "two-queries", Op: func(int) error {
				page, err := recent.RecentLogEntries(ctx, log, &model.RecentLogEntriesOptions{Limit: 100, Cursor: firstRecent.Cursor})
				return check(len(page.Rows), page.Cursor != "", err)
			}},
			benchenv.Impl{Name: "one-slice", Op: func(int) error {
				page, err := entries.LogEntries(ctx, log, &model.LogEntriesOptions{Limit: 100, Cursor: first.Cursor})
				return check(len(page.Rows), page.Cursor != "", err)
			}},
		)
	})
}
