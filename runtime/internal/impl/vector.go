package impl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Vector is cqldriver.Vector, which generated code binds and scans
// vector columns through.
type Vector = cqldriver.Vector

// VectorOrUnset binds a vector field: the vector, or, when it is empty,
// unset if unset is true (an Insert writes nothing) and null if not (an
// Update clears it).
func VectorOrUnset(v []float32, unset bool) any {
	if len(v) == 0 {
		if unset {
			return cqldriver.Unset
		}
		return Vector(nil)
	}
	return Vector(v)
}

// CheckVector refuses a vector whose length is not the column's
// dimension, before anything is sent: Cassandra would refuse the write
// anyway, but after the other statements of a logical write may have
// gone out. An empty vector (no embedding yet) is null and passes.
func CheckVector(table, column string, v []float32, dim int) error {
	if len(v) != 0 && len(v) != dim {
		return &cqlgen.InputError{Err: cqlgen.ErrVectorDimension, Table: table, Name: column, Reason: fmt.Sprintf("the column holds vectors of %d floats; this one has %d", dim, len(v))}
	}
	return nil
}

// NearestRead is an ANN read as generated code declares it.
type NearestRead[T any] struct {
	Table     *Table // the index read's statements: Nearest
	Partition []any  // the partition key values; nil for a scatter
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
	if len(t.Spec.Values) != 1 || t.nearest == nil {
		return nil, fmt.Errorf("cqlgen: %s: not an ANN read: regenerate the package", t.Spec.Pattern)
	}
	col := t.Spec.Values[0]
	if dim := vectorDim(col.Type); len(r.Vector) != dim {
		return nil, &cqlgen.InputError{Err: cqlgen.ErrVectorDimension, Table: t.Spec.Name, Name: col.Name, Reason: fmt.Sprintf("the column holds vectors of %d floats; this one has %d", dim, len(r.Vector))}
	}
	values := append(append(make([]any, 0, len(r.Partition)+2), r.Partition...), Vector(r.Vector), limit)
	it := s.Iter(ctx, cqldriver.Query{Stmt: t.nearest, Values: values, PageSize: limit})
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

// vectorDim is N of vector<float, N>; 0 when the type is none.
func vectorDim(typ string) int {
	i, j := strings.LastIndexByte(typ, ','), strings.LastIndexByte(typ, '>')
	if !strings.HasPrefix(typ, "vector<") || i < 0 || j < i {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(typ[i+1 : j]))
	if err != nil {
		return 0
	}
	return n
}
