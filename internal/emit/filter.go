package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/tag"
)

// filterDecls writes a filter pattern's statements, the cursor key of a
// row, the options type and the read method: a read through the indexes
// of several columns at once, in pages.
func filterDecls(f *jen.File, fl *model.Filter) {
	t := fl.On
	n := fl.Names
	var ixs []string
	for _, c := range fl.Conds {
		ixs = append(ixs, c.Index.Name)
	}
	doc(f, "%s reads table %s through indexes %s (statements in schema.md).", n.Var, t.Name, strings.Join(ixs, ", "))
	f.Var().Id(n.Var).Op("=").Qual(impl, "NewTable").Call(specLit(fl.Spec()))
	cursorKeyFunc(f, t, n.Key, fl.Scatter())

	opts := pageOptions()
	var bounds []jen.Code
	for _, c := range fl.Ranges() {
		g := c.Column.Field.GoName
		opts = append(opts, comments("%sFromExclusive and %sToInclusive flip the defaults of the %s range.", g, g, c.Column.Name)...)
		opts = append(opts, jen.List(jen.Id(g+"FromExclusive"), jen.Id(g+"ToInclusive")).Bool())
		bounds = append(bounds, jen.Id("o").Dot(g+"FromExclusive"), jen.Id("o").Dot(g+"ToInclusive"))
	}
	doc(f, "%s are the options of %s.", n.Options, fl.Method)
	f.Type().Id(n.Options).Struct(opts...)

	page := jen.Qual(rt, "Page").Types(jen.Id(t.Names.RowType))
	params, checks, part, taken := partitionParams(t, !fl.Scatter(), page)
	free := func(name string) string {
		for taken[name] {
			name += "Value"
		}
		taken[name] = true
		return name
	}
	var vals []jen.Code
	var match []string
	for _, c := range fl.Conds {
		base := param(c.Column.Field)
		var names []string
		switch c.Op {
		case tag.OpRange, tag.OpBetween:
			names = []string{free(base + "From"), free(base + "To")}
		case tag.OpContains:
			if len(base) > 1 && strings.HasSuffix(base, "s") {
				base = strings.TrimSuffix(base, "s")
			}
			names = []string{free(base)}
		case tag.OpContainsKey:
			names = []string{free(strings.TrimSuffix(base, "s") + "Key")}
		default:
			names = []string{free(base)}
		}
		for _, name := range names {
			params = append(params, jen.Id(name).Add(goType(c.ValueGoType())))
			vals = append(vals, jen.Id(name))
		}
		match = append(match, c.Relation())
	}
	spec := indexReadSpec(n, t, vals, part, !fl.Scatter())
	if len(bounds) > 0 {
		spec[jen.Id("RangeBounds")] = jen.Index().Bool().Values(bounds...)
	}
	body := append(checks,
		jen.If(jen.Id("o").Op("==").Nil()).Block(jen.Id("o").Op("=").Op("&").Id(n.Options).Values()),
		jen.Return(jen.Qual(impl, "ReadIndex").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Qual(impl, "IndexRead").Types(jen.Id(t.Names.RowType)).Values(spec))),
	)
	where := "within one partition"
	if fl.Scatter() {
		where = "a scatter over the cluster"
	}
	doc(f, "%s reads %s: the rows of %s where %s, through indexes %s, in pages, %s.", fl.Method, strings.TrimRight(fl.Doc, "."), t.Name, strings.Join(match, " AND "), strings.Join(ixs, ", "), where)
	callMethod(f, fl.Entity, fl.Method, append(params, jen.Id("o").Op("*").Id(n.Options)), []jen.Code{page, jen.Error()}, body)
}
