package cqltest

import (
	"bytes"
	"encoding/binary"
	"math"
	"sort"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// The storage model is Cassandra's, reduced to one replica and one
// memtable that is never flushed: a table holds partitions; a partition
// holds a static row and clustering rows in clustering order, a
// partition deletion and range deletions; a row holds a liveness marker
// (written by INSERT), a row deletion, and cells. Every cell keeps its
// write timestamp, TTL and tombstone flag, so that what a read sees is
// what Cassandra would reconcile: nothing is overwritten in place.

// none is the timestamp of "no deletion" and "no marker".
const none = math.MinInt64

// cell is one write of a value: a live value, an expiring value, or a
// tombstone. A row's liveness marker is a cell without a value.
type cell struct {
	ts    int64  // write timestamp, in microseconds
	value []byte // nil for a tombstone
	dead  bool   // a tombstone
	ttl   int32  // seconds; 0 for a value that does not expire
	ldt   int64  // local deletion time, in seconds: when an expiring value expires, when a tombstone was written
}

// addCounter adds delta to a counter column of r at timestamp ts: as a
// counter's leader replica does, it adds to its running total of the
// counter and writes the sum at ts. A row or partition deletion hides
// the counter, but the total survives it: an increment after the
// deletion writes the old total plus delta, as a Cassandra 5.0 node with
// its counter cache does (the node was seen to read 7 after +5, DELETE
// of the row, +2; Cassandra calls reusing a deleted counter undefined).
// A counter cell's own tombstone (DELETE c FROM ...), unlike other
// cells', wins whatever the timestamps (Cells.reconcile): the column
// stays deleted, and increments are lost.
func (r *row) addCounter(col *column, delta, ts int64) {
	old := r.cells[col]
	var sum int64
	switch {
	case old == nil:
	case old.dead:
		return
	default:
		sum = int64(binary.BigEndian.Uint64(old.value))
		ts = max(ts, old.ts)
	}
	r.cells[col] = &cell{ts: ts, value: binary.BigEndian.AppendUint64(nil, uint64(sum+delta))}
}

// live tells whether c holds a value at now (seconds): not a tombstone,
// and not expired. A value written with TTL t at second s lives while
// now < s + t, as ExpiringCell.isLive.
func (c *cell) live(now int64) bool {
	return c.ts != none && !c.dead && (c.ttl == 0 || now < c.ldt)
}

// supersedes is Cassandra's reconciliation of two versions of a cell
// (Cells.reconcile, and LivenessInfo.supersedes for markers): the higher
// timestamp wins. At equal timestamps a tombstone wins over anything, and
// an expiring value over a value that does not expire (CASSANDRA-14592);
// between two expiring values the later expiry wins; last, the greater
// value, compared as unsigned bytes. Ties keep c.
func (c *cell) supersedes(o *cell) bool {
	if c.ts != o.ts {
		return c.ts > o.ts
	}
	cDel, oDel := c.dead || c.ttl > 0, o.dead || o.ttl > 0
	if cDel || oDel {
		if cDel != oDel {
			return cDel
		}
		if c.dead != o.dead {
			return c.dead
		}
		if c.ldt != o.ldt {
			return c.ldt > o.ldt
		}
	}
	return bytes.Compare(c.value, o.value) >= 0
}

// merge reconciles an update into a stored cell.
func merge(stored **cell, update cell) {
	if *stored == nil || !(*stored).supersedes(&update) {
		*stored = &update
	}
}

// elem is one element of a non-frozen collection: its cell path (a set's
// element, a map's key, a list's position id) and its cell.
type elem struct {
	path []byte
	cell *cell
}

// multiCell is a non-frozen collection column of one row: its elements,
// each a cell of its own, and a collection deletion, which setting the
// whole collection writes at its timestamp minus one.
type multiCell struct {
	deleted int64
	elems   []elem // sorted by path
}

type row struct {
	key     [][]byte // clustering values; nil for the static row
	marker  cell     // primary key liveness; ts == none when never inserted
	deleted int64    // row deletion timestamp
	cells   map[*column]*cell
	colls   map[*column]*multiCell
}

func newRow(key [][]byte) *row {
	return &row{key: key, marker: cell{ts: none}, deleted: none, cells: map[*column]*cell{}, colls: map[*column]*multiCell{}}
}

// rangeDeletion deletes every row whose clustering key starts with prefix.
type rangeDeletion struct {
	prefix [][]byte
	ts     int64
}

type partition struct {
	key     [][]byte
	ser     []byte // the key serialized, as the partitioner hashes it
	token   int64  // its Murmur3 token
	deleted int64
	ranges  []rangeDeletion
	static  *row
	rows    []*row // in clustering order
}

// encodeKey encodes a partition key as a map key. Partitions are told
// apart by their bytes, as Cassandra's partitioner does, not by the type's
// order: decimals 1.0 and 1.00 are two partitions (but one clustering key).
func encodeKey(parts [][]byte) string {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return string(b)
}

func (t *table) partition(key [][]byte, create bool) *partition {
	k := encodeKey(key)
	p := t.partitions[k]
	if p == nil && create {
		ser := serializePartitionKey(key)
		p = &partition{key: key, ser: ser, token: murmur3Token(ser), deleted: none, static: newRow(nil)}
		t.partitions[k] = p
		i := t.ringSearch(p.token, p.ser)
		t.ring = append(t.ring, nil)
		copy(t.ring[i+1:], t.ring[i:])
		t.ring[i] = p
	}
	return p
}

// ringSearch finds the first partition of the ring at or after a key: a
// token and a serialized key. The ring is in Cassandra's order of
// decorated keys: by token, then by the serialized key's bytes, unsigned.
func (t *table) ringSearch(token int64, ser []byte) int {
	return sort.Search(len(t.ring), func(i int) bool {
		p := t.ring[i]
		if p.token != token {
			return p.token > token
		}
		return bytes.Compare(p.ser, ser) >= 0
	})
}

// ringSearchToken finds the first partition of the ring whose token is at
// least token.
func (t *table) ringSearchToken(token int64) int {
	return sort.Search(len(t.ring), func(i int) bool { return t.ring[i].token >= token })
}

// compareClustering orders two clustering keys, or a key and a prefix
// (which sorts first), by the table's clustering order: each column by its
// type's comparator, reversed for DESC.
func (t *table) compareClustering(a, b [][]byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		c := compareValues(t.ck[i].typ, a[i], b[i])
		if t.ck[i].desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return sign(len(a) - len(b))
}

// search finds the first row at or after key.
func (p *partition) search(t *table, key [][]byte) int {
	return sort.Search(len(p.rows), func(i int) bool { return t.compareClustering(p.rows[i].key, key) >= 0 })
}

// row finds or makes the row of a full clustering key; nil is the static
// row.
func (p *partition) row(t *table, key [][]byte) *row {
	if key == nil {
		return p.static
	}
	i := p.search(t, key)
	if i < len(p.rows) && t.compareClustering(p.rows[i].key, key) == 0 {
		return p.rows[i]
	}
	r := newRow(key)
	p.rows = append(p.rows, nil)
	copy(p.rows[i+1:], p.rows[i:])
	p.rows[i] = r
	return r
}

// lookup finds the row of a full clustering key, or nil.
func (p *partition) lookup(t *table, key [][]byte) *row {
	if key == nil {
		return p.static
	}
	if i := p.search(t, key); i < len(p.rows) && t.compareClustering(p.rows[i].key, key) == 0 {
		return p.rows[i]
	}
	return nil
}

// deletion is the deletion timestamp covering a row: the partition's, the
// range deletions', the row's own. The static row is covered by partition
// deletions only.
func (p *partition) deletion(t *table, r *row) int64 {
	d := max(p.deleted, r.deleted)
	if r == p.static {
		return p.deleted
	}
	for _, rd := range p.ranges {
		if len(rd.prefix) <= len(r.key) && t.compareClustering(rd.prefix, r.key[:len(rd.prefix)]) == 0 {
			d = max(d, rd.ts)
		}
	}
	return d
}

// shadows tells whether a deletion at del hides a cell: it does when the
// cell's timestamp is not above it.
func shadows(del int64, c *cell) bool { return c.ts <= del }

// writeCollection sets a non-frozen collection column to a value (nil:
// null): a collection deletion at ts-1, then one cell per element at ts.
// Two writes with the same timestamp therefore merge, as in Cassandra.
// nextPath numbers list elements in write order.
func (r *row) writeCollection(col *column, value []byte, c cell, nextPath func() []byte) {
	mc := r.colls[col]
	if mc == nil {
		mc = &multiCell{deleted: none}
		r.colls[col] = mc
	}
	mc.deleted = max(mc.deleted, c.ts-1)
	if value == nil {
		return
	}
	elems, _ := col.typ.elements(value) // validated when bound
	t := col.typ
	switch t.kind {
	case cqldriver.TypeList:
		for _, v := range elems {
			ec := c
			ec.value = v
			mc.put(t, nextPath(), ec)
		}
	case cqldriver.TypeSet:
		for _, v := range elems {
			ec := c
			ec.value = []byte{}
			mc.put(t, v, ec)
		}
	case cqldriver.TypeMap:
		for i := 0; i < len(elems); i += 2 {
			ec := c
			ec.value = elems[i+1]
			mc.put(t, elems[i], ec)
		}
	}
}

// comparePath orders the cell paths of a collection: set elements and map
// keys by their type, list positions by when they were written.
func comparePath(t *cqlType, a, b []byte) int {
	switch t.kind {
	case cqldriver.TypeSet:
		return compareValues(t.elem, a, b)
	case cqldriver.TypeMap:
		return compareValues(t.key, a, b)
	}
	return bytes.Compare(a, b)
}

func (mc *multiCell) put(t *cqlType, path []byte, c cell) {
	i := sort.Search(len(mc.elems), func(i int) bool { return comparePath(t, mc.elems[i].path, path) >= 0 })
	if i < len(mc.elems) && comparePath(t, mc.elems[i].path, path) == 0 {
		merge(&mc.elems[i].cell, c)
		return
	}
	mc.elems = append(mc.elems, elem{})
	copy(mc.elems[i+1:], mc.elems[i:])
	mc.elems[i] = elem{path: path, cell: &c}
}

// value is what a read sees of a column of r at now (seconds), given the
// deletion covering the row: the live value, or nil. The cell is returned
// too, for writetime() and ttl(); for a collection it is nil.
func (r *row) value(col *column, del, now int64) ([]byte, *cell) {
	if col.typ.multiCell() {
		mc := r.colls[col]
		if mc == nil {
			return nil, nil
		}
		d := max(del, mc.deleted)
		var parts [][]byte
		per := 1
		for _, e := range mc.elems {
			if shadows(d, e.cell) || !e.cell.live(now) {
				continue
			}
			switch col.typ.kind {
			case cqldriver.TypeSet:
				parts = append(parts, e.path)
			case cqldriver.TypeMap:
				parts, per = append(parts, e.path, e.cell.value), 2
			default:
				parts = append(parts, e.cell.value)
			}
		}
		if len(parts) == 0 {
			return nil, nil // an empty collection is null
		}
		return serialize(parts, per), nil
	}
	c := r.cells[col]
	if c == nil || shadows(del, c) || !c.live(now) {
		return nil, nil
	}
	return c.value, c
}

// live tells whether a clustering row exists at now: it has a live
// liveness marker (an INSERT) or any live cell, given its deletion.
func (r *row) live(del, now int64) bool {
	if !shadows(del, &r.marker) && r.marker.live(now) {
		return true
	}
	return r.anyCell(del, now)
}

// anyCell tells whether any cell of r is live.
func (r *row) anyCell(del, now int64) bool {
	for _, c := range r.cells {
		if !shadows(del, c) && c.live(now) {
			return true
		}
	}
	for _, mc := range r.colls {
		d := max(del, mc.deleted)
		for _, e := range mc.elems {
			if !shadows(d, e.cell) && e.cell.live(now) {
				return true
			}
		}
	}
	return false
}
