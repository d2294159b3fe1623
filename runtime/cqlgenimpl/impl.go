package cqlgenimpl

import (
	"context"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/impl"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
	"github.com/cqlgen/cqlgen/runtime/internal/reads"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// The implementation of generated repositories, from the rooms under
// runtime/internal: this file is their one door, as engine.go is the
// engine's. Each name is its room's own, documented there; a function here only forwards its
// arguments (TestFacadeIsThin keeps it so).

// Tables. Generated code declares each table as a TableSpec, the
// contract of internal/cqlspec; NewTable renders its statements, once.
type (
	TableSpec = desc.TableSpec
	Column    = desc.Column
	IndexSpec = desc.IndexSpec
	IndexCond = desc.IndexCond
	Bucket    = desc.Bucket
	Table     = desc.Table
)

const (
	BucketOne  = desc.BucketOne
	BucketHash = desc.BucketHash
	BucketTime = desc.BucketTime
)

func NewTable(spec TableSpec) *Table { return desc.NewTable(spec) }
func Cols(cols ...string) []Column   { return desc.Cols(cols...) }

// Calls. A method the descriptors' own methods do not cover (a read
// through a unique table, an index) begins with Observe.
type Observed = desc.Observed

func Observe(ctx *context.Context, s cqlgen.Session, entity, method string) Observed {
	return desc.Observe(ctx, s, entity, method)
}

func NewOptions(opts ...cqlgen.Option) cqlgen.Options { return desc.NewOptions(opts...) }
func Now(o cqlgen.Options) int64                      { return desc.Now(o) }
func EmptyKey(table, column string) error             { return desc.EmptyKey(table, column) }

// Reads. A read method hands the runtime a static description (ReadSpec,
// IndexRead, NearestRead) with its call's values; the runtime pages,
// merges buckets (Merge) and encodes cursors.
type (
	ReadSpec[T any]    = impl.ReadSpec[T]
	IndexRead[T any]   = reads.IndexRead[T]
	NearestRead[T any] = reads.NearestRead[T]
)

func ReadPage[T any](ctx context.Context, s cqlgen.Session, r ReadSpec[T]) (cqlgen.Page[T], error) {
	return impl.ReadPage(ctx, s, r)
}

func ReadIndex[T any](ctx context.Context, s cqlgen.Session, r IndexRead[T]) (cqlgen.Page[T], error) {
	return reads.ReadIndex(ctx, s, r)
}

func ReadNearest[T any](ctx context.Context, s cqlgen.Session, r NearestRead[T]) ([]T, error) {
	return reads.ReadNearest(ctx, s, r)
}

func ReadNearestScored[T any](ctx context.Context, s cqlgen.Session, r NearestRead[T]) ([]cqlgen.Scored[T], error) {
	return reads.ReadNearestScored(ctx, s, r)
}

func Scan[T any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, o *cqlgen.ScanOptions, entity string, t *Table, scan func(cqldriver.Iter, *T) bool) (cqlgen.Page[T], error) {
	return reads.Scan(ctx, s, base, o, entity, t, scan)
}

func CheckPrefix(names []string, fixed, bounded []bool) error {
	return desc.CheckPrefix(names, fixed, bounded)
}

func Merge[T any](lists [][]T, cmp func(a, b *T) int, limit int) ([]T, []int) {
	return reads.Merge(lists, cmp, limit)
}

// A counter update, sent once (the Add of a counter table's entity).
func AddCounters(ctx context.Context, s cqlgen.Session, o cqlgen.Options, q cqldriver.Query) error {
	return impl.AddCounters(ctx, s, o, q)
}

// The write protocol (docs/protocol.md): an entity's tables (Entity,
// Projection), its canonical row (State, Change), and its operations.
type (
	Entity[T any]     = desc.Entity[T]
	Projection[T any] = desc.Projection[T]
	State[T any]      = desc.State[T]
	Change            = desc.Change
	Op                = desc.Op
)

const (
	OpInsert = desc.OpInsert
	OpUpdate = desc.OpUpdate
	OpDelete = desc.OpDelete
)

func Write[T any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, ent *Entity[T], op Op, e *T) error {
	return protocol.Write(ctx, s, o, ent, op, e)
}

func Resolve[T any](ctx context.Context, s cqlgen.Session, ent *Entity[T], i int, key []any) (*T, error) {
	return protocol.Resolve(ctx, s, ent, i, key)
}

func Latest(wts ...*int64) int64 { return value.Latest(wts...) }

// Values: what a statement binds (unset for an absent field) and what a
// scan fills, as cqlgen maps CQL types to Go.
type Vector = value.Vector

func OrUnset[T any](p *T, unset bool) any             { return value.OrUnset(p, unset) }
func SliceOrUnset[S ~[]E, E any](s S, unset bool) any { return value.SliceOrUnset(s, unset) }

func MapOrUnset[M ~map[K]V, K comparable, V any](m M, unset bool) any {
	return value.MapOrUnset(m, unset)
}

func VectorOrUnset(v []float32, unset bool) any { return value.VectorOrUnset(v, unset) }

func CheckVector(table, column string, v []float32, dim int) error {
	return value.CheckVector(table, column, v, dim)
}

func ScanDuration(d *time.Duration) any           { return value.ScanDuration(d) }
func ScanSet[K comparable](m *map[K]struct{}) any { return value.ScanSet(m) }
func Present(dst any, ok *bool) any               { return value.Present(dst, ok) }
func Normalized(cqlType string, v any) any        { return value.Normalized(cqlType, v) }
func IsZeroUUID(u [16]byte) bool                  { return value.IsZeroUUID(u) }
func TimeOfUUID(u [16]byte) time.Time             { return cqldriver.TimeOfUUID(u) }

// Order: clustering values compared as Cassandra orders them.

func CompareAs(cqlType string, a, b any) int            { return value.CompareAs(cqlType, a, b) }
func CompareBool(a, b bool) int                         { return value.CompareBool(a, b) }
func CompareBytes(a, b []byte) int                      { return value.CompareBytes(a, b) }
func CompareUUID(a, b [16]byte) int                     { return cqldriver.CompareUUID(a, b) }
func CompareTimeUUID(a, b [16]byte) int                 { return cqldriver.CompareTimeUUID(a, b) }
func CompareFloat32(a, b float32) int                   { return cqldriver.CompareFloat32(a, b) }
func CompareFloat64(a, b float64) int                   { return cqldriver.CompareFloat64(a, b) }
func CompareEncoded(t *cqldriver.Type, a, b []byte) int { return value.CompareEncoded(t, a, b) }

// Methods. A generated method is one call: the descriptors' methods
// (Entity, ReadSpec) and these functions record the call, refuse
// empty keys and apply the options, then do what the method says.
type ReadArg = impl.ReadArg

func NewEntity[T any](ent *Entity[T]) *Entity[T] { return desc.NewEntity(ent) }

// The methods of an entity written through the protocol, generic over
// P = *T alone (see desc.EntityOf): compiled once, whatever the entities.
func Insert[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	return impl.Insert(ctx, ent, s, base, opts, e)
}

// InsertIfAbsent and Add are the methods of an entity stored in one
// table and of a counter table's: with Insert, Update and Delete, every
// entity's writes go through its description, whatever its kind.
func InsertIfAbsent[T any](ctx context.Context, ent *Entity[T], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e *T) (cqlgen.Inserted[T], error) {
	return impl.InsertIfAbsent(ctx, ent, s, base, opts, e)
}

func Add[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	return impl.Add(ctx, ent, s, base, opts, e)
}

func Update[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	return impl.Update(ctx, ent, s, base, opts, e)
}

func Delete[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	return impl.Delete(ctx, ent, s, base, opts, e)
}

func GetVersioned[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, key P) (P, int64, error) {
	return impl.GetVersioned(ctx, ent, s, key)
}

func Modify[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, key P, change func(P) error) (P, error) {
	return impl.Modify(ctx, ent, s, base, opts, key, change)
}

func Verify[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return impl.Verify(ctx, ent, s, o)
}

func Repair[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return impl.Repair(ctx, ent, s, o)
}

func Backfill[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, table string, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return impl.Backfill(ctx, ent, s, table, o)
}

func Tables[P any](ent *desc.EntityOf[P]) []string { return impl.Tables(ent) }

// ScanLive scans a row of ent's source of truth as Get reads it, skipping
// graves: the Scan of its reads.
func ScanLive[P any](ent *desc.EntityOf[P]) func(cqldriver.Iter, P) bool {
	return desc.ScanLive(ent)
}

func Get[P any](ctx context.Context, s cqlgen.Session, entity, method string, t *Table, key []any, scan func(cqldriver.Iter, P) bool) (P, error) {
	return impl.Get(ctx, s, entity, method, t, key, scan)
}

func GetOf[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, key []any) (P, error) {
	return impl.GetOf(ctx, ent, s, key)
}

func GetTimes[P, M any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, key []any, times func(*M) []any) (P, M, error) {
	return impl.GetTimes(ctx, ent, s, key, times)
}

func Many[T, K any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, entity string, t *Table, prefix []any, keys []K, scan func(cqldriver.Iter, *T) bool, key func(*T) K) (cqlgen.Found[T], error) {
	return impl.Many(ctx, s, base, entity, t, prefix, keys, scan, key)
}

func Or[T any](o *T) *T { return impl.Or(o) }

func Range[V any](from, to *V, fromExclusive, toInclusive bool) ReadArg {
	return impl.Range(from, to, fromExclusive, toInclusive)
}

func Walk(start time.Time, lookBack int) ReadArg { return impl.Walk(start, lookBack) }

func Every(tb TimeBuckets) *TimeBuckets { return impl.Every(tb) }

func Eq[V any](v *V, cqlType string) ReadArg { return impl.Eq(v, cqlType) }

func Prefixed(names []string, fixed, bounded []bool) ReadArg {
	return impl.Prefixed(names, fixed, bounded)
}
