package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/sai6model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// TestCassandra6FilterBetween reads, on the 6.0 node, through the
// filters of sai6model, which targets 6.0 and reads columns BETWEEN two
// values: a scatter by category and a range of dates, and a read of one
// channel by a range of views and a category, each the rows a reference
// filter in Go keeps (both ends included), in pages. It also pins what
// the probe of 6.0-alpha2 found and cqlgen refuses on 6.0 at generate
// time (docs/grammar.md, Operators by version): OR does not parse, and
// IN, NOT IN and LIKE on an indexed column are served only by ALLOW
// FILTERING. The test fails when a later 6.0 serves one of them, so the
// table can be updated.
func TestCassandra6FilterBetween(t *testing.T) {
	raw, _ := cassandra6(t)
	cassandratest.MustApplyCQL(t, raw, sai6model.Schema)
	s := gocqlv1.NewSession(raw, nil)
	ctx := context.Background()
	repo := sai6model.NewClipRepo(s)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 6))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	cats := []string{"news", "sport", "music"}
	var all []sai6model.Clip
	for i := range 120 {
		c := sai6model.Clip{
			Channel:   fmt.Sprintf("ch%d", i%3),
			ClipID:    int32(i),
			Views:     int64(r.IntN(10)) * 10,
			AddedDate: base.Add(time.Duration(r.IntN(12)) * 24 * time.Hour),
			Category:  cats[r.IntN(len(cats))],
		}
		must(t, repo.Insert(ctx, &c))
		all = append(all, c)
	}
	keep := func(f func(sai6model.Clip) bool) map[string]bool {
		m := map[string]bool{}
		for _, c := range all {
			if f(c) {
				m[fmt.Sprintf("%s/%d", c.Channel, c.ClipID)] = true
			}
		}
		return m
	}
	set := func(cs []sai6model.Clip) map[string]bool {
		m := map[string]bool{}
		for _, c := range cs {
			k := fmt.Sprintf("%s/%d", c.Channel, c.ClipID)
			if m[k] {
				t.Errorf("%s read twice", k)
			}
			m[k] = true
		}
		return m
	}
	matched := 0
	for round := range 4 {
		cat := cats[round%3]
		from, to := base.Add(time.Duration(2+r.IntN(3))*24*time.Hour), base.Add(time.Duration(7+r.IntN(3))*24*time.Hour)
		want := keep(func(c sai6model.Clip) bool {
			return c.Category == cat && !c.AddedDate.Before(from) && !c.AddedDate.After(to)
		})
		matched += len(want)
		got := pageAll(t, func(cursor string) (cqlgen.Page[sai6model.Clip], error) {
			return repo.ClipsByCategoryAddedBetween(ctx, cat, from, to, &sai6model.ClipsByCategoryAddedBetweenOptions{Limit: 3, Cursor: cursor})
		}, 3)
		if g := set(got); !mapsEqual(g, want) {
			t.Errorf("ClipsByCategoryAddedBetween(%s, %s, %s): got %v, want %v", cat, from, to, g, want)
		}
		ch := fmt.Sprintf("ch%d", round%3)
		lo, hi := int64(10*(1+r.IntN(3))), int64(10*(5+r.IntN(3)))
		want = keep(func(c sai6model.Clip) bool {
			return c.Channel == ch && c.Category == cat && c.Views >= lo && c.Views <= hi
		})
		matched += len(want)
		got = pageAll(t, func(cursor string) (cqlgen.Page[sai6model.Clip], error) {
			return repo.ChannelClipsByViews(ctx, ch, lo, hi, cat, &sai6model.ChannelClipsByViewsOptions{Limit: 2, Cursor: cursor})
		}, 2)
		if !slices.IsSortedFunc(got, func(a, b sai6model.Clip) int { return int(a.ClipID - b.ClipID) }) {
			t.Errorf("ChannelClipsByViews: rows out of clustering order")
		}
		if g := set(got); !mapsEqual(g, want) {
			t.Errorf("ChannelClipsByViews(%s, %d, %d, %s): got %v, want %v", ch, lo, hi, cat, g, want)
		}
	}
	if matched < 20 {
		t.Fatalf("the reads matched %d rows in all: too few to check", matched)
	}

	// What 6.0-alpha2 does with the operators cqlgen refuses on 6.0.
	for _, c := range []struct{ cql, want string }{
		{"SELECT * FROM clips WHERE category = 'news' OR category = 'sport'", "no viable alternative at input 'OR'"},
		{"SELECT * FROM clips WHERE category IN ('news', 'sport')", "ALLOW FILTERING"},
		{"SELECT * FROM clips WHERE category NOT IN ('news', 'sport')", "ALLOW FILTERING"},
		{"SELECT * FROM clips WHERE category LIKE 'ne%'", "ALLOW FILTERING"},
		{"SELECT * FROM clips WHERE channel = 'ch0' AND category IN ('news', 'sport')", "ALLOW FILTERING"},
	} {
		err := raw.Query(c.cql).Exec()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q (docs/grammar.md, Operators by version, says 6.0-alpha2 does not serve it)", c.cql, err, c.want)
		}
	}
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
