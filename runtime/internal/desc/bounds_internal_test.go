package desc

import (
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
)

// rebound changes the one relation on a column, as a whole word: not a
// column whose name ends with it, not the operator that starts a longer
// one, and never a statement with two such relations.
func TestRebound(t *testing.T) {
	for _, c := range []struct {
		cql, col, old, new, want string
		ok                       bool
	}{
		{"WHERE k = ? AND at >= ?", "at", ">=", ">", "WHERE k = ? AND at > ?", true},
		{"WHERE k = ? AND sent_at >= ? AND at >= ?", "at", ">=", ">", "WHERE k = ? AND sent_at >= ? AND at > ?", true},
		{"WHERE k = ? AND sent_at >= ?", "at", ">=", ">", "WHERE k = ? AND sent_at >= ?", false},
		{"WHERE k = ? AND at <= ?", "at", "<", "<=", "WHERE k = ? AND at <= ?", false},
		{"WHERE k = ? AND at > ? AND at < ?", "at", "<", "<=", "WHERE k = ? AND at > ? AND at <= ?", true},
		{"WHERE k = ? AND (at, seq) > (?, ?)\n\t\tAND at < ?", "at", "<", "<=", "WHERE k = ? AND (at, seq) > (?, ?)\n\t\tAND at <= ?", true},
		{"WHERE views >= ? AND views < ?", "views", ">=", ">", "WHERE views > ? AND views < ?", true},
		{"WHERE at >= ? AND at >= ?", "at", ">=", ">", "WHERE at >= ? AND at >= ?", false},
	} {
		got, ok := rebound(c.cql, c.col, c.old, c.new)
		if got != c.want || ok != c.ok {
			t.Errorf("rebound(%q, %s %s → %s) = %q, %v; want %q, %v", c.cql, c.col, c.old, c.new, got, ok, c.want, c.ok)
		}
	}
}

// A statement that lacks the relation a bound needs is an error at the
// read, not a read with the default bound.
func TestBoundsOfStatementsThatDoNotMatch(t *testing.T) {
	tb := NewTableFrom(TableSpec{Name: "t", Pattern: "P", PartitionKey: []Column{{Name: "k", Type: "text"}}, Clustering: []Column{{Name: "at", Type: "timestamp", Desc: true}}},
		TableCQL{{cqlspec.Statement{Slot: cqlspec.SlotFirst}, "SELECT k FROM t WHERE k = ?"}, {cqlspec.Statement{Slot: cqlspec.SlotFirstFrom}, "SELECT k FROM t WHERE k = ? AND at >= ?"}})
	if _, err := tb.WithBounds(true, false); err == nil {
		t.Error("a From statement with an ascending operator on a descending column made a variant")
	}
	if v, err := tb.WithBounds(false, false); v != tb || err != nil {
		t.Errorf("the default bounds: %v, %v", v, err)
	}
}

// A filter read's variants change each range condition's relations
// alone, as its bounds say, in every statement; the others stay; a
// choice of the wrong length is an error.
func TestWithRangeBounds(t *testing.T) {
	spec := TableSpec{Name: "v", Pattern: "P", PartitionKey: []Column{{Name: "k", Type: "text"}}, Clustering: []Column{{Name: "c", Type: "int"}},
		Columns: []Column{{Name: "a", Type: "int"}, {Name: "b", Type: "int"}, {Name: "tag", Type: "text"}},
		Index:   &IndexSpec{Scatter: true, Conds: []IndexCond{{Column: "a", Op: "range"}, {Column: "tag", Op: "eq"}, {Column: "b", Op: "range"}}},
		Values:  []Column{{Name: "a", Type: "int"}, {Name: "a", Type: "int"}, {Name: "tag", Type: "text"}, {Name: "b", Type: "int"}, {Name: "b", Type: "int"}}}
	tb := NewTable(spec)
	if v, err := tb.WithRangeBounds([]bool{false, false, false, false}); v != tb || err != nil {
		t.Errorf("the default bounds: %v, %v", v, err)
	}
	v, err := tb.WithRangeBounds([]bool{true, false, false, true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range v.cql {
		if !strings.Contains(strings.Join(strings.Fields(s.Text), " "), "a > ? AND a < ? AND tag = ? AND b >= ? AND b <= ?") {
			t.Errorf("%s: %s", s.Slot, s.Text)
		}
	}
	if again, _ := tb.WithRangeBounds([]bool{true, false, false, true}); again != v {
		t.Error("a variant built twice")
	}
	v, _ = tb.WithRangeBounds([]bool{false, true, true, false})
	if s := strings.Join(strings.Fields(v.cql[0].Text), " "); !strings.Contains(s, "a >= ? AND a <= ? AND tag = ? AND b > ? AND b < ?") {
		t.Errorf("first: %s", s)
	}
	if _, err := tb.WithRangeBounds([]bool{true, false}); err == nil {
		t.Error("two bounds for two ranges made a variant")
	}
}
