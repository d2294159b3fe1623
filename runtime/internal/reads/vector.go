package reads

import (
	"context"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

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
