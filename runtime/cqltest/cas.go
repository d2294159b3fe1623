package cqltest

import "github.com/cqlgen/cqlgen/runtime/cqldriver"

// appliedColumn is the first column of a conditional write's result.
var appliedColumn = resultColumn{name: "[applied]", typ: (&cqlType{kind: cqldriver.TypeBoolean, name: "boolean"}).complete()}

// cas runs a conditional write as one Paxos round would, with the caller
// holding the lock: it reads the row, checks the condition, and applies
// the write at ts, the ballot's timestamp, only if it holds.
//
// The result is Cassandra's: [applied] alone when the write applied, or
// when it did not and the row does not exist (unless the condition names
// a static column and the partition has static values); otherwise [applied] and the
// row's current values, of the columns of the condition in the order of
// the IF clause, or, for IF EXISTS and IF NOT EXISTS, of every column, as
// SELECT * orders them (ModificationStatement.buildCasResultSet).
func (w *write) cas(now int64, nextPath func() []byte) (*result, error) {
	st, t := w.st, w.st.table
	var r *row
	var del int64 = none
	p := t.partition(w.pk, false)
	exists := false
	if p != nil {
		if r = p.lookup(t, w.ck); r != nil {
			del = p.deletion(t, r)
			if r == p.static {
				exists = r.anyCell(del, now)
			} else {
				exists = r.live(del, now)
			}
		}
	}
	current := func(c *column) []byte {
		switch {
		case p == nil:
			return nil
		case c.kind == staticCol:
			v, _ := p.static.value(c, p.deleted, now)
			return v
		case r == nil:
			return nil
		}
		v, _ := r.value(c, del, now)
		return v
	}
	applies := true
	switch {
	case st.ifNotExists:
		applies = !exists
	case st.ifExists:
		applies = exists
	default:
		for _, c := range st.conds {
			v := c.val.get(w.vals)
			if v.unset {
				return nil, invalidf("Invalid 'unset' value in condition")
			}
			ok, err := satisfies(c.col.typ, c.op, current(c.col), v.b)
			if err != nil {
				return nil, err
			}
			if !ok {
				applies = false
				break
			}
		}
	}
	res := &result{cols: []resultColumn{appliedColumn}}
	if applies {
		w.apply(now, nextPath)
		res.rows = [][][]byte{{{1}}}
		return res, nil
	}
	res.rows = [][][]byte{{{0}}}
	if !exists && !st.ifNotExists && !st.ifExists && p != nil && p.static != nil && p.static.anyCell(p.deleted, now) {
		// No row, but the partition's static values: Cassandra returns
		// the condition's columns all the same, nulls for the row's.
		for _, c := range st.conds {
			if c.col.kind == staticCol {
				exists = true
			}
		}
	}
	if !exists {
		return res, nil
	}
	var cols []*column
	if st.ifNotExists || st.ifExists {
		cols = t.selectAll
	} else {
		seen := map[*column]bool{}
		for _, c := range st.conds {
			if !seen[c.col] {
				seen[c.col] = true
				cols = append(cols, c.col)
			}
		}
	}
	for _, c := range cols {
		res.cols = append(res.cols, resultColumn{c.name, c.typ})
		var v []byte
		switch c.kind {
		case partitionKey:
			v = w.pk[c.pos]
		case clusteringKey:
			if r.key != nil { // nil for the static row
				v = r.key[c.pos]
			}
		default:
			v = current(c)
		}
		res.rows[0] = append(res.rows[0], v)
	}
	return res, nil
}

// satisfies evaluates "current op value" as a column condition does
// (ColumnCondition): null equals only null; any other comparison with
// null is false, and Cassandra refuses an ordering against a null value.
func satisfies(typ *cqlType, op string, current, value []byte) (bool, error) {
	if value == nil {
		switch op {
		case "=":
			return current == nil, nil
		case "!=":
			return current != nil, nil
		}
		return false, invalidf("Invalid comparison with null for operator \"%s\"", op)
	}
	if current == nil {
		return op == "!=", nil
	}
	c := compareValues(typ, current, value)
	switch op {
	case "=":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}
