package emit

import (
	"go/types"
	"strings"

	"github.com/dave/jennifer/jen"

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
	switch {
	case e.Counting():
		counterWrites(f, e)
	case e.Versioned():
		writesVar(f, e)
		protocolWrites(f, e)
		versionedReads(f, e)
		maintenance(f, e)
	case e.Immutable:
		insert(f, e)
		immutableDelete(f, e)
		if e.Maintained() {
			writesVar(f, e)
			maintenance(f, e)
		}
	default:
		insert(f, e)
		updateSingle(f, e)
		deleteSingle(f, e)
	}
	get(f, e)
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
	}
	for _, ix := range e.Indexes {
		if ix.On != nil {
			indexDecls(f, ix)
		}
	}
}

// table writes a table's statements, each constant next to the function
// that binds it, and the runtime's view of the table.
func tableDecls(f *jen.File, t *model.Table) {
	e := t.Entity
	n := t.Names
	stmts := t.Statements()
	role := "serves " + t.Method
	if t == e.Canonical {
		role = "is the source of truth of " + e.GoName
	}
	if !t.Unique {
		rowType(f, t)
	}
	if t.Sparse() {
		holdsFunc(f, t)
	}
	doc(f, "%s: the statements of table %s, which %s.", n.Var, t.Name, role)
	f.Var().Id(n.Var).Op("=").Qual(impl, "NewTable").Call(tableSpec(t, stmts))
	for _, s := range stmts {
		statement(f, t, s)
		switch s.Slot {
		case model.SlotInsert:
			rowFunc(f, t, s)
			keyFunc(f, t)
		case model.SlotGet:
			if !t.Unique {
				scanFunc(f, t)
			}
		case model.SlotState, model.SlotChange, model.SlotRemove, model.SlotSettle:
			protocolFuncs(f, t, s)
		}
	}
	if t.HasRead() && !t.ReadsOne() {
		if t.Entity.Canonical != t {
			scanFunc(f, t)
		}
		clusteringFuncs(f, t)
	}
}

// statement writes one statement's constant, with what it binds.
func statement(f *jen.File, t *model.Table, s *model.Statement) {
	var binds []string
	for _, b := range s.Binds {
		binds = append(binds, b.Words())
	}
	who := "Its placeholders bind"
	if s.Slot == model.SlotGetMany {
		who = "cqlgenimpl.GetMany binds"
	} else if isPage(s.Slot) {
		who = "cqlgenimpl.ReadPage binds"
	}
	words := slotWords(s.Slot, t)
	if s.Depth > 0 {
		var fixed []string
		for _, c := range t.Clustering()[:s.Depth] {
			fixed = append(fixed, c.Name)
		}
		words += ", in the rows of one " + strings.Join(fixed, ", ")
	}
	if s.Scatter && t.Bucket.Kind.IsTime() {
		words += ", in several time buckets at once, the bucket named last"
	} else if s.Scatter {
		words += ", in every hash bucket at once, the bucket named last"
	}
	doc(f, "%s %s. %s %s.", s.Const, words, who, strings.Join(binds, ", "))
	f.Const().Id(s.Const).Op("=").Op("`" + s.CQL() + "`")
}

func isPage(s model.Slot) bool {
	switch s {
	case model.SlotInsert, model.SlotAdd, model.SlotDelete, model.SlotGet, model.SlotGetMany, model.SlotState, model.SlotPartition, model.SlotChange, model.SlotRemove, model.SlotSettle, model.SlotScan,
		model.SlotFenceLive, model.SlotFenceGrave, model.SlotTake, model.SlotRelease:
		return false
	}
	return true
}

func slotWords(s model.Slot, t *model.Table) string {
	switch s {
	case model.SlotInsert:
		if t.Unique {
			return "claims a key of " + t.Name + " for an entity, if no one holds it"
		}
		return "writes a whole row of " + t.Name
	case model.SlotInsertTTL:
		return "writes a whole row of " + t.Name + " with a TTL of the call's (cqlgen.WithTTL)"
	case model.SlotCreate:
		return "writes a whole row of " + t.Name + " if no row has its key, for InsertIfAbsent and cqlgen.IfAbsent; a conditional write takes no client timestamp"
	case model.SlotTake:
		return "moves a claim of " + t.Name + " to another owner, or renews it, if its owner and version are the ones read"
	case model.SlotRelease:
		return "gives up a claim of " + t.Name + " if it is its owner's and older than the change"
	case model.SlotFenceLive:
		return "moves on the version of a live row of " + t.Name + " whose claim of a unique key another writer takes over"
	case model.SlotFenceGrave:
		return "moves on the version of a grave of " + t.Name + ", or of no row, whose claim another writer takes over"
	case model.SlotAdd:
		return "adds an amount to every counter of a row of " + t.Name + "; it is never retried"
	case model.SlotDelete:
		return "deletes a row of " + t.Name + " by its primary key"
	case model.SlotGetMany:
		return "reads the rows of " + t.Name + " of several partition keys at once"
	case model.SlotGet:
		if t.Unique {
			return "reads a claim of " + t.Name + ": who holds the key, since which version"
		}
		return "reads a row of " + t.Name + " by its primary key"
	case model.SlotState:
		if !t.Entity.Versioned() {
			return "reads a row of " + t.Name + " again for repair, with its write timestamp"
		}
		return "reads a row of " + t.Name + " with the write protocol's columns"
	case model.SlotPartition:
		return "reads the first row of a partition of " + t.Name + " with the write protocol's columns, for the partition's statics and their version"
	case model.SlotChange:
		return "writes a row of " + t.Name + " if its version is the one read (null: if there is no row)"
	case model.SlotRemove:
		return "leaves a grave of a row of " + t.Name + " if its version is the one read"
	case model.SlotSettle:
		return "clears the pending record of a row of " + t.Name + " if its version is the one read"
	case model.SlotScan:
		return "reads a token range of " + t.Name + " for verify, repair and backfill"
	case model.SlotFirst:
		return "reads a partition of " + t.Name + " from its first row"
	case model.SlotFirstFrom:
		return "reads a partition of " + t.Name + " from the From bound"
	case model.SlotFirstTo:
		return "reads a partition of " + t.Name + " from its first row up to the To bound"
	case model.SlotFirstFromTo:
		return "reads a partition of " + t.Name + " between the bounds"
	case model.SlotAfter:
		return "continues a read of " + t.Name + " after a row, at one run of clustering columns of one direction"
	case model.SlotAfterTo:
		return "continues a read of " + t.Name + " after a row, up to the To bound"
	case model.SlotAtOrAfter:
		return "continues a read of " + t.Name + " at or after a row"
	}
	return "continues a read of " + t.Name + " at or after a row, up to the To bound"
}

// tableSpec is the cqlgenimpl.TableSpec literal of t.
func tableSpec(t *model.Table, stmts []*model.Statement) jen.Code {
	cols := func(cs []*model.Column) jen.Code {
		if len(cs) == 0 {
			return nil
		}
		var vs []jen.Code
		for _, c := range cs {
			v := []jen.Code{jen.Id("Name").Op(":").Lit(c.Name), jen.Id("Type").Op(":").Lit(c.Type.Spec())}
			if c.Desc {
				v = append(v, jen.Id("Desc").Op(":").True())
			}
			if c.Kind == model.Static && t.Entity.Versioned() {
				v = append(v, jen.Id("Static").Op(":").True())
			}
			vs = append(vs, jen.Values(v...))
		}
		return jen.Index().Qual(impl, "Column").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, vs...)
	}
	var top []*model.Statement
	prefix := make([][]*model.Statement, t.PrefixDepth())
	var scatter [][]*model.Statement
	if t.Scatters() {
		scatter = make([][]*model.Statement, t.PrefixDepth()+1)
	}
	for _, s := range stmts {
		if s.Scatter {
			scatter[s.Depth] = append(scatter[s.Depth], s)
		} else if s.Depth > 0 {
			prefix[s.Depth-1] = append(prefix[s.Depth-1], s)
		} else {
			top = append(top, s)
		}
	}
	cql := slotFields(top)
	if len(prefix) > 0 {
		var pages []jen.Code
		for _, ps := range prefix {
			pages = append(pages, keyed(slotFields(ps)...))
		}
		cql = append(cql, jen.Id("Prefix"), jen.Index().Qual(impl, "PageCQL").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, pages...))
	}
	if len(scatter) > 0 {
		var pages []jen.Code
		for _, ps := range scatter {
			pages = append(pages, keyed(slotFields(ps)...))
		}
		cql = append(cql, jen.Id("Scatter"), jen.Index().Qual(impl, "PageCQL").Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, pages...))
	}
	var unique jen.Code
	if t.Unique {
		unique = jen.True()
	}
	return jen.Qual(impl, "TableSpec").Add(keyed(
		jen.Id("Name"), jen.Lit(t.Name),
		jen.Id("Pattern"), jen.Lit(t.Method),
		jen.Id("PartitionKey"), cols(t.PartitionKey()),
		jen.Id("Clustering"), cols(t.Clustering()),
		jen.Id("Columns"), cols(dataColumns(t)),
		jen.Id("Row"), cols(rowColumns(t)),
		jen.Id("Unique"), unique,
		jen.Id("CQL"), jen.Qual(impl, "CQL").Add(keyed(cql...)),
	))
}

// slotFields are the fields of a cqlgenimpl.CQL (or PageCQL) literal
// that hold stmts' constants, in pairs of field and value: one per slot,
// and the After levels in one list.
func slotFields(stmts []*model.Statement) []jen.Code {
	var cql, after []jen.Code
	for _, s := range stmts {
		if s.Slot == model.SlotAfter {
			if len(after) == 0 {
				cql = append(cql, jen.Id("After"), nil) // placeholder, filled below
			}
			after = append(after, jen.Id(s.Const))
			continue
		}
		cql = append(cql, jen.Id(string(s.Slot)), jen.Id(s.Const))
	}
	for i := 0; i < len(cql); i += 2 {
		if cql[i+1] == nil {
			cql[i+1] = jen.Index().String().Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, after...)
		}
	}
	return cql
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
		doc(f, "%s reads and writes %s in its tables (%s), keeping every copy in step; %s is the source of truth.",
			n.Repo, e.GoName, strings.Join(names, ", "), e.Canonical.Name)
	}
	f.Type().Id(n.Repo).Struct(
		jen.Id("s").Qual(rt, "Session"),
		jen.Id("opts").Qual(rt, "Options"),
	)
	doc(f, "%s returns a repository of %s on s. The default strategy is a logged batch.", n.NewRepo, e.GoName)
	f.Func().Id(n.NewRepo).Params(jen.Id("s").Qual(rt, "Session"), jen.Id("opts").Op("...").Qual(rt, "Option")).Op("*").Id(n.Repo).Block(
		jen.Return(jen.Op("&").Id(n.Repo).Values(jen.Dict{
			jen.Id("s"):    jen.Id("s"),
			jen.Id("opts"): jen.Qual(impl, "NewOptions").Call(jen.Id("opts").Op("...")),
		})),
	)
	checkKeys(f, e)
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
				} else if requiresSet(t, c.Field) {
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
		doc(f, "%s rejects a %s whose %s.", name, e.GoName, what)
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

// vectorChecks refuse, with a *cqlgen.VectorDimensionError, a vector
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
	return jen.Op("&").Qual(rt, "EmptyKeyError").Values(jen.Dict{jen.Id("Table"): jen.Lit(t.Name), jen.Id("Column"): jen.Lit(f.Column)})
}

// empty is the condition that a key value is empty, or nil when every
// value of the type is a valid key (numbers, booleans).
func empty(v *jen.Statement, f *model.Field) jen.Code {
	switch {
	case isGo(f, "time", "Time"):
		return v.Clone().Dot("IsZero").Call()
	case f.Type.Name == "uuid" || f.Type.Name == "timeuuid":
		return jen.Qual(impl, "IsZeroUUID").Call(v)
	case f.Type.Name == "blob" || f.Type.IsCollection():
		return jen.Len(v).Op("==").Lit(0)
	}
	if b, ok := f.Go.Underlying().(*types.Basic); ok && b.Info()&types.IsString != 0 {
		return v.Clone().Op("==").Lit("")
	}
	return nil
}

// goType writes the Go type t.
func goType(t types.Type) jen.Code {
	switch t := t.(type) {
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() == nil {
			return jen.Id(obj.Name())
		}
		return jen.Qual(obj.Pkg().Path(), obj.Name())
	case *types.Alias:
		return goType(types.Unalias(t))
	case *types.Basic:
		return jen.Id(t.Name())
	case *types.Pointer:
		return jen.Op("*").Add(goType(t.Elem()))
	case *types.Slice:
		return jen.Index().Add(goType(t.Elem()))
	case *types.Array:
		return jen.Index(jen.Lit(int(t.Len()))).Add(goType(t.Elem()))
	case *types.Map:
		return jen.Map(goType(t.Key())).Add(goType(t.Elem()))
	case *types.Struct:
		return jen.Struct()
	}
	return jen.Id(types.TypeString(t, nil))
}

func field(recv string, f *model.Field) *jen.Statement { return jen.Id(recv).Dot(f.GoName) }

// isGo reports whether the field's Go type is the named type pkg.name.
func isGo(f *model.Field, pkg, name string) bool {
	n, ok := types.Unalias(f.Go).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

func isSlice(f *model.Field) bool {
	_, ok := f.Go.Underlying().(*types.Slice)
	return ok
}

func ctxParam() jen.Code { return jen.Id("ctx").Qual("context", "Context") }

// recvFunc starts a method of the entity's repository.
func recvFunc(f *jen.File, e *model.Entity, name string) *jen.Statement {
	return f.Func().Params(jen.Id("r").Op("*").Id(e.Names.Repo)).Id(name)
}

// callMethod writes a method of the entity's repository that runs
// statements: its parameters follow the context, its results end with the
// error. It begins with cqlgenimpl.StartCall, which gives a session's
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
		jen.List(jen.Id("ctx"), jen.Id("call")).Op(":=").Qual(impl, "StartCall").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Lit(e.GoName), jen.Lit(name)),
		jen.Defer().Func().Params().Block(jen.Id("call").Dot("End").Call(jen.Err())).Call(),
	}
	recvFunc(f, e, name).Params(append([]jen.Code{ctxParam()}, params...)...).Params(named...).Block(append(prologue, body...)...)
}

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

// dataColumns are the columns the write protocol compares on a versioned
// canonical table (those of the entity's fields); none elsewhere.
func dataColumns(t *model.Table) []*model.Column {
	if !t.Entity.Versioned() || t != t.Entity.Canonical {
		return nil
	}
	var cs []*model.Column
	for _, c := range t.Columns {
		if c.Field != nil {
			cs = append(cs, c)
		}
	}
	return cs
}

// rowColumns are the columns verify and repair compare in a table of a
// versioned entity other than its source of truth: every column its
// Insert writes.
func rowColumns(t *model.Table) []*model.Column {
	if t.Entity.Single() {
		return t.Columns
	}
	if !t.Entity.Maintained() || t == t.Entity.Canonical {
		return nil
	}
	var cs []*model.Column
	for _, c := range t.Columns {
		if c.Kind != model.Claim {
			cs = append(cs, c)
		}
	}
	return cs
}
