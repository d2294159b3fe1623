package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
)

// binding says where the values a statement binds come from.
type binding struct {
	recv    *jen.Statement // the entity: e, or cur for the row as read
	ts      jen.Code       // the write timestamp, and a version column's value
	old     jen.Code       // the version read
	pending jen.Code       // the pending record
	static  jen.Code       // the new version of the partition's statics
	oldStat jen.Code       // the version of the partition's statics read
	writes  jen.Code       // the record of the last changes
	unset   jen.Code       // when true, nil pointers and empty collections bind as unset; nil: never
}

// values are the expressions a statement's placeholders bind, in order:
// generated from the same list as the statement's text.
func values(s *model.Statement, b binding) []jen.Code {
	var vs []jen.Code
	for _, bd := range s.Binds {
		switch bd.Kind {
		case cqlspec.BindTimestamp:
			vs = append(vs, b.ts)
		case cqlspec.BindOldVersion:
			vs = append(vs, b.old)
		case cqlspec.BindPending:
			vs = append(vs, b.pending)
		case cqlspec.BindStaticTS:
			vs = append(vs, b.static)
		case cqlspec.BindOldStatic:
			vs = append(vs, b.oldStat)
		case cqlspec.BindWrites:
			vs = append(vs, b.writes)
		default:
			vs = append(vs, columnValue(bd.Column, b))
		}
	}
	return vs
}

// columnValue is the value a column binds.
func columnValue(c *model.Column, b binding) jen.Code {
	switch {
	case c.Kind == model.Version || c.Kind == model.Claim:
		return b.ts
	case c.Field == nil:
		return bucketValue(c.Bucket, b.recv)
	}
	v := b.recv.Clone().Dot(c.Field.GoName)
	switch w := wrapper(c, b.unset != nil); w {
	case "":
		return v
	case "Normalized":
		return jen.Qual(impl, w).Call(jen.Lit(c.Type.Spec()), v)
	case "Vector":
		return jen.Qual(impl, w).Call(v)
	default:
		return jen.Qual(impl, w).Call(v, b.unset)
	}
}

// wrapper names the function of the runtime a field's value goes through
// to bind column c ("" for none): a set or map in a key is normalized, a
// vector converted, and with unset (an Insert) a nil pointer or an empty
// collection outside the key left unset.
func wrapper(c *model.Column, unset bool) string {
	if (c.Kind == model.PartitionKey || c.Kind == model.Clustering) && (c.Type.Name == "set" || c.Type.Name == "map") {
		return "Normalized"
	}
	if c.Type.IsVector() {
		if !unset {
			return "Vector"
		}
		return "VectorOrUnset"
	}
	if !unset || !c.Unsettable() {
		return ""
	}
	switch {
	case c.Field.Nullable:
		return "OrUnset"
	case c.Type.Name == "list" || (c.Type.Name == "set" && c.Field.GoType.IsSlice()):
		return "SliceOrUnset"
	}
	return "MapOrUnset"
}

// rowFunc writes the function that binds t's insert.
func rowFunc(f *jen.File, t *model.Table, s *model.Statement) {
	e := t.Entity
	params := []jen.Code{jen.Id("e").Op("*").Id(e.GoName), jen.Id("ts").Int64()}
	b := binding{recv: jen.Id("e"), ts: jen.Id("ts")}
	switch {
	case t.HasUnsettable():
		params = append(params, jen.Id("unset").Bool())
		b.unset = jen.Id("unset")
	case t.RowTakesUnset():
		params = append(params, jen.Id("_").Bool())
	default:
	}
	f.Func().Id(t.Names.Row).Params(params...).Index().Any().Block(
		jen.Return(jen.Index().Any().Values(values(s, b)...)),
	)
}

// keyFunc writes the primary key of an entity in t, bucket included.
func keyFunc(f *jen.File, t *model.Table) {
	if !t.NeedsKey() {
		return
	}
	var key []jen.Code
	for _, c := range append(t.PartitionKey(), t.Clustering()...) {
		key = append(key, columnValue(c, binding{recv: jen.Id("e")}))
	}
	f.Func().Id(t.Names.Key).Params(jen.Id("e").Op("*").Id(t.Entity.GoName)).Index().Any().Block(
		jen.Return(jen.Index().Any().Values(key...)),
	)
}

// bucketValue derives a bucket from its source field.
func bucketValue(b *model.Bucket, recv *jen.Statement) jen.Code {
	src := b.Source.Field
	v := recv.Clone().Dot(src.GoName)
	if b.Kind == model.HashBucket {
		h := model.HashOf(src.Type)
		arg := jen.Code(v)
		if h.Conv != "" {
			arg = jen.Id(h.Conv).Call(v)
		}
		return jen.Qual(impl, h.Func).Call(arg, jen.Lit(int(b.N)))
	}
	at := jen.Code(v)
	if src.Type.Name == "timeuuid" {
		at = jen.Qual(impl, "TimeOfUUID").Call(v)
	}
	return timeBuckets(b).Dot("Of").Call(at)
}

// timeBuckets is the runtime's descriptor of a time bucket.
func timeBuckets(b *model.Bucket) *jen.Statement {
	d := b.Kind.Descriptor()
	switch {
	case b.StartSet && b.Kind == model.WeekBucket:
		return jen.Qual(impl, "WeekBucketsFrom").Call(jen.Qual("time", b.FirstDay().String()))
	case b.StartSet:
		return jen.Qual(impl, "DaysBucketsFrom").Call(jen.Lit(int(b.N)), jen.Lit(int(b.Start)))
	case d.Width:
		return jen.Qual(impl, d.Runtime).Call(jen.Lit(int(b.N)))
	}
	return jen.Qual(impl, d.Runtime)
}

// scanTargets are the scan destinations of t's selected columns: the
// fields of recv, and the mark of deletion into deleted where t has one.
// On a table with statics, whether the first clustering column holds a
// value goes to present: a partition holding its statics alone reads as
// one row of nulls, which is no row.
func scanTargets(t *model.Table, recv *jen.Statement) []jen.Code {
	var dest []jen.Code
	first := t.StaticsAlone()
	for _, c := range t.Columns {
		if c.Kind == model.Deleted {
			dest = append(dest, jen.Op("&").Id("deleted"))
		}
		if c.Field != nil {
			target := scanTarget(c, recv)
			if c == first {
				target = jen.Qual(impl, "Present").Call(target, jen.Op("&").Id("present"))
			}
			dest = append(dest, target)
		}
	}
	return dest
}

// scanTarget is where a column of recv's field is scanned to.
func scanTarget(c *model.Column, recv *jen.Statement) jen.Code {
	return scanInto(c.Field, c.Type, recv.Clone().Dot(c.Field.GoName))
}

// scanInto is where a value of f, of CQL type t, is read to: v's
// address, or a runtime adapter for the types gocql cannot read alone.
func scanInto(f *model.Field, t *model.Type, v *jen.Statement) jen.Code {
	switch model.ScannerOf(f, t) {
	case model.ScanDuration:
		return jen.Qual(impl, "ScanDuration").Call(jen.Op("&").Add(v))
	case model.ScanSet:
		return jen.Qual(impl, "ScanSet").Call(jen.Op("&").Add(v))
	case model.ScanVector:
		return jen.Parens(jen.Op("*").Qual(impl, "Vector")).Call(jen.Op("&").Add(v))
	}
	return jen.Op("&").Add(v)
}

func scanFunc(f *jen.File, t *model.Table) {
	e := t.Entity
	statics := t.StaticsAlone() != nil
	if t.HoldsGraves() {
		decl, live := []jen.Code{jen.Var().Id("deleted").Bool()}, jen.Op("!").Id("deleted")
		if statics {
			decl = append(decl, jen.Var().Id("present").Bool())
			live = jen.Id("present").Op("&&").Add(live)
		}
		f.Func().Id(t.Names.Scan).Params(jen.Id("it").Qual(impl, "Iter"), jen.Id("e").Op("*").Id(e.GoName)).Bool().Block(
			jen.For().Block(append(decl,
				jen.If(jen.Op("!").Id("it").Dot("Scan").Call(scanTargets(t, jen.Id("e"))...)).Block(jen.Return(jen.False())),
				jen.If(live).Block(jen.Return(jen.True())),
				jen.Op("*").Id("e").Op("=").Id(e.GoName).Values(),
			)...),
		)
		return
	}
	if statics {
		f.Func().Id(t.Names.Scan).Params(jen.Id("it").Qual(impl, "Iter"), jen.Id("e").Op("*").Id(t.Names.RowType)).Bool().Block(
			jen.For().Block(
				jen.Var().Id("present").Bool(),
				jen.If(jen.Op("!").Id("it").Dot("Scan").Call(scanTargets(t, jen.Id("e"))...)).Block(jen.Return(jen.False())),
				jen.If(jen.Id("present")).Block(jen.Return(jen.True())),
				jen.Op("*").Id("e").Op("=").Id(t.Names.RowType).Values(),
			),
		)
		return
	}
	f.Func().Id(t.Names.Scan).Params(jen.Id("it").Qual(impl, "Iter"), jen.Id("e").Op("*").Id(t.Names.RowType)).Bool().Block(
		jen.Return(jen.Id("it").Dot("Scan").Call(scanTargets(t, jen.Id("e"))...)),
	)
}

// protocolFuncs write what the write protocol binds and scans on the
// canonical table: the state of a row, its data, and the bindings of the
// conditional writes.
func protocolFuncs(f *jen.File, t *model.Table, s *model.Statement) {
	e := t.Entity
	n := t.Names
	cur := binding{recv: jen.Id("e")}
	switch s.Slot {
	case cqlspec.SlotState:
		f.Func().Id(n.State).Params(jen.Id("e").Op("*").Id(e.GoName)).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(values(s, cur)...)))
		var dest []jen.Code
		var after []jen.Code
		for _, c := range t.Columns {
			switch {
			case c.Field != nil:
				dest = append(dest, scanTarget(c, jen.Id("v").Dot("Row")))
			case c.Kind == model.Version:
				dest = append(dest, jen.Op("&").Id("v").Dot("Version"))
			case c.Kind == model.Deleted:
				dest = append(dest, jen.Op("&").Id("v").Dot("Deleted"))
			case c.Kind == model.Pending:
				dest = append(dest, jen.Op("&").Id("v").Dot("Pending"))
			case c.Kind == model.StaticVersion:
				dest = append(dest, jen.Op("&").Id("v").Dot("StaticVersion"))
			case c.Kind == model.Writes:
				dest = append(dest, jen.Op("&").Id("v").Dot("Writes"))
			}
		}
		var before []jen.Code
		if wts := len(t.WritetimeColumns()); !e.Versioned() && wts > 0 {
			// An immutable entity's rows elsewhere carry its canonical
			// row's write timestamp: Version + 1µs is that timestamp.
			before = []jen.Code{jen.Var().Id("wt").Index(jen.Lit(wts)).Op("*").Int64()}
			for i := range wts {
				dest = append(dest, jen.Op("&").Id("wt").Index(jen.Lit(i)))
			}
			after = []jen.Code{jen.Id("v").Dot("Version").Op("=").Qual(impl, "Latest").Call(jen.Id("wt").Index(jen.Op(":")).Op("...")).Op("-").Lit(1)}
		}
		body := append(before, jen.Id("ok").Op("=").Id("it").Dot("Scan").Call(dest...))
		body = append(body, after...)
		f.Func().Id(n.ScanState).Params(jen.Id("it").Qual(impl, "Iter"), jen.Id("v").Op("*").Qual(impl, "State").Types(jen.Op("*").Id(e.GoName))).Params(jen.Id("ok").Bool()).Block(
			append(body, jen.Return())...,
		)
		if !e.Versioned() {
			return
		}
		var data []jen.Code
		for _, c := range t.Columns {
			if c.Field != nil {
				data = append(data, field("e", c.Field))
			}
		}
		f.Func().Id(n.Data).Params(jen.Id("e").Op("*").Id(e.GoName)).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(data...)))
		mergeFunc(f, t)
	case cqlspec.SlotChange, cqlspec.SlotRemove:
		c := jen.Id("c")
		b := binding{recv: jen.Id("e"), ts: c.Clone().Dot("TS"), old: c.Clone().Dot("Old"), pending: c.Clone().Dot("Pending"),
			writes: c.Clone().Dot("Writes"), static: c.Clone().Dot("Static"), oldStat: c.Clone().Dot("OldStatic")}
		name, words := n.Change, "sets e's values"
		if s.Slot == cqlspec.SlotChange {
			if t.HasUnsettable() {
				b.unset = c.Clone().Dot("Unset")
				words += ", leaving nil pointers and empty collections unset with c.Unset"
			}
		} else {
			name, words = n.Remove, "leaves a grave of e"
		}
		cond := "the version is still c.Old"
		if t.HasStatics() {
			cond += " and the statics' version c.OldStatic"
			if s.Slot == cqlspec.SlotChange {
				words += ", and the statics' version to c.Static"
			}
		}
		f.Func().Id(name).Params(jen.Id("e").Op("*").Id(e.GoName), jen.Id("c").Qual(impl, "Change")).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(values(s, b)...)))
	case cqlspec.SlotClearPending:
		f.Func().Id(n.Settle).Params(jen.Id("e").Op("*").Id(e.GoName), jen.Id("version").Int64()).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(values(s, binding{recv: jen.Id("e"), old: jen.Id("version")})...)))
	}
}

// mergeFunc writes what an Insert over a live entity keeps: the columns e
// leaves unset, from the current row.
func mergeFunc(f *jen.File, t *model.Table) {
	e := t.Entity
	var body []jen.Code
	for _, c := range t.Columns {
		if !c.Unsettable() {
			continue
		}
		m := jen.Id("m").Dot(c.Field.GoName)
		cond := jen.Len(m.Clone()).Op("==").Lit(0)
		if c.Field.Nullable {
			cond = m.Clone().Op("==").Nil()
		}
		body = append(body, jen.If(cond).Block(m.Clone().Op("=").Id("cur").Dot(c.Field.GoName)))
	}
	if len(body) == 0 {
		return
	}
	f.Func().Id(e.Names.Merge).Params(jen.List(jen.Id("cur"), jen.Id("e")).Op("*").Id(e.GoName)).Op("*").Id(e.GoName).Block(
		append(append([]jen.Code{jen.Id("m").Op(":=").Op("*").Id("e")}, body...), jen.Return(jen.Op("&").Id("m")))...)
}

// merged reports whether reads of t merge rows from several partitions,
// its hash buckets, in clustering order: they take a Compare.
func merged(t *model.Table) bool { return t.Bucket != nil && t.Bucket.Kind == model.HashBucket }

// clusteringFuncs write the clustering values of a row, for cursors
// (unless the runtime derives them: values false), and the order of
// rows, for merges (merged).
func clusteringFuncs(f *jen.File, t *model.Table, values bool) {
	var ck, cmps, terms []jen.Code
	cheap := true // every comparison cheap and safe to run when an earlier one decided
	for _, c := range t.Clustering() {
		ck = append(ck, field("e", c.Field))
		x := compare(c)
		if x == nil {
			continue
		}
		ret := jen.Return(jen.Id("c"))
		term := x
		if c.Desc {
			ret = jen.Return(jen.Op("-").Id("c"))
			term = jen.Op("-").Add(x)
		}
		cmps = append(cmps, jen.If(jen.Id("c").Op(":=").Add(x), jen.Id("c").Op("!=").Lit(0)).Block(ret))
		terms = append(terms, term)
		cheap = cheap && c.ComparisonOf().Cheap()
	}
	cmps = append(cmps, jen.Return(jen.Lit(0)))
	switch {
	case len(terms) == 1:
		cmps = []jen.Code{jen.Return(terms[0])}
	case len(terms) > 1 && cheap:
		// cmp.Or is the first that is not 0: the clustering order.
		cmps = []jen.Code{jen.Return(jen.Qual("cmp", "Or").Call(terms...))}
	}
	if values {
		f.Func().Id(t.Names.Clustering).Params(jen.Id("e").Op("*").Id(t.Names.RowType)).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(ck...)),
		)
	}
	if !merged(t) {
		return
	}
	f.Func().Id(t.Names.Compare).Params(jen.List(jen.Id("a"), jen.Id("b")).Op("*").Id(t.Names.RowType)).Int().Block(cmps...)
}

// compare compares one clustering column of a and b as the model's
// ComparisonOf says Cassandra orders the column's type.
func compare(c *model.Column) jen.Code {
	a, b := field("a", c.Field), field("b", c.Field)
	switch c.ComparisonOf() {
	case model.CompareMethod:
		return a.Dot("Compare").Call(b)
	case model.CompareBool:
		return jen.Qual(impl, "CompareBool").Call(jen.Bool().Call(a), jen.Bool().Call(b))
	case model.CompareBytes:
		return jen.Qual(impl, "CompareBytes").Call(jen.Index().Byte().Call(a), jen.Index().Byte().Call(b))
	case model.CompareUUID:
		return jen.Qual(impl, "CompareUUID").Call(a, b)
	case model.CompareTimeUUID:
		return jen.Qual(impl, "CompareTimeUUID").Call(a, b)
	case model.CompareFloat32:
		return jen.Qual(impl, "CompareFloat32").Call(jen.Float32().Call(a), jen.Float32().Call(b))
	case model.CompareFloat64:
		return jen.Qual(impl, "CompareFloat64").Call(jen.Float64().Call(a), jen.Float64().Call(b))
	case model.CompareCmp:
		return a.Dot("Cmp").Call(b)
	case model.CompareOrdered:
		return jen.Qual("cmp", "Compare").Call(a, b)
	}
	return jen.Qual(impl, "CompareAs").Call(jen.Lit(c.Type.Spec()), a, b)
}

// rowType declares the row type of a table that stores only some of its
// entity's fields.
func rowType(f *jen.File, t *model.Table) {
	if !t.Partial() {
		return
	}
	var fields []jen.Code
	for _, c := range t.Columns {
		if c.Field != nil {
			fields = append(fields, jen.Id(c.Field.GoName).Add(goType(c.Field.GoType)).Tag(map[string]string{"db": c.Name}))
		}
	}
	doc(f, "%s is a row of %s, which stores only some columns of %s. It is a type of its own so that a partial row cannot be passed where a whole %s is written.", t.Names.RowType, t.Name, t.Entity.GoName, t.Entity.GoName)
	f.Type().Id(t.Names.RowType).Struct(fields...)
}
