package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/tag"
)

// indexDecls writes an index pattern's statements, the runtime's view of
// them, the cursor key of a row, the options type and the read method.
func indexDecls(f *jen.File, ix *model.Index) {
	t := ix.On
	n := ix.Names
	doc(f, "%s reads table %s through index %s (statements in schema.md).", n.Var, t.Name, ix.Name)
	f.Var().Id(n.Var).Op("=").Qual(impl, "NewTable").Call(specLit(ix.Spec()))
	if ix.ANN {
		nearestRead(f, ix)
		return
	}
	cursorKeyFunc(f, t, n.Key, ix.Scatter())
	indexRead(f, ix)
}

// cursorKeyFunc writes the cursor key of a row of a read through
// indexes: its clustering values, after its partition key's for a
// scatter.
func cursorKeyFunc(f *jen.File, t *model.Table, name string, scatter bool) {
	var key []jen.Code
	if scatter {
		for _, c := range t.PartitionKey() {
			key = append(key, field("e", c.Field))
		}
	}
	for _, c := range t.Clustering() {
		key = append(key, field("e", c.Field))
	}
	f.Func().Id(name).Params(jen.Id("e").Op("*").Id(t.Names.RowType)).Index().Any().Block(
		jen.Return(jen.Index().Any().Values(key...)),
	)
}

// valueParams are the parameters of the values an index read looks for.
func valueParams(ix *model.Index, taken map[string]bool) []string {
	base := param(ix.Column.Field)
	free := func(name string) string {
		for taken[name] {
			name += "Value"
		}
		taken[name] = true
		return name
	}
	if ix.Range {
		return []string{free(base + "From"), free(base + "To")}
	}
	if ix.Keys {
		return []string{free(strings.TrimSuffix(base, "s") + "Key")}
	}
	if ix.Contains() && len(base) > 1 && strings.HasSuffix(base, "s") {
		return []string{free(strings.TrimSuffix(base, "s"))}
	}
	return []string{free(base)}
}

// indexRead writes the options type and the read method of an index.
func indexRead(f *jen.File, ix *model.Index) {
	t := ix.On
	e := ix.Entity
	n := ix.Names
	opts := pageOptions()
	if ix.Range {
		g := ix.Column.Field.GoName
		opts = append(opts, comments("%sFromExclusive and %sToInclusive flip the defaults.", g, g)...)
		opts = append(opts, jen.List(jen.Id(g+"FromExclusive"), jen.Id(g+"ToInclusive")).Bool())
	}
	doc(f, "%s are the options of %s.", n.Options, ix.Method)
	f.Type().Id(n.Options).Struct(opts...)

	page := jen.Qual(rt, "Page").Types(jen.Id(t.Names.RowType))
	params, checks, part, taken := partitionParams(t, !ix.Scatter(), page)
	var vals []jen.Code
	for _, name := range valueParams(ix, taken) {
		params = append(params, jen.Id(name).Add(goType(ix.ValueGoType())))
		vals = append(vals, jen.Id(name))
	}
	spec := indexReadSpec(n, t, vals, part, !ix.Scatter())
	if ix.Range {
		g := ix.Column.Field.GoName
		spec[jen.Id("FromExclusive")] = jen.Id("o").Dot(g + "FromExclusive")
		spec[jen.Id("ToInclusive")] = jen.Id("o").Dot(g + "ToInclusive")
	}
	body := append(checks,
		jen.If(jen.Id("o").Op("==").Nil()).Block(jen.Id("o").Op("=").Op("&").Id(n.Options).Values()),
		jen.Return(jen.Qual(impl, "ReadIndex").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Qual(impl, "IndexRead").Types(jen.Id(t.Names.RowType)).Values(spec))),
	)
	match := "whose " + ix.Column.Name + " equals the value"
	switch {
	case ix.Keys:
		match = "whose " + ix.Column.Name + " has the key"
	case ix.Contains():
		match = "whose " + ix.Column.Name + " contains the value"
	case ix.Range:
		match = "whose " + ix.Column.Name + " is within the bounds"
	}
	where := "within one partition"
	if ix.Scatter() {
		where = "a scatter over the cluster"
	}
	doc(f, "%s reads %s: the rows of %s %s, through index %s, in pages, %s.", ix.Method, strings.TrimRight(ix.Doc, "."), t.Name, match, ix.Name, where)
	callMethod(f, e, ix.Method, append(params, jen.Id("o").Op("*").Id(n.Options)), []jen.Code{page, jen.Error()}, body)
}

// nearestRead writes the options type and the read method of an ANN
// index: the rows nearest a vector, nearest first, up to a limit, in one
// query and no pages.
func nearestRead(f *jen.File, ix *model.Index) {
	t := ix.On
	e := ix.Entity
	n := ix.Names
	opts := append(comments("Limit is the most rows to return, nearest first (0: cqlgen.DefaultLimit); there are no pages."), jen.Id("Limit").Int())
	doc(f, "%s are the options of %s.", n.Options, ix.Method)
	f.Type().Id(n.Options).Struct(opts...)

	rows, call := jen.Index().Id(t.Names.RowType), "ReadNearest"
	if ix.Score != "" {
		rows, call = jen.Index().Qual(rt, "Scored").Types(jen.Id(t.Names.RowType)), "ReadNearestScored"
	}
	var params, checks, part []jen.Code
	taken := map[string]bool{}
	if !ix.Scatter() {
		params, checks = keyParams(t, t.PartitionKey(), jen.Nil())
		for _, c := range t.PartitionKey() {
			taken[param(c.Field)] = true
			part = append(part, jen.Id(param(c.Field)))
		}
	}
	var filter []jen.Code
	if fx := ix.FilterIndex; fx != nil {
		fname := valueParams(fx, taken)[0]
		params = append(params, jen.Id(fname).Add(goType(fx.ValueGoType())))
		filter = append(filter, jen.Id(fname))
	}
	name := valueParams(ix, taken)[0]
	params = append(params, jen.Id(name).Index().Float32())
	spec := jen.Dict{
		jen.Id("Table"):    jen.Id(n.Var),
		jen.Id("Vector"):   jen.Id(name),
		jen.Id("Limit"):    jen.Id("o").Dot("Limit"),
		jen.Id("MaxLimit"): jen.Id("r").Dot("opts").Dot("MaxLimit"),
		jen.Id("Scan"):     jen.Id(t.Names.Scan),
	}
	if !ix.Scatter() {
		spec[jen.Id("Partition")] = jen.Index().Any().Values(part...)
	}
	if filter != nil {
		spec[jen.Id("Filter")] = jen.Index().Any().Values(filter...)
	}
	body := append(checks,
		jen.If(jen.Id("o").Op("==").Nil()).Block(jen.Id("o").Op("=").Op("&").Id(n.Options).Values()),
		jen.Return(jen.Qual(impl, call).Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Qual(impl, "NearestRead").Types(jen.Id(t.Names.RowType)).Values(spec))),
	)
	where := "within one partition, searched on its replicas"
	if ix.Scatter() {
		where = "over every node's index: a scatter"
	}
	score := ""
	if fx := ix.FilterIndex; fx != nil {
		score = " among those whose " + fx.Column.Name + " " + map[bool]string{true: "contains", false: "equals"}[fx.Contains()] + " the value (index " + fx.Name + ")"
	}
	if ix.Score != "" {
		score += ", each with its " + ix.Score + " similarity as Cassandra computed it"
	}
	doc(f, "%s reads %s: the rows of %s whose %s (%d dimensions) is nearest the vector by %s similarity, nearest first%s, %s (docs/repositories.md, Nearest rows).",
		ix.Method, strings.TrimRight(ix.Doc, "."), t.Name, ix.Column.Name, ix.Column.Field.Type.Dim, ix.Similarity, score, where)
	callMethod(f, e, ix.Method, append(params, jen.Id("o").Op("*").Id(n.Options)), []jen.Code{rows, jen.Error()}, body)
}

// indexReadSpec is the IndexRead of a read through indexes, an index
// pattern's or a filter's: its table, values, page options, scan and key,
// and its partition's values unless it is a scatter.
func indexReadSpec(n model.IndexNames, t *model.Table, vals, part []jen.Code, inPartition bool) jen.Dict {
	spec := jen.Dict{
		jen.Id("Table"):     jen.Id(n.Var),
		jen.Id("Values"):    jen.Index().Any().Values(vals...),
		jen.Id("Limit"):     jen.Id("o").Dot("Limit"),
		jen.Id("MaxLimit"):  jen.Id("r").Dot("opts").Dot("MaxLimit"),
		jen.Id("CursorKey"): jen.Id("r").Dot("opts").Dot("CursorKey"),
		jen.Id("Cursor"):    jen.Id("o").Dot("Cursor"),
		jen.Id("Scan"):      jen.Id(t.Names.Scan),
		jen.Id("Key"):       jen.Id(n.Key),
	}
	if inPartition {
		spec[jen.Id("Partition")] = jen.Index().Any().Values(part...)
	}
	return spec
}

// partitionParams are the parameters of a read through indexes restricted
// to one partition of t (none for a scatter): the key's parameters, their
// checks (returning an empty page), their values in key order, and the
// parameter names they take.
func partitionParams(t *model.Table, inPartition bool, page *jen.Statement) (params, checks, part []jen.Code, taken map[string]bool) {
	taken = map[string]bool{}
	if !inPartition {
		return nil, nil, nil, taken
	}
	params, checks = keyParams(t, t.PartitionKey(), page.Clone().Values())
	for _, c := range t.PartitionKey() {
		taken[param(c.Field)] = true
		part = append(part, jen.Id(param(c.Field)))
	}
	return params, checks, part, taken
}

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
