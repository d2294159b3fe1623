package impl

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// The entry points of generated methods: each records the call
// (Observe) under the entity's and the method's names, applies the
// call's options and runs it, so that a generated method is one line.

// Insert is the Insert method of an entity: written through the
// protocol, or without it (runPlain).
func Insert[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	if ent.plain != nil {
		return runPlain(ent, ctx, s, base, opts, "Insert", OpInsert, e)
	}
	return run(ent, ctx, s, base, opts, "Insert", OpInsert, e)
}

// Update is the Update method of an entity written through the protocol.
func Update[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	if ent.plain != nil {
		return runPlain(ent, ctx, s, base, opts, "Update", OpUpdate, e)
	}
	return run(ent, ctx, s, base, opts, "Update", OpUpdate, e)
}

// Delete is the Delete method of an entity written through the protocol:
// e needs only the source of truth's key.
func Delete[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	if ent.plain != nil {
		return runPlain(ent, ctx, s, base, opts, "Delete", OpDelete, e)
	}
	return run(ent, ctx, s, base, opts, "Delete", OpDelete, e)
}

func run[P any](ent *entity[P], ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, method string, op Op, e P) (err error) {
	defer Observe(&ctx, s, ent.Name, method).End(&err)
	check := ent.Check
	if op == OpDelete {
		check = ent.CheckKey
	}
	o, err := BeginVersioned(e, check, base, opts)
	if err != nil {
		return err
	}
	if err := accordCheck(ent.Canonical, ctx, o.SerialConsistency, true); err != nil {
		return err
	}
	defer accordEnd(ent.Canonical, &err)
	return Write(ctx, s, o, ent, op, e)
}

// GetVersioned is the GetVersioned method: key holds the source of
// truth's key alone.
func GetVersioned[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, key P) (_ P, _ int64, err error) {
	defer Observe(&ctx, s, ent.Name, "GetVersioned").End(&err)
	if err := ent.CheckKey(key); err != nil {
		return none[P](), 0, err
	}
	if err := accordCheck(ent.Canonical, ctx, 0, false); err != nil {
		return none[P](), 0, err
	}
	defer accordEnd(ent.Canonical, &err)
	return Versioned(ctx, s, ent, key)
}

// Modify is the Modify method: key holds the source of truth's key
// alone.
func Modify[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, key P, change func(P) error) (_ P, err error) {
	defer Observe(&ctx, s, ent.Name, "Modify").End(&err)
	o, err := BeginVersioned(key, ent.CheckKey, base, opts)
	if err != nil {
		return none[P](), err
	}
	if err := accordCheck(ent.Canonical, ctx, o.SerialConsistency, true); err != nil {
		return none[P](), err
	}
	defer accordEnd(ent.Canonical, &err)
	return modifyEntity(ctx, s, o, ent, key, ent.Check, change)
}

// Verify is the Verify method of a maintained entity.
func Verify[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, o *cqlmaintain.Options) (_ *cqlmaintain.Report, err error) {
	defer Observe(&ctx, s, ent.Name, "Verify").End(&err)
	return Maintain(ctx, s, ent, ent.Name, false, o)
}

// Repair is the Repair method of a maintained entity.
func Repair[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, o *cqlmaintain.Options) (_ *cqlmaintain.Report, err error) {
	defer Observe(&ctx, s, ent.Name, "Repair").End(&err)
	return Maintain(ctx, s, ent, ent.Name, true, o)
}

// Backfill is the Backfill method of a maintained entity.
func Backfill[P any](ctx context.Context, ent *entity[P], s cqlgen.Session, table string, o *cqlmaintain.Options) (_ *cqlmaintain.Report, err error) {
	defer Observe(&ctx, s, ent.Name, "Backfill").End(&err)
	return backfillEntity(ctx, s, ent, ent.Name, table, o)
}

// Tables lists the tables of a maintained entity that Repair and
// Backfill write: all but the source of truth.
func Tables[P any](ent *entity[P]) []string {
	out := make([]string, 0, len(ent.Projections))
	for _, p := range ent.Projections {
		out = append(out, p.Table.Spec.Name)
	}
	return out
}

// Get is a method that reads the row of t with the given primary key
// (bucket included), as t's Get statement binds it; an empty partition
// key value gets a *cqlgen.InputError matching cqlgen.ErrEmptyKey, and no row cqlgen.ErrNotFound.
func Get[P any](ctx context.Context, s cqlgen.Session, entity, method string, t *Table, key []any, scan func(cqldriver.Iter, P) bool) (_ P, err error) {
	defer Observe(&ctx, s, entity, method).End(&err)
	if err := checkPartition(t, key); err != nil {
		return none[P](), err
	}
	if err := accordCheck(t, ctx, 0, false); err != nil {
		return none[P](), err
	}
	defer accordEnd(t, &err)
	row := newRow[P]()
	if err := getRow(ctx, s, cqldriver.Query{Stmt: t.Get, Values: key}, scan, row); err != nil {
		return none[P](), err
	}
	return row, nil
}

// Many is the GetMany method: prefix binds the partition key's columns
// but the last, keys the last one's values.
func Many[T, K any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, entity string, t *Table, prefix []any, keys []K, scan func(cqldriver.Iter, *T) bool, key func(*T) K) (cqlgen.Found[T], error) {
	res, err := many(ctx, s, base, entity, t, prefix, keys, scan, key)
	return cqlgen.Found[T](res), err
}

// found is cqlgen.Found with P = *T, field for field.
type found[P any] struct {
	Rows    []P
	Missing []int
}

// many is Many, generic over P = *T alone.
func many[P, K any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, entity string, t *Table, prefix []any, keys []K, scan func(cqldriver.Iter, P) bool, key func(P) K) (_ found[P], err error) {
	defer Observe(&ctx, s, entity, "GetMany").End(&err)
	if err := checkPartition(t, prefix); err != nil {
		return found[P]{}, err
	}
	if err := accordCheck(t, ctx, 0, false); err != nil {
		return found[P]{}, err
	}
	defer accordEnd(t, &err)
	last := t.Spec.PartitionKey[len(t.Spec.PartitionKey)-1]
	for _, k := range keys {
		if emptyValue(last.Type, k) {
			return found[P]{}, EmptyKey(t.Spec.Name, last.Name)
		}
	}
	return getMany(ctx, s, t, prefix, keys, base.MaxKeys, scan, key)
}

// checkPartition refuses the first empty value among values, bound in
// t's column order, that is a partition key value; the bucket column is
// never empty.
func checkPartition(t *Table, values []any) error {
	pk := t.Spec.PartitionKey
	n := len(pk)
	if t.Spec.Bucket != 0 {
		n--
	}
	for i := 0; i < n && i < len(values); i++ {
		if emptyValue(pk[i].Type, values[i]) {
			return EmptyKey(t.Spec.Name, pk[i].Name)
		}
	}
	return nil
}

// emptyValue reports whether v, a value of a column of CQL type typ, is
// empty as a partition key value: an empty string, a zero time, the
// zero UUID, an empty blob or collection. Numbers and booleans are never
// empty.
func emptyValue(typ string, v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case time.Time:
		return v.IsZero()
	case []byte:
		return typ == "blob" && len(v) == 0
	case int, int8, int16, int32, int64, bool, float32, float64:
		return false
	}
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return false
	case typ == "uuid" || typ == "timeuuid":
		return rv.Kind() == reflect.Array && rv.IsZero()
	case rv.Kind() == reflect.String:
		return rv.Len() == 0
	case typ == "blob" || anyCollection(typ):
		return (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Map) && rv.Len() == 0
	}
	return false
}

func anyCollection(typ string) bool {
	typ = strings.TrimPrefix(typ, "frozen<")
	return strings.HasPrefix(typ, "list<") || strings.HasPrefix(typ, "set<") || strings.HasPrefix(typ, "map<")
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
	pg, err := readPageOf((*readSpec[*T])(r), ctx, s, base, partition, limit, cursor, rowArena[*T](), args)
	return pageOf(pg), err
}

// derivedRead is the Scan and Key NewEntity derived for ent's table t
// (readFuncs); nil when it derived none.
func derivedRead[P any](ent *entity[P], t *Table) (func(cqldriver.Iter, P) bool, func(P) []any) {
	if t == ent.Canonical && ent.live != nil {
		return ent.live, ent.liveKey
	}
	for i := range ent.Projections {
		if p := &ent.Projections[i]; p.Table == t {
			return p.scan, p.clustering
		}
	}
	return nil, nil
}

// readPageOf is Page, generic over P = *T alone.
func readPageOf[P any](r *readSpec[P], ctx context.Context, s cqlgen.Session, base cqlgen.Options, partition []any, limit int, cursor string, newRow func() P, args []ReadArg) (_ page[P], err error) {
	entity := r.Entity
	if entity == "" && r.Of != nil {
		entity = r.Of.Name
	}
	defer Observe(&ctx, s, entity, r.Table.Spec.Pattern).End(&err)
	if err := checkPartition(r.Table, partition); err != nil {
		return page[P]{}, err
	}
	if err := accordCheck(r.Table, ctx, 0, false); err != nil {
		return page[P]{}, err
	}
	defer accordEnd(r.Table, &err)
	spec := withCall(*r, partition, limit, cursor, base)
	spec.newRow = newRow
	if spec.Scan == nil && spec.Of != nil {
		if spec.Scan, spec.Key = derivedRead(spec.Of, r.Table); spec.Scan == nil {
			return page[P]{}, fmt.Errorf("cqlgen: %s: a read whose rows are not derived from %s's fields: regenerate the package", r.Table.Spec.Name, spec.Of.Name)
		}
	}
	for _, a := range args {
		if a.err != nil {
			return page[P]{}, a.err
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
	return readPage(ctx, s, spec)
}

// Every is tb, for a ReadSpec's TimeBuckets.
func Every(tb TimeBuckets) *TimeBuckets { return &tb }

// Eq fixes a clustering column of a read with a prefix key to *v; nil
// fixes nothing. cqlType, for a set or a map, orders its elements as a
// row's key binds them.
func Eq[V any](v *V, cqlType string) ReadArg {
	if v == nil {
		return ReadArg{}
	}
	var x any = *v
	if cqlType != "" {
		x = Normalized(cqlType, x)
	}
	return ReadArg{eq: x}
}

// Prefixed checks the options of a read with a prefix key (CheckPrefix):
// names are the clustering columns it may fix then bound, fixed which
// are fixed, bounded which are bounded.
func Prefixed(names []string, fixed, bounded []bool) ReadArg {
	return ReadArg{err: CheckPrefix(names, fixed, bounded)}
}
