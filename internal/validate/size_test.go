package validate

import (
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
)

// The size warning comes once, at the first pattern past the bound.
func TestGeneratedSizeWarning(t *testing.T) {
	mk := func(n int) *model.Package {
		p := &model.Package{Name: "big"}
		e := &model.Entity{GoName: "E"}
		for range n {
			e.Tables = append(e.Tables, &model.Table{Entity: e})
		}
		p.Entities = []*model.Entity{e}
		return p
	}
	for _, tc := range []struct{ n, want int }{{MaxPatterns, 0}, {MaxPatterns + 1, 1}, {3 * MaxPatterns, 1}} {
		c := &checker{}
		c.size(mk(tc.n))
		got := 0
		for _, d := range c.diags {
			if d.Code == diag.GeneratedSize && d.Severity == diag.Warning && strings.Contains(d.Msg, "split the entities") {
				got++
			}
		}
		if got != tc.want {
			t.Errorf("%d patterns: %d warnings, want %d", tc.n, got, tc.want)
		}
	}
}
