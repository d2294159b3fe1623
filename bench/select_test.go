package bench_test

import (
	"fmt"
	"testing"

	"github.com/scylladb/gocqlx/v2/table"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
)

// Workload 3: one page of 100 rows from one partition, with what it takes
// to ask for the next page (gocql's page state, cqlgen's cursor).

const selectEvents = "SELECT stream_id, at, event_id, kind, payload, value FROM events_by_stream WHERE stream_id = ?"

var eventsTable = table.New(table.Metadata{
	Name:    "events_by_stream",
	Columns: []string{"stream_id", "at", "event_id", "kind", "payload", "value"},
	PartKey: []string{"stream_id"},
	SortKey: []string{"at", "event_id"},
})

// fullPage checks that a read returned a whole page, and a way on.
func fullPage(n int, more bool, err error) error {
	switch {
	case err != nil:
		return err
	case n != benchenv.PageRows:
		return fmt.Errorf("%d rows, want %d", n, benchenv.PageRows)
	case !more:
		return fmt.Errorf("no way to the next page")
	}
	return nil
}

func pageImpls(p peers) []benchenv.Impl {
	repo := model.NewEventRepo(p.cq)
	return []benchenv.Impl{
		{Name: "gocql", Op: func(int) error {
			// Setting the page state, even to nil, turns gocql's automatic
			// paging off: one page, as the other two read.
			it := p.s.Query(selectEvents, benchenv.Stream).PageSize(benchenv.PageRows).PageState(nil).Iter()
			var rows []model.Event
			var e model.Event
			for it.Scan(&e.StreamID, &e.At, &e.EventID, &e.Kind, &e.Payload, &e.Value) {
				rows = append(rows, e)
			}
			next := it.PageState()
			return fullPage(len(rows), len(next) > 0, it.Close())
		}},
		{Name: "gocqlx", Op: func(int) error {
			// As gocqlx's own paging example does it.
			q := eventsTable.SelectQuery(p.sx).Bind(benchenv.Stream)
			defer q.Release()
			q.PageState(nil)
			q.PageSize(benchenv.PageRows)
			it := q.Iter()
			next := it.PageState()
			var rows []model.Event
			err := it.Select(&rows)
			return fullPage(len(rows), len(next) > 0, err)
		}},
		{Name: "cqlgen", Op: func(int) error {
			page, err := repo.EventsByStream(ctx, benchenv.Stream, &model.EventsByStreamOptions{Limit: benchenv.PageRows})
			return fullPage(len(page.Rows), page.Cursor != "", err)
		}},
	}
}

func BenchmarkPage(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { run(b, warmCalls(), pageImpls(p)...) })
}

func BenchmarkPagePaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) { benchenv.Paired(b, warmCalls(), pageImpls(p)...) })
}
