package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// A read over 100 hash buckets, both ways (one request naming every
// bucket, which a coordinator gathers from replicas on other nodes, and
// one request per bucket, routed to its replicas), returns every
// acknowledged row in order at QUORUM with all nodes up and with one of
// three down; with two down it fails whole, with a typed Unavailable,
// rather than return a page missing the buckets it could not read.
func TestScatterReadsNodesDown(t *testing.T) {
	c := need(t)
	ks := c.keyspace(nil)
	raw, s := c.quorum(ks, nil)
	cassandratest.MustApplyCQL(t, raw, music.Schema)
	must(t, raw.AwaitSchemaAgreement(context.Background()))
	ctx := ctxFor(t, 5*time.Minute)
	day := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	writer := music.NewChartEntryRepo(s)
	var all []music.ChartEntry
	for i := range 300 {
		e := music.ChartEntry{ChartDate: day, TrackID: fmt.Sprintf("track-%03d", i), PlayCount: int64(i * 7 % 50), TrackName: "n", Artist: "a"}
		must(t, writer.Insert(ctx, &e))
		all = append(all, e)
	}
	slices.SortFunc(all, func(a, b music.ChartEntry) int {
		if a.PlayCount != b.PlayCount {
			return int(b.PlayCount - a.PlayCount)
		}
		return strings.Compare(a.TrackID, b.TrackID)
	})
	modes := map[string]cqlgen.Scatter{"coordinator": cqlgen.ScatterCoordinator, "client": cqlgen.ScatterClient}
	readAll := func(mode cqlgen.Scatter, limit int) ([]music.ChartEntry, error) {
		repo := music.NewChartEntryRepo(s, cqlgen.WithScatter(mode))
		var got []music.ChartEntry
		cursor := ""
		for range 1000 {
			p, err := repo.DailyCharts(ctx, day, &music.DailyChartsOptions{Limit: limit, Cursor: cursor})
			if err != nil {
				return got, err
			}
			got = append(got, p.Rows...)
			if cursor = p.Cursor; cursor == "" {
				return got, nil
			}
		}
		return got, fmt.Errorf("paging did not end")
	}
	check := func(when string) {
		t.Helper()
		for name, mode := range modes {
			for _, limit := range []int{7, 100} {
				got, err := readAll(mode, limit)
				if err != nil {
					t.Fatalf("%s, %s, by %d: %v", when, name, limit, err)
				}
				if !slices.EqualFunc(got, all, func(a, b music.ChartEntry) bool { return a.TrackID == b.TrackID && a.PlayCount == b.PlayCount }) {
					t.Errorf("%s, %s, by %d: %d rows, not the %d written in order", when, name, limit, len(got), len(all))
				}
			}
		}
	}
	check("all nodes up")
	c.stop(len(c.nodes))
	check("one node down")
	c.stop(len(c.nodes) - 1)
	for name, mode := range modes {
		got, err := readAll(mode, 100)
		unavailable(t, "DailyCharts "+name, err)
		if len(got) != 0 {
			t.Errorf("%s with two nodes down: %d rows before the error", name, len(got))
		}
	}
}
