package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/model"
)

// stmt finds one of t's statements.
func stmt(t *model.Table, slot model.Slot) *model.Statement {
	for _, s := range t.Statements() {
		if s.Slot == slot {
			return s
		}
	}
	return nil
}

// query is a cqldriver.Query literal running t's statement in slot.
func query(t *model.Table, slot model.Slot, values jen.Code) *jen.Statement {
	return jen.Qual(impl, "Query").Values(jen.Dict{jen.Id("Stmt"): jen.Id(t.Names.Var).Dot(string(slot)), jen.Id("Values"): values})
}

// element is the same inside a []cqldriver.Query literal.
func element(t *model.Table, slot model.Slot, values jen.Code) jen.Code {
	return jen.Values(jen.Dict{jen.Id("Stmt"): jen.Id(t.Names.Var).Dot(string(slot)), jen.Id("Values"): values})
}

// writeMethod writes a write method of the repository: Insert, Update or
// Delete, whose body follows the shared prologue (a nil entity and empty
// keys refused, the call's options applied, as o). A Delete of an entity
// in several tables needs only the source of truth's key.
func writeMethod(f *jen.File, e *model.Entity, name, docText string, body ...jen.Code) {
	doc(f, "%s", docText)
	callMethod(f, e, name, []jen.Code{jen.Id("e").Op("*").Id(e.GoName), jen.Id("opts").Op("...").Qual(rt, "Option")}, []jen.Code{jen.Error()},
		append(prologue(e, name, jen.Err()), body...))
}

// prologue begins a write method: a nil entity and empty keys refused,
// the call's options applied, as o, and refused where the method does
// not honour them; on an error it returns fail, then the error.
func prologue(e *model.Entity, name string, fail ...jen.Code) []jen.Code {
	check := e.Names.Check
	if name == "Delete" && len(e.Tables) > 1 && (e.Versioned() || e.Immutable) {
		check = e.Names.CheckKey
	}
	args := []jen.Code{jen.Id("e"), jen.Id(check), jen.Id("r").Dot("opts"), jen.Id("opts")}
	begin := "Begin"
	switch {
	case e.Versioned():
		begin = "BeginVersioned"
	case e.Single() && name == "Update":
		begin, args = "BeginWrite", append(args, jen.Qual(impl, "AllowTTL"))
	case e.Single() && (name == "Insert" || name == "InsertIfAbsent"):
		begin, args = "BeginWrite", append(args, jen.Qual(impl, "AllowTTL").Op("|").Qual(impl, "AllowAbsent"))
	}
	ret := append(fail[:len(fail)-1:len(fail)-1], jen.Err())
	return []jen.Code{
		jen.List(jen.Id("o"), jen.Err()).Op(":=").Qual(impl, begin).Call(args...),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(ret...)),
	}
}

// oneVar declares the cqlgenimpl.One of an entity stored in one table:
// what its writes bind and scan.
func oneVar(f *jen.File, e *model.Entity) {
	t := e.Canonical
	ptr := jen.Op("*").Id(e.GoName)
	key := values(stmt(t, model.SlotGet), binding{recv: jen.Id("e")})
	del := values(stmt(t, model.SlotDelete), binding{recv: jen.Id("e"), ts: jen.Id("ts")})
	f.Var().Id(e.Names.One).Op("=").Op("&").Qual(impl, "One").Types(jen.Id(e.GoName)).Add(keyed(
		jen.Id("Name"), jen.Lit(e.GoName),
		jen.Id("Table"), jen.Id(t.Names.Var),
		jen.Id("Check"), jen.Id(e.Names.Check),
		jen.Id("Key"), jen.Func().Params(jen.Id("e").Add(ptr.Clone())).Index().Any().Block(jen.Return(jen.Index().Any().Values(key...))),
		jen.Id("Row"), jen.Id(t.Names.Row),
		jen.Id("Remove"), jen.Func().Params(jen.Id("e").Add(ptr.Clone()), jen.Id("ts").Int64()).Index().Any().Block(
			jen.Return(jen.Index().Any().Values(del...))),
		jen.Id("Scan"), jen.Id(t.Names.Scan),
	))
}

// entityWrite is a write method that is one call of a method of the
// entity's description (v): ctx, the session, the options, e.
func entityWrite(f *jen.File, e *model.Entity, v, name, docText string, results ...jen.Code) {
	if len(results) == 0 {
		results = []jen.Code{jen.Error()}
	}
	doc(f, "%s", docText)
	call := jen.Id(v).Dot(name).Call(jen.Id("ctx"), r("s"), r("opts"), jen.Id("opts"), jen.Id("e"))
	if v == e.Names.Writes {
		call = entityCall(e, name, r("s"), r("opts"), jen.Id("opts"), jen.Id("e"))
	}
	thinMethod(f, e, name, []jen.Code{jen.Id("e").Op("*").Id(e.GoName), jen.Id("opts").Op("...").Qual(rt, "Option")}, results, call)
}

// entityCall calls the runtime's function of an entity's method name,
// with ctx, the entity's description, then args.
func entityCall(e *model.Entity, name string, args ...jen.Code) *jen.Statement {
	return jen.Qual(impl, name).Call(append([]jen.Code{jen.Id("ctx"), jen.Id(e.Names.Writes)}, args...)...)
}

// insertIfAbsentMethod writes InsertIfAbsent of an entity stored in one
// table: INSERT ... IF NOT EXISTS, with the row found when there is one.
func insertIfAbsentMethod(f *jen.File, e *model.Entity) {
	entityWrite(f, e, e.Names.One, "InsertIfAbsent", "InsertIfAbsent writes e unless a row has its key (IF NOT EXISTS).",
		jen.Qual(rt, "Inserted").Types(jen.Id(e.GoName)), jen.Error())
}

// oneMethod writes a write method of an entity stored in one table.
func oneMethod(f *jen.File, e *model.Entity, name, docText string) {
	entityWrite(f, e, e.Names.One, name, docText)
}

func insert(f *jen.File, e *model.Entity) {
	if e.Single() {
		oneVar(f, e)
		oneMethod(f, e, "Insert", insertDoc(e))
		insertIfAbsentMethod(f, e)
		return
	}
	qs := queries(e, "e", func(t *model.Table) jen.Code { return element(t, model.SlotInsert, row(t, jen.Id("e"), "ts", true)) })
	writeMethod(f, e, "Insert", insertDoc(e),
		jen.Return(jen.Qual(impl, "Apply").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o").Dot("Strategy"), jen.Id("o").Dot("Idempotency"), jen.Qual(impl, "Now").Call(jen.Id("o")),
			jen.Func().Params(jen.Id("ts").Int64()).Index().Qual(impl, "Query").Block(qs...))),
	)
}

// queries is the body of a function that returns one statement per table
// of e, each made by stmt; a sparse table's only where it holds the
// entity named recv.
func queries(e *model.Entity, recv string, stmt func(*model.Table) jen.Code) []jen.Code {
	var all, sparse []*model.Table
	for _, t := range e.Tables {
		if t.Sparse() {
			sparse = append(sparse, t)
		} else {
			all = append(all, t)
		}
	}
	var qs []jen.Code
	for _, t := range all {
		qs = append(qs, stmt(t))
	}
	lit := jen.Index().Qual(impl, "Query").Values(qs...)
	if len(sparse) == 0 {
		return []jen.Code{jen.Return(lit)}
	}
	body := []jen.Code{jen.Id("qs").Op(":=").Add(lit)}
	for _, t := range sparse {
		body = append(body, jen.If(jen.Id(t.Names.Holds).Call(jen.Id(recv))).Block(
			jen.Id("qs").Op("=").Append(jen.Id("qs"), jen.Qual(impl, "Query").Add(stmt(t)))))
	}
	return append(body, jen.Return(jen.Id("qs")))
}

func insertDoc(e *model.Entity) string {
	if len(e.Tables) == 1 {
		return "Insert writes e; nil pointers and empty collections stay unset."
	}
	return "Insert writes e to every table of " + e.GoName + " in one logical write, leaving nil pointers and empty collections unset (docs/repositories.md, Writes)."
}

// single writes a one-statement write of an entity stored in one table
// (or with counters): through cqlgenimpl.ApplyOne, so the strategy and the
// idempotency key are honoured as Insert honours them.
func single(f *jen.File, e *model.Entity, name, docText string, stmt jen.Code) {
	writeMethod(f, e, name, docText, applyOne(jen.Qual(impl, "Query").Add(stmt)))
}

// applyOne returns the one-statement write q, built for the timestamp
// ts, through cqlgenimpl.ApplyOne.
func applyOne(q jen.Code) jen.Code {
	return jen.Return(jen.Qual(impl, "ApplyOne").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o").Dot("Strategy"), jen.Id("o").Dot("Idempotency"), jen.Qual(impl, "Now").Call(jen.Id("o")),
		jen.Func().Params(jen.Id("ts").Int64()).Qual(impl, "Query").Block(jen.Return(q))))
}

func updateSingle(f *jen.File, e *model.Entity) {
	oneMethod(f, e, "Update", "Update writes e over its row; nil pointers and empty collections clear.")
}

func deleteSingle(f *jen.File, e *model.Entity) {
	oneMethod(f, e, "Delete", "Delete removes the row with e's key.")
}

// counterWrites writes the writes of an entity stored in a counter table:
// Add, which adds the entity's counter fields to its row in one update
// that is never retried, and Delete. There is no Insert or Update:
// Cassandra refuses an INSERT on a counter table.
func counterWrites(f *jen.File, e *model.Entity) {
	t := e.Canonical
	var names []string
	for _, c := range t.CounterColumns() {
		names = append(names, c.Field.GoName)
	}
	add := stmt(t, model.SlotAdd)
	writeMethod(f, e, "Add",
		"Add adds e's counter fields ("+strings.Join(names, ", ")+") to the row with e's key in "+t.Name+", sent once, never retried (docs/repositories.md, Counter tables).",
		jen.Return(jen.Qual(impl, "AddCounters").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o"),
			query(t, model.SlotAdd, jen.Index().Any().Values(values(add, binding{recv: jen.Id("e")})...)))))
	single(f, e, "Delete",
		"Delete removes the row with e's key from "+t.Name+"; a deleted counter row must not be counted again (docs/repositories.md, Counter tables).",
		element(t, model.SlotDelete, jen.Index().Any().Values(values(stmt(t, model.SlotDelete), binding{recv: jen.Id("e")})...)))
}

// writesVar writes the description of a versioned entity that the write
// protocol (cqlgenimpl.Write) runs on.
func writesVar(f *jen.File, e *model.Entity) {
	t := e.Canonical
	n := t.Names
	versioned := e.Versioned()
	var projections []jen.Code
	for _, p := range e.Tables {
		if p == t {
			continue
		}
		var writetime, owner, key jen.Code
		if n := len(p.WritetimeColumns()); n > 0 {
			writetime = jen.Lit(n)
		}
		if idx := ownerColumns(p); idx != nil {
			owner = jen.Index().Int().Values(idx...)
		}
		var row jen.Code = jen.Id(p.Names.Row)
		if versioned && !derivedRow(p) {
			key = jen.Id(p.Names.Key)
		}
		var bucketOf, hashN, timeB jen.Code
		if derivedRow(p) {
			row = nil
			if b := p.Bucket; b != nil {
				bucketOf = jen.Lit(b.Source.Field.Column)
				if b.Kind == model.HashBucket {
					hashN = jen.Lit(int(b.N))
				} else {
					timeB = jen.Qual(impl, "Every").Call(timeBuckets(b))
				}
			}
		}
		var holds jen.Code
		if p.Sparse() {
			holds = jen.Id(p.Names.Holds)
		}
		var unique jen.Code
		if p.Unique {
			unique = jen.True()
		}
		projections = append(projections, keyed(
			jen.Id("Table"), jen.Id(p.Names.Var),
			jen.Id("Holds"), holds,
			jen.Id("Unique"), unique,
			jen.Id("Key"), key,
			jen.Id("Row"), row,
			jen.Id("BucketOf"), bucketOf,
			jen.Id("HashBuckets"), hashN,
			jen.Id("TimeBuckets"), timeB,
			jen.Id("Writetimes"), writetime,
			jen.Id("Owner"), owner,
		))
	}
	var merge, data, change, remove, settle, immutable jen.Code
	if versioned {
		if t.HasUnsettable() {
			merge = jen.Id(e.Names.Merge)
		}
		data, change, remove, settle = jen.Id(n.Data), jen.Id(n.Change), jen.Id(n.Remove), jen.Id(n.Settle)
	} else {
		immutable = jen.True()
	}
	var state, scanState jen.Code = jen.Id(n.State), jen.Id(n.ScanState)
	var vals, fields jen.Code
	var check, checkKey jen.Code = jen.Id(e.Names.Check), jen.Id(e.Names.CheckKey)
	if derivedChecks(e) {
		check, checkKey = nil, nil
	}
	if derived(t) {
		p := entityPrefix(e)
		vals, fields = jen.Id(p+"Values"), jen.Id(p+"Fields")
		state, scanState, data, change, remove, settle = nil, nil, nil, nil, nil, nil
	}
	f.Var().Id(e.Names.Writes).Op("=").Qual(impl, "NewEntity").Call(jen.Op("&").Qual(impl, "Entity").Types(jen.Id(e.GoName)).Add(keyed(
		jen.Id("Name"), jen.Lit(e.GoName),
		jen.Id("Check"), check,
		jen.Id("CheckKey"), checkKey,
		jen.Id("Canonical"), jen.Id(n.Var),
		jen.Id("Immutable"), immutable,
		jen.Id("Values"), vals,
		jen.Id("Fields"), fields,
		jen.Id("State"), state,
		jen.Id("ScanState"), scanState,
		jen.Id("Data"), data,
		jen.Id("Merge"), merge,
		jen.Id("Change"), change,
		jen.Id("Remove"), remove,
		jen.Id("Settle"), settle,
		jen.Id("Projections"), jen.Index().Qual(impl, "Projection").Types(jen.Id(e.GoName)).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, projections...),
	)))
}

// protocolWrites writes Insert, Update and Delete of a versioned entity:
// each one call of its description.
func protocolWrites(f *jen.File, e *model.Entity) {
	w := e.Names.Writes
	entityWrite(f, e, w, "Insert", "Insert writes e to every table; nil pointers and empty collections stay unset.")
	entityWrite(f, e, w, "Update", "Update replaces e in every table; nil pointers and empty collections clear.")
	entityWrite(f, e, w, "Delete", "Delete removes e, given its key alone, from every table.")
}

// uniqueRead writes the read method of a unique table: the entity that
// holds a key, through its claim and its canonical row.
func uniqueRead(f *jen.File, t *model.Table) {
	e := t.Entity
	key := append(t.PartitionKey(), t.Clustering()...)
	params, checks := keyParams(t, key, jen.Nil())
	var vals []jen.Code
	for _, c := range key {
		vals = append(vals, jen.Id(param(c.Field)))
	}
	index := 0
	for _, o := range e.Tables {
		if o == t {
			break
		}
		if o != e.Canonical {
			index++
		}
	}
	doc(f, "%s reads the %s that holds the given unique key of %s; cqlgen.ErrNotFound if none does (docs/repositories.md, Unique tables).", t.Method, e.GoName, t.Name)
	callMethod(f, e, t.Method, params, []jen.Code{jen.Op("*").Id(e.GoName), jen.Error()},
		append(checks, jen.Return(jen.Qual(impl, "Resolve").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(e.Names.Writes), jen.Lit(index), jen.Index().Any().Values(vals...)))))
}

// versionedReads writes GetVersioned and Modify of a versioned entity:
// the compare-and-set of a whole entity, by the caller or in a loop.
func versionedReads(f *jen.File, e *model.Entity) {
	t := e.Canonical
	key := append(t.PartitionKey(), t.Clustering()...)
	params, _ := keyParams(t, key, nil)
	lit := keyLiteral(e, key)
	doc(f, "GetVersioned reads the %s with the given key and its version.", e.GoName)
	thinMethod(f, e, "GetVersioned", params, []jen.Code{jen.Op("*").Id(e.GoName), jen.Int64(), jen.Error()},
		entityCall(e, "GetVersioned", r("s"), lit))
	params = append(params, jen.Id("change").Func().Params(jen.Op("*").Id(e.GoName)).Error(), jen.Id("opts").Op("...").Qual(rt, "Option"))
	doc(f, "Modify edits the %s with the given key by change, retrying on conflict.", e.GoName)
	thinMethod(f, e, "Modify", params, []jen.Code{jen.Op("*").Id(e.GoName), jen.Error()},
		entityCall(e, "Modify", r("s"), r("opts"), jen.Id("opts"), lit, jen.Id("change")))
}

// keyLiteral is &T{...} of an entity with the given key columns, from
// the parameters of the same names.
func keyLiteral(e *model.Entity, key []*model.Column) jen.Code {
	var kv []jen.Code
	for _, c := range key {
		if c.Field != nil {
			kv = append(kv, jen.Id(c.Field.GoName).Op(":").Id(param(c.Field)))
		}
	}
	return jen.Op("&").Id(e.GoName).Values(kv...)
}

// immutableDelete writes Delete of an immutable entity: the canonical row
// gives the other tables' keys, and every table's row is deleted in one
// logical write.
func immutableDelete(f *jen.File, e *model.Entity) {
	t := e.Canonical
	get := stmt(t, model.SlotGet)
	dels := queries(e, "cur", func(o *model.Table) jen.Code {
		return element(o, model.SlotDelete, jen.Index().Any().Values(values(stmt(o, model.SlotDelete), binding{recv: jen.Id("cur"), ts: jen.Id("ts")})...))
	})
	writeMethod(f, e, "Delete",
		"Delete removes the "+e.GoName+" with e's key from every table, found from "+t.Name+"'s values, in one logical write.",
		jen.Return(jen.Qual(impl, "DeleteAll").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o"),
			query(t, model.SlotGet, jen.Index().Any().Values(values(get, binding{recv: jen.Id("e")})...)),
			jen.Id(t.Names.Scan),
			jen.Func().Params(jen.Id("cur").Op("*").Id(e.GoName), jen.Id("ts").Int64()).Index().Qual(impl, "Query").Block(dels...),
		)))
}

// ownerColumns are the indexes, among p's columns, of the canonical
// primary key's columns, in its order; nil when p lacks one.
func ownerColumns(p *model.Table) []jen.Code {
	canon := p.Entity.Canonical
	var idx []jen.Code
	for _, kc := range append(canon.PartitionKey(), canon.Clustering()...) {
		found := -1
		for i, c := range p.Columns {
			if kc.Field != nil && c.Field == kc.Field || kc.Field == nil && c.Bucket != nil && kc.Bucket != nil && c.Bucket.Expr() == kc.Bucket.Expr() {
				found = i
			}
		}
		if found < 0 {
			return nil
		}
		idx = append(idx, jen.Lit(found))
	}
	return idx
}

// maintenance writes the methods that make a repository a
// cqlmaintain.Maintainer: verify, repair and backfill of its tables.
func maintenance(f *jen.File, e *model.Entity) {
	w := jen.Id(e.Names.Writes)
	mo := jen.Id("o").Op("*").Qual(maintainPath, "Options")
	report := []jen.Code{jen.Op("*").Qual(maintainPath, "Report"), jen.Error()}
	doc(f, "Entity is %s.", e.GoName)
	recvFunc(f, e, "Entity").Params().String().Block(jen.Return(jen.Lit(e.GoName)))
	doc(f, "Tables lists the tables Repair and Backfill write.")
	recvFunc(f, e, "Tables").Params().Index().String().Block(jen.Return(jen.Qual(impl, "Tables").Call(w.Clone())))
	doc(f, "Verify reports rows missing, stale or orphaned against %s.", e.Canonical.Name)
	thinMethod(f, e, "Verify", []jen.Code{mo}, report, entityCall(e, "Verify", r("s"), jen.Id("o")))
	doc(f, "Repair mends what Verify finds.")
	thinMethod(f, e, "Repair", []jen.Code{mo}, report, entityCall(e, "Repair", r("s"), jen.Id("o")))
	doc(f, "Backfill writes every row %s implies into table.", e.Canonical.Name)
	thinMethod(f, e, "Backfill", []jen.Code{jen.Id("table").String(), mo}, report, entityCall(e, "Backfill", r("s"), jen.Id("table"), jen.Id("o")))
}
