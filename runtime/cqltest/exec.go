package cqltest

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"strings"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// value is a bound value: marshaled bytes (nil for null), or unset.
type value struct {
	b     []byte
	unset bool
}

// bind marshals the values of a query for its markers, as the driver does
// with the prepared statement's metadata, then validates each as
// Cassandra does on receipt. Values are marshaled by cqldriver.Marshal,
// with the codec of the driver adapter the program links (gocqlv1 or
// gocqlv2); the runtime's own values (cqldriver.Encoded, a
// cqldriver.ValueMarshaler) encode themselves, and cqldriver.Unset or a
// driver's UnsetValue leaves the column as it is.
func bind(st *prepared, vals []any) ([]value, error) {
	if len(vals) != len(st.marks) {
		return nil, fmt.Errorf("cqltest: expected %d values, got %d", len(st.marks), len(vals))
	}
	out := make([]value, len(vals))
	// Every value is encoded, as the driver does before it sends the
	// request, before the server validates any: a value the driver
	// cannot encode is refused first, whatever comes before it.
	for i, v := range vals {
		if isUnset(v) {
			out[i].unset = true
			continue
		}
		m := st.marks[i]
		b, err := cqldriver.Marshal(m.typ.info, v)
		if err != nil {
			// The driver refuses it before sending anything, as the
			// adapters classify it.
			return nil, &cqldriver.DriverError{Kind: cqldriver.ErrorNotSent, Err: fmt.Errorf("cqltest: value %d, for %s (%s): %w", i, m.name, m.typ.name, err)}
		}
		out[i].b = b
	}
	for i := range out {
		m, b := st.marks[i], out[i].b
		if b != nil {
			if err := m.typ.validate(b); err != nil {
				return nil, invalidf("Invalid value %d for %s of type %s: %v", i, m.name, m.typ.name, err)
			}
			// A copy: the caller's slice (a blob, raw bytes) may change.
			out[i].b = append([]byte{}, m.typ.normalize(b)...)
		}
	}
	return out, nil
}

// isUnset recognises cqldriver.Unset and the UnsetValue of either gocql
// driver (a value of their unexported type unsetColumn), which this
// package knows without importing the drivers.
func isUnset(v any) bool {
	if cqldriver.IsUnset(v) {
		return true
	}
	t := reflect.TypeOf(v)
	return t != nil && t.Name() == "unsetColumn" && (strings.HasSuffix(t.PkgPath(), "/gocql") || strings.HasSuffix(t.PkgPath(), "/cassandra-gocql-driver/v2"))
}

func (t term) get(vals []value) value {
	if t.mark < 0 {
		return value{b: t.lit}
	}
	return vals[t.mark]
}

// maxKeyLength is the largest partition key component or clustering value.
const maxKeyLength = 65535

// key resolves the partition key and the clustering key (or prefix) of a
// statement.
func key(st *prepared, vals []value) (pk, ck [][]byte, err error) {
	t := st.table
	if pk, err = keyValues(st.pkEq, t.pk, vals, "for partition key part"); err != nil {
		return nil, nil, err
	}
	if len(pk) == 1 && len(pk[0]) == 0 {
		return nil, nil, invalidf("Key may not be empty")
	}
	if st.staticRow {
		return pk, nil, nil
	}
	if ck, err = keyValues(st.ckEq, t.ck, vals, "in condition for column"); err != nil {
		return nil, nil, err
	}
	return pk, ck, nil
}

// keyValues resolves the values of the key columns cols that terms fix,
// as Cassandra refuses them: unset, null (its message saying of a null
// what nullOf says) or too long.
func keyValues(terms []term, cols []*column, vals []value, nullOf string) ([][]byte, error) {
	out := make([][]byte, len(terms))
	for i, tm := range terms {
		v := tm.get(vals)
		switch {
		case v.unset:
			return nil, invalidf("Invalid unset value for column %s", cols[i].name)
		case v.b == nil:
			return nil, invalidf("Invalid null value %s %s", nullOf, cols[i].name)
		case len(v.b) > maxKeyLength:
			return nil, invalidf("Key length of %d is longer than maximum of %d", len(v.b), maxKeyLength)
		}
		out[i] = v.b
	}
	return out, nil
}

// write is a bound INSERT, UPDATE or DELETE, ready to apply.
type write struct {
	st     *prepared
	pk, ck [][]byte // ck: nil for the static row; a prefix for a range deletion
	vals   []value  // by marker
	ts     int64    // write timestamp, µs
	ttl    int32    // seconds
}

// bindWrite resolves a write's key, timestamp and TTL. now is the default
// timestamp, for statements without USING TIMESTAMP.
func bindWrite(st *prepared, vals []value, now int64) (*write, error) {
	pk, ck, err := key(st, vals)
	if err != nil {
		return nil, err
	}
	w := &write{st: st, pk: pk, ck: ck, vals: vals, ts: now, ttl: st.table.defaultTTL}
	for _, a := range st.sets {
		if a.op == 0 {
			continue
		}
		switch v := a.val.get(vals); {
		case v.b == nil && !v.unset:
			return nil, invalidf("Invalid null value for counter increment")
		case !v.unset && len(v.b) != 8:
			return nil, invalidf("Invalid empty value for counter increment")
		}
	}
	if st.ts != nil {
		switch v := st.ts.get(vals); {
		case v.unset:
		case v.b == nil:
			return nil, invalidf("Invalid null value of timestamp")
		case len(v.b) == 0:
			return nil, invalidf("Invalid empty value of timestamp")
		default:
			w.ts = int64(binary.BigEndian.Uint64(v.b))
		}
	}
	if st.ttl != nil {
		switch v := st.ttl.get(vals); {
		case v.unset: // the table's default
		case v.b == nil:
			w.ttl = 0
		case len(v.b) == 0:
			return nil, invalidf("Invalid empty value of TTL")
		default:
			n := int32(binary.BigEndian.Uint32(v.b))
			if n < 0 {
				return nil, invalidf("A TTL must be greater or equal to 0, but was %d", n)
			}
			if n > maxTTL {
				return nil, invalidf("ttl is too large. requested (%d) maximum (%d)", n, maxTTL)
			}
			w.ttl = n // 0 means no TTL, even with a default_time_to_live
		}
	}
	return w, nil
}

// apply writes w into its table at now (seconds, for TTLs and tombstones).
// nextPath numbers the elements of lists.
func (w *write) apply(now int64, nextPath func() []byte) {
	st, t := w.st, w.st.table
	p := t.partition(w.pk, true)
	expiring := cell{ts: w.ts, ttl: w.ttl}
	if w.ttl > 0 {
		expiring.ldt = now + int64(w.ttl)
	}
	tombstone := cell{ts: w.ts, dead: true, ldt: now}
	target := func(c *column) *row {
		if c.kind == staticCol {
			return p.static
		}
		return p.row(t, w.ck)
	}
	switch st.kind {
	case insertStmt, updateStmt:
		if st.kind == insertStmt && !st.staticRow {
			r := p.row(t, w.ck)
			if m := expiring; !r.marker.supersedes(&m) {
				r.marker = m
			}
		}
		for _, a := range st.sets {
			v := a.val.get(w.vals)
			if v.unset {
				continue // an unset value writes nothing
			}
			r := target(a.col)
			switch {
			case a.op != 0:
				// Checked in bindWrite: 8 bytes.
				delta := int64(binary.BigEndian.Uint64(v.b))
				if a.op == '-' {
					delta = -delta
				}
				r.addCounter(a.col, delta, w.ts)
			case a.col.typ.multiCell():
				r.writeCollection(a.col, v.b, expiring, nextPath)
			case v.b == nil:
				mergeCell(r.cells, a.col, tombstone)
			default:
				c := expiring
				c.value = v.b
				mergeCell(r.cells, a.col, c)
			}
		}
	case deleteStmt:
		switch {
		case len(st.delCols) > 0:
			for _, c := range st.delCols {
				r := target(c)
				if c.typ.multiCell() {
					if r.colls[c] == nil {
						r.colls[c] = &multiCell{deleted: none}
					}
					r.colls[c].deleted = max(r.colls[c].deleted, w.ts)
					continue
				}
				mergeCell(r.cells, c, tombstone)
			}
		case len(w.ck) == len(t.ck):
			r := p.row(t, w.ck)
			r.deleted = max(r.deleted, w.ts)
		case len(w.ck) == 0:
			p.deleted = max(p.deleted, w.ts)
		default:
			p.ranges = append(p.ranges, rangeDeletion{prefix: w.ck, ts: w.ts})
		}
	}
}

// mergeCell reconciles an update into a row's cell of a column.
func mergeCell(cells map[*column]*cell, col *column, update cell) {
	if old := cells[col]; old == nil || !old.supersedes(&update) {
		cells[col] = &update
	}
}
