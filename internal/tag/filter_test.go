package tag

import (
	"strings"
	"testing"
)

// TestParseFilter reads a filter pattern's conditions, operators of one
// and two words, each at the offset of its column and of its operator.
func TestParseFilter(t *testing.T) {
	lit := "`filter:\"tags contains and added_date range and meta contains key and n between and c not in\" on:\"videos\" pk:\"owner\" name:\"VideosTagged\"`"
	p, errs := ParsePattern(lit)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	f := p.Filter
	if f == nil || p.Index != nil || f.On.Name != "videos" || f.OrOff != -1 || p.Name.Name != "VideosTagged" || len(p.PK) != 1 {
		t.Fatalf("got %+v, filter %+v", p, f)
	}
	want := []struct {
		col string
		op  FilterOp
		lit string
	}{{"tags", OpContains, "contains"}, {"added_date", OpRange, "range"}, {"meta", OpContainsKey, "contains key"}, {"n", OpBetween, "between"}, {"c", OpNotIn, "not in"}}
	if len(f.Conds) != len(want) {
		t.Fatalf("conds = %+v", f.Conds)
	}
	for i, w := range want {
		c := f.Conds[i]
		if c.Column.Name != w.col || c.Op != w.op {
			t.Errorf("cond %d = %+v, want %s %s", i, c, w.col, w.op)
		}
		if got := lit[c.Column.Off : c.Column.Off+len(w.col)]; got != w.col {
			t.Errorf("column %s at %q", w.col, got)
		}
		if got := lit[c.OpOff : c.OpOff+len(w.lit)]; got != w.lit {
			t.Errorf("op %s at %q", w.lit, got)
		}
	}
}

// TestParseFilterOr keeps an or, at its offset, for the model to refuse
// with the target version's reason.
func TestParseFilterOr(t *testing.T) {
	lit := "`filter:\"category eq or language eq\" name:\"X\"`"
	p, errs := ParsePattern(lit)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	if off := p.Filter.OrOff; off < 0 || lit[off:off+2] != "or" {
		t.Errorf("or at %d", off)
	}
}

// TestParseFilterErrors reports each mistake of a filter tag at its
// offset, with a message that says what to write.
func TestParseFilterErrors(t *testing.T) {
	for _, c := range []struct{ lit, at, msg string }{
		{"`filter:\"\" name:\"X\"`", "\" name", "filter is empty"},
		{"`filter:\"tags\" name:\"X\"`", "\" name", "expected how tags is read"},
		{"`filter:\"tags has and x eq\" name:\"X\"`", "has", "\"has\" is not an operator"},
		{"`filter:\"tags contains, x eq\" name:\"X\"`", ", x", "expected and between conditions"},
		{"`filter:\"c not like\" name:\"X\"`", "like", "expected \"not in\""},
		{"`filter:\"a eq and b eq\"`", "filter", "needs its read method's name"},
		{"`filter:\"a eq and b eq\" name:\"X\" ttl:\"1d\"`", "ttl", "a filter pattern takes"},
		{"`filter:\"a eq and b eq\" name:\"X\" index:\"i\"`", "a eq and b eq", "filter on an ANN read is one condition"},
		{"`filter:\"a eq and b eq\" name:\"X\" col:\"a\"`", "col", "a filter pattern takes filter, on, pk, name, doc, ignore, not col"},
	} {
		p, errs := ParsePattern(c.lit)
		if len(errs) == 0 {
			t.Errorf("%s: no error (%+v)", c.lit, p)
			continue
		}
		e := errs[0]
		if !strings.Contains(e.Msg, c.msg) || !strings.HasPrefix(c.lit[e.Off:], c.at) {
			t.Errorf("%s: error %q at %q, want %q at %q", c.lit, e.Msg, c.lit[e.Off:], c.msg, c.at)
		}
	}
}
