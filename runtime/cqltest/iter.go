package cqltest

import (
	"fmt"
	"sort"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// Reading results: the Iter of a page, and the rows of a table as maps.

// iter is one page of a result.
type iter struct {
	res *result
	pos int
	err error
}

// Scan copies the next row into dest, as a driver's Iter.Scan does: one
// destination per column (nil skips it), unmarshaled by
// cqldriver.Unmarshal with the codec of the driver adapter the program
// links; a cqldriver.ValueUnmarshaler decodes itself.
func (it *iter) Scan(dest ...any) bool {
	if it.err != nil || it.res == nil || it.pos >= len(it.res.rows) {
		return false
	}
	if len(dest) != len(it.res.cols) {
		it.err = fmt.Errorf("cqltest: not enough columns to scan into: have %d want %d", len(dest), len(it.res.cols))
		return false
	}
	row := it.res.rows[it.pos]
	for i, d := range dest {
		if d == nil {
			continue
		}
		if err := cqldriver.Unmarshal(it.res.cols[i].typ.info, row[i], d); err != nil {
			it.err = err
			return false
		}
	}
	it.pos++
	return true
}

// PageState is where the next page starts; nil after the last page.
func (it *iter) PageState() []byte {
	if it.err != nil || it.res == nil {
		return nil
	}
	return it.res.state
}

// Close returns the error of the read, if any.
func (it *iter) Close() error { return it.err }

// Rows returns the live rows of a table, as SELECT * would return them
// partition by partition (partitions in an unspecified order, rows in
// clustering order), each by column name, decoded to Go values that
// depend on no driver (see decode); a null column is left out of the map.
func (s *Session) Rows(table string) ([]map[string]any, error) {
	t, ok := s.tables[table]
	if !ok {
		return nil, invalidf("unconfigured table %s", table)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, secs := s.now()
	keys := make([]string, 0, len(t.partitions))
	for k := range t.partitions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	st := &prepared{kind: selectStmt, table: t}
	for _, c := range t.selectAll {
		st.sel = append(st.sel, selector{col: c, name: c.name, typ: c.typ})
	}
	var out []map[string]any
	for _, k := range keys {
		p := t.partitions[k]
		n := len(out)
		for _, r := range p.rows {
			del := p.deletion(t, r)
			if r.live(del, secs) {
				out = append(out, st.rowMap(st.project(p, r, del, secs)))
			}
		}
		if n == len(out) && t.hasStatic && p.static.anyCell(p.deleted, secs) {
			out = append(out, st.rowMap(st.project(p, nil, none, secs)))
		}
	}
	return out, nil
}

func (st *prepared) rowMap(vals [][]byte) map[string]any {
	m := make(map[string]any, len(vals))
	for i, v := range vals {
		if v == nil {
			continue
		}
		if d, err := decode(st.sel[i].typ, v); err == nil {
			m[st.sel[i].name] = d
		}
	}
	return m
}
