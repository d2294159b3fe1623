package impl

import (
	"context"
	"fmt"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/maintenance"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
	"github.com/cqlgen/cqlgen/runtime/internal/reads"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// The entry points of generated methods: each records the call
// (Observe) under the entity's and the method's names, applies the
// call's options and runs it, so that a generated method is one line.

// Insert is the Insert method of an entity: written through the
// protocol, or without it (runPlain).
func Insert[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	if ent.Plain != nil {
		return runPlain(ent, ctx, s, base, opts, "Insert", desc.OpInsert, e)
	}
	return run(ent, ctx, s, base, opts, "Insert", desc.OpInsert, e)
}

// Update is the Update method of an entity written through the protocol.
func Update[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	if ent.Plain != nil {
		return runPlain(ent, ctx, s, base, opts, "Update", desc.OpUpdate, e)
	}
	return run(ent, ctx, s, base, opts, "Update", desc.OpUpdate, e)
}

// Delete is the Delete method of an entity written through the protocol:
// e needs only the source of truth's key.
func Delete[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	if ent.Plain != nil {
		return runPlain(ent, ctx, s, base, opts, "Delete", desc.OpDelete, e)
	}
	return run(ent, ctx, s, base, opts, "Delete", desc.OpDelete, e)
}

func run[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, method string, op desc.Op, e P) (err error) {
	defer desc.Observe(&ctx, s, ent.Name, method).End(&err)
	check := ent.Check
	if op == desc.OpDelete {
		check = ent.CheckKey
	}
	o, err := protocol.BeginVersioned(e, check, base, opts)
	if err != nil {
		return err
	}
	if err := protocol.AccordCheck(ent.Canonical, ctx, o.SerialConsistency, true); err != nil {
		return err
	}
	defer protocol.AccordEnd(ent.Canonical, &err)
	return protocol.Write(ctx, s, o, ent, op, e)
}

// GetVersioned is the GetVersioned method: key holds the source of
// truth's key alone.
func GetVersioned[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, key P) (_ P, _ int64, err error) {
	defer desc.Observe(&ctx, s, ent.Name, "GetVersioned").End(&err)
	if err := ent.CheckKey(key); err != nil {
		return value.None[P](), 0, err
	}
	if err := protocol.AccordCheck(ent.Canonical, ctx, 0, false); err != nil {
		return value.None[P](), 0, err
	}
	defer protocol.AccordEnd(ent.Canonical, &err)
	return protocol.Versioned(ctx, s, ent, key)
}

// Modify is the Modify method: key holds the source of truth's key
// alone.
func Modify[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, key P, change func(P) error) (_ P, err error) {
	defer desc.Observe(&ctx, s, ent.Name, "Modify").End(&err)
	o, err := protocol.BeginVersioned(key, ent.CheckKey, base, opts)
	if err != nil {
		return value.None[P](), err
	}
	if err := protocol.AccordCheck(ent.Canonical, ctx, o.SerialConsistency, true); err != nil {
		return value.None[P](), err
	}
	defer protocol.AccordEnd(ent.Canonical, &err)
	return protocol.ModifyEntity(ctx, s, o, ent, key, ent.Check, change)
}

// Verify is the Verify method of a maintained entity.
func Verify[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, o *cqlmaintain.Options) (_ *cqlmaintain.Report, err error) {
	defer desc.Observe(&ctx, s, ent.Name, "Verify").End(&err)
	return maintenance.Maintain(ctx, s, ent, ent.Name, false, o)
}

// Repair is the Repair method of a maintained entity.
func Repair[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, o *cqlmaintain.Options) (_ *cqlmaintain.Report, err error) {
	defer desc.Observe(&ctx, s, ent.Name, "Repair").End(&err)
	return maintenance.Maintain(ctx, s, ent, ent.Name, true, o)
}

// Backfill is the Backfill method of a maintained entity.
func Backfill[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, table string, o *cqlmaintain.Options) (_ *cqlmaintain.Report, err error) {
	defer desc.Observe(&ctx, s, ent.Name, "Backfill").End(&err)
	return maintenance.BackfillEntity(ctx, s, ent, ent.Name, table, o)
}

// Tables lists the tables of a maintained entity that Repair and
// Backfill write: all but the source of truth.
func Tables[P any](ent *desc.EntityOf[P]) []string {
	out := make([]string, 0, len(ent.Projections))
	for _, p := range ent.Projections {
		out = append(out, p.Table.Spec.Name)
	}
	return out
}

// Get is a method that reads the row of t with the given primary key
// (bucket included), as t's Get statement binds it; an empty partition
// key value gets a *cqlgen.InputError matching cqlgen.ErrEmptyKey, and no row cqlgen.ErrNotFound.
func Get[P any](ctx context.Context, s cqlgen.Session, entity, method string, t *desc.Table, key []any, scan func(cqldriver.Iter, P) bool) (_ P, err error) {
	defer desc.Observe(&ctx, s, entity, method).End(&err)
	if err := checkPartition(t, key); err != nil {
		return value.None[P](), err
	}
	if err := protocol.AccordCheck(t, ctx, 0, false); err != nil {
		return value.None[P](), err
	}
	defer protocol.AccordEnd(t, &err)
	row := desc.NewRowOf[P]()
	if err := protocol.FetchRow(ctx, s, cqldriver.Query{Stmt: t.Get, Values: key}, scan, row); err != nil {
		return value.None[P](), err
	}
	return row, nil
}

// Many is the GetMany method: prefix binds the partition key's columns
// but the last, keys the last one's values.
func Many[T, K any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, entity string, t *desc.Table, prefix []any, keys []K, scan func(cqldriver.Iter, *T) bool, key func(*T) K) (cqlgen.Found[T], error) {
	res, err := many(ctx, s, base, entity, t, prefix, keys, scan, key)
	return cqlgen.Found[T](res), err
}

// many is Many, generic over P = *T alone.
func many[P, K any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, entity string, t *desc.Table, prefix []any, keys []K, scan func(cqldriver.Iter, P) bool, key func(P) K) (_ reads.Found[P], err error) {
	defer desc.Observe(&ctx, s, entity, "GetMany").End(&err)
	if err := checkPartition(t, prefix); err != nil {
		return reads.Found[P]{}, err
	}
	if err := protocol.AccordCheck(t, ctx, 0, false); err != nil {
		return reads.Found[P]{}, err
	}
	defer protocol.AccordEnd(t, &err)
	last := t.Spec.PartitionKey[len(t.Spec.PartitionKey)-1]
	for _, k := range keys {
		if value.EmptyValue(last.Type, k) {
			return reads.Found[P]{}, desc.EmptyKey(t.Spec.Name, last.Name)
		}
	}
	return reads.GetMany(ctx, s, t, prefix, keys, base.MaxKeys, scan, key)
}

// checkPartition refuses the first empty value among values, bound in
// t's column order, that is a partition key value; the bucket column is
// never empty.
func checkPartition(t *desc.Table, values []any) error {
	pk := t.Spec.PartitionKey
	n := len(pk)
	if t.Spec.Bucket != 0 {
		n--
	}
	for i := 0; i < n && i < len(values); i++ {
		if value.EmptyValue(pk[i].Type, values[i]) {
			return desc.EmptyKey(t.Spec.Name, pk[i].Name)
		}
	}
	return nil
}

// Or is o, or a new T when o is nil: a read's options.
func Or[T any](o *T) *T {
	if o == nil {
		return new(T)
	}
	return o
}

// ReadArg is a part of a read's options beyond its limit and cursor: a
// range (Range) or a walk over time buckets (Walk).
type ReadArg struct {
	from, to                   any
	fromExclusive, toInclusive bool
	walk                       bool
	start                      time.Time
	lookBack                   int
	eq                         any
	err                        error
}

// Range bounds the first clustering column a read does not fix: from and
// to, nil for an open end, and whether each is exclusive or inclusive
// other than by default.
func Range[V any](from, to *V, fromExclusive, toInclusive bool) ReadArg {
	var a ReadArg
	if from != nil {
		a.from, a.fromExclusive = *from, fromExclusive
	}
	if to != nil {
		a.to, a.toInclusive = *to, toInclusive
	}
	return a
}

// Walk is where a read over time buckets starts (zero: now) and how many
// buckets it may reach (0: cqlgen.DefaultLookBack).
func Walk(start time.Time, lookBack int) ReadArg {
	return ReadArg{walk: true, start: start, lookBack: lookBack}
}

// Page is a read method of a pattern whose partitions hold many rows:
// partition holds the partition key values, the bucket excluded.
func (r *ReadSpec[T]) Page(ctx context.Context, s cqlgen.Session, base cqlgen.Options, partition []any, limit int, cursor string, args ...ReadArg) (cqlgen.Page[T], error) {
	pg, err := readPageOf((*reads.ReadSpecOf[*T])(r), ctx, s, base, partition, limit, cursor, reads.RowArena[*T](), args)
	return reads.PageOf(ctx, pg), err
}

// derivedRead is the Scan and Key NewEntity derived for ent's table t
// (readFuncs); nil when it derived none.
func derivedRead[P any](ent *desc.EntityOf[P], t *desc.Table) (func(cqldriver.Iter, P) bool, func(P) []any) {
	if t == ent.Canonical && ent.Live != nil {
		return ent.Live, ent.LiveKey
	}
	for i := range ent.Projections {
		if p := &ent.Projections[i]; p.Table == t {
			return p.Scan, p.Clustering
		}
	}
	return nil, nil
}

// readPageOf is Page, generic over P = *T alone.
func readPageOf[P any](r *reads.ReadSpecOf[P], ctx context.Context, s cqlgen.Session, base cqlgen.Options, partition []any, limit int, cursor string, newRow func() P, args []ReadArg) (_ reads.Page[P], err error) {
	entity := r.Entity
	if entity == "" && r.Of != nil {
		entity = r.Of.Name
	}
	defer desc.Observe(&ctx, s, entity, r.Table.Spec.Pattern).End(&err)
	if err := checkPartition(r.Table, partition); err != nil {
		return reads.Page[P]{}, err
	}
	if err := protocol.AccordCheck(r.Table, ctx, 0, false); err != nil {
		return reads.Page[P]{}, err
	}
	defer protocol.AccordEnd(r.Table, &err)
	spec := reads.WithCall(*r, partition, limit, cursor, base)
	spec.NewRow = newRow
	if spec.Scan == nil && spec.Of != nil {
		if spec.Scan, spec.Key = derivedRead(spec.Of, r.Table); spec.Scan == nil {
			return reads.Page[P]{}, fmt.Errorf("cqlgen: %s: a read whose rows are not derived from %s's fields: regenerate the package", r.Table.Spec.Name, spec.Of.Name)
		}
	}
	for _, a := range args {
		if a.err != nil {
			return reads.Page[P]{}, a.err
		}
	}
	for _, a := range args {
		if a.eq != nil {
			spec.Prefix = append(spec.Prefix, a.eq)
			continue
		}
		if a.walk {
			spec.Start, spec.LookBack = a.start, a.lookBack
			if spec.Start.IsZero() {
				spec.Start = base.Clock()
			}
			continue
		}
		if a.from != nil {
			spec.From, spec.FromExclusive = a.from, a.fromExclusive
		}
		if a.to != nil {
			spec.To, spec.ToInclusive = a.to, a.toInclusive
		}
	}
	return reads.ReadPageOf(ctx, s, spec)
}

// Every is tb, for a ReadSpec's TimeBuckets.
func Every(tb desc.TimeBuckets) *desc.TimeBuckets { return &tb }

// Eq fixes a clustering column of a read with a prefix key to *v; nil
// fixes nothing. cqlType, for a set or a map, orders its elements as a
// row's key binds them.
func Eq[V any](v *V, cqlType string) ReadArg {
	if v == nil {
		return ReadArg{}
	}
	var x any = *v
	if cqlType != "" {
		x = value.Normalized(cqlType, x)
	}
	return ReadArg{eq: x}
}

// Prefixed checks the options of a read with a prefix key (CheckPrefix):
// names are the clustering columns it may fix then bound, fixed which
// are fixed, bounded which are bounded.
func Prefixed(names []string, fixed, bounded []bool) ReadArg {
	return ReadArg{err: desc.CheckPrefix(names, fixed, bounded)}
}
