package desc

import (
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// Entities written without the write protocol go through their
// description as those written with it do: an entity stored in one table
// (Insert, InsertIfAbsent, Update, Delete), an immutable one (Insert,
// Delete, and verify, repair and backfill of its tables) and a counter
// table's (Add, Delete). Generated code gives the source of truth's Row,
// every column of it in table order (a bucket column's value too) then
// the write timestamp, and its Fields; NewEntity derives here, once, what
// each statement of each table binds, in the order cqlspec renders its
// placeholders, and the check of empty keys, so that no generated code
// states a statement's bind order.

// Plain is what NewEntity derives for an entity written without the
// protocol (its source of truth not Versioned).
type Plain[P any] struct {
	Canon Binds[P]
	// Tables are the Projections' binds, in their order.
	Tables []Binds[P]
	// Scan and Clustering read a row of the source of truth as its Get
	// and its reads select it: the fields' columns, in table order.
	Scan       func(cqldriver.Iter, P) bool
	Clustering func(P) []any
	// One is, for an entity stored in one table (or a counter table), its
	// table as the writes of such an entity take it.
	One *One[P]
}

// One is the table of an entity stored in one table (or a counter
// table), as its writes take it: derived by NewEntity (derivePlain).
type One[P any] struct {
	Name  string // the entity's, for observers
	Table *Table
	// Check refuses an entity whose partition key values are empty.
	Check func(P) error
	// Key is e's primary key, as Get binds it.
	Key func(e P) []any
	// Row binds Insert for e at ts; with unset, nil pointers and empty
	// collections are left unset.
	Row func(e P, ts int64, unset bool) []any
	// Remove binds Delete for e at ts.
	Remove func(e P, ts int64) []any
	Scan   func(cqldriver.Iter, P) bool
}

// Binds is how the statements of one table bind an entity.
type Binds[P any] struct {
	Row    func(e P, ts int64, unset bool) []any // Insert's, the timestamp last
	Key    func(e P) []any                       // the primary key, bucket included, as Get binds it
	Remove func(e P, ts int64) []any             // Delete's
	Add    func(e P) []any                       // Add's, on a counter table
	// RowOf is, for a table whose row is picked from the source of
	// truth's, Insert's values from that row (the timestamp its last).
	RowOf func(vs []any) []any
}

// rawField is a field a column binds as it is (no wrapper, no bucket): a
// statement that binds such columns alone (a key, a counter's amounts)
// reads them in place, boxing only what it binds, as generated code
// would. rt is nil for the write timestamp.
type rawField struct {
	off uintptr
	rt  reflect.Type
}

// rawFields finds, for each column of the source of truth that holds a
// field, whether Row binds the field as it is: its value in Row is of
// the field's own type (a wrapper, Normalized or Vector, changes it),
// and the field is no pointer (which Row may bind dereferenced).
func rawFields[P any](ent *EntityOf[P], vindex, findex map[string]int) map[string]rawField {
	zero := ent.NewRow()
	row, ptrs := ent.Row(zero, 0, false), ent.Fields(zero, nil)
	base := uintptr(reflect.ValueOf(zero).UnsafePointer())
	out := map[string]rawField{}
	for name, fi := range findex {
		pv := reflect.ValueOf(ptrs[fi])
		if pv.Kind() != reflect.Pointer {
			continue // a scanner of the driver's values (ScanSet, Present ...)
		}
		ft := pv.Type().Elem()
		if ft.Kind() == reflect.Pointer || reflect.TypeOf(row[vindex[name]]) != ft {
			continue
		}
		out[name] = rawField{off: uintptr(pv.UnsafePointer()) - base, rt: ft}
	}
	return out
}

// direct is plan as rawFields to read in place; nil unless every
// placeholder is the timestamp or a column raw holds.
func direct(plan []int, index map[string]int, raw map[string]rawField) []rawField {
	if raw == nil {
		return nil
	}
	name := map[int]string{}
	for n, i := range index {
		name[i] = n
	}
	out := make([]rawField, len(plan))
	for i, p := range plan {
		if p == bindTS {
			continue
		}
		f, ok := raw[name[p]]
		if p < 0 || !ok {
			return nil
		}
		out[i] = f
	}
	return out
}

// readDirect binds fields of e in place, ts for the timestamp.
func readDirect[P any](e P, fs []rawField, ts int64) []any {
	p := reflect.ValueOf(e).UnsafePointer()
	out := make([]any, len(fs))
	for i, f := range fs {
		if f.rt == nil {
			out[i] = ts
			continue
		}
		at := unsafe.Add(p, f.off)
		// The common types are boxed as generated code boxes them (small
		// integers without an allocation); others through reflection.
		switch f.rt {
		case stringType:
			out[i] = *(*string)(at)
		case int64Type:
			out[i] = *(*int64)(at)
		case int32Type:
			out[i] = *(*int32)(at)
		case intType:
			out[i] = *(*int)(at)
		case value.TimeType:
			out[i] = *(*time.Time)(at)
		default:
			out[i] = reflect.NewAt(f.rt, at).Elem().Interface()
		}
	}
	return out
}

var (
	stringType = reflect.TypeFor[string]()
	int64Type  = reflect.TypeFor[int64]()
	int32Type  = reflect.TypeFor[int32]()
	intType    = reflect.TypeFor[int]()
)

// newBinds derives t's binds. src gives e's values at ts (unset: nil
// pointers and empty collections left unset); index says where each
// column's value is among them. bucket, where t's bucket column is not
// among them, computes it from the value at bucketSrc. With same, src is
// t's own Insert row, which Insert binds as it is. raw, where src is the
// source of truth's Row, lists the fields a key or an Add reads in place.
func newBinds[P any](t *Table, src func(e P, ts int64, unset bool) []any, index map[string]int, bucket func(any) any, bucketSrc int, same bool, raw map[string]rawField) Binds[P] {
	bucketCol := ""
	if bucket != nil {
		bucketCol = t.Spec.PartitionKey[len(t.Spec.PartitionKey)-1].Name
	}
	column := func(slot cqlspec.Slot, name string) int {
		if name == bucketCol {
			return bindBucket
		}
		i, ok := index[name]
		if !ok {
			panic(fmt.Sprintf("cqlgenimpl: %s: %s binds column %s, which the entity's values do not hold: regenerate the package", t.Spec.Name, slot, name))
		}
		return i
	}
	plans := map[cqlspec.Slot][]int{}
	for _, s := range cqlspec.Render(&t.Spec) {
		switch s.Slot {
		case cqlspec.SlotInsert, cqlspec.SlotDelete, cqlspec.SlotAdd:
		default:
			continue
		}
		plan := make([]int, 0, len(s.Binds))
		for _, b := range s.Binds {
			switch b.Kind {
			case cqlspec.BindTimestamp:
				plan = append(plan, bindTS)
			case cqlspec.BindColumn, cqlspec.BindDelta:
				plan = append(plan, column(s.Slot, b.Column))
			default:
				panic(fmt.Sprintf("cqlgenimpl: %s: %s binds a placeholder of kind %d", t.Spec.Name, s.Slot, b.Kind))
			}
		}
		plans[s.Slot] = plan
	}
	var key []int
	for _, c := range append(append([]Column(nil), t.Spec.PartitionKey...), t.Spec.Clustering...) {
		key = append(key, column(cqlspec.SlotGet, c.Name))
	}
	var b Binds[P]
	if plan, ok := plans[cqlspec.SlotInsert]; ok {
		b.Row = src
		if !same {
			b.Row = func(e P, ts int64, unset bool) []any { return pick(src(e, ts, unset), plan, ts, bucket, bucketSrc) }
			if raw != nil {
				// The timestamp is the row's last value, boxed once.
				b.RowOf = func(vs []any) []any {
					out := pick(vs, plan, 0, bucket, bucketSrc)
					for i, p := range plan {
						if p == bindTS {
							out[i] = vs[len(vs)-1]
						}
					}
					return out
				}
			}
		}
	}
	b.Key = func(e P) []any { return pick(src(e, 0, false), key, 0, bucket, bucketSrc) }
	if d := direct(key, index, raw); d != nil {
		b.Key = func(e P) []any { return readDirect(e, d, 0) }
	}
	if plan, ok := plans[cqlspec.SlotDelete]; ok {
		b.Remove = func(e P, ts int64) []any { return pick(src(e, ts, false), plan, ts, bucket, bucketSrc) }
		if d := direct(plan, index, raw); d != nil {
			b.Remove = func(e P, ts int64) []any { return readDirect(e, d, ts) }
		}
	}
	if plan, ok := plans[cqlspec.SlotAdd]; ok {
		b.Add = func(e P) []any { return pick(src(e, 0, false), plan, 0, bucket, bucketSrc) }
		if d := direct(plan, index, raw); d != nil {
			b.Add = func(e P) []any { return readDirect(e, d, 0) }
		}
	}
	return b
}

// derivePlain is NewEntity's work for an entity written without the
// protocol: Row gives every column of its source of truth in table
// order, then the timestamp; Fields every column of a field.
func derivePlain[P any](ent *EntityOf[P]) {
	if ent.Row == nil || ent.Fields == nil {
		return // a description of maintenance alone
	}
	spec := ent.Canonical.Spec
	row, fields := ent.Row, ent.Fields
	values := func(e P, unset bool) []any { return row(e, 0, unset) }
	vindex, findex := map[string]int{}, map[string]int{}
	nf := 0
	for i, c := range spec.All() {
		vindex[c.Name] = i
		if c.Field {
			findex[c.Name] = nf
			nf++
		}
	}
	pl := &Plain[P]{}
	raw := rawFields(ent, vindex, findex)
	pl.Canon = newBinds(ent.Canonical, row, vindex, nil, 0, true, raw)
	pl.Scan, pl.Clustering = readFuncs(ent.Canonical, vindex, findex, nf, fields, values)
	for i := range ent.Projections {
		p := &ent.Projections[i]
		if p.Row == nil {
			var bucket func(any) any
			src := 0
			if p.Table.Spec.Bucket != cqlspec.BucketNone {
				var ok bool
				if src, ok = vindex[p.BucketOf]; !ok {
					panic(fmt.Sprintf("cqlgenimpl: %s: its bucket derives from %q, no column of the source of truth; the table takes a generated Row", p.Table.Spec.Name, p.BucketOf))
				}
				bucket = bucketFunc(ent.Canonical, p)
			}
			b := newBinds(p.Table, row, vindex, bucket, src, false, raw)
			p.Row, p.Key = b.Row, b.Key
			pl.Tables = append(pl.Tables, b)
		} else {
			pl.Tables = append(pl.Tables, newBinds(p.Table, p.Row, insertIndex(p.Table), nil, 0, true, nil))
			if p.Key == nil {
				p.Key = pl.Tables[i].Key
			}
		}
		p.Scan, p.Clustering = readFuncs(p.Table, vindex, findex, nf, fields, values)
	}
	if ent.Check == nil {
		var ok bool
		if ent.Check, ent.CheckKey, ok = fieldChecks(ent, findex); !ok {
			// A key field Fields scans through a wrapper: checked by
			// its value, as a versioned entity's are.
			ent.Check, ent.CheckKey = checks(&EntityOf[P]{Canonical: ent.Canonical, Projections: ent.Projections, Values: values}, vindex)
		}
	}
	if ent.CheckKey == nil {
		ent.CheckKey = ent.Check
	}
	switch {
	case spec.Single || spec.HasCounters():
		c := pl.Canon
		pl.One = &One[P]{Name: ent.Name, Table: ent.Canonical, Check: ent.Check, Key: c.Key, Row: c.Row, Remove: c.Remove, Scan: pl.Scan}
	case ent.Immutable:
		// Verify, repair and backfill read the source of truth with the
		// write timestamps of its cells: the row was written when the
		// latest of them was, at Version + 1µs.
		ent.State = pl.Canon.Key
		nwt := len(spec.Writetime())
		newRow := ent.NewRow
		ent.ScanCanonical = func(it cqldriver.Iter) (v State[P], ok bool) {
			v.Row = newRow()
			wt := make([]*int64, nwt)
			dest := fields(v.Row, make([]any, 0, nf+nwt))
			for i := range wt {
				dest = append(dest, &wt[i])
			}
			ok = it.Scan(dest...)
			v.Version = value.Latest(wt...) - 1
			return
		}
	}
	ent.Plain = pl
	ent.Live, ent.LiveKey = pl.Scan, pl.Clustering
}

// fieldCheck is a field Check looks at: where it is in the entity's
// struct, its Go type, and the column it is bound to.
type fieldCheck struct {
	table, column, typ string
	off                uintptr
	rt                 reflect.Type
	dim                int // a vector's
}

// fieldChecks derives Check and CheckKey from the tables' descriptions,
// as checks does from Values, but reading the fields in place, where
// Fields points, so that a check allocates nothing: the partition key
// values of the source of truth, then those of each other table not
// checked yet, must not be empty (emptyField), and a vector must be of
// its column's dimension. findex maps a column of the source of truth to
// its place in Fields.
func fieldChecks[P any](ent *EntityOf[P], findex map[string]int) (check, checkKey func(P) error, ok bool) {
	zero := ent.NewRow()
	ptrs := ent.Fields(zero, nil)
	base := uintptr(reflect.ValueOf(zero).UnsafePointer())
	direct := true
	at := func(t *Table, c Column) fieldCheck {
		i, ok := findex[c.Name]
		if !ok {
			panic(fmt.Sprintf("cqlgenimpl: %s: partition key column %s is not a column of %s", t.Spec.Name, c.Name, ent.Canonical.Spec.Name))
		}
		pv := reflect.ValueOf(ptrs[i])
		if pv.Kind() != reflect.Pointer {
			direct = false // scanned through a wrapper: see derivePlain
			return fieldCheck{}
		}
		return fieldCheck{table: t.Spec.Name, column: c.Name, typ: c.Type, off: uintptr(pv.UnsafePointer()) - base, rt: pv.Type().Elem()}
	}
	keys, canonKeys, vectors := checkedColumns(ent)
	var all, vecs []fieldCheck
	for _, k := range keys {
		all = append(all, at(k.t, k.c))
	}
	canon := all[:canonKeys]
	for _, v := range vectors {
		f := at(ent.Canonical, v.c)
		f.dim = v.dim
		vecs = append(vecs, f)
	}
	run := func(keys, vecs []fieldCheck) func(P) error {
		return func(e P) error {
			p := reflect.ValueOf(e).UnsafePointer()
			for _, k := range keys {
				if value.EmptyField(k.typ, reflect.NewAt(k.rt, unsafe.Add(p, k.off)).Elem()) {
					return EmptyKey(k.table, k.column)
				}
			}
			for _, v := range vecs {
				if err := value.CheckVector(v.table, v.column, *(*[]float32)(unsafe.Add(p, v.off)), v.dim); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if !direct {
		return nil, nil, false
	}
	return run(all, vecs), run(canon, nil), true
}

// insertIndex maps each column t's Insert binds to its placeholder's
// place: where a generated Row puts its value.
func insertIndex(t *Table) map[string]int {
	index := map[string]int{}
	for _, s := range cqlspec.Render(&t.Spec) {
		if s.Slot == cqlspec.SlotInsert {
			for i, b := range s.Binds {
				if b.Kind == cqlspec.BindColumn {
					index[b.Column] = i
				}
			}
		}
	}
	return index
}
