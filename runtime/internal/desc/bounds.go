package desc

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
)

// A read's bounds are inclusive or exclusive, each side on its own: From
// inclusive and To exclusive by default, in the order rows come back.
// Generated code declares each page statement once, with the default
// operators; the three other choices run the same statements with the
// operator of the bound, and only that, changed: >= becomes > (or <=,
// <, on a descending column) for an exclusive From, < becomes <= (or >,
// >=) for an inclusive To. The placeholders and what they bind do not
// change. A bound's operator is the only thing that differs, so the
// variants are derived here, once per table and choice, rather than
// declared: four times the page statements of every read, of every depth
// of a prefix and of every scatter form, would be most of a repository's
// generated code for an option most reads never set.
//
// Only the statements a bound reaches change: an exclusive From, the
// statements that read from the first row (a continuation starts after
// a row, never at From); an inclusive To, every statement that carries
// To. So cursors, the merge over hash buckets and the walk over time
// buckets run as with the default bounds, on the variant's statements.

// boundVariants are the variants of a table's statements for the
// non-default bound choices, built on first use.
type boundVariants struct {
	once [3]sync.Once
	t    [3]*Table
	err  [3]error
	// filter are a filter read's variants, by the mask of its range
	// conditions' choices (see WithRangeBounds).
	filter sync.Map // uint64 -> *filterVariant
}

type filterVariant struct {
	once sync.Once
	t    *Table
	err  error
}

// WithRangeBounds is t, a filter read, or the variant of it whose range
// conditions take the bounds given: bounds holds, for each range
// condition in order, whether its From is exclusive then whether its To
// is inclusive. Each condition's relations change alone, as WithBounds
// changes a single range's.
func (t *Table) WithRangeBounds(bounds []bool) (*Table, error) {
	ix := t.Spec.Index
	var ranges []string
	if ix != nil {
		for _, c := range ix.Conds {
			if c.Op == "range" {
				ranges = append(ranges, c.Column)
			}
		}
	}
	if len(bounds) != 2*len(ranges) || len(ranges) > 32 {
		return nil, fmt.Errorf("cqlgen: %s: %d range bounds for %d range conditions: regenerate the package", t.Spec.Pattern, len(bounds), len(ranges))
	}
	var mask uint64
	for i, b := range bounds {
		if b {
			mask |= 1 << i
		}
	}
	if mask == 0 {
		return t, nil
	}
	v, _ := t.bounds.filter.LoadOrStore(mask, &filterVariant{})
	fv := v.(*filterVariant)
	fv.once.Do(func() {
		c := slices.Clone(t.cql)
		for i := range c {
			s := &c[i]
			if s.Slot != cqlspec.SlotFirst && s.Slot != cqlspec.SlotNext && s.Slot != cqlspec.SlotAfter {
				continue
			}
			for k, col := range ranges {
				q := cqlspec.Quote(col)
				for _, ch := range []struct {
					on       bool
					old, new string
				}{{bounds[2*k], ">=", ">"}, {bounds[2*k+1], "<", "<="}} {
					if !ch.on || fv.err != nil {
						continue
					}
					var ok bool
					if s.Text, ok = rebound(s.Text, q, ch.old, ch.new); !ok {
						fv.err = fmt.Errorf("cqlgen: %s: a statement of %s without one relation %s %s ?: regenerate the package", t.Spec.Pattern, t.Spec.Name, q, ch.old)
					}
				}
			}
		}
		if fv.err == nil {
			fv.t = NewTableFrom(t.Spec, c)
		}
	})
	return fv.t, fv.err
}

// WithBounds is t, or the variant of t whose bounds exclude From
// (fromExcl) and include To (toIncl): on a table of pages, the bounds on
// the first clustering column not fixed; on a range read through an
// index (two Index values), the bounds on the indexed column.
func (t *Table) WithBounds(fromExcl, toIncl bool) (*Table, error) {
	v := 0
	if fromExcl {
		v |= 1
	}
	if toIncl {
		v |= 2
	}
	if v == 0 {
		return t, nil
	}
	b := t.bounds
	b.once[v-1].Do(func() {
		var c TableCQL
		if c, b.err[v-1] = boundCQL(t.Spec, t.cql, fromExcl, toIncl); b.err[v-1] == nil {
			b.t[v-1] = NewTableFrom(t.Spec, c)
		}
	})
	return b.t[v-1], b.err[v-1]
}

// boundCQL is c, the statements of spec, with the operators of its
// bounds changed (see withBounds). A statement that should bound a
// column and does not, in exactly one relation, is an error: a renderer
// that no longer writes the relations this expects.
func boundCQL(spec TableSpec, c TableCQL, fromExcl, toIncl bool) (TableCQL, error) {
	c = slices.Clone(c)
	var err error
	change := func(s *string, col, old, new string) {
		if err != nil || *s == "" {
			return
		}
		var ok bool
		if *s, ok = rebound(*s, col, old, new); !ok {
			err = fmt.Errorf("cqlgen: %s: a statement of %s without one relation %s %s ?: regenerate the package", spec.Pattern, spec.Name, col, old)
		}
	}
	for i := range c {
		s := &c[i]
		if len(spec.Values) == 2 && (spec.Index == nil || len(spec.Index.Conds) == 0) {
			// A range read through an index: col >= ? AND col < ? in
			// every statement, whatever the clustering order.
			if s.Depth > 0 || s.Scatter || s.Slot != cqlspec.SlotFirst && s.Slot != cqlspec.SlotNext && s.Slot != cqlspec.SlotAfter {
				continue
			}
			col := spec.Values[0].Name
			if fromExcl {
				change(&s.Text, col, ">=", ">")
			}
			if toIncl {
				change(&s.Text, col, "<", "<=")
			}
			continue
		}
		// A page statement of depth k bounds clustering column k.
		if s.Depth >= len(spec.Clustering) {
			continue
		}
		col := spec.Clustering[s.Depth]
		from, fromX, to, toI := ">=", ">", "<", "<="
		if col.Desc {
			from, fromX, to, toI = "<=", "<", ">", ">="
		}
		switch s.Slot {
		case cqlspec.SlotFirstFrom, cqlspec.SlotFirstFromTo:
			if fromExcl {
				change(&s.Text, col.Name, from, fromX)
			}
		}
		switch s.Slot {
		case cqlspec.SlotFirstTo, cqlspec.SlotFirstFromTo, cqlspec.SlotAfterTo, cqlspec.SlotAtOrAfterTo:
			if toIncl {
				change(&s.Text, col.Name, to, toI)
			}
		}
	}
	return c, err
}

// rebound replaces, in cql, the one relation "col old ?" with "col new ?".
// A relation is the column's name as a whole word, one space, the
// operator, one space and a placeholder, as the generator writes it; false
// when cql holds no such relation, or several.
func rebound(cql, col, old, new string) (string, bool) {
	rel := col + " " + old + " ?"
	at := -1
	for i := 0; ; {
		j := strings.Index(cql[i:], rel)
		if j < 0 {
			break
		}
		j += i
		if j == 0 || !identByte(cql[j-1]) {
			if at >= 0 {
				return cql, false
			}
			at = j
		}
		i = j + len(rel)
	}
	if at < 0 {
		return cql, false
	}
	return cql[:at] + col + " " + new + " ?" + cql[at+len(rel):], true
}

// identByte reports a byte that can be part of a CQL identifier, quoted
// or not.
func identByte(b byte) bool {
	return b == '_' || b == '"' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
