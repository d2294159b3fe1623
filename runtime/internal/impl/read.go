package impl

import (
	"context"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/reads"
)

// ReadSpec is what a generated read method hands the runtime: the query,
// and how to scan, key and order rows of the pattern. It is
// reads.ReadSpecOf with P = *T, field for field, whose fields say what
// each holds; ReadPage converts one to the other. It is a type of its own
// for the methods the generated code calls (Page), over T.
type ReadSpec[T any] reads.ReadSpecOf[*T]

// ReadPage runs a read of one access pattern (readPage) with rows from
// one arena, and copies them into the page.
func ReadPage[T any](ctx context.Context, s cqlgen.Session, r ReadSpec[T]) (cqlgen.Page[T], error) {
	r.NewRow = reads.RowArena[*T]()
	pg, err := reads.ReadPageOf(ctx, s, reads.ReadSpecOf[*T](r))
	return reads.PageOf(ctx, pg), err
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
