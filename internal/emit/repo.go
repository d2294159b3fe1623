package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
)

// entity writes everything generated for one entity: per table its
// statements and the functions that bind and scan them, then the
// repository and its methods.
func entity(f *jen.File, e *model.Entity) {
	for _, t := range e.Tables {
		tableDecls(f, t)
	}
	repository(f, e)
	writesVar(f, e)
	if e.Versioned() {
		protocolWrites(f, e)
		versionedReads(f, e)
	} else {
		plainWrites(f, e)
	}
	if e.Maintained() {
		maintenance(f, e)
	}
	get(f, e)
	getTimes(f, e)
	if e.Canonical.HasGetMany() {
		getMany(f, e)
	}
	for _, t := range e.Tables {
		switch {
		case t.Unique:
			uniqueRead(f, t)
		case t.ReadsOne():
			readOne(f, t)
		case t.HasRead():
			readPage(f, t)
		}
		if t.Scan && !t.Unique {
			scanMethod(f, t)
		}
	}
	for _, ix := range e.Indexes {
		if ix.On != nil {
			indexDecls(f, ix)
		}
	}
	for _, fl := range e.Filters {
		if fl.On != nil {
			filterDecls(f, fl)
		}
	}
}

// tableDecls writes the runtime's description of a table, from which it
// renders the table's statements (listed on the review page), and the
// functions that bind and scan them.
func tableDecls(f *jen.File, t *model.Table) {
	e := t.Entity
	n := t.Names
	stmts := t.Statements()
	role := "serving " + t.Method
	if t == e.Canonical {
		role = "the source of truth"
	}
	if !t.Unique {
		rowType(f, t)
	}
	if t.Sparse() {
		holdsFunc(f, t)
	}
	doc(f, "%s is table %s, %s (schema.md).", n.Var, t.Name, role)
	f.Var().Id(n.Var).Op("=").Qual(impl, "NewTable").Call(specLit(t.Spec()))
	if valuesMode(t) {
		valuesFuncs(f, t)
	}
	for _, s := range stmts {
		if valuesMode(t) && (s.Slot != cqlspec.SlotInsert || !e.Versioned()) || derivedRow(t) && s.Slot == cqlspec.SlotInsert {
			continue
		}
		switch s.Slot {
		case cqlspec.SlotInsert:
			rowFunc(f, t, s)
			keyFunc(f, t)
		case cqlspec.SlotGet:
			if !t.Unique {
				scanFunc(f, t)
			}
		case cqlspec.SlotState, cqlspec.SlotChange, cqlspec.SlotRemove, cqlspec.SlotClearPending:
			protocolFuncs(f, t, s)
		}
	}
	if t.HasRead() && !t.ReadsOne() {
		if t.Entity.Canonical != t && !derivedRead(t) {
			scanFunc(f, t)
		}
		clusteringFuncs(f, t, !derivedRead(t))
	}
}

// derivedRead reports whether the runtime derives the scan and the
// clustering values of t's reads from its entity's fields and values
// (cqlgenimpl.ReadSpec.Of): a table of the entity's own rows whose row
// it derives too (derivedRow), or a source of truth it derives from
// (valuesMode), whose rows a read scans as Get does, read in pages through no index and not
// scanned whole (the table option scan), whose clustering columns hold
// their fields as they are.
func derivedRead(t *model.Table) bool {
	e := t.Entity
	canon := t == e.Canonical && valuesMode(t)
	if !derivedRow(t) && !canon || t.Partial() || t.StaticsAlone() != nil || !t.HasRead() || t.ReadsOne() || t.Scan {
		return false
	}
	for _, ix := range t.Entity.Indexes {
		if ix.On == t {
			return false
		}
	}
	for _, c := range t.Clustering() {
		if wrapper(c, false) != "" || c.Field.Nullable {
			return false
		}
	}
	return true
}

// derived reports whether t is a source of truth whose protocol functions
// the runtime derives from its values and fields (cqlgenimpl.NewEntity):
// a versioned one, without statics or buckets.
func derived(t *model.Table) bool {
	return t.HoldsGraves() && !t.HasStatics() && t.Bucket == nil
}

// valuesMode reports whether generated code describes t, a source of
// truth, by its Values and Fields, from which the runtime derives what
// every statement of the entity's tables binds (cqlgenimpl.NewEntity):
// a derived versioned one, and the source of truth of every entity
// written without the protocol (one table, immutable, counters), whose
// Values hold every column, a bucket's too.
func valuesMode(t *model.Table) bool {
	e := t.Entity
	return t == e.Canonical && (derived(t) || !e.Versioned())
}

// derivedRow reports whether the runtime derives the Row and Key of t, a
// table other than a derived source of truth, from the source of truth's
// values (cqlgenimpl.NewEntity): every column holds a field bound as the
// source of truth binds it; no bucket, no claim.
func derivedRow(t *model.Table) bool {
	e := t.Entity
	if t == e.Canonical || !valuesMode(e.Canonical) || t.Unique {
		return false
	}
	canon := map[*model.Field]*model.Column{}
	for _, c := range e.Canonical.Columns {
		if c.Field != nil {
			canon[c.Field] = c
		}
	}
	// A bucket derives from a column of the source of truth bound as it
	// is (cqlgenimpl's bucketFunc takes its value from Values).
	if b := t.Bucket; b != nil {
		cc := canon[b.Source.Field]
		if cc == nil || wrapper(cc, true) != "" || b.Kind != model.HashBucket && cc.Type.Name != "timeuuid" && !b.Source.Field.GoType.Is("time", "Time") {
			return false
		}
	}
	// A column binds as the source of truth's does when it names the same
	// field through the same wrapper (see columnValue).
	for _, c := range t.Columns {
		if c.Bucket != nil {
			continue
		}
		if c.Field == nil {
			return false
		}
		cc := canon[c.Field]
		if cc == nil || cc.Name != c.Name || wrapper(c, true) != wrapper(cc, true) {
			return false
		}
		if (c.Kind == model.PartitionKey || c.Kind == model.Clustering) && wrapper(c, false) != wrapper(cc, true) {
			return false
		}
	}
	return true
}

// entityPrefix is the prefix of an entity's generated names.
func entityPrefix(e *model.Entity) string { return strings.TrimSuffix(e.Names.Writes, "Writes") }

// valuesFuncs writes the two functions of a source of truth the runtime
// derives the rest from: its values, as Change binds them (unset: nil
// pointers and empty collections left unset; without the protocol, its
// Row, as Insert binds it, a bucket column's value and the timestamp
// too), and where its row scans to.
func valuesFuncs(f *jen.File, t *model.Table) {
	e := t.Entity
	p := entityPrefix(e)
	unset := "_"
	if t.HasUnsettable() {
		unset = "unset"
	}
	b := binding{recv: jen.Id("e"), unset: jen.Id("unset")}
	var vals, ptrs []jen.Code
	for _, c := range t.Columns {
		switch {
		case c.Field != nil:
			vals = append(vals, columnValue(c, b))
			ptrs = append(ptrs, scanTarget(c, jen.Id("e")))
		case c.Bucket != nil && !e.Versioned():
			vals = append(vals, columnValue(c, b))
		}
	}
	if e.Versioned() {
		f.Func().Id(p+"Values").Params(jen.Id("e").Op("*").Id(e.GoName), jen.Id(unset).Bool()).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(vals...)))
	} else {
		// Without the protocol: the row as Insert binds it, the
		// timestamp last.
		f.Func().Id(t.Names.Row).Params(jen.Id("e").Op("*").Id(e.GoName), jen.Id("ts").Int64(), jen.Id(unset).Bool()).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(append(vals, jen.Id("ts"))...)))
	}
	f.Func().Id(p+"Fields").Params(jen.Id("e").Op("*").Id(e.GoName), jen.Id("dst").Index().Any()).Index().Any().Block(
		jen.Return(jen.Append(append([]jen.Code{jen.Id("dst")}, ptrs...)...)))
	if scanVar(t) {
		f.Var().Id(t.Names.Scan).Op("=").Qual(impl, "ScanLive").Call(jen.Id(e.Names.Writes))
	}
	if e.Versioned() {
		mergeFunc(f, t)
	}
}

// stmtRef names a statement of t in a comment, as schema.md lists it.
func stmtRef(t *model.Table, s *model.Statement) string {
	return "the " + string(s.Slot) + " statement of " + t.Name
}

// specLit is the cqlgenimpl.TableSpec literal of a table's description:
// only what is set.
func specLit(s *cqlspec.Table) jen.Code {
	cols := func(cs []cqlspec.Column) jen.Code {
		if len(cs) == 0 {
			return nil
		}
		var vs []jen.Code
		for _, c := range cs {
			vs = append(vs, jen.Lit(c.String()))
		}
		return jen.Qual(impl, "Cols").Call(vs...)
	}
	flag := func(b bool) jen.Code {
		if b {
			return jen.True()
		}
		return nil
	}
	var prefix, ttl, bucket, index jen.Code
	if s.Prefix > 0 {
		prefix = jen.Lit(s.Prefix)
	}
	if s.TTL > 0 && s.TTL < cqlspec.GraveTTLSeconds && s.Versioned {
		ttl = jen.Lit(s.TTL) // the grave's TTL is the only use
	}
	switch s.Bucket {
	case cqlspec.BucketOne:
		bucket = jen.Qual(impl, "BucketOne")
	case cqlspec.BucketHash:
		bucket = jen.Qual(impl, "BucketHash")
	case cqlspec.BucketTime:
		bucket = jen.Qual(impl, "BucketTime")
	}
	var times jen.Code
	if len(s.Times) > 0 {
		var lits []jen.Code
		for _, x := range s.Times {
			lits = append(lits, jen.Lit(x))
		}
		times = jen.Index().String().Values(lits...)
	}
	if ix := s.Index; ix != nil {
		var conds jen.Code
		if len(ix.Conds) > 0 {
			var cs []jen.Code
			for _, c := range ix.Conds {
				cs = append(cs, jen.Values(jen.Id("Column").Op(":").Lit(c.Column), jen.Id("Op").Op(":").Lit(c.Op)))
			}
			conds = jen.Index().Qual(impl, "IndexCond").Values(cs...)
		}
		var col jen.Code
		if ix.Column != "" {
			col = jen.Lit(ix.Column)
		}
		var score, filter jen.Code
		if ix.Score != "" {
			score = jen.Lit(ix.Score)
		}
		if ix.Filter != "" {
			filter = jen.Lit(ix.Filter)
		}
		index = jen.Op("&").Qual(impl, "IndexSpec").Add(keyed(
			jen.Id("Column"), col,
			jen.Id("Contains"), flag(ix.Contains),
			jen.Id("Keys"), flag(ix.Keys),
			jen.Id("Range"), flag(ix.Range),
			jen.Id("ANN"), flag(ix.ANN),
			jen.Id("Scatter"), flag(ix.Scatter),
			jen.Id("Conds"), conds,
			jen.Id("Score"), score,
			jen.Id("Filter"), filter,
			jen.Id("FilterContains"), flag(ix.FilterContains),
		))
	}
	return jen.Qual(impl, "TableSpec").Add(keyed(
		jen.Id("Name"), jen.Lit(s.Name),
		jen.Id("Pattern"), jen.Lit(s.Pattern),
		jen.Id("PartitionKey"), cols(s.PartitionKey),
		jen.Id("Clustering"), cols(s.Clustering),
		jen.Id("Columns"), cols(s.Columns),
		jen.Id("Canonical"), flag(s.Canonical),
		jen.Id("Versioned"), flag(s.Versioned),
		jen.Id("Single"), flag(s.Single),
		jen.Id("Maintained"), flag(s.Maintained),
		jen.Id("Scanned"), flag(s.Scanned),
		jen.Id("Fenced"), flag(s.Fenced),
		jen.Id("Unique"), flag(s.Unique),
		jen.Id("Transactional"), flag(s.Transactional),
		jen.Id("Prefix"), prefix,
		jen.Id("Bucket"), bucket,
		jen.Id("TTL"), ttl,
		jen.Id("Index"), index,
		jen.Id("Values"), cols(s.Values),
		jen.Id("Times"), times,
	))
}

// repository writes the repository type and its constructor.
func repository(f *jen.File, e *model.Entity) {
	n := e.Names
	var names []string
	for _, t := range e.Tables {
		names = append(names, t.Name)
	}
	if len(e.Tables) == 1 {
		doc(f, "%s reads and writes %s in table %s.", n.Repo, e.GoName, e.Canonical.Name)
	} else {
		doc(f, "%s reads and writes %s in tables %s.", n.Repo, e.GoName, strings.Join(names, ", "))
	}
	f.Type().Id(n.Repo).Struct(
		jen.Id("s").Qual(rt, "Session"),
		jen.Id("opts").Qual(rt, "Options"),
	)
	doc(f, "%s returns a repository of %s on s.", n.NewRepo, e.GoName)
	f.Func().Id(n.NewRepo).Params(jen.Id("s").Qual(rt, "Session"), jen.Id("opts").Op("...").Qual(rt, "Option")).Op("*").Id(n.Repo).Block(
		jen.Return(jen.Op("&").Id(n.Repo).Values(jen.Id("s").Op(":").Id("s"), jen.Id("opts").Op(":").Qual(impl, "NewOptions").Call(jen.Id("opts").Op("...")))),
	)
	if !derivedChecks(e) {
		checkKeys(f, e)
	}
}

// derivedChecks reports whether the runtime derives e's checks of empty
// keys (and vectors' dimensions) from its tables' descriptions
// (cqlgenimpl.NewEntity): where it derives its protocol's functions,
// the source of truth comes first, and no table is sparse.
func derivedChecks(e *model.Entity) bool {
	if !valuesMode(e.Canonical) || e.Tables[0] != e.Canonical {
		return false
	}
	canon := map[string]bool{}
	for _, c := range e.Canonical.Columns {
		canon[c.Name] = true
	}
	for _, t := range e.Tables {
		if t.Sparse() {
			return false
		}
		// The runtime finds each table's partition key values among the
		// source of truth's, by column name.
		for _, c := range t.PartitionKey() {
			if c.Field != nil && !canon[c.Name] {
				return false
			}
		}
	}
	return true
}

// checkKeys writes the check that no partition key value of any table is
// empty (a row with an empty partition key cannot be written or found),
// and, for an entity in several tables, the check of the source of
// truth's alone, which is all a Delete is given.
func checkKeys(f *jen.File, e *model.Entity) {
	check := func(name, what string, tables []*model.Table) {
		var stmts []jen.Code
		seen := map[*model.Field]bool{}
		keys := func(t *model.Table) []jen.Code {
			var out []jen.Code
			for _, c := range t.PartitionKey() {
				if c.Field == nil || seen[c.Field] {
					continue
				}
				if !t.Sparse() {
					seen[c.Field] = true
				} else if t.RequiresSet(c.Field) {
					continue
				}
				if cond := empty(field("e", c.Field), c.Field); cond != nil {
					out = append(out, jen.If(cond).Block(jen.Return(emptyKey(t, c.Field))))
				}
			}
			return out
		}
		// A sparse table's keys matter only for the entities it holds,
		// and only where no other table needs them anyway.
		for _, t := range tables {
			if !t.Sparse() {
				stmts = append(stmts, keys(t)...)
			}
		}
		for _, t := range tables {
			if !t.Sparse() {
				continue
			}
			if ks := keys(t); len(ks) > 0 {
				stmts = append(stmts, jen.If(jen.Id(t.Names.Holds).Call(jen.Id("e"))).Block(ks...))
			}
		}
		if name == e.Names.Check {
			stmts = append(stmts, vectorChecks(e)...)
		}
		stmts = append(stmts, jen.Return(jen.Nil()))
		f.Func().Id(name).Params(jen.Id("e").Op("*").Id(e.GoName)).Error().Block(stmts...)
	}
	what := "partition key values are empty"
	if len(vectorChecks(e)) > 0 {
		what = "partition key values are empty, or whose vectors are not of their dimension"
	}
	for _, t := range e.Tables {
		if t.Sparse() {
			what = "partition key values are empty, in the tables that hold it"
			break
		}
	}
	check(e.Names.Check, what, e.Tables)
	if len(e.Tables) > 1 {
		check(e.Names.CheckKey, "partition key value in "+e.Canonical.Name+", the source of truth, is empty", []*model.Table{e.Canonical})
	}
}

// vectorChecks refuse, with an *cqlgen.InputError (ErrVectorDimension), a vector
// field of e whose length is not its column's dimension.
func vectorChecks(e *model.Entity) []jen.Code {
	var out []jen.Code
	for _, f := range e.Fields {
		if f.Type == nil || !f.Type.IsVector() {
			continue
		}
		out = append(out, jen.If(jen.Err().Op(":=").Qual(impl, "CheckVector").Call(jen.Lit(e.Canonical.Name), jen.Lit(f.Column), field("e", f), jen.Lit(f.Type.Dim)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
	}
	return out
}

func emptyKey(t *model.Table, f *model.Field) jen.Code {
	return jen.Qual(impl, "EmptyKey").Call(jen.Lit(t.Name), jen.Lit(f.Column))
}

// empty is the condition that a key value is empty, or nil when every
// value of the type is a valid key (numbers, booleans).
func empty(v *jen.Statement, f *model.Field) jen.Code {
	switch model.KeyCheckOf(f) {
	case model.KeyIsZero:
		return v.Clone().Dot("IsZero").Call()
	case model.KeyZeroUUID:
		return jen.Qual(impl, "IsZeroUUID").Call(v)
	case model.KeyEmptyLen:
		return jen.Len(v).Op("==").Lit(0)
	case model.KeyEmptyString:
		return v.Clone().Op("==").Lit("")
	}
	return nil
}

// goType writes the Go type g.
func goType(g *model.GoType) jen.Code {
	switch g.Kind {
	case model.GoNamed:
		if g.Pkg == "" {
			return jen.Id(g.Name)
		}
		return jen.Qual(g.Pkg, g.Name)
	case model.GoBasic:
		return jen.Id(g.Name)
	case model.GoPointer:
		return jen.Op("*").Add(goType(g.Elem))
	case model.GoSlice:
		return jen.Index().Add(goType(g.Elem))
	case model.GoArray:
		return jen.Index(jen.Lit(int(g.Len))).Add(goType(g.Elem))
	case model.GoMap:
		return jen.Map(goType(g.Key)).Add(goType(g.Elem))
	case model.GoStruct:
		return jen.Struct()
	}
	return jen.Id(g.Text)
}

func field(recv string, f *model.Field) *jen.Statement { return jen.Id(recv).Dot(f.GoName) }

func ctxParam() jen.Code { return jen.Id("ctx").Qual("context", "Context") }

// recvFunc starts a method of the entity's repository.
func recvFunc(f *jen.File, e *model.Entity, name string) *jen.Statement {
	return f.Func().Params(jen.Id("r").Op("*").Id(e.Names.Repo)).Id(name)
}

// callMethod writes a method of the entity's repository that runs
// statements: its parameters follow the context, its results end with the
// error. It begins with cqlgenimpl.Observe, which gives a session's
// CallObserver one record of the whole call (and its tracer a span the
// statements' attempts run under), and ends it with the error returned,
// which is why the results are named.
func callMethod(f *jen.File, e *model.Entity, name string, params, results, body []jen.Code) {
	named := make([]jen.Code, len(results))
	for i, r := range results {
		id := "_"
		if i == len(results)-1 {
			id = "err"
		}
		named[i] = jen.Id(id).Add(r)
	}
	prologue := []jen.Code{
		jen.Defer().Qual(impl, "Observe").Call(jen.Op("&").Id("ctx"), jen.Id("r").Dot("s"), jen.Lit(e.GoName), jen.Lit(name)).Dot("End").Call(jen.Op("&").Err()),
	}
	recvFunc(f, e, name).Params(append([]jen.Code{ctxParam()}, params...)...).Params(named...).Block(append(prologue, body...)...)
}

// thinMethod writes a method of the entity's repository that is one call
// of the runtime, which records the call (cqlgenimpl.Observe) itself.
func thinMethod(f *jen.File, e *model.Entity, name string, params, results []jen.Code, call jen.Code) {
	recvFunc(f, e, name).Params(append([]jen.Code{ctxParam()}, params...)...).Params(results...).Block(jen.Return(call))
}

// r is the repository's field name.
func r(name string) *jen.Statement { return jen.Id("r").Dot(name) }

// keyed is a composite literal's body with its fields in the given order
// (name, value, name, value...), one a line; a jen.Dict sorts them.
func keyed(kv ...jen.Code) jen.Code {
	var items []jen.Code
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] != nil {
			items = append(items, jen.Add(kv[i]).Op(":").Add(kv[i+1]))
		}
	}
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}
