package emit

import (
	"go/token"
	"strings"

	"github.com/dave/jennifer/jen"

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
		params = append(params, jen.Id(name).Add(goType(c.Field.Go)))
		if c.Kind == model.PartitionKey {
			if cond := empty(jen.Id(name), c.Field); cond != nil {
				checks = append(checks, jen.If(cond).Block(jen.Return(fail, emptyKey(t, c.Field))))
			}
		}
	}
	return params, checks
}

// lookup writes a method that reads one row of t by its primary key with
// its Get statement: Get on the canonical table, or the read method of a
// pattern whose partitions hold one row.
func lookup(f *jen.File, t *model.Table, name, docText string) {
	e := t.Entity
	key := append(t.PartitionKey(), t.Clustering()...)
	params, checks := keyParams(t, key, jen.Nil())
	body := append(checks, jen.Var().Id("e").Id(e.GoName))
	for _, c := range key {
		if c.Field != nil {
			body = append(body, jen.Id("e").Dot(c.Field.GoName).Op("=").Id(param(c.Field)))
		}
	}
	get := stmt(t, model.SlotGet)
	body = append(body,
		jen.Return(jen.Qual(impl, "GetOne").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(t.Names.Var).Dot("Get"),
			jen.Index().Any().Values(values(get, binding{recv: jen.Id("e")})...), jen.Id(t.Names.Scan))),
	)
	doc(f, "%s", docText)
	callMethod(f, e, name, params, []jen.Code{jen.Op("*").Id(t.Names.RowType), jen.Error()}, body)
}

func get(f *jen.File, e *model.Entity) {
	t := e.Canonical
	lookup(f, t, "Get", "Get reads the "+e.GoName+" with the given key from "+t.Name+"; cqlgen.ErrNotFound if there is none.")
}

// getMany writes GetMany: the entities of several partition keys of the
// source of truth in one query, the last key column IN ?, in the order
// of the keys given.
func getMany(f *jen.File, e *model.Entity) {
	t := e.Canonical
	pk := t.PartitionKey()
	last := pk[len(pk)-1]
	found := jen.Qual(rt, "Found").Types(jen.Id(t.Names.RowType))
	params, checks := keyParams(t, pk[:len(pk)-1], found.Clone().Values())
	var prefix []jen.Code
	for _, c := range pk[:len(pk)-1] {
		prefix = append(prefix, jen.Id(param(c.Field)))
	}
	list := plural(param(last.Field))
	params = append(params, jen.Id(list).Index().Add(goType(last.Field.Go)))
	if cond := empty(jen.Id("k"), last.Field); cond != nil {
		checks = append(checks, jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id(list)).Block(
			jen.If(cond).Block(jen.Return(found.Clone().Values(), emptyKey(t, last.Field)))))
	}
	body := append(checks, jen.Return(jen.Qual(impl, "GetMany").Call(
		jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(t.Names.Var), jen.Index().Any().Values(prefix...), jen.Id(list),
		jen.Id("r").Dot("opts").Dot("MaxKeys"), jen.Id(t.Names.Scan),
		jen.Func().Params(jen.Id("e").Op("*").Id(t.Names.RowType)).Add(goType(last.Field.Go)).Block(jen.Return(field("e", last.Field))),
	)))
	fixed := ""
	if len(pk) > 1 {
		var names []string
		for _, c := range pk[:len(pk)-1] {
			names = append(names, c.Name)
		}
		fixed = " of one " + strings.Join(names, ", ")
	}
	doc(f, "GetMany reads the %ss%s with the given %s values from %s in one query: Rows[i] is %s[i]'s, nil when missing (docs/repositories.md, Multi-get).",
		e.GoName, fixed, last.Name, t.Name, list)
	callMethod(f, e, "GetMany", params, []jen.Code{found, jen.Error()}, body)
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
	opts := append(comments("Limit is the most rows to return (0: cqlgen.DefaultLimit)."), jen.Id("Limit").Int())
	opts = append(opts, comments("Cursor continues after the previous page (\"\": from the first row).")...)
	opts = append(opts, jen.Id("Cursor").String())
	if len(ck) > 0 {
		c0 := ck[0]
		opts = append(opts, comments("%sFrom (inclusive) and %sTo (exclusive) bound %s in read order; nil: open.", c0.Field.GoName, c0.Field.GoName, c0.Name)...)
		opts = append(opts, jen.List(jen.Id(c0.Field.GoName+"From"), jen.Id(c0.Field.GoName+"To")).Op("*").Add(goType(c0.Field.Go)))
		opts = append(opts, boundFlags(c0)...)
	}
	for i, c := range ck[:t.PrefixDepth()] {
		g, next := c.Field.GoName, ck[i+1]
		opts = append(opts, comments("%sEq fixes %s (nil: every value); with every Eq before it, %sFrom and %sTo bound %s within it.", g, c.Name, next.Field.GoName, next.Field.GoName, next.Name)...)
		opts = append(opts, jen.Id(g+"Eq").Op("*").Add(goType(c.Field.Go)))
		opts = append(opts, comments("%sFrom (inclusive) and %sTo (exclusive) bound %s under %sEq; nil: open.", next.Field.GoName, next.Field.GoName, next.Name, g)...)
		opts = append(opts, jen.List(jen.Id(next.Field.GoName+"From"), jen.Id(next.Field.GoName+"To")).Op("*").Add(goType(next.Field.Go)))
		opts = append(opts, boundFlags(next)...)
	}
	if b != nil && b.Kind.IsTime() {
		opts = append(opts, comments("Start is the bucket the read walks back from (zero: now).")...)
		opts = append(opts, jen.Id("Start").Qual("time", "Time"))
		opts = append(opts, comments("LookBack is how many buckets the read may reach (0: cqlgen.DefaultLookBack).")...)
		opts = append(opts, jen.Id("LookBack").Int())
	}
	doc(f, "%s are the optional parts of a %s read.", n.Options, t.Method)
	f.Type().Id(n.Options).Struct(opts...)

	page := jen.Qual(rt, "Page").Types(jen.Id(n.RowType))
	params, checks := keyParams(t, t.PartitionKey(), page.Clone().Values())
	var part []jen.Code
	for _, c := range t.PartitionKey() {
		if c.Field != nil {
			part = append(part, jen.Id(param(c.Field)))
		}
	}
	static := jen.Dict{
		jen.Id("Table"):   jen.Id(n.Var),
		jen.Id("Scan"):    jen.Id(n.Scan),
		jen.Id("Key"):     jen.Id(n.Clustering),
		jen.Id("Compare"): jen.Id(n.Compare),
	}
	body := append(checks,
		jen.If(jen.Id("o").Op("==").Nil()).Block(jen.Id("o").Op("=").Op("&").Id(n.Options).Values()),
	)
	if d := t.PrefixDepth(); d > 0 {
		var names, fixed, bounded []jen.Code
		for i, c := range ck[:d+1] {
			g := c.Field.GoName
			names = append(names, jen.Lit(g))
			if i < d {
				fixed = append(fixed, jen.Id("o").Dot(g+"Eq").Op("!=").Nil())
			}
			bounded = append(bounded, jen.Id("o").Dot(g+"From").Op("!=").Nil().Op("||").Id("o").Dot(g+"To").Op("!=").Nil())
		}
		body = append(body, jen.If(jen.Err().Op(":=").Qual(impl, "CheckPrefix").Call(
			jen.Index().String().Values(names...), jen.Index().Bool().Values(fixed...), jen.Index().Bool().Values(bounded...)),
			jen.Err().Op("!=").Nil()).Block(jen.Return(page.Clone().Values(), jen.Err())))
	}
	var after []jen.Code
	if b != nil {
		if b.Kind == model.HashBucket {
			static[jen.Id("HashBuckets")] = jen.Lit(int(b.N))
		} else {
			// The caller's options are read, never written: a reused or
			// shared options value stays as the caller left it.
			body = append(body,
				jen.Id("start").Op(":=").Id("o").Dot("Start"),
				jen.If(jen.Id("start").Dot("IsZero").Call()).Block(jen.Id("start").Op("=").Id("r").Dot("opts").Dot("Clock").Call()),
				jen.Id("tb").Op(":=").Add(timeBuckets(b)),
			)
			after = append(after, jen.List(jen.Id("spec").Dot("TimeBuckets"), jen.Id("spec").Dot("Start"), jen.Id("spec").Dot("LookBack")).Op("=").List(jen.Op("&").Id("tb"), jen.Id("start"), jen.Id("o").Dot("LookBack")))
		}
	}
	f.Var().Id(n.Read).Op("=").Qual(impl, "ReadSpec").Types(jen.Id(n.RowType)).Values(static)
	body = append(body, jen.Id("spec").Op(":=").Id(n.Read).Dot("With").Call(jen.Index().Any().Values(part...), jen.Id("o").Dot("Limit"), jen.Id("o").Dot("Cursor"), jen.Id("r").Dot("opts")))
	body = append(body, after...)
	if len(ck) > 0 {
		// Under a prefix key, the options passed the check: the columns
		// fixed are the first ones, and only the next one is bounded.
		for _, c := range ck[:t.PrefixDepth()] {
			g := c.Field.GoName
			body = append(body, jen.If(jen.Id("o").Dot(g+"Eq").Op("!=").Nil()).Block(
				jen.Id("spec").Dot("Prefix").Op("=").Append(jen.Id("spec").Dot("Prefix"), prefixValue(c, jen.Op("*").Id("o").Dot(g+"Eq")))))
		}
		for _, c := range ck[:t.PrefixDepth()+1] {
			g := c.Field.GoName
			body = append(body, jen.Qual(impl, "Bounds").Call(jen.Op("&").Id("spec"), jen.Id("o").Dot(g+"From"), jen.Id("o").Dot(g+"To"), jen.Id("o").Dot(g+"FromExclusive"), jen.Id("o").Dot(g+"ToInclusive")))
		}
	}
	body = append(body, jen.Return(jen.Qual(impl, "ReadPage").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("spec"))))

	words := "one partition, in clustering order"
	if b != nil {
		words = b.ReadWords()
	}
	doc(f, "%s reads %s, from %s, in pages: %s.%s", t.Method, strings.TrimRight(t.Doc, "."), t.Name, words, deprecation(t))
	callMethod(f, e, t.Method, append(params, jen.Id("o").Op("*").Id(n.Options)), []jen.Code{page, jen.Error()}, body)
}

// boundFlags are the options that make c's bounds exclusive or
// inclusive other than by default.
func boundFlags(c *model.Column) []jen.Code {
	g := c.Field.GoName
	return append(comments("%sFromExclusive and %sToInclusive change the bounds' defaults.", g, g),
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
