package desc

import (
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/bucket"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// NewEntity completes ent, an entity's description as generated code
// declares it, and returns it. Where the description gives Values and
// Fields, the functions of the write protocol (State, ScanState, Data,
// Change, Remove, Settle) are derived from them once, here, with the
// order of each statement's placeholders as cqlspec renders it: the
// generated code states each column's field once.
func NewEntity[T any](ent *Entity[T]) *Entity[T] {
	derive(ent)
	return ent
}

// derive is NewEntity's work, generic over P = *T alone so that it
// compiles once for every entity: what needs T (a new row, a copy) goes
// through reflection, once per row, never per column.
func derive[P any](ent *EntityOf[P]) {
	ent.NewRow, ent.zero = NewRowOf[P], NewRowOf[P]()
	ent.copyRow = func(dst, src P) { reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem()) }
	if scan := ent.ScanState; scan != nil {
		ent.ScanCanonical = func(it cqldriver.Iter) (State[P], bool) {
			v := State[P]{Row: NewRowOf[P]()}
			ok := scan(it, &v)
			return v, ok
		}
	}
	if !ent.Canonical.Spec.Versioned {
		derivePlain(ent)
		return
	}
	if ent.Values == nil || ent.Fields == nil {
		return
	}
	spec := ent.Canonical.Spec
	if spec.Bucket != cqlspec.BucketNone {
		panic(fmt.Sprintf("cqlgenimpl: %s: a source of truth split over buckets takes generated protocol functions", spec.Name))
	}
	index := map[string]int{}
	n, keys, static := 0, 0, false
	for _, c := range spec.All() {
		if c.Field {
			index[c.Name] = n
			n++
		}
		switch c.Kind {
		case cqlspec.KindPartition, cqlspec.KindClustering:
			keys++
		case cqlspec.KindStaticVersion:
			static = true
		}
	}
	plans := map[cqlspec.Slot][]int{}
	for _, s := range cqlspec.Render(&spec) {
		switch s.Slot {
		case cqlspec.SlotChange, cqlspec.SlotRemove, cqlspec.SlotClearPending, cqlspec.SlotCreate:
		default:
			continue
		}
		var plan []int
		for _, b := range s.Binds {
			switch {
			case b.Kind == cqlspec.BindColumn && b.Column == cqlspec.VersionColumn:
				plan = append(plan, bindTS)
			case b.Kind == cqlspec.BindColumn:
				i, ok := index[b.Column]
				if !ok {
					panic(fmt.Sprintf("cqlgenimpl: %s: %s binds column %s, which no field holds", spec.Name, s.Slot, b.Column))
				}
				plan = append(plan, i)
			case b.Kind == cqlspec.BindOldVersion:
				plan = append(plan, bindOld)
			case b.Kind == cqlspec.BindPending:
				plan = append(plan, bindPending)
			case b.Kind == cqlspec.BindWrites:
				plan = append(plan, bindWrites)
			case b.Kind == cqlspec.BindStaticTS:
				plan = append(plan, bindStatic)
			case b.Kind == cqlspec.BindOldStatic:
				plan = append(plan, bindOldStatic)
			default:
				panic(fmt.Sprintf("cqlgenimpl: %s: %s binds a placeholder of kind %d", spec.Name, s.Slot, b.Kind))
			}
		}
		plans[s.Slot] = plan
	}
	values, fields := ent.Values, ent.Fields
	bind := func(plan []int, e P, c Change) []any {
		vs := values(e, c.Unset)
		out := make([]any, len(plan))
		for i, p := range plan {
			switch p {
			case bindTS:
				out[i] = c.TS
			case bindOld:
				out[i] = c.Old
			case bindPending:
				out[i] = c.Pending
			case bindWrites:
				out[i] = c.Writes
			case bindStatic:
				out[i] = c.Static
			case bindOldStatic:
				out[i] = c.OldStatic
			default:
				out[i] = vs[p]
			}
		}
		return out
	}
	change, remove, settle := plans[cqlspec.SlotChange], plans[cqlspec.SlotRemove], plans[cqlspec.SlotClearPending]
	ent.State = func(e P) []any { return values(e, false)[:keys:keys] }
	ent.Data = func(e P) []any { return values(e, false)[:n:n] }
	newRow := ent.NewRow
	ent.ScanCanonical = func(it cqldriver.Iter) (v State[P], ok bool) {
		v.Row = newRow()
		dest := fields(v.Row, make([]any, 0, n+5))
		dest = append(dest, &v.Version, &v.Deleted, &v.Pending, &v.Writes)
		if static {
			dest = append(dest, &v.StaticVersion)
		}
		ok = it.Scan(dest...)
		return
	}
	ent.Live = ScanLive(ent)
	_, ent.LiveKey = readFuncs(ent.Canonical, index, index, n, fields, values)
	ent.Change = func(e P, c Change) []any { return bind(change, e, c) }
	ent.Remove = func(e P, c Change) []any { return bind(remove, e, c) }
	ent.Settle = func(e P, version int64) []any { return bind(settle, e, Change{Old: version}) }
	if create, ok := plans[cqlspec.SlotCreate]; ok && ent.Canonical.Create != nil {
		ent.Create = func(e P, c Change) []any { return bind(create, e, c) }
		ent.Keys = keys
	}
	for i := range ent.Projections {
		p := &ent.Projections[i]
		if p.Row == nil {
			p.Row, p.Key = projectionFuncs(p, ent.Canonical, index, values)
		}
		p.Scan, p.Clustering = readFuncs(p.Table, index, index, n, fields, values)
	}
	if ent.Check == nil {
		ent.Check, ent.CheckKey = checks(ent, index)
	}
	if spec.Transactional {
		tables := make([]*Table, len(ent.Projections))
		unique := make([]bool, len(ent.Projections))
		for i, p := range ent.Projections {
			tables[i], unique[i] = p.Table, p.Unique
		}
		ent.Txn = NewTxnEntity(ent.Canonical, tables, unique, index)
	}

}

// projectionFuncs derives Row and Key of a table other than the source
// of truth whose columns all hold fields of the entity, but a bucket
// column, derived from the field p.BucketOf names (bucketFunc): Row binds
// its Insert (the columns, then the timestamp, in the order cqlspec
// renders them), Key is its primary key.
func projectionFuncs[P any](p *ProjectionOf[P], canon *Table, index map[string]int, values func(P, bool) []any) (row func(P, int64, bool) []any, key func(P) []any) {
	t := p.Table
	var plan, keys []int
	bucketCol, bucket, src := "", (func(any) any)(nil), 0
	if t.Spec.Bucket != cqlspec.BucketNone {
		bucketCol = t.Spec.PartitionKey[len(t.Spec.PartitionKey)-1].Name
		var ok bool
		if src, ok = index[p.BucketOf]; !ok {
			panic(fmt.Sprintf("cqlgenimpl: %s: its bucket derives from %q, no field of the source of truth; the table takes generated Row and Key", t.Spec.Name, p.BucketOf))
		}
		bucket = bucketFunc(canon, p)
	}
	column := func(name string) int {
		if name == bucketCol {
			return bindBucket
		}
		i, ok := index[name]
		if !ok {
			panic(fmt.Sprintf("cqlgenimpl: %s: column %s holds no field of the source of truth; the table takes generated Row and Key", t.Spec.Name, name))
		}
		return i
	}
	for _, s := range cqlspec.Render(&t.Spec) {
		if s.Slot != cqlspec.SlotInsert {
			continue
		}
		for _, b := range s.Binds {
			switch b.Kind {
			case cqlspec.BindTimestamp:
				plan = append(plan, bindTS)
			case cqlspec.BindColumn:
				plan = append(plan, column(b.Column))
			default:
				panic(fmt.Sprintf("cqlgenimpl: %s: Insert binds a placeholder of kind %d", t.Spec.Name, b.Kind))
			}
		}
	}
	for _, c := range append(append([]Column(nil), t.Spec.PartitionKey...), t.Spec.Clustering...) {
		keys = append(keys, column(c.Name))
	}
	row = func(e P, ts int64, unset bool) []any { return pick(values(e, unset), plan, ts, bucket, src) }
	key = func(e P) []any { return pick(values(e, false), keys, 0, bucket, src) }
	return row, key
}

// readFuncs derives the scan of a row of t, as its reads select it (the
// columns of fields, in table order), and its clustering values, from the
// source of truth's Fields and Values: findex maps a column of the source
// of truth to its place among the n Fields, vindex to its place in Values
// (the same map where Values holds the fields alone, as a versioned
// entity's does). Both are nil when a column of t holds no field of the
// source of truth.
func readFuncs[P any](t *Table, vindex, findex map[string]int, n int, fields func(P, []any) []any, values func(P, bool) []any) (scan func(cqldriver.Iter, P) bool, clustering func(P) []any) {
	var sel, ck []int
	for _, c := range t.Spec.All() {
		if !c.Field {
			continue
		}
		i, ok := findex[c.Name]
		if !ok {
			return nil, nil
		}
		sel = append(sel, i)
		if c.Kind == cqlspec.KindClustering {
			ck = append(ck, vindex[c.Name])
		}
	}
	// One array a row, the entity's fields then the row's destinations,
	// taken from a pool: a page of rows would otherwise allocate it once
	// a row, twice what a hand-written Scan's arguments take.
	bufs := sync.Pool{New: func() any { b := make([]any, n+len(sel)); return &b }}
	scan = func(it cqldriver.Iter, e P) bool {
		bp := bufs.Get().(*[]any)
		buf := *bp
		all := fields(e, buf[:0:n])
		dest := buf[n:]
		for j, i := range sel {
			dest[j] = all[i]
		}
		ok := it.Scan(dest...)
		clear(buf) // hold no pointer into e
		bufs.Put(bp)
		return ok
	}
	clustering = func(e P) []any {
		vs := values(e, false)
		out := make([]any, len(ck))
		for j, i := range ck {
			out[j] = value.Unnormalized(vs[i])
		}
		return out
	}
	return scan, clustering
}

// bucketFunc derives the bucket of a row of p.Table from the value of
// the column p.BucketOf names in canon, the source of truth, as the source of truth's Values holds it: time
// buckets by its time (a timeuuid's own), hash buckets by the hash of the
// column's CQL type (HashOf in the generator), the value converted to the
// type that hash takes, as a named Go type of the field converts.
func bucketFunc[P any](canon *Table, p *ProjectionOf[P]) func(any) any {
	t := p.Table
	var typ string
	for _, c := range canon.Spec.All() {
		if c.Name == p.BucketOf {
			typ = c.Type
		}
	}
	if p.TimeBuckets != nil {
		tb := *p.TimeBuckets
		if typ == "timeuuid" {
			return func(v any) any { return tb.Of(cqldriver.TimeOfUUID(value.UuidOf(v))) }
		}
		return func(v any) any { t, _ := v.(time.Time); return tb.Of(t) }
	}
	n := p.HashBuckets
	if n <= 0 {
		panic(fmt.Sprintf("cqlgenimpl: %s: a bucketed table without HashBuckets or TimeBuckets", t.Spec.Name))
	}
	switch typ {
	case "text", "varchar", "ascii":
		return func(v any) any { return bucket.HashText(reflect.ValueOf(v).String(), n) }
	case "bigint":
		return func(v any) any { return bucket.HashBigint(value.IntOf(v), n) }
	case "int":
		return func(v any) any { return bucket.HashInt(int32(value.IntOf(v)), n) }
	case "smallint":
		return func(v any) any { return bucket.HashSmallint(int16(value.IntOf(v)), n) }
	case "tinyint":
		return func(v any) any { return bucket.HashTinyint(int8(value.IntOf(v)), n) }
	case "boolean":
		return func(v any) any { return bucket.HashBoolean(reflect.ValueOf(v).Bool(), n) }
	case "blob":
		return func(v any) any { return bucket.HashBlob(reflect.ValueOf(v).Bytes(), n) }
	case "uuid", "timeuuid":
		return func(v any) any { return bucket.HashUUID(value.UuidOf(v), n) }
	case "timestamp":
		return func(v any) any { t, _ := v.(time.Time); return bucket.HashTimestamp(t, n) }
	case "date":
		return func(v any) any { t, _ := v.(time.Time); return bucket.HashDate(t, n) }
	}
	panic(fmt.Sprintf("cqlgenimpl: %s: no hash bucket derives from a column of type %q", t.Spec.Name, typ))
}

// tableColumn is a column of a table; vectorColumn a vector column and
// its dimension.
type (
	tableColumn struct {
		t *Table
		c Column
	}
	vectorColumn struct {
		c   Column
		dim int
	}
)

// checkedColumns are the columns an entity's Check looks at: keys, the
// partition key columns (the bucket excluded) of the source of truth,
// its first canon, then those of each other table not listed yet, which
// must not be empty; and the vector columns of the source of truth,
// whose values must be of their dimension.
func checkedColumns[P any](ent *EntityOf[P]) (keys []tableColumn, canon int, vectors []vectorColumn) {
	seen := map[string]bool{}
	add := func(t *Table) {
		pk := t.Spec.PartitionKey
		if t.Spec.Bucket != cqlspec.BucketNone {
			pk = pk[:len(pk)-1]
		}
		for _, c := range pk {
			if !seen[c.Name] {
				seen[c.Name] = true
				keys = append(keys, tableColumn{t, c})
			}
		}
	}
	add(ent.Canonical)
	canon = len(keys)
	for i := range ent.Projections {
		add(ent.Projections[i].Table)
	}
	for _, c := range ent.Canonical.Spec.Columns {
		var dim int
		if _, err := fmt.Sscanf(c.Type, "vector<float, %d>", &dim); err == nil {
			vectors = append(vectors, vectorColumn{c, dim})
		}
	}
	return keys, canon, vectors
}

// checkedKey is a partition key column Check refuses empty, and
// checkedVector a vector column it checks the dimension of: i is the
// column's place in Values. (Types of the package, not of checks: a type
// declared in a generic function is a type of its own, with its own
// equality function, for every entity.)
type (
	checkedKey struct {
		table, column, typ string
		i                  int
	}
	checkedVector struct {
		column string
		dim, i int
	}
)

// checks derives Check and CheckKey from the tables' descriptions: the
// partition key values of the source of truth, then those of each other
// table not checked yet, must not be empty (emptyValue), and a vector
// must be of its column's dimension. index maps a column of the source
// of truth to its place in Values.
func checks[P any](ent *EntityOf[P], index map[string]int) (check, checkKey func(P) error) {
	keys, canonKeys, vectors := checkedColumns(ent)
	var all []checkedKey
	for _, k := range keys {
		i, ok := index[k.c.Name]
		if !ok {
			panic(fmt.Sprintf("cqlgenimpl: %s: partition key column %s is not a column of %s", k.t.Spec.Name, k.c.Name, ent.Canonical.Spec.Name))
		}
		all = append(all, checkedKey{k.t.Spec.Name, k.c.Name, k.c.Type, i})
	}
	canon := all[:canonKeys]
	var vecs []checkedVector
	for _, v := range vectors {
		vecs = append(vecs, checkedVector{v.c.Name, v.dim, index[v.c.Name]})
	}
	run := func(keys []checkedKey, vectors bool) func(P) error {
		return func(e P) error {
			vs := ent.Values(e, false)
			for _, k := range keys {
				if value.EmptyValue(k.typ, value.Unnormalized(vs[k.i])) {
					return EmptyKey(k.table, k.column)
				}
			}
			if !vectors {
				return nil
			}
			for _, v := range vecs {
				x, _ := vs[v.i].(value.Vector)
				if err := value.CheckVector(ent.Canonical.Spec.Name, v.column, x, v.dim); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return run(all, true), run(canon, false)
}

// pick is the values a plan binds, in its order: a place of vs, the
// timestamp ts (bindTS), or the bucket of the value at vs[bucketSrc]
// (bindBucket).
func pick(vs []any, plan []int, ts int64, bucket func(any) any, bucketSrc int) []any {
	out := make([]any, len(plan))
	for i, p := range plan {
		switch p {
		case bindTS:
			out[i] = ts
		case bindBucket:
			out[i] = bucket(vs[bucketSrc])
		default:
			out[i] = vs[p]
		}
	}
	return out
}

// What a placeholder of the protocol's statements binds besides a
// field's value (see NewEntity).
const (
	bindTS = -1 - iota
	bindOld
	bindPending
	bindWrites
	bindStatic
	bindOldStatic
	bindBucket
)

// ScanLive is the scan of ent's source of truth as Get reads it
// (scanLive).
func ScanLive[P any](ent *EntityOf[P]) func(cqldriver.Iter, P) bool {
	return func(it cqldriver.Iter, e P) bool { return scanLive(ent, it, e) }
}

// scanLive scans a row of the source of truth as Get reads it, its
// columns then cqlgen_deleted, skipping graves.
func scanLive[P any](ent *EntityOf[P], it cqldriver.Iter, e P) bool {
	if ent.Plain != nil {
		return ent.Plain.Scan(it, e) // no graves
	}
	d, _ := liveScans.Get().(*liveScan)
	if d == nil {
		d = new(liveScan)
	}
	defer liveScans.Put(d)
	for {
		d.deleted = false
		dest := append(ent.Fields(e, d.dest[:0]), &d.deleted)
		ok := it.Scan(dest...)
		d.dest = dest
		clear(dest) // hold no pointer into e
		if !ok {
			return false
		}
		if !d.deleted {
			return true
		}
		ent.copyRow(e, ent.zero)
	}
}

// liveScan is scanLive's destinations, pooled: a page would otherwise
// allocate them, and the flag, once a row.
type liveScan struct {
	dest    []any
	deleted bool
}

var liveScans sync.Pool
