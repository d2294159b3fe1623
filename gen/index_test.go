package gen_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// TestIndexStatementBinds is TestStatementBinds for index patterns: every
// placeholder of an index read has its bind, every bound column is a
// column of the indexed table, and a scatter has its Next statement.
func TestIndexStatementBinds(t *testing.T) {
	pkgs, _, _ := pipeline.Models(pipeline.Options{Patterns: []string{"./" + filepath.Join(goldenDir, "index"), "../example/helpdesk"}})
	n, scatters := 0, 0
	for _, p := range pkgs {
		for _, e := range p.Entities {
			for _, ix := range e.Indexes {
				cols := map[*model.Column]bool{}
				for _, c := range ix.On.Columns {
					cols[c] = true
				}
				hasNext := false
				for _, s := range ix.Statements() {
					n++
					hasNext = hasNext || s.Slot == cqlspec.SlotNext
					if q := strings.Count(s.CQL(), "?"); q != len(s.Binds) {
						t.Errorf("%s %s: %d placeholders, %d binds\n%s", ix.Name, s.Slot, q, len(s.Binds), s.CQL())
					}
					for _, b := range s.Binds {
						if b.Column != nil && !cols[b.Column] {
							t.Errorf("%s %s binds %s, no column of %s", ix.Name, s.Slot, b.Column.Name, ix.On.Name)
						}
					}
				}
				if hasNext != ix.Scatter() {
					t.Errorf("%s: scatter %v, Next statement %v", ix.Name, ix.Scatter(), hasNext)
				}
				if ix.Scatter() {
					scatters++
				}
			}
		}
	}
	if n < 8 || scatters == 0 {
		t.Errorf("checked %d statements, %d scatters; the cases did not load", n, scatters)
	}
}

// TestRecommendedWindow pins the TWCS rule the docs state: about the TTL
// over 30, in whole buckets when the table has a time bucket.
func TestRecommendedWindow(t *testing.T) {
	const day = 86400
	for _, tc := range []struct {
		ttl     int64
		bucket  *model.Bucket
		want    string
		windows int64
	}{
		{90 * day, nil, "twcs(3d)", 30},
		{7 * day, nil, "twcs(6h)", 28},
		{day, nil, "twcs(48m)", 30},
		{30 * day, &model.Bucket{Kind: model.DayBucket}, "twcs(1d)", 30},
		{90 * day, &model.Bucket{Kind: model.DayBucket}, "twcs(3d)", 30},
		{90 * day, &model.Bucket{Kind: model.MonthBucket}, "twcs(31d)", 3},
		{2 * day, &model.Bucket{Kind: model.HourBucket}, "twcs(2h)", 24},
	} {
		tb := &model.Table{TTL: tc.ttl, Bucket: tc.bucket}
		c, n := tb.RecommendedWindow()
		if c.Tag() != tc.want || n != tc.windows {
			t.Errorf("ttl %ds, bucket %v: %s (%d windows), want %s (%d)", tc.ttl, tc.bucket, c.Tag(), n, tc.want, tc.windows)
		}
	}
}

// TestFilterStatementBinds is TestIndexStatementBinds for filter
// patterns: every placeholder has its bind, each condition's relations
// are in every statement, a scatter has its Next statement, and the
// binds after the partition key are the conditions' values in order.
func TestFilterStatementBinds(t *testing.T) {
	pkgs, _, _ := pipeline.Models(pipeline.Options{Patterns: []string{"./" + filepath.Join(goldenDir, "filter"), "./" + filepath.Join(goldenDir, "filter6")}})
	n, filters := 0, 0
	for _, p := range pkgs {
		for _, e := range p.Entities {
			for _, f := range e.Filters {
				filters++
				hasNext := false
				for _, s := range f.Statements() {
					n++
					hasNext = hasNext || s.Slot == cqlspec.SlotNext
					cql := strings.Join(strings.Fields(s.CQL()), " ")
					if q := strings.Count(cql, "?"); q != len(s.Binds) {
						t.Errorf("%s %s: %d placeholders, %d binds\n%s", f.Method, s.Slot, q, len(s.Binds), cql)
					}
					if !strings.Contains(cql, f.Condition()) {
						t.Errorf("%s %s lacks %s:\n%s", f.Method, s.Slot, f.Condition(), cql)
					}
				}
				if hasNext != f.Scatter() {
					t.Errorf("%s: scatter %v, Next statement %v", f.Method, f.Scatter(), hasNext)
				}
				var want []string
				for _, c := range f.Conds {
					want = append(want, c.Column.Name)
					if c.Bounded() {
						want = append(want, c.Column.Name)
					}
				}
				var got []string
				for _, v := range f.Spec().Values {
					got = append(got, v.Name)
				}
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s: values %v, want %v", f.Method, got, want)
				}
			}
		}
	}
	if filters < 5 || n < 10 {
		t.Errorf("checked %d filters, %d statements; the cases did not load", filters, n)
	}
}
