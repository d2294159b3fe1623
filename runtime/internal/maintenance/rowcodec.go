package maintenance

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// The per-row path of a verify: a row expected (encoded from the values
// an Insert binds) and a row read (its cells as Cassandra stores them),
// hashed into digests. A verify runs it for every row of every table, so
// it does no per-row work that can be done once per table (parsing each
// column's CQL type, asking whether it is a collection), and a digest pass,
// which keeps no row, reuses one row's memory for the next.

// tableCols is what encoding and reading a table's rows needs of its
// columns (the Insert's, in order), worked out once per table.
type tableCols struct {
	types      []*cqldriver.Type // nil where the type does not parse (errs)
	errs       []error
	collection []bool // a collection not frozen: empty is no value
	unordered  []bool // holds a set or a map: compared in Cassandra's order
}

var tableColsCache sync.Map // *desc.Table → *tableCols

// colsOf is t's columns, parsed once.
func colsOf(t *desc.Table) *tableCols {
	if c, ok := tableColsCache.Load(t); ok {
		return c.(*tableCols)
	}
	n := len(t.Row)
	c := &tableCols{types: make([]*cqldriver.Type, n), errs: make([]error, n), collection: make([]bool, n), unordered: make([]bool, n)}
	for i, col := range t.Row {
		c.types[i], c.errs[i] = cqldriver.ParseType(col.Type)
		c.collection[i] = isCollection(col.Type)
		c.unordered[i] = c.types[i] != nil && cqldriver.HoldsUnordered(c.types[i])
	}
	got, _ := tableColsCache.LoadOrStore(t, c)
	return got.(*tableCols)
}

// emptyCollection reports whether b is a collection of no element, which
// Cassandra stores as no value.
func emptyCollection(b []byte) bool { return len(b) == 4 && binary.BigEndian.Uint32(b) == 0 }

// rowEncoder encodes expected rows into one row and one buffer it
// reuses: a row encoded is valid until the next. An encoder is one
// goroutine's.
type rowEncoder struct {
	r     row
	spans []int // where each column starts in buf; -1: encoded apart
	buf   []byte
}

// encode encodes the values an Insert binds (its timestamp left off), as
// encodeRow does.
func (e *rowEncoder) encode(t *desc.Table, values []any) (*row, error) {
	cols := colsOf(t)
	n := len(t.Row)
	if len(values) != n+1 {
		return nil, fmt.Errorf("cqlgen: %s: %d values for %d columns", t.Spec.Name, len(values)-1, n)
	}
	r := &e.r
	r.nkey = len(t.Spec.PartitionKey) + len(t.Spec.Clustering)
	r.writetime = 0
	if cap(r.cols) < n {
		r.cols, e.spans = make([][]byte, n), make([]int, n)
	}
	r.cols, e.spans = r.cols[:n], e.spans[:n]
	if e.buf == nil {
		// Not nil: an empty string is a value, not a null.
		e.buf = make([]byte, 0, 256)
	}
	buf := e.buf[:0]
	for i := range n {
		if cols.errs[i] != nil {
			return nil, cols.errs[i]
		}
		start := len(buf)
		var ok bool
		if buf, ok = appendNative(buf, cols.types[i], values[i]); ok {
			// In buf, which may move as it grows: sliced below.
			e.spans[i] = start
			continue
		}
		b, err := value.MarshalSorted(cols.types[i], values[i])
		if err != nil {
			return nil, fmt.Errorf("cqlgen: %s: column %s: %w", t.Spec.Name, t.Row[i].Name, err)
		}
		if cols.collection[i] && emptyCollection(b) {
			b = nil
		}
		e.spans[i] = -1
		r.cols[i] = b
	}
	e.buf = buf
	// Each column in buf runs from its start to the next one's.
	next := len(buf)
	for i := n - 1; i >= 0; i-- {
		if s := e.spans[i]; s >= 0 {
			r.cols[i] = buf[s:next:next]
			next = s
		}
	}
	return r, nil
}

// appendNative appends v's encoding as a value of type t where v is one
// of the plain Go types a column of a native type holds (a string, an
// int64...), as every driver encodes it; false for any other value, which
// the driver's codec then encodes.
func appendNative(buf []byte, t *cqldriver.Type, v any) ([]byte, bool) {
	switch t.Kind {
	case cqldriver.TypeVarchar, cqldriver.TypeText, cqldriver.TypeAscii:
		if s, ok := v.(string); ok {
			return append(buf, s...), true
		}
	case cqldriver.TypeBigInt, cqldriver.TypeCounter:
		if x, ok := v.(int64); ok {
			return binary.BigEndian.AppendUint64(buf, uint64(x)), true
		}
	case cqldriver.TypeInt:
		if x, ok := v.(int32); ok {
			return binary.BigEndian.AppendUint32(buf, uint32(x)), true
		}
	case cqldriver.TypeBoolean:
		if x, ok := v.(bool); ok {
			if x {
				return append(buf, 1), true
			}
			return append(buf, 0), true
		}
	case cqldriver.TypeDouble:
		if x, ok := v.(float64); ok {
			return binary.BigEndian.AppendUint64(buf, math.Float64bits(x)), true
		}
	case cqldriver.TypeFloat:
		if x, ok := v.(float32); ok {
			return binary.BigEndian.AppendUint32(buf, math.Float32bits(x)), true
		}
	}
	return buf, false
}

// projectionReader reads the rows of a projection, as its Scan (or
// keyRead) selects them, into one row and one set of cells it reuses:
// a row read is valid until the next read. A reader is one goroutine's.
type projectionReader struct {
	t          *desc.Table
	cols       *tableCols
	writetimes int
	cells      []value.Cell // the columns, then the write timestamps
	dest       []any
	r          row
}

func newProjectionReader(t *desc.Table, writetimes int) *projectionReader {
	n := len(t.Row)
	p := &projectionReader{t: t, cols: colsOf(t), writetimes: writetimes, cells: make([]value.Cell, n+writetimes), dest: make([]any, n+writetimes)}
	for i := range p.cells {
		p.dest[i] = &p.cells[i]
	}
	p.r.cols = make([][]byte, n)
	p.r.nkey = len(t.Spec.PartitionKey) + len(t.Spec.Clustering)
	return p
}

// read reads one row: false at the end, a nil row for a partition's
// statics with no row.
func (p *projectionReader) read(it cqldriver.Iter) (*row, bool) {
	if !it.Scan(p.dest...) {
		return nil, false
	}
	n := len(p.t.Row)
	r := &p.r
	for i, c := range p.cells[:n] {
		switch {
		case c == nil:
			r.cols[i] = nil
		case p.cols.collection[i] && emptyCollection(c):
			r.cols[i] = nil
		case p.cols.unordered[i]:
			// A set or map inside a frozen user-defined type is
			// stored in the order it was sent in; compared in
			// Cassandra's, as encodeRow encodes the expected row.
			r.cols[i] = cqldriver.Canonical(p.cols.types[i], c)
		default:
			r.cols[i] = c
		}
	}
	r.writetime = 0
	for _, c := range p.cells[n:] {
		// A write timestamp is a bigint: microseconds.
		if len(c) == 8 {
			r.writetime = max(r.writetime, int64(binary.BigEndian.Uint64(c)))
		}
	}
	if len(p.t.Spec.Clustering) > 0 && r.cols[len(p.t.Spec.PartitionKey)] == nil {
		// No row: a partition's static values, which a scan returns
		// as a row with null clustering columns once its rows are
		// gone.
		return nil, true
	}
	return r, true
}
