package tag

import (
	"fmt"
	"strings"
)

// FilterOp is how a condition of a filter pattern tests its indexed
// column.
type FilterOp string

// The operators a filter condition may name, as the tag writes them. The
// target Cassandra version decides which a read may use (the model's
// Operators); the parser takes them all, so that a refused one is
// reported at its position with the version that refuses it.
const (
	OpEq          FilterOp = "eq"           // col = ?
	OpRange       FilterOp = "range"        // col >= ? AND col < ?, each end per the read's options
	OpContains    FilterOp = "contains"     // a set's or list's element: col CONTAINS ?
	OpContainsKey FilterOp = "contains key" // a map's key: col CONTAINS KEY ?
	OpBetween     FilterOp = "between"      // col BETWEEN ? AND ?, both ends inclusive (Cassandra 6)
	OpIn          FilterOp = "in"           // col IN ?
	OpNotIn       FilterOp = "not in"       // col NOT IN ?
	OpLike        FilterOp = "like"         // col LIKE ?
)

// FilterOps are the operators a filter condition may name, in
// documentation order.
var FilterOps = []FilterOp{OpEq, OpRange, OpContains, OpContainsKey, OpBetween, OpIn, OpNotIn, OpLike}

// FilterCond is one condition of a filter pattern: an indexed column and
// its operator.
type FilterCond struct {
	Column Ident
	Op     FilterOp
	OpOff  int
}

// Filter is a filter pattern (filter:"..."): a read that combines
// conditions on several indexed columns of one table, each served by
// the column's own storage-attached index.
type Filter struct {
	Conds []FilterCond
	On    Ident // the table; empty when defaulted to the source of truth
	// OrOff is the offset of an "or" joining two conditions, -1 when the
	// conditions are joined by and alone. The parser takes it so that the
	// model refuses it with the target version's reason.
	OrOff int
	Off   int // the filter key's value
}

// FilterKeys are the keys a filter pattern may use.
var FilterKeys = []string{"filter", "on", "pk", "name", "doc", "ignore"}

// parseFilter reads the conditions of a filter pattern, joined by and:
// "tags contains and added_date range", "category eq and language eq".
func parseFilter(v Value) (*Filter, *Error) {
	const code, what = "bad-value", "filter"
	lx := newLexer(v)
	f := &Filter{OrOff: -1, Off: v.Off(0)}
	if lx.peek().kind == tokEOF {
		return nil, lx.errorf(lx.peek(), code, "filter is empty; write the indexed columns and how each is read, joined by and, e.g. filter:\"tags contains and added_date range\"")
	}
	for {
		col, err := lx.ident(code, what)
		if err != nil {
			return nil, err
		}
		t := lx.next()
		if t.kind != tokWord {
			return nil, lx.errorf(t, code, "filter: expected how %s is read (%s) after it, found %s", col.Name, opList(), t)
		}
		c := FilterCond{Column: col, OpOff: v.Off(t.pos)}
		switch w := strings.ToLower(t.text); w {
		case "contains":
			c.Op = OpContains
			if n := lx.peek(); n.kind == tokWord && strings.EqualFold(n.text, "key") {
				lx.next()
				c.Op = OpContainsKey
			}
		case "not":
			n := lx.next()
			if n.kind != tokWord || !strings.EqualFold(n.text, "in") {
				return nil, lx.errorf(n, code, "filter: expected \"not in\" after %s, found %s", col.Name, n)
			}
			c.Op = OpNotIn
		default:
			op := FilterOp(w)
			if op == OpContainsKey || op == OpNotIn || !containsOp(op) {
				return nil, lx.errorf(t, code, "filter: %s is not an operator a filter reads a column with; write %s", t, opList())
			}
			c.Op = op
		}
		f.Conds = append(f.Conds, c)
		t = lx.peek()
		if t.kind == tokEOF {
			return f, nil
		}
		if t.kind == tokWord && strings.EqualFold(t.text, "or") && f.OrOff < 0 {
			f.OrOff = v.Off(t.pos)
		} else if t.kind != tokWord || !strings.EqualFold(t.text, "and") && !strings.EqualFold(t.text, "or") {
			return nil, lx.errorf(t, code, "filter: expected and between conditions, found %s", t)
		}
		lx.next()
	}
}

func containsOp(op FilterOp) bool {
	for _, o := range FilterOps {
		if o == op {
			return true
		}
	}
	return false
}

func opList() string {
	var s []string
	for _, o := range FilterOps {
		s = append(s, string(o))
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// checkFilterPattern reports the keys a filter pattern cannot take.
func (p *Pattern) checkFilterPattern() []*Error {
	var errs []*Error
	for _, k := range PatternKeys {
		off, ok := p.KeyOffs[k]
		if !ok || containsKey(FilterKeys, k) {
			continue
		}
		msg := fmt.Sprintf("a filter pattern takes %s, not %s: it reads, through the indexes its columns have, a table another pattern declares", strings.Join(FilterKeys, ", "), k)
		if k == "table" || k == "index" {
			msg = "a pattern declares a table (table:\"...\"), an index (index:\"...\") or a read over several indexes (filter:\"...\"), one of them"
		}
		errs = append(errs, &Error{Off: off, Code: "bad-value", Msg: msg})
	}
	if _, ok := p.KeyOffs["name"]; !ok {
		errs = append(errs, &Error{Off: p.KeyOffs["filter"], Code: "bad-value", Msg: "a filter pattern needs its read method's name: name:\"VideosByTagAndDate\""})
	}
	return errs
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}
