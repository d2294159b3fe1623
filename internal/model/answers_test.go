package model

import (
	"go/types"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
)

// order is an entity in three tables built by hand: a source of truth
// with a static column, a table by status, and a sparse table holding the
// orders whose coupon is set.
type order struct {
	e                           *Entity
	orders, byStatus, coupons   *Table
	id, status, name, tags, cpn *Field
}

func newOrder() order {
	g := newGoTypes()
	str := types.Typ[types.String]
	var o order
	o.id = &Field{GoName: "ID", Column: "id", Type: &Type{Name: "text"}, GoType: GoTypeOf(str)}
	o.status = &Field{GoName: "Status", Column: "status", Type: &Type{Name: "text"}, GoType: GoTypeOf(g.named(g.shop, "Status", str))}
	o.name = &Field{GoName: "Name", Column: "name", Type: &Type{Name: "text"}, Nullable: true, GoType: GoTypeOf(types.NewPointer(str))}
	o.tags = &Field{GoName: "Tags", Column: "tags", Type: &Type{Name: "set", Params: []*Type{{Name: "text"}}}, GoType: GoTypeOf(types.NewMap(str, types.NewStruct(nil, nil)))}
	o.cpn = &Field{GoName: "Coupon", Column: "coupon", Type: &Type{Name: "text"}, GoType: GoTypeOf(str)}
	o.e = &Entity{GoName: "Order", Fields: []*Field{o.id, o.status, o.name, o.tags, o.cpn}}
	col := func(f *Field, k ColumnKind) *Column { return &Column{Name: f.Column, Type: f.Type, Kind: k, Field: f} }
	o.orders = &Table{Entity: o.e, Name: "orders", Method: "Orders", Canonical: true, PK: []Ref{{Name: "status", Field: o.status}}, CK: []KeyRef{{Ref: Ref{Name: "id", Field: o.id}}},
		Columns: []*Column{col(o.status, PartitionKey), col(o.id, Clustering), col(o.name, Static), col(o.tags, Regular), col(o.cpn, Regular), {Name: cqlspec.VersionColumn, Kind: Version}}}
	o.byStatus = &Table{Entity: o.e, Name: "orders_by_id", Method: "OrderByID", PK: []Ref{{Name: "id", Field: o.id}},
		Columns: []*Column{col(o.id, PartitionKey), col(o.status, Regular)}}
	o.coupons = &Table{Entity: o.e, Name: "orders_by_coupon", Method: "OrdersByCoupon", PK: []Ref{{Name: "coupon", Field: o.cpn}}, CK: []KeyRef{{Ref: Ref{Name: "id", Field: o.id}}},
		Where:   []Cond{{Ref: Ref{Name: "coupon", Field: o.cpn}, Op: CondSet}},
		Columns: []*Column{col(o.cpn, PartitionKey), col(o.id, Clustering), col(o.tags, Regular)}}
	o.e.Tables = []*Table{o.orders, o.byStatus, o.coupons}
	o.e.Canonical = o.orders
	return o
}

func TestUnsettable(t *testing.T) {
	o := newOrder()
	for _, c := range []struct {
		col  *Column
		want bool
	}{
		{o.orders.Columns[0], false}, // partition key
		{o.orders.Columns[1], false}, // clustering
		{o.orders.Columns[2], true},  // a pointer
		{o.orders.Columns[3], true},  // a collection
		{o.orders.Columns[4], false}, // a string
		{o.orders.Columns[5], false}, // the version: no field
		{&Column{Name: "v", Kind: Regular, Type: &Type{Name: "vector", Params: []*Type{{Name: "float"}}, Dim: 3}, Field: &Field{}}, true},
	} {
		if got := c.col.Unsettable(); got != c.want {
			t.Errorf("%s: Unsettable %v, want %v", c.col.Name, got, c.want)
		}
	}
	if !o.orders.HasUnsettable() || o.byStatus.HasUnsettable() || !o.coupons.HasUnsettable() {
		t.Errorf("HasUnsettable: orders %v, orders_by_id %v, orders_by_coupon %v; want true, false, true",
			o.orders.HasUnsettable(), o.byStatus.HasUnsettable(), o.coupons.HasUnsettable())
	}
}

// A versioned entity: every table takes the unset flag (the runtime calls
// the row functions), the tables beside the source of truth compare keys,
// and the source of truth holds graves. Immutable, it compares no keys and
// holds no graves; alone in one table, its row takes the flag only for a
// column to leave unset... and for cqlgenimpl.One, which always passes it.
func TestProtocolQuestions(t *testing.T) {
	o := newOrder()
	if !o.e.Versioned() {
		t.Fatal("the order is not versioned")
	}
	for _, tb := range o.e.Tables {
		if !tb.RowTakesUnset() {
			t.Errorf("%s: a versioned entity's row does not take the unset flag", tb.Name)
		}
		if got, want := tb.NeedsKey(), tb != o.orders; got != want {
			t.Errorf("%s: NeedsKey %v, want %v", tb.Name, got, want)
		}
		if got, want := tb.HoldsGraves(), tb == o.orders; got != want {
			t.Errorf("%s: HoldsGraves %v, want %v", tb.Name, got, want)
		}
	}
	o.e.Immutable = true
	for _, tb := range o.e.Tables {
		if tb.NeedsKey() || tb.HoldsGraves() {
			t.Errorf("%s: immutable, yet NeedsKey %v, HoldsGraves %v", tb.Name, tb.NeedsKey(), tb.HoldsGraves())
		}
	}
	o.e.Immutable = false
	o.e.Tables = []*Table{o.byStatus}
	o.e.Canonical = o.byStatus
	if o.byStatus.NeedsKey() || o.byStatus.HoldsGraves() {
		t.Error("an entity in one table compares keys or holds graves")
	}
	if !o.byStatus.RowTakesUnset() {
		t.Error("a single table's row does not take the flag cqlgenimpl.One passes")
	}
}

func TestStaticsAloneAndRequiresSet(t *testing.T) {
	o := newOrder()
	if c := o.orders.StaticsAlone(); c == nil || c.Name != "id" {
		t.Errorf("orders: StaticsAlone %v, want its first clustering column", c)
	}
	if c := o.coupons.StaticsAlone(); c != nil {
		t.Errorf("a table without statics: StaticsAlone %v", c.Name)
	}
	if !o.coupons.RequiresSet(o.cpn) || o.coupons.RequiresSet(o.id) || o.orders.RequiresSet(o.cpn) {
		t.Error("RequiresSet: want true only for the coupon in orders_by_coupon")
	}
}

func TestReadIndexesAndReadMethod(t *testing.T) {
	o := newOrder()
	on := &Index{Name: "a", On: o.orders}
	o.e.Indexes = []*Index{on, {Name: "b", OnName: "missing"}}
	if ixs := o.e.ReadIndexes(); len(ixs) != 1 || ixs[0] != on {
		t.Errorf("ReadIndexes: %v, want the index on a table alone", ixs)
	}
	if got := o.orders.ReadMethod(); got != "Orders" {
		t.Errorf("a paged source of truth's read method: %s", got)
	}
	o.orders.CK = nil
	if got := o.orders.ReadMethod(); got != "Get" {
		t.Errorf("a source of truth of one row a partition is read by Get, not %s", got)
	}
}

func TestScannerKeyCheckComparison(t *testing.T) {
	g := newGoTypes()
	f := func(name string, gt types.Type) *Field {
		return &Field{Type: &Type{Name: name}, GoType: GoTypeOf(gt)}
	}
	dur := g.named(g.time, "Duration", types.Typ[types.Int64])
	tm := g.named(g.time, "Time", types.NewStruct(nil, nil))
	str := types.Typ[types.String]
	set := &Type{Name: "set", Params: []*Type{{Name: "text"}}}
	vec := &Type{Name: "vector", Params: []*Type{{Name: "float"}}, Dim: 2}
	for _, c := range []struct {
		f    *Field
		t    *Type
		want Scanner
	}{
		{f("duration", dur), &Type{Name: "duration"}, ScanDuration},
		{f("duration", types.Typ[types.Int64]), &Type{Name: "duration"}, ScanField},
		{f("set", types.NewMap(str, types.NewStruct(nil, nil))), set, ScanSet},
		{f("set", types.NewSlice(str)), set, ScanField},
		{f("vector", types.NewSlice(types.Typ[types.Float32])), vec, ScanVector},
		{f("text", str), &Type{Name: "text"}, ScanField},
	} {
		if got := ScannerOf(c.f, c.t); got != c.want {
			t.Errorf("%s of %s: scanner %d, want %d", c.t, c.f.GoType, got, c.want)
		}
	}
	for _, c := range []struct {
		f    *Field
		want KeyCheck
	}{
		{f("timestamp", tm), KeyIsZero},
		{f("uuid", types.NewArray(types.Typ[types.Uint8], 16)), KeyZeroUUID},
		{f("blob", types.NewSlice(types.Typ[types.Uint8])), KeyEmptyLen},
		{&Field{Type: set, GoType: GoTypeOf(types.NewSlice(str))}, KeyEmptyLen},
		{f("text", g.named(g.shop, "Status", str)), KeyEmptyString},
		{f("bigint", types.Typ[types.Int64]), KeyAlwaysSet},
		{f("timestamp", types.Typ[types.Int64]), KeyAlwaysSet},
	} {
		if got := KeyCheckOf(c.f); got != c.want {
			t.Errorf("%s as %s: key check %d, want %d", c.f.Type, c.f.GoType, got, c.want)
		}
	}
	for _, c := range []struct {
		f     *Field
		want  Comparison
		cheap bool
	}{
		{f("timestamp", tm), CompareMethod, true},
		{f("timestamp", types.Typ[types.Int64]), CompareEncoded, false},
		{f("boolean", types.Typ[types.Bool]), CompareBool, true},
		{f("blob", types.NewSlice(types.Typ[types.Uint8])), CompareBytes, true},
		{f("uuid", types.NewArray(types.Typ[types.Uint8], 16)), CompareUUID, true},
		{f("timeuuid", types.NewArray(types.Typ[types.Uint8], 16)), CompareTimeUUID, true},
		{f("float", types.Typ[types.Float32]), CompareFloat32, true},
		{f("double", types.Typ[types.Float64]), CompareFloat64, true},
		{f("varint", types.NewPointer(g.named(types.NewPackage("math/big", "big"), "Int", types.NewStruct(nil, nil)))), CompareCmp, false},
		{f("varint", types.Typ[types.Int64]), CompareEncoded, false},
		{f("text", g.named(g.shop, "Status", str)), CompareOrdered, true},
		{f("int", types.Typ[types.Int32]), CompareOrdered, true},
		{f("inet", types.NewSlice(types.Typ[types.Uint8])), CompareEncoded, false},
	} {
		c2 := &Column{Type: c.f.Type, Field: c.f, Kind: Clustering}
		if got := c2.ComparisonOf(); got != c.want || got.Cheap() != c.cheap {
			t.Errorf("%s as %s: comparison %d (cheap %v), want %d (cheap %v)", c.f.Type, c.f.GoType, got, got.Cheap(), c.want, c.cheap)
		}
	}
}

func TestValueGoType(t *testing.T) {
	str := types.Typ[types.String]
	for _, c := range []struct {
		typ  *Type
		gt   types.Type
		want string
	}{
		{&Type{Name: "text"}, types.NewPointer(str), "string"},
		{&Type{Name: "set", Params: []*Type{{Name: "text"}}}, types.NewMap(str, types.NewStruct(nil, nil)), "string"},
		{&Type{Name: "list", Params: []*Type{{Name: "int"}}}, types.NewSlice(types.Typ[types.Int32]), "int32"},
		{&Type{Name: "list", Params: []*Type{{Name: "int"}}, Frozen: true}, types.NewSlice(types.Typ[types.Int32]), "[]int32"},
	} {
		ix := &Index{Column: Ref{Field: &Field{Type: c.typ, Go: c.gt, GoType: GoTypeOf(c.gt)}}}
		if got := ix.ValueGoType().String(); got != c.want {
			t.Errorf("%s as %s: value %s, want %s", c.typ, c.gt, got, c.want)
		}
	}
}

// Versioned: in several tables, not immutable, no counters. Partial: a
// table without some of its entity's fields.
func TestVersionedAndPartial(t *testing.T) {
	o := newOrder()
	if !o.e.Versioned() {
		t.Error("an entity in three tables is not versioned")
	}
	if o.orders.Partial() || !o.byStatus.Partial() || !o.coupons.Partial() {
		t.Errorf("Partial: orders %v, orders_by_id %v, orders_by_coupon %v; want false, true, true", o.orders.Partial(), o.byStatus.Partial(), o.coupons.Partial())
	}
	o.e.Immutable = true
	if o.e.Versioned() {
		t.Error("an immutable entity is versioned")
	}
	o.e.Immutable = false
	o.cpn.Type = &Type{Name: "counter"}
	if o.e.Versioned() {
		t.Error("an entity with a counter is versioned")
	}
	o.cpn.Type = &Type{Name: "text"}
	o.e.Tables = o.e.Tables[:1]
	if o.e.Versioned() {
		t.Error("an entity in one table is versioned")
	}
}
