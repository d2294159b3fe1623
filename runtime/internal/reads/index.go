package reads

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// scatterCursor marks the cursor of an index read over the whole
// cluster: its key is the last row's partition key, then its clustering
// key.
const scatterCursor byte = 's'

// IndexRead is what a generated index read hands the runtime: a query
// through a storage-attached index, restricted to one partition or, with
// a nil Partition, scattered over the cluster.
//
// Its table's statements bind, in order: the partition key values (of
// the read, or of the cursor's row), the index's Values, then clustering
// values as ReadPage's do. First reads from the start; After continues
// within a partition after a row; for a scatter, Next continues with the
// partitions after the row's, in token order, which is the order
// Cassandra returns a scatter's rows in.
//
// It is indexRead[*T]: generic over P = *T alone, as Entity is.
type IndexRead[T any] = indexRead[*T]

type indexRead[P any] struct {
	Table     *desc.Table
	Partition []any // nil for a scatter
	Values    []any // the value looked for, or a range's two bounds
	// FromExclusive and ToInclusive make a range's bounds (Values) leave
	// out rows at the first, and take in rows at the second: by default
	// a range is From inclusive, To exclusive.
	FromExclusive, ToInclusive bool
	// RangeBounds are a filter read's choices for its range conditions,
	// in order: each one's FromExclusive, then its ToInclusive.
	RangeBounds []bool

	Limit     int
	MaxLimit  int
	CursorKey []byte
	Cursor    string
	Scan      func(cqldriver.Iter, P) bool
	// Key is a row's cursor key: its clustering values, and for a
	// scatter its partition key values before them.
	Key func(P) []any
}

// ReadIndex runs a read through an index (readIndex), with rows from one
// arena, copied into the page.
func ReadIndex[T any](ctx context.Context, s cqlgen.Session, r IndexRead[T]) (cqlgen.Page[T], error) {
	pg, err := readIndex(ctx, s, r, RowArena[*T]())
	return PageOf(ctx, pg), err
}

// readIndex runs a read through an index, one page at a time. Cursors
// are those of ReadPage: opaque, bound to the read's pattern, partition
// and values, sealed with the repository's cursor key when it has one.
func readIndex[P any](ctx context.Context, s cqlgen.Session, r indexRead[P], newRow func() P) (Page[P], error) {
	t := r.Table
	if ix := t.Spec.Index; ix != nil && len(ix.Conds) > 0 {
		var err error
		if t, err = t.WithRangeBounds(r.RangeBounds); err != nil {
			return Page[P]{}, err
		}
	} else if len(t.Spec.Values) == 2 {
		var err error
		if t, err = t.WithBounds(r.FromExclusive, r.ToInclusive); err != nil {
			return Page[P]{}, err
		}
	}
	scatter := r.Partition == nil
	spec := ReadSpecOf[P]{Table: t, Limit: r.Limit, MaxLimit: r.MaxLimit, CursorKey: r.CursorKey, Cursor: r.Cursor, Scan: r.Scan, Key: r.Key, NewRow: newRow}
	var err error
	if spec.Limit, err = pageLimit(spec.Limit, spec.MaxLimit); err != nil {
		return Page[P]{}, err
	}
	spec.Sealer = sealerFor(spec.CursorKey)
	if len(r.Values) != len(t.Spec.Values) {
		return Page[P]{}, fmt.Errorf("cqlgen: %s: %d index values for %d: regenerate the package", t.Spec.Pattern, len(r.Values), len(t.Spec.Values))
	}
	fp, err := indexFingerprint(t, r.Partition, r.Values)
	if err != nil {
		return Page[P]{}, err
	}
	kind := plainCursor
	if scatter {
		kind = scatterCursor
	}
	var c cursor
	if r.Cursor != "" {
		if c, err = decodeCursor(t.Spec.Pattern, fp, kind, r.Cursor, spec.Sealer); err != nil {
			return Page[P]{}, err
		}
	}
	need := spec.Limit + 1
	if !scatter {
		rows, err := readPartition(ctx, s, spec, append(append([]any(nil), r.Partition...), r.Values...), c.key, false, need)
		if err != nil {
			return Page[P]{}, err
		}
		return finish(spec, fp, rows, func(int) cursor { return cursor{kind: plainCursor} })
	}
	rows, err := readScatter(ctx, s, spec, r.Values, c.key, need)
	if err != nil {
		return Page[P]{}, err
	}
	rowKey, sealer := r.Key, spec.Sealer
	pos := func(_ int, row P) (string, error) {
		key, err := marshalPrimaryKey(t, rowKey(row))
		if err != nil {
			return "", err
		}
		return encodeCursor(fp, cursor{kind: scatterCursor, key: key}, sealer), nil
	}
	if len(rows) == 0 {
		return Page[P]{Rows: rows}, nil
	}
	if len(rows) <= spec.Limit {
		return Page[P]{Rows: rows, pos: pos}, nil
	}
	rows = rows[:spec.Limit]
	cur, err := pos(spec.Limit-1, rows[spec.Limit-1])
	if err != nil {
		return Page[P]{}, err
	}
	return Page[P]{Rows: rows, Cursor: cur, pos: pos}, nil
}

// readScatter reads up to limit rows of a scatter: from the start, or
// after the row at pos (its partition key, then its clustering key):
// first the rest of that row's partition, then the partitions after it.
func readScatter[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], values []any, pos [][]byte, limit int) ([]P, error) {
	t := r.Table
	if pos == nil {
		return readPartition(ctx, s, r, values, nil, false, limit)
	}
	npk := len(t.Spec.PartitionKey)
	if len(pos) != npk+len(t.Spec.Clustering) {
		return nil, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "corrupted"}
	}
	// The key is the client's to forge: each value must decode as its
	// column's type before it is sent.
	for i, k := range pos {
		col := t.KeyColumn(i)
		typ, err := cqldriver.ParseType(col.Type)
		if err != nil {
			return nil, err
		}
		if !cqldriver.Valid(typ, k) {
			return nil, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "its key does not decode as " + col.Type}
		}
	}
	part := append(value.Encoded(pos[:npk]), values...)
	var rows []P
	if len(t.Spec.Clustering) > 0 {
		var err error
		if rows, err = readPartition(ctx, s, r, part, pos[npk:], false, limit); err != nil {
			return nil, err
		}
	}
	if t.Next == nil {
		return nil, fmt.Errorf("cqlgen: %s: no Next statement for a scatter read: regenerate the package", t.Spec.Pattern)
	}
	rows, err := fetch(ctx, s, cqldriver.Query{Stmt: t.Next, Values: part}, r.Scan, r.NewRow, rows, limit)
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// indexFingerprint identifies an index read: its table, pattern,
// partition key values and index values.
func indexFingerprint(t *desc.Table, partition, values []any) (uint64, error) {
	h := fnv.New64a()
	h.Write([]byte(t.Spec.Name))
	h.Write([]byte{0})
	h.Write([]byte(t.Spec.Pattern))
	write := func(cols []desc.Column, vs []any) error {
		for i, v := range vs {
			typ, err := cqldriver.ParseType(cols[i].Type)
			if err != nil {
				return err
			}
			b, err := cqldriver.Marshal(typ, v)
			if err != nil {
				return err
			}
			h.Write([]byte{0})
			h.Write(b)
		}
		return nil
	}
	if partition != nil {
		h.Write([]byte{1})
	}
	if err := write(t.Spec.PartitionKey, partition); err != nil {
		return 0, err
	}
	if err := write(t.Spec.Values, values); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}

// marshalPrimaryKey encodes a row's partition and clustering values.
func marshalPrimaryKey(t *desc.Table, values []any) ([][]byte, error) {
	key := make([][]byte, len(values))
	for i, v := range values {
		typ, err := cqldriver.ParseType(t.KeyColumn(i).Type)
		if err != nil {
			return nil, err
		}
		if key[i], err = cqldriver.Marshal(typ, v); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// ANN reads: a read through a vector index, nearest first.

// NearestRead is an ANN read as generated code declares it.
type NearestRead[T any] struct {
	Table     *desc.Table // the index read's statements: Nearest
	Partition []any       // the partition key values; nil for a scatter
	Filter    []any       // the value of the filter's condition, if any (IndexSpec.Filter)
	Vector    []float32
	Limit     int // 0: cqlgen.DefaultLimit
	MaxLimit  int
	Scan      func(cqldriver.Iter, *T) bool
}

// ReadNearest runs an ANN read: the Limit rows whose vector is nearest
// r.Vector, by the index's similarity function, nearest first, in one
// query (Cassandra does not page an ANN query). A vector of another
// dimension than the column's is an *cqlgen.InputError (ErrVectorDimension) and a
// limit out of range an *cqlgen.InputError (ErrInvalidLimit), with nothing sent.
func ReadNearest[T any](ctx context.Context, s cqlgen.Session, r NearestRead[T]) ([]T, error) {
	return readNearest(ctx, s, r, false, func(p *T) (*T, *float32) { return p, nil })
}

// ReadNearestScored is ReadNearest for a read declared with
// score:"similarity": each row comes with the similarity Cassandra
// computed, the statement's last column.
func ReadNearestScored[T any](ctx context.Context, s cqlgen.Session, r NearestRead[T]) ([]cqlgen.Scored[T], error) {
	return readNearest(ctx, s, r, true, func(p *cqlgen.Scored[T]) (*T, *float32) { return &p.Row, &p.Score })
}

// scoreIter scans a row's score, selected last, after the columns the
// row's own scan asks for.
type scoreIter struct {
	cqldriver.Iter
	score *float32
}

func (it *scoreIter) Scan(dest ...any) bool { return it.Iter.Scan(append(dest, it.score)...) }

// readNearest runs an ANN read into rows of R, each holding a T and, when
// scored, its score.
func readNearest[T, R any](ctx context.Context, s cqlgen.Session, r NearestRead[T], scored bool, parts func(*R) (*T, *float32)) ([]R, error) {
	t := r.Table
	limit, err := pageLimit(r.Limit, r.MaxLimit)
	if err != nil {
		return nil, err
	}
	if len(t.Spec.Values) != 1+len(r.Filter) || t.Nearest == nil || t.Spec.Index == nil || (t.Spec.Index.Score != "") != scored {
		return nil, fmt.Errorf("cqlgen: %s: not an ANN read of this kind: regenerate the package", t.Spec.Pattern)
	}
	col := t.Spec.Values[0]
	if dim := value.VectorDim(col.Type); len(r.Vector) != dim {
		return nil, &cqlgen.InputError{Err: cqlgen.ErrVectorDimension, Table: t.Spec.Name, Name: col.Name, Reason: fmt.Sprintf("the column holds vectors of %d floats; this one has %d", dim, len(r.Vector))}
	}
	values := make([]any, 0, len(r.Partition)+len(r.Filter)+3)
	if scored {
		values = append(values, value.Vector(r.Vector)) // the score's, selected
	}
	values = append(append(append(values, r.Partition...), r.Filter...), value.Vector(r.Vector), limit)
	it := s.Iter(ctx, cqldriver.Query{Stmt: t.Nearest, Values: values, PageSize: limit})
	scan := &scoreIter{Iter: it}
	rows := make([]R, 0, limit)
	for len(rows) < limit {
		rows = append(rows, *new(R))
		row, score := parts(&rows[len(rows)-1])
		var ok bool
		if score != nil {
			scan.score = score
			ok = r.Scan(scan, row)
		} else {
			ok = r.Scan(it, row)
		}
		if !ok {
			rows = rows[:len(rows)-1]
			break
		}
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	return rows, nil
}
