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
	t := r.Table
	limit, err := pageLimit(r.Limit, r.MaxLimit)
	if err != nil {
		return nil, err
	}
	if len(t.Spec.Values) != 1 || t.Nearest == nil {
		return nil, fmt.Errorf("cqlgen: %s: not an ANN read: regenerate the package", t.Spec.Pattern)
	}
	col := t.Spec.Values[0]
	if dim := value.VectorDim(col.Type); len(r.Vector) != dim {
		return nil, &cqlgen.InputError{Err: cqlgen.ErrVectorDimension, Table: t.Spec.Name, Name: col.Name, Reason: fmt.Sprintf("the column holds vectors of %d floats; this one has %d", dim, len(r.Vector))}
	}
	values := append(append(make([]any, 0, len(r.Partition)+2), r.Partition...), value.Vector(r.Vector), limit)
	it := s.Iter(ctx, cqldriver.Query{Stmt: t.Nearest, Values: values, PageSize: limit})
	rows := make([]T, 0, limit)
	for len(rows) < limit {
		rows = append(rows, *new(T))
		if !r.Scan(it, &rows[len(rows)-1]) {
			rows = rows[:len(rows)-1]
			break
		}
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	return rows, nil
}
