package emit

import (
	"go/token"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
)

// param is the name of a read method's parameter for a field.
func param(f *model.Field) string {
	name := model.LowerFirst(f.GoName)
	switch {
	case token.IsKeyword(name), name == "ctx", name == "r", name == "o", name == "opts", name == "cqlgen", name == "cqlgenimpl", name == "e":
		name += "Key"
	}
	return name
}

// keyParams are the parameters of a read by the given columns, and the
// checks that refuse an empty partition key value; fail is what the
// method returns beside the error.
func keyParams(t *model.Table, cols []*model.Column, fail jen.Code) (params, checks []jen.Code) {
	for _, c := range cols {
		if c.Field == nil {
			continue
		}
		name := param(c.Field)
		params = append(params, jen.Id(name).Add(goType(c.Field.GoType)))
		if c.Kind == model.PartitionKey {
			if cond := empty(jen.Id(name), c.Field); cond != nil {
				checks = append(checks, jen.If(cond).Block(jen.Return(fail, emptyKey(t, c.Field))))
			}
		}
	}
	return params, checks
}

// lookup writes a method that reads one row of t by its primary key
// with its Get statement: Get on the canonical table, or the read method
// of a pattern whose partitions hold one row. The runtime refuses an
// empty partition key value.
func lookup(f *jen.File, t *model.Table, name, docText string) {
	e := t.Entity
	key := append(t.PartitionKey(), t.Clustering()...)
	params, _ := keyParams(t, key, nil)
	get := stmt(t, cqlspec.SlotGet)
	var vals []jen.Code
	for _, bd := range get.Binds {
		c := bd.Column
		if c == nil || c.Field == nil {
			// A bucket: bound from the entity the key makes.
			vals = values(get, binding{recv: jen.Parens(keyLiteral(e, key))})
			break
		}
		vals = append(vals, keyValue(c, jen.Id(param(c.Field))))
	}
	doc(f, "%s", docText)
	call := jen.Qual(impl, "Get").Call(jen.Id("ctx"), r("s"), jen.Lit(e.GoName), jen.Lit(name), jen.Id(t.Names.Var), jen.Index().Any().Values(vals...), jen.Id(t.Names.Scan))
	if name == "Get" && t == e.Canonical && valuesMode(t) {
		// The description scans the row.
		call = entityCall(e, "GetOf", r("s"), jen.Index().Any().Values(vals...))
	}
	thinMethod(f, e, name, params, []jen.Code{jen.Op("*").Id(t.Names.RowType), jen.Error()}, call)
}

// scanVar reports whether t, a source of truth whose reads the runtime
// derives (valuesMode), needs its scan declared (cqlgenimpl.ScanLive):
// for a read other than Get that names its scan.
func scanVar(t *model.Table) bool {
	if t.HasGetMany() || t.Scan || t.HasRead() && (t.ReadsOne() || !derivedRead(t)) {
		return true
	}
	for _, ix := range t.Entity.Indexes {
		if ix.On == t {
			return true
		}
	}
	return false
}

// keyValue is the value a key column binds, v: a set or map with its
// elements in Cassandra's order.
func keyValue(c *model.Column, v *jen.Statement) jen.Code {
	if c.Type.Name == "set" || c.Type.Name == "map" {
		return jen.Qual(impl, "Normalized").Call(jen.Lit(c.Type.Spec()), v)
	}
	return v
}

// getTimes writes, for an entity with fields tagged cqlgen:"ttl,
// writetime", the type of what GetTimes reads beside the entity, and
// GetTimes: Get with the TTL() and WRITETIME() of those columns.
func getTimes(f *jen.File, e *model.Entity) {
	fields := e.TimedFields()
	t := e.Canonical
	if len(fields) == 0 || !valuesMode(t) {
		return
	}
	var members, ptrs []jen.Code
	for _, fl := range fields {
		col := t.ColumnOf(fl).Name
		if fl.TTL {
			members = append(members, jen.Comment("TTL("+col+"): the time it has left to live; 0 without a TTL, or null."), jen.Id(fl.GoName+"TTL").Qual("time", "Duration"))
			ptrs = append(ptrs, jen.Op("&").Id("m").Dot(fl.GoName+"TTL"))
		}
		if fl.Writetime {
			members = append(members, jen.Comment("WRITETIME("+col+"): its write timestamp; the zero time if null."), jen.Id(fl.GoName+"Writetime").Qual("time", "Time"))
			ptrs = append(ptrs, jen.Op("&").Id("m").Dot(fl.GoName+"Writetime"))
		}
	}
	doc(f, "%s are what GetTimes reads beside a %s (docs/repositories.md, TTL and write time).", e.Names.Times, e.GoName)
	f.Type().Id(e.Names.Times).Struct(members...)
	key := append(t.PartitionKey(), t.Clustering()...)
	params, _ := keyParams(t, key, nil)
	var vals []jen.Code
	for _, c := range key {
		vals = append(vals, keyValue(c, jen.Id(param(c.Field))))
	}
	times := jen.Func().Params(jen.Id("m").Op("*").Id(e.Names.Times)).Index().Any().Block(jen.Return(jen.Index().Any().Values(ptrs...)))
	doc(f, "GetTimes reads the %s with the given key, as Get does, and the TTL and write time of the columns its fields' cqlgen tags name.", e.GoName)
	thinMethod(f, e, "GetTimes", params, []jen.Code{jen.Op("*").Id(t.Names.RowType), jen.Id(e.Names.Times), jen.Error()},
		entityCall(e, "GetTimes", r("s"), jen.Index().Any().Values(vals...), times))
}

func get(f *jen.File, e *model.Entity) {
	t := e.Canonical
	lookup(f, t, "Get", "Get reads the "+e.GoName+" with the given key; cqlgen.ErrNotFound if none.")
}

// getMany writes GetMany: the entities of several partition keys of the
// source of truth in one query, the last key column IN ?, in the order
// of the keys given.
func getMany(f *jen.File, e *model.Entity) {
	t := e.Canonical
	pk := t.PartitionKey()
	last := pk[len(pk)-1]
	found := jen.Qual(rt, "Found").Types(jen.Id(t.Names.RowType))
	params, _ := keyParams(t, pk[:len(pk)-1], nil)
	var prefix []jen.Code
	for _, c := range pk[:len(pk)-1] {
		prefix = append(prefix, jen.Id(param(c.Field)))
	}
	list := plural(param(last.Field))
	params = append(params, jen.Id(list).Index().Add(goType(last.Field.GoType)))
	fixed := ""
	if len(pk) > 1 {
		var names []string
		for _, c := range pk[:len(pk)-1] {
			names = append(names, c.Name)
		}
		fixed = " of one " + strings.Join(names, ", ")
	}
	doc(f, "GetMany reads the %ss%s of the given %s values: Rows[i] is %s[i]'s or nil.", e.GoName, fixed, last.Name, list)
	thinMethod(f, e, "GetMany", params, []jen.Code{found, jen.Error()}, jen.Qual(impl, "Many").Call(
		jen.Id("ctx"), r("s"), r("opts"), jen.Lit(e.GoName), jen.Id(t.Names.Var), jen.Index().Any().Values(prefix...), jen.Id(list), jen.Id(t.Names.Scan),
		jen.Func().Params(jen.Id("e").Op("*").Id(t.Names.RowType)).Add(goType(last.Field.GoType)).Block(jen.Return(field("e", last.Field))),
	))
}

// plural names a parameter that holds several values of name.
func plural(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "es"
	}
	return name + "s"
}

func readOne(f *jen.File, t *model.Table) {
	lookup(f, t, t.Method, t.Method+" reads "+strings.TrimRight(t.Doc, ".")+" from "+t.Name+"; cqlgen.ErrNotFound if there is none."+deprecation(t))
}

// deprecation is the paragraph that marks the read method of a deprecated
// table, which go vet's peers (staticcheck, gopls) flag at every call.
func deprecation(t *model.Table) string {
	if !t.Deprecated {
		return ""
	}
	if r := t.ReplacedBy; r != nil {
		return "\n\nDeprecated: " + t.Name + " is on its way out; read " + r.Name + " through " + r.Method + " once it is backfilled."
	}
	return "\n\nDeprecated: " + t.Name + " is on its way out; read the entity another way."
}

// readPage writes the options type and the read method of a pattern whose
// partitions hold many rows: pages, with a limit, a cursor and bounds.
func readPage(f *jen.File, t *model.Table) {
	e := t.Entity
	n := t.Names
	ck := t.Clustering()
	b := t.Bucket
	opts := pageOptions()
	if len(ck) > 0 {
		c0 := ck[0]
		opts = append(opts, comments("%sFrom (inclusive) and %sTo (exclusive) bound %s; nil: open.", c0.Field.GoName, c0.Field.GoName, c0.Name)...)
		opts = append(opts, jen.List(jen.Id(c0.Field.GoName+"From"), jen.Id(c0.Field.GoName+"To")).Op("*").Add(goType(c0.Field.GoType)))
		opts = append(opts, boundFlags(c0)...)
	}
	for i, c := range ck[:t.PrefixDepth()] {
		g, next := c.Field.GoName, ck[i+1]
		opts = append(opts, comments("%sEq fixes %s (nil: every value); with every Eq before it, %sFrom and %sTo bound %s within it.", g, c.Name, next.Field.GoName, next.Field.GoName, next.Name)...)
		opts = append(opts, jen.Id(g+"Eq").Op("*").Add(goType(c.Field.GoType)))
		opts = append(opts, comments("%sFrom (inclusive) and %sTo (exclusive) bound %s under %sEq; nil: open.", next.Field.GoName, next.Field.GoName, next.Name, g)...)
		opts = append(opts, jen.List(jen.Id(next.Field.GoName+"From"), jen.Id(next.Field.GoName+"To")).Op("*").Add(goType(next.Field.GoType)))
		opts = append(opts, boundFlags(next)...)
	}
	if b != nil && b.Kind.IsTime() {
		opts = append(opts, comments("Start is the bucket the read walks back from (zero: now).")...)
		opts = append(opts, jen.Id("Start").Qual("time", "Time"))
		opts = append(opts, comments("LookBack is how many buckets it may reach (0: cqlgen.DefaultLookBack).")...)
		opts = append(opts, jen.Id("LookBack").Int())
	}
	doc(f, "%s are the options of %s.", n.Options, t.Method)
	f.Type().Id(n.Options).Struct(opts...)

	page := jen.Qual(rt, "Page").Types(jen.Id(n.RowType))
	params, _ := keyParams(t, t.PartitionKey(), nil)
	var part []jen.Code
	for _, c := range t.PartitionKey() {
		if c.Field != nil {
			part = append(part, jen.Id(param(c.Field)))
		}
	}
	var hash, tb jen.Code
	o := func(name string) *jen.Statement { return jen.Id("o").Dot(name) }
	args := []jen.Code{jen.Id("ctx"), r("s"), r("opts"), jen.Index().Any().Values(part...), o("Limit"), o("Cursor")}
	if d := t.PrefixDepth(); d > 0 {
		var names, fixed, bounded []jen.Code
		for i, c := range ck[:d+1] {
			g := c.Field.GoName
			names = append(names, jen.Lit(g))
			if i < d {
				fixed = append(fixed, o(g+"Eq").Op("!=").Nil())
			}
			bounded = append(bounded, o(g+"From").Op("!=").Nil().Op("||").Add(o(g+"To")).Op("!=").Nil())
		}
		args = append(args, jen.Qual(impl, "Prefixed").Call(jen.Index().String().Values(names...), jen.Index().Bool().Values(fixed...), jen.Index().Bool().Values(bounded...)))
		// The options passed the check: the columns fixed are the first
		// ones, and only the next one is bounded.
		for _, c := range ck[:d] {
			typ := ""
			if c.Type.Name == "set" || c.Type.Name == "map" {
				typ = c.Type.Spec()
			}
			args = append(args, jen.Qual(impl, "Eq").Call(o(c.Field.GoName+"Eq"), jen.Lit(typ)))
		}
	}
	if b != nil {
		if b.Kind == model.HashBucket {
			hash = jen.Lit(int(b.N))
		} else {
			// The caller's options are read, never written.
			tb = jen.Qual(impl, "Every").Call(timeBuckets(b))
			args = append(args, jen.Qual(impl, "Walk").Call(o("Start"), o("LookBack")))
		}
	}
	if len(ck) > 0 {
		for _, c := range ck[:t.PrefixDepth()+1] {
			g := c.Field.GoName
			args = append(args, jen.Qual(impl, "Range").Call(o(g+"From"), o(g+"To"), o(g+"FromExclusive"), o(g+"ToInclusive")))
		}
	}
	var entity, scanRef, keyRef, of jen.Code = jen.Lit(e.GoName), jen.Id(n.Scan), jen.Id(n.Clustering), nil
	if derivedRead(t) {
		// The entity's description names it, and its rows.
		entity, scanRef, keyRef, of = nil, nil, nil, jen.Id(e.Names.Writes)
	}
	var compareRef jen.Code
	if merged(t) {
		compareRef = jen.Id(n.Compare)
	}
	f.Var().Id(n.Read).Op("=").Op("&").Qual(impl, "ReadSpec").Types(jen.Id(n.RowType)).Add(keyed(
		jen.Id("Entity"), entity,
		jen.Id("Table"), jen.Id(n.Var),
		jen.Id("Scan"), scanRef,
		jen.Id("Key"), keyRef,
		jen.Id("Of"), of,
		jen.Id("Compare"), compareRef,
		jen.Id("HashBuckets"), hash,
		jen.Id("TimeBuckets"), tb,
	))
	words := ""
	if b != nil {
		words = ": " + b.ReadWords()
	}
	doc(f, "%s reads %s from %s, in pages%s.%s", t.Method, strings.TrimRight(t.Doc, "."), t.Name, words, deprecation(t))
	recvFunc(f, e, t.Method).Params(append([]jen.Code{ctxParam()}, append(params, jen.Id("o").Op("*").Id(n.Options))...)...).Params(page, jen.Error()).Block(
		jen.Id("o").Op("=").Qual(impl, "Or").Call(jen.Id("o")),
		jen.Return(jen.Id(n.Read).Dot("Page").Call(args...)),
	)
}

// pageOptions are the options every read in pages has, one a line with
// its comment.
func pageOptions() []jen.Code {
	return []jen.Code{
		jen.Id("Limit").Int().Comment("the most rows to return (0: cqlgen.DefaultLimit)"),
		jen.Id("Cursor").String().Comment("continues after the previous page (\"\": from the start)"),
	}
}

// boundFlags are the options that make c's bounds exclusive or
// inclusive other than by default.
func boundFlags(c *model.Column) []jen.Code {
	g := c.Field.GoName
	return append(comments("%sFromExclusive and %sToInclusive flip the defaults.", g, g),
		jen.List(jen.Id(g+"FromExclusive"), jen.Id(g+"ToInclusive")).Bool())
}

// prefixValue is the value a read binds for a clustering column it fixes,
// as a row's key binds it: a set or map with its elements in Cassandra's
// order.
func prefixValue(c *model.Column, v *jen.Statement) jen.Code {
	if c.Type.Name == "set" || c.Type.Name == "map" {
		return jen.Qual(impl, "Normalized").Call(jen.Lit(c.Type.Spec()), v)
	}
	return v
}

// scanMethod writes the typed full-table read of a table declared with
// the table option scan: one call of the runtime, which pages over the
// share of the token ring the options name.
func scanMethod(f *jen.File, t *model.Table) {
	e, n := t.Entity, t.Names
	doc(f, "%s reads every row of %s, a page at a time, in token order over the share of the ring o names (docs/repositories.md, \"Scans\"); a scan is not a snapshot.%s", n.ScanMethod, t.Name, deprecation(t))
	thinMethod(f, e, n.ScanMethod, []jen.Code{jen.Id("o").Op("*").Qual(rt, "ScanOptions")}, []jen.Code{jen.Qual(rt, "Page").Types(jen.Id(n.RowType)), jen.Error()},
		jen.Qual(impl, "Scan").Call(jen.Id("ctx"), r("s"), r("opts"), jen.Id("o"), jen.Lit(e.GoName), jen.Id(n.Var), jen.Id(n.Scan)))
}
