package impl

import (
	"context"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Observed is a repository call under way, as Observe starts it.
type Observed struct{ call ActiveCall }

// Observe starts the record of a repository call (StartCall): a
// session's CallObserver gets one record of the whole call, and its
// tracer a span the statements' attempts run under. *ctx becomes the
// call's context. Generated methods begin with
//
//	defer cqlgenimpl.Observe(&ctx, r.s, "Entity", "Method").End(&err)
//
// which starts the call at once and ends it with the error returned.
func Observe(ctx *context.Context, s cqlgen.Session, entity, method string) Observed {
	var o Observed
	*ctx, o.call = StartCall(*ctx, s, entity, method)
	return o
}

// End ends the call with the error *err holds.
func (o Observed) End(err *error) { o.call.End(*err) }

// EmptyKey is the error of a key value that is empty: a row with an empty
// partition key value can be neither written nor found.
func EmptyKey(table, column string) error {
	return &cqlgen.InputError{Err: cqlgen.ErrEmptyKey, Table: table, Name: column}
}

// withCall is r, a read's static description that generated code declares
// once, for one call: the partition key values, the page's limit and
// cursor, and the repository's options (the largest limit, the cursor
// key and, on a table split over buckets, its concurrency and scatter).
func withCall[P any](r readSpec[P], partition []any, limit int, cursor string, o cqlgen.Options) readSpec[P] {
	r.Partition, r.Limit, r.Cursor = partition, limit, cursor
	r.MaxLimit, r.CursorKey = o.MaxLimit, o.CursorKey
	if r.Table.Spec.Bucket != cqlspec.BucketNone {
		r.Concurrency, r.Scatter = o.Concurrency, o.Scatter
	}
	return r
}

// Bounds sets the bounds of r from a read's options: from and to, nil for
// an open end, and whether each is exclusive or inclusive other than by
// default.
func Bounds[T, V any](r *ReadSpec[T], from, to *V, fromExclusive, toInclusive bool) {
	if from != nil {
		r.From, r.FromExclusive = *from, fromExclusive
	}
	if to != nil {
		r.To, r.ToInclusive = *to, toInclusive
	}
}
