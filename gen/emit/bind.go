package emit

import (
	"go/types"

	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/gen/model"
)

// binding says where the values a statement binds come from.
type binding struct {
	recv  *jen.Statement // the entity: e, or cur.Row for the row as read
	ts    string         // the write timestamp's variable
	unset bool           // nil pointers and empty collections bind as unset when the unset variable says so
}

// values are the expressions a statement's placeholders bind, in order:
// generated from the same list as the statement's text.
func values(s *model.Statement, b binding) []jen.Code {
	var vs []jen.Code
	for _, bd := range s.Binds {
		switch bd.Kind {
		case model.BindTimestamp:
			vs = append(vs, jen.Id(b.ts))
		case model.BindOldVersion:
			vs = append(vs, jen.Id("cur").Dot("Version"))
		default:
			vs = append(vs, columnValue(bd.Column, b))
		}
	}
	return vs
}

// columnValue is the value a column binds.
func columnValue(c *model.Column, b binding) jen.Code {
	switch {
	case c.Kind == model.Version:
		return jen.Id(b.ts)
	case c.Field == nil:
		return bucketValue(c.Bucket, b.recv)
	}
	v := b.recv.Clone().Dot(c.Field.GoName)
	if !b.unset || !unsettable(c) {
		return v
	}
	switch {
	case c.Field.Nullable:
		return jen.Qual(impl, "OrUnset").Call(v, jen.Id("unset"))
	case c.Type.Name == "list" || (c.Type.Name == "set" && isSlice(c.Field)):
		return jen.Qual(impl, "SliceOrUnset").Call(v, jen.Id("unset"))
	}
	return jen.Qual(impl, "MapOrUnset").Call(v, jen.Id("unset"))
}

// unsettable reports a column an insert may leave unset: a nil pointer or
// an empty collection outside the primary key.
func unsettable(c *model.Column) bool {
	if c.Field == nil || c.Kind == model.PartitionKey || c.Kind == model.Clustering {
		return false
	}
	return c.Field.Nullable || c.Type.IsCollection()
}

func anyUnsettable(t *model.Table) bool {
	for _, c := range t.Columns {
		if unsettable(c) {
			return true
		}
	}
	return false
}

// rowFunc writes the function that binds t's insert.
func rowFunc(f *jen.File, t *model.Table, s *model.Statement) {
	e := t.Entity
	params := []jen.Code{jen.Id("e").Op("*").Id(e.GoName), jen.Id("ts").Int64()}
	if anyUnsettable(t) {
		params = append(params, jen.Id("unset").Bool())
		doc(f, "%s binds %s for e, written at ts. With unset, nil pointers and empty collections are left unset, writing no tombstone; without, they clear their columns.", t.Names.Row, s.Const)
	} else {
		doc(f, "%s binds %s for e, written at ts.", t.Names.Row, s.Const)
	}
	f.Func().Id(t.Names.Row).Params(params...).Index().Any().Block(
		jen.Return(jen.Index().Any().Values(values(s, binding{recv: jen.Id("e"), ts: "ts", unset: true})...)),
	)
}

// row calls t's row function.
func row(t *model.Table, recv jen.Code, ts string, unset bool) jen.Code {
	args := []jen.Code{recv, jen.Id(ts)}
	if anyUnsettable(t) {
		args = append(args, jen.Lit(unset))
	}
	return jen.Id(t.Names.Row).Call(args...)
}

// needsKey reports whether Update compares t's primary key before and
// after a change: every table of a versioned entity but its canonical one.
func needsKey(t *model.Table) bool {
	return t.Entity.Versioned() && t != t.Entity.Canonical
}

// keyFunc writes the primary key of an entity in t, bucket included.
func keyFunc(f *jen.File, t *model.Table) {
	if !needsKey(t) {
		return
	}
	var key []jen.Code
	for _, c := range append(t.PartitionKey(), t.Clustering()...) {
		key = append(key, columnValue(c, binding{recv: jen.Id("e")}))
	}
	doc(f, "%s is the primary key of e in %s, in order, bucket included.", t.Names.Key, t.Name)
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
	if d.Width {
		return jen.Qual(impl, d.Runtime).Call(jen.Lit(int(b.N)))
	}
	return jen.Qual(impl, d.Runtime)
}

// scanTargets are the scan destinations of t's selected columns.
func scanTargets(t *model.Table, recv *jen.Statement) []jen.Code {
	var dest []jen.Code
	for _, c := range t.Columns {
		if c.Field == nil {
			continue
		}
		v := recv.Clone().Dot(c.Field.GoName)
		if c.Type.Name == "duration" && isGo(c.Field, "time", "Duration") {
			dest = append(dest, jen.Qual(impl, "ScanDuration").Call(jen.Op("&").Add(v)))
			continue
		}
		dest = append(dest, jen.Op("&").Add(v))
	}
	return dest
}

func scanFunc(f *jen.File, t *model.Table) {
	doc(f, "%s reads one row of %s.", t.Names.Scan, t.Name)
	f.Func().Id(t.Names.Scan).Params(jen.Id("it").Qual(rt, "Iter")).Params(jen.Id("e").Id(t.Entity.GoName), jen.Id("ok").Bool()).Block(
		jen.Id("ok").Op("=").Id("it").Dot("Scan").Call(scanTargets(t, jen.Id("e"))...),
		jen.Return(),
	)
}

func scanVersion(f *jen.File, t *model.Table) {
	dest := append(scanTargets(t, jen.Id("v").Dot("Row")), jen.Op("&").Id("v").Dot("Version"))
	doc(f, "%s reads a row of %s and its version.", t.Names.ScanVersion, t.Name)
	f.Func().Id(t.Names.ScanVersion).Params(jen.Id("it").Qual(rt, "Iter")).Params(jen.Id("v").Qual(impl, "Versioned").Types(jen.Id(t.Entity.GoName)), jen.Id("ok").Bool()).Block(
		jen.Id("ok").Op("=").Id("it").Dot("Scan").Call(dest...),
		jen.Return(),
	)
}

// clusteringFuncs write the clustering values of a row, for cursors, and
// the order of rows, for merges.
func clusteringFuncs(f *jen.File, t *model.Table) {
	e := t.Entity
	var ck, cmps []jen.Code
	for _, c := range t.Clustering() {
		ck = append(ck, field("e", c.Field))
		x := compare(c)
		if x == nil {
			continue
		}
		ret := jen.Return(jen.Id("c"))
		if c.Desc {
			ret = jen.Return(jen.Op("-").Id("c"))
		}
		cmps = append(cmps, jen.If(jen.Id("c").Op(":=").Add(x), jen.Id("c").Op("!=").Lit(0)).Block(ret))
	}
	cmps = append(cmps, jen.Return(jen.Lit(0)))
	doc(f, "%s is the clustering key of e in %s, in order.", t.Names.Clustering, t.Name)
	f.Func().Id(t.Names.Clustering).Params(jen.Id("e").Op("*").Id(e.GoName)).Index().Any().Block(
		jen.Return(jen.Index().Any().Values(ck...)),
	)
	doc(f, "%s orders rows of %s as its clustering order does.", t.Names.Compare, t.Name)
	f.Func().Id(t.Names.Compare).Params(jen.List(jen.Id("a"), jen.Id("b")).Op("*").Id(e.GoName)).Int().Block(cmps...)
}

// compare compares one clustering column of a and b in its type's natural
// order, or returns nil for types Cassandra orders by their encoding
// (frozen collections), which then tie.
func compare(c *model.Column) jen.Code {
	a, b := field("a", c.Field), field("b", c.Field)
	fd := c.Field
	switch c.Type.Name {
	case "timestamp", "date":
		if isGo(fd, "time", "Time") {
			return a.Dot("Compare").Call(b)
		}
	case "boolean":
		return jen.Qual(impl, "CompareBool").Call(jen.Bool().Call(a), jen.Bool().Call(b))
	case "blob", "inet":
		return jen.Qual(impl, "CompareBytes").Call(jen.Index().Byte().Call(a), jen.Index().Byte().Call(b))
	case "uuid":
		return jen.Qual(impl, "CompareUUID").Call(a, b)
	case "timeuuid":
		return jen.Qual(impl, "CompareTimeUUID").Call(a, b)
	case "varint", "decimal":
		if _, ok := fd.Go.(*types.Pointer); ok {
			return a.Dot("Cmp").Call(b)
		}
	}
	if c.Type.IsCollection() {
		return nil
	}
	return jen.Qual("cmp", "Compare").Call(a, b)
}
