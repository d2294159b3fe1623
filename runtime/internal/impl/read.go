package impl

import (
	"context"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/reads"
)

// ReadSpec is what a generated read method hands the runtime: the query,
// and how to scan, key and order rows of the pattern.
type ReadSpec[T any] struct {
	Entity    string // the entity's name, for observers ("": Of's)
	Table     *desc.Table
	Partition []any // partition key values, the bucket excluded
	// Prefix fixes the first len(Prefix) clustering columns to these
	// values (a pattern's prefix key); From and To then bound the next.
	Prefix   []any
	From, To any // bounds on the first clustering column not fixed, in clustering order: From inclusive, To exclusive; nil for none
	// FromExclusive leaves the rows at From out, ToInclusive takes the
	// rows at To in; each is ignored without its bound.
	FromExclusive, ToInclusive bool

	Limit    int
	MaxLimit int // the largest Limit allowed; 0 means cqlgen.DefaultMaxLimit
	// CursorKey, when set, seals cursors (cqlgen.WithCursorKey).
	CursorKey []byte
	Sealer    *reads.Sealer
	Cursor    string

	// Scan reads one row.
	Scan func(cqldriver.Iter, *T) bool
	// Key returns a row's clustering values, in order.
	Key func(*T) []any
	// Of, in place of Scan and Key, is the entity whose Fields and Values
	// the runtime derives them from (a table of the entity's own rows,
	// each column a field of its source of truth).
	Of *desc.Entity[T]
	// Compare orders rows as the table's clustering order does.
	Compare func(a, b *T) int

	// HashBuckets is N for a pattern sharded by hash(col) % N.
	HashBuckets int
	// Concurrency bounds the buckets read at once, hash or time; 0 means
	// 16.
	Concurrency int
	// Scatter is how a read over hash buckets, or a walk's round over
	// time buckets, reaches them: one request for all (the default, where
	// the table has the statements), or one per bucket.
	Scatter cqlgen.Scatter

	// TimeBuckets is set for a pattern bucketed by time; Start is the
	// bucket to start at (zero: now) and LookBack how many buckets, the
	// first included, a read may reach (0: cqlgen.DefaultLookBack).
	TimeBuckets *desc.TimeBuckets
	Start       time.Time
	LookBack    int

	NewRow func() *T // set by ReadPage: a new zero row (reads.RowArena)
}

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
