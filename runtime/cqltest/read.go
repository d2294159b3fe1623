package cqltest

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// DefaultPageSize is the page size of a read whose Query.PageSize is 0:
// gocql's default (ClusterConfig.PageSize), which the runtime's session
// keeps. A read is one page: nothing fetches the next one unless the
// caller passes the paging state back.
const DefaultPageSize = 5000

// resultColumn names and types a column of a result.
type resultColumn struct {
	name string
	typ  *cqlType
}

// result is what a statement returns: rows of raw values (nil for null),
// and where the next page starts (nil after the last).
type result struct {
	cols  []resultColumn
	rows  [][][]byte
	state []byte
}

// bounds checks the slice restrictions of a SELECT and resolves them:
// for each side, a value for the first column bounded and, for a
// multi-column bound, one for each column after it.
func (st *prepared) bounds(vals []value) (lower, upper [][]byte, err error) {
	get := func(b *bound) ([][]byte, error) {
		if b == nil {
			return nil, nil
		}
		var out [][]byte
		for i, tv := range append([]term{b.val}, b.more...) {
			c := st.table.ck[len(st.ckEq)+i]
			switch v := tv.get(vals); {
			case v.unset:
				return nil, invalidf("Invalid unset value for column %s", c.name)
			case v.b == nil && !b.multi:
				// Cassandra 5.0 takes a null single-column bound as the
				// start of the column's clustering order, before every
				// value (an empty one too): on an ascending column c >
				// null selects every row and c < null none, on a
				// descending one the reverse. A multi-column bound
				// refuses it. Kept as a nil value, which matches reads.
				out = append(out, nil)
			case v.b == nil:
				return nil, invalidf("Invalid null value in condition for column %s", c.name)
			default:
				out = append(out, v.b)
			}
		}
		return out, nil
	}
	if lower, err = get(st.lower); err != nil {
		return nil, nil, err
	}
	upper, err = get(st.upper)
	return lower, upper, err
}

// matches tells whether a clustering key satisfies the restrictions:
// equal on the prefix, within the bounds on the columns that follow.
// Bounds are on values, not on the clustering order: c > x selects values
// above x whether the column is ASC or DESC, and a multi-column bound
// compares values column by column, (a, b) > (x, y) being a > x, or a = x
// and b > y, whatever the columns' orders.
func (st *prepared) matches(key, eq [][]byte, lower, upper [][]byte) bool {
	t := st.table
	for i, v := range eq {
		if compareValues(t.ck[i].typ, key[i], v) != 0 {
			return false
		}
	}
	compare := func(b [][]byte) int {
		for j, v := range b {
			i := len(eq) + j
			if v == nil { // a null bound: the start of the clustering order
				if t.ck[i].desc {
					return -1
				}
				return 1
			}
			if c := compareValues(t.ck[i].typ, key[i], v); c != 0 {
				return c
			}
		}
		return 0
	}
	if lower != nil {
		c := compare(lower)
		if c < 0 || c == 0 && !st.lower.inclusive {
			return false
		}
	}
	if upper != nil {
		c := compare(upper)
		if c > 0 || c == 0 && !st.upper.inclusive {
			return false
		}
	}
	return true
}

// perPartitionLimit resolves the PER PARTITION LIMIT of a SELECT: the
// most rows a partition returns, 0 for no limit. As Cassandra's
// (SelectStatement.getLimit), it takes an unset value for no limit, and
// its messages are those of LIMIT. An empty value, on which Cassandra
// fails with a server error, is refused as a malformed one.
func (st *prepared) perPartitionLimit(vals []value) (int, error) {
	n, err := limitOf(st.perPartition, vals)
	if err != nil || st.limit == nil {
		return n, err
	}
	// LIMIT, on the one partition a SELECT reads, bounds it alike.
	if st.scan || st.pkIn {
		return 0, unsupportedf("LIMIT in a SELECT of several partitions")
	}
	m, err := limitOf(st.limit, vals)
	if n == 0 || (m > 0 && m < n) {
		n = m
	}
	return n, err
}

// limitOf resolves the value of a LIMIT or PER PARTITION LIMIT: 0 for
// none.
func limitOf(t *term, vals []value) (int, error) {
	if t == nil {
		return 0, nil
	}
	switch v := t.get(vals); {
	case v.unset:
		return 0, nil
	case v.b == nil:
		return 0, invalidf("Invalid null value of limit")
	case len(v.b) != 4:
		return 0, invalidf("Invalid limit value")
	default:
		n := int32(binary.BigEndian.Uint32(v.b))
		if n <= 0 {
			return 0, invalidf("LIMIT must be strictly positive")
		}
		return int(n), nil
	}
}

// selectPage runs a SELECT at now (seconds): up to pageSize rows of the
// bound partition, in clustering order, after the paging state's row.
//
// As Cassandra's pager, it returns a paging state whenever the page is
// full, even if no row follows (the next page is then empty), except for
// a table without clustering columns, whose partition holds one row, and
// for a page that reaches the PER PARTITION LIMIT, after which nothing
// follows; and a partition with static values but no rows matching a
// query without clustering restrictions reads as one row of its static
// values, with nulls elsewhere (SelectStatement.processPartition).
//
// Cassandra's paging state keeps how many rows the partition may still
// return; this package's counts again, after a paging state, the rows
// that match up to the state's, included.
func (st *prepared) selectPage(vals []value, now int64, pageSize int, state []byte) (*result, error) {
	if st.ann != nil {
		return st.annPage(vals, now)
	}
	limit, err := st.perPartitionLimit(vals)
	if err != nil {
		return nil, err
	}
	if st.scan {
		return st.scanPage(vals, now, pageSize, limit, state)
	}
	if st.pkIn {
		return st.selectIn(vals, now, pageSize, state)
	}
	t := st.table
	res := &result{}
	for _, s := range st.sel {
		res.cols = append(res.cols, resultColumn{s.name, s.typ})
	}
	pk, eq, err := key(st, vals)
	if err != nil {
		return nil, err
	}
	lower, upper, err := st.bounds(vals)
	if err != nil {
		return nil, err
	}
	fv, err := st.filterValues(vals)
	if err != nil {
		return nil, err
	}
	var after [][]byte
	if len(state) > 0 {
		spk, sck, err := decodeState(state, t.name)
		if err != nil {
			return nil, err
		}
		if len(sck) != len(t.ck) {
			return nil, protocolError("Invalid value for the paging state")
		}
		if encodeKey(spk) != encodeKey(pk) {
			return nil, protocolError("cqltest: the paging state belongs to another partition")
		}
		after = sck
	}
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	p := t.partition(pk, false)
	if p == nil {
		return res, nil
	}
	start, count := 0, 0
	if after != nil {
		start = p.search(t, after)
		if start < len(p.rows) && t.compareClustering(p.rows[start].key, after) == 0 {
			start++
		}
		if limit > 0 {
			for _, r := range p.rows[:start] {
				if st.matches(r.key, eq, lower, upper) && r.live(p.deletion(t, r), now) && st.passes(p, r, fv, now) {
					count++
				}
			}
		}
	}
	for _, r := range p.rows[start:] {
		if limit > 0 && count >= limit {
			return res, nil
		}
		if !st.matches(r.key, eq, lower, upper) {
			continue
		}
		del := p.deletion(t, r)
		if !r.live(del, now) || !st.passes(p, r, fv, now) {
			continue
		}
		res.rows = append(res.rows, st.project(p, r, del, now))
		count++
		if len(res.rows) == pageSize && count != limit {
			if len(t.ck) > 0 {
				res.state = encodeState(t.name, pk, r.key)
			}
			return res, nil
		}
	}
	if len(res.rows) == 0 && after == nil && len(eq) == 0 && lower == nil && upper == nil && len(st.filters) == 0 &&
		t.hasStatic && p.static.anyCell(p.deleted, now) {
		res.rows = append(res.rows, st.project(p, nil, none, now))
	}
	return res, nil
}

// selectIn runs a SELECT with IN ? on the last partition key column: each
// distinct value's partition in turn, in the order of the list, each up
// to the PER PARTITION LIMIT. It does not page: a page size the rows do
// not fit in is refused.
func (st *prepared) selectIn(vals []value, now int64, pageSize int, state []byte) (*result, error) {
	last := len(st.pkEq) - 1
	v := st.pkEq[last].get(vals)
	switch {
	case v.unset:
		return nil, invalidf("Invalid unset value for column %s", st.table.pk[last].name)
	case v.b == nil:
		return nil, invalidf("Invalid null value for partition key part %s", st.table.pk[last].name)
	case len(state) > 0:
		return nil, unsupportedf("paging a SELECT with IN on the partition key")
	}
	elems, ok := listElements(v.b)
	if !ok {
		return nil, invalidf("Invalid list value for IN on %s", st.table.pk[last].name)
	}
	one := *st
	one.pkIn = false
	one.pkEq = append([]term(nil), st.pkEq...)
	res := &result{}
	for _, s := range st.sel {
		res.cols = append(res.cols, resultColumn{s.name, s.typ})
	}
	seen := map[string]bool{}
	for _, e := range elems {
		if seen[string(e)] {
			continue
		}
		seen[string(e)] = true
		one.pkEq[last] = term{mark: -1, lit: e}
		r, err := one.selectPage(vals, now, maxInRows, nil)
		if err != nil {
			return nil, err
		}
		res.rows = append(res.rows, r.rows...)
	}
	if pageSize <= 0 {
		pageSize = DefaultPageSize
	}
	if len(res.rows) > pageSize {
		return nil, unsupportedf("paging a SELECT with IN on the partition key (%d rows, a page of %d)", len(res.rows), pageSize)
	}
	return res, nil
}

// maxInRows bounds the rows of one partition of an IN read.
const maxInRows = 1 << 20

// listElements splits an encoded list (a 4-byte count, then each element
// as a 4-byte length and its bytes).
func listElements(b []byte) ([][]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	r := b[4:]
	var out [][]byte
	for range n {
		if len(r) < 4 {
			return nil, false
		}
		l := int(int32(binary.BigEndian.Uint32(r)))
		r = r[4:]
		if l < 0 || l > len(r) {
			return nil, false
		}
		out = append(out, r[:l])
		r = r[l:]
	}
	return out, len(r) == 0
}

// project picks the selected values of a row (nil: the static values
// alone).
func (st *prepared) project(p *partition, r *row, del, now int64) [][]byte {
	out := make([][]byte, len(st.sel))
	for i, s := range st.sel {
		c := s.col
		var v []byte
		var cl *cell
		switch {
		case c.kind == partitionKey:
			v = p.key[c.pos]
		case c.kind == clusteringKey:
			if r != nil {
				v = r.key[c.pos]
			}
		case c.kind == staticCol:
			v, cl = p.static.value(c, p.deleted, now)
		case r != nil:
			v, cl = r.value(c, del, now)
		}
		switch s.fn {
		case "writetime":
			v = nil
			if cl != nil {
				v = binary.BigEndian.AppendUint64(nil, uint64(cl.ts))
			}
		case "ttl":
			v = nil
			if cl != nil && cl.ttl > 0 {
				v = binary.BigEndian.AppendUint32(nil, uint32(cl.ldt-now))
			}
		}
		out[i] = v
	}
	return out
}

// The paging state: a version byte, the table, the partition key and the
// clustering key of the last row returned, each length-prefixed.
const stateVersion = 1

func encodeState(table string, pk, ck [][]byte) []byte {
	b := []byte{stateVersion}
	b = appendBytes(b, []byte(table))
	for _, parts := range [][][]byte{pk, ck} {
		b = binary.AppendUvarint(b, uint64(len(parts)))
		for _, part := range parts {
			b = appendBytes(b, part)
		}
	}
	return b
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

func decodeState(b []byte, table string) (pk, ck [][]byte, err error) {
	bad := protocolError("Invalid value for the paging state")
	if len(b) == 0 || b[0] != stateVersion {
		return nil, nil, bad
	}
	r := b[1:]
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(r)
		if k <= 0 || n > uint64(len(r)-k) {
			return nil, false
		}
		v := r[k : k+int(n)]
		r = r[k+int(n):]
		return v, true
	}
	name, ok := next()
	if !ok {
		return nil, nil, bad
	}
	if !bytes.Equal(name, []byte(table)) {
		return nil, nil, protocolError("cqltest: the paging state belongs to table " + string(name))
	}
	var lists [2][][]byte
	for i := range lists {
		n, k := binary.Uvarint(r)
		if k <= 0 || n > uint64(len(r)) {
			return nil, nil, bad
		}
		r = r[k:]
		lists[i] = make([][]byte, n)
		for j := range lists[i] {
			if lists[i][j], ok = next(); !ok {
				return nil, nil, bad
			}
		}
	}
	if len(r) != 0 {
		return nil, nil, bad
	}
	return lists[0], lists[1], nil
}

// filterValues resolves the values of a SELECT's restrictions on indexed
// columns; as Cassandra, it refuses a null or unset one.
func (st *prepared) filterValues(vals []value) ([][]byte, error) {
	var out [][]byte
	for _, f := range st.filters {
		v := f.val.get(vals)
		switch {
		case v.unset:
			return nil, invalidf("Invalid unset value for column %s", f.col.name)
		case v.b == nil:
			return nil, invalidf("Invalid null value for column %s", f.col.name)
		}
		out = append(out, v.b)
	}
	return out, nil
}

// passes reports whether row r of p satisfies the restrictions on indexed
// columns, whose values are fv: a row without a value in such a column
// never does.
func (st *prepared) passes(p *partition, r *row, fv [][]byte, now int64) bool {
	for i, f := range st.filters {
		var v []byte
		if f.col.kind == staticCol {
			v, _ = p.static.value(f.col, p.deleted, now)
		} else {
			v, _ = r.value(f.col, p.deletion(st.table, r), now)
		}
		if v == nil {
			return false
		}
		if f.op == "contains key" {
			es, _ := f.col.typ.elements(v) // a map's keys and values, in turn
			found := false
			for k := 0; k+1 < len(es); k += 2 {
				found = found || compareValues(f.col.typ.key, es[k], fv[i]) == 0
			}
			if !found {
				return false
			}
			continue
		}
		if f.op == "contains" {
			es, _ := listElements(v)
			if !slices.ContainsFunc(es, func(e []byte) bool { return compareValues(f.col.typ.elem, e, fv[i]) == 0 }) {
				return false
			}
			continue
		}
		c := compareValues(f.col.typ, v, fv[i])
		var ok bool
		switch f.op {
		case "=":
			ok = c == 0
		case "<":
			ok = c < 0
		case "<=":
			ok = c <= 0
		case ">":
			ok = c > 0
		case ">=":
			ok = c >= 0
		}
		if !ok {
			return false
		}
	}
	return true
}
