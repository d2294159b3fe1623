package reads

import (
	"context"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// GetMany reads the rows of t with the given keys in one query,
// t.GetMany: prefix binds the partition key's columns but the last, keys
// the last one's values, as one list for its IN ?. It returns them in
// the order of keys, with the indexes of those that have no row; key
// gives a row's value of the last column, which matches a row to its
// keys through its encoding (so times and blobs match as Cassandra sees
// them). More keys than maxKeys (0: cqlgen.DefaultMaxKeys) get
// an *cqlgen.InputError (ErrInvalidLimit) and nothing is sent.
//
// One query with IN, rather than a query a key sent concurrently: on the
// node it was measured on, the two were close in latency (the concurrent
// reads ahead at 10 keys, the runs split at 100), and the IN query
// allocated a quarter to a seventh as much, in one request
// (bench/README.md, Multi-get).
func GetMany[P, K any](ctx context.Context, s cqlgen.Session, t *desc.Table, prefix []any, keys []K, maxKeys int, scan func(cqldriver.Iter, P) bool, key func(P) K) (Found[P], error) {
	if maxKeys <= 0 {
		maxKeys = cqlgen.DefaultMaxKeys
	}
	if len(keys) > maxKeys {
		return Found[P]{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidLimit, Reason: fmt.Sprintf("%d keys in one multi-get, more than %d: split them, or raise the bound with WithMaxKeys", len(keys), maxKeys)}
	}
	res := Found[P]{Rows: make([]P, len(keys))}
	if len(keys) == 0 {
		return res, nil
	}
	typ, err := cqldriver.ParseType(t.Spec.PartitionKey[len(t.Spec.PartitionKey)-1].Type)
	if err != nil {
		return Found[P]{}, err
	}
	encode := func(k K) (string, error) {
		b, err := cqldriver.Marshal(typ, k)
		return string(b), err
	}
	// The indexes of each distinct key: the list sent holds each once.
	at := make(map[string][]int, len(keys))
	list := make([]K, 0, len(keys))
	for i, k := range keys {
		e, err := encode(k)
		if err != nil {
			return Found[P]{}, err
		}
		if at[e] == nil {
			list = append(list, k)
		}
		at[e] = append(at[e], i)
	}
	q := cqldriver.Query{Stmt: t.GetMany, Values: append(append([]any(nil), prefix...), list), PageSize: len(list)}
	for {
		it := s.Iter(ctx, q)
		for {
			row := desc.NewRowOf[P]()
			if !scan(it, row) {
				break
			}
			e, err := encode(key(row))
			if err != nil {
				it.Close()
				return Found[P]{}, err
			}
			for _, i := range at[e] {
				res.Rows[i] = row
			}
		}
		state := it.PageState()
		if err := it.Close(); err != nil {
			return Found[P]{}, err
		}
		if len(state) == 0 {
			break
		}
		q.PageState = state
	}
	for i, r := range res.Rows {
		if value.IsNil(r) {
			res.Missing = append(res.Missing, i)
		}
	}
	return res, nil
}

// Found is cqlgen.Found with P = *T, field for field.
type Found[P any] struct {
	Rows    []P
	Missing []int
}
