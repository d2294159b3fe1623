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

// insertIfAbsent is the call of cqlgenimpl.InsertIfAbsent (or
// InsertAbsent, as fn says) that creates e
// in the table of an entity stored in one table, if no row has its key.
func insertIfAbsent(e *model.Entity, fn string) *jen.Statement {
	t := e.Canonical
	key := values(stmt(t, model.SlotGet), binding{recv: jen.Id("e")})
	rowFn := jen.Func().Params(jen.Id("e").Op("*").Id(e.GoName), jen.Id("unset").Bool()).Index().Any().Block(
		jen.Return(rowCall(t, jen.Id("e"), jen.Lit(0), jen.Id("unset"))))
	if !rowTakesUnset(t) {
		rowFn = jen.Func().Params(jen.Id("e").Op("*").Id(e.GoName), jen.Id("_").Bool()).Index().Any().Block(
			jen.Return(rowCall(t, jen.Id("e"), jen.Lit(0), nil)))
	}
	return jen.Qual(impl, fn).Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o"), jen.Id(t.Names.Var), jen.Id("e"),
		jen.Index().Any().Values(key...), rowFn, jen.Id(t.Names.Scan))
}

// rowCall calls t's row function; unset is left out when it takes none.
func rowCall(t *model.Table, recv, ts, unset jen.Code) jen.Code {
	args := []jen.Code{recv, ts}
	if unset != nil {
		args = append(args, unset)
	}
	return jen.Id(t.Names.Row).Call(args...)
}

// insertIfAbsentMethod writes InsertIfAbsent of an entity stored in one
// table: INSERT ... IF NOT EXISTS, with the row found when there is one.
func insertIfAbsentMethod(f *jen.File, e *model.Entity) {
	t := e.Canonical
	res := jen.Qual(rt, "Inserted").Types(jen.Id(e.GoName))
	doc(f, "InsertIfAbsent writes e to %s only if no row has its key (INSERT ... IF NOT EXISTS): create, never replace. The result says whether it applied and, when a row was there, holds it as Current. A row that holds every value e would write counts as applied, with Again set: a call sent again after its reply was lost finds its own row, and is no conflict. With cqlgen.WithIdempotencyKey the outcome is recorded and returned to a call sent again. It honours cqlgen.WithTTL. A conditional write takes no client timestamp: the row is written at the server's time.", t.Name)
	callMethod(f, e, "InsertIfAbsent", []jen.Code{jen.Id("e").Op("*").Id(e.GoName), jen.Id("opts").Op("...").Qual(rt, "Option")}, []jen.Code{res, jen.Error()},
		append(prologue(e, "InsertIfAbsent", res.Clone().Values(), jen.Err()), jen.Return(insertIfAbsent(e, "InsertIfAbsent"))))
}

func insert(f *jen.File, e *model.Entity) {
	if e.Single() {
		t := e.Tables[0]
		writeMethod(f, e, "Insert", insertDoc(e),
			jen.If(jen.Id("o").Dot("Expect").Op("==").Qual(rt, "Absent")).Block(
				jen.Return(insertIfAbsent(e, "InsertAbsent"))),
			applyOne(jen.Qual(impl, "InsertQuery").Call(jen.Id(t.Names.Var), jen.Id("o").Dot("TTL"), row(t, jen.Id("e"), "ts", true))))
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
	what := "to every table of " + e.GoName + " in one logical write, under the repository's strategy (a logged batch unless told otherwise), all statements with one client-side timestamp"
	more := ""
	if len(e.Tables) == 1 {
		what = "to " + e.Tables[0].Name + ", at a client-side timestamp"
		more = " With cqlgen.WithTTL the row expires after that time instead of the table's default. With cqlgen.IfAbsent it creates only, as InsertIfAbsent does, and a row with the key that differs is a *cqlgen.VersionConflictError."
	}
	return "Insert writes e " + what + ". Nil pointers and empty collections are left unset, so no tombstones are written. With cqlgen.WithIdempotencyKey, a resent Insert applies at most once. To change an entity that exists, use Update." + more
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
	t := e.Canonical
	writeMethod(f, e, "Update",
		"Update writes e over the row with its key in "+t.Name+". Unlike Insert, nil pointers and empty collections clear their columns. With cqlgen.WithTTL the row expires after that time instead of the table's default.",
		applyOne(jen.Qual(impl, "InsertQuery").Call(jen.Id(t.Names.Var), jen.Id("o").Dot("TTL"), row(t, jen.Id("e"), "ts", false))))
}

func deleteSingle(f *jen.File, e *model.Entity) {
	t := e.Canonical
	single(f, e, "Delete",
		"Delete removes the row with e's key from "+t.Name+".",
		element(t, model.SlotDelete, jen.Index().Any().Values(values(stmt(t, model.SlotDelete), binding{recv: jen.Id("e"), ts: jen.Id("ts")})...)))
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
		"Add adds e's counter fields ("+strings.Join(names, ", ")+"), amounts that may be negative, to the counters of the row with e's key in "+t.Name+", creating it at zero first if there is none, in one update. A counter update is not idempotent, so it is sent once and never retried: an error is a *cqlgen.CounterError, and when errors.Is(err, cqlgen.ErrOutcomeUnknown) the update may or may not have applied. cqlgen.WithIdempotencyKey is refused (*cqlgen.OptionError), and the strategy does not apply.",
		jen.Return(jen.Qual(impl, "AddCounters").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o"),
			query(t, model.SlotAdd, jen.Index().Any().Values(values(add, binding{recv: jen.Id("e")})...)))))
	single(f, e, "Delete",
		"Delete removes the row with e's key from "+t.Name+". Cassandra does not reliably support counting again in a deleted counter row (an Add soon after the Delete may be lost): delete only counters that will not be used again.",
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
		if versioned {
			key = jen.Id(p.Names.Key)
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
			jen.Id("Row"), jen.Id(p.Names.Row),
			jen.Id("Writetimes"), writetime,
			jen.Id("Owner"), owner,
		))
	}
	var merge, data, change, remove, settle, immutable jen.Code
	if versioned {
		if anyUnsettable(t) {
			merge = jen.Id(e.Names.Merge)
		}
		data, change, remove, settle = jen.Id(n.Data), jen.Id(n.Change), jen.Id(n.Remove), jen.Id(n.Settle)
		doc(f, "%s is the write protocol of %s: its source of truth, %s, and the tables the protocol keeps in step with it.", e.Names.Writes, e.GoName, t.Name)
	} else {
		immutable = jen.True()
		doc(f, "%s describes %s, which is immutable, for verify, repair and backfill: its source of truth, %s, and the tables derived from it.", e.Names.Writes, e.GoName, t.Name)
	}
	f.Var().Id(e.Names.Writes).Op("=").Op("&").Qual(impl, "Entity").Types(jen.Id(e.GoName)).Add(keyed(
		jen.Id("Canonical"), jen.Id(n.Var),
		jen.Id("Immutable"), immutable,
		jen.Id("State"), jen.Id(n.State),
		jen.Id("ScanState"), jen.Id(n.ScanState),
		jen.Id("Data"), data,
		jen.Id("Merge"), merge,
		jen.Id("Change"), change,
		jen.Id("Remove"), remove,
		jen.Id("Settle"), settle,
		jen.Id("Projections"), jen.Index().Qual(impl, "Projection").Types(jen.Id(e.GoName)).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, projections...),
	))
}

// protocolWrites writes Insert, Update and Delete of a versioned entity:
// each one call of cqlgenimpl.Write.
func protocolWrites(f *jen.File, e *model.Entity) {
	t := e.Canonical
	call := func(op string) jen.Code {
		return jen.Return(jen.Qual(impl, "Write").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o"), jen.Id(e.Names.Writes), jen.Qual(impl, op), jen.Id("e")))
	}
	promise := "If it returns an error, it may have applied in part: run it again, from any client, and every table converges on the result; the next write of the entity finishes it too."
	writeMethod(f, e, "Insert",
		"Insert writes e to every table of "+e.GoName+", creating it, or replacing it where it exists; nil pointers and empty collections are left unset, so they keep what the entity had and write no tombstones. It takes its turn with other writers of the entity through a conditional write on "+t.Name+", the source of truth. "+promise,
		call("OpInsert"))
	writeMethod(f, e, "Update",
		"Update replaces the "+e.GoName+" whose key in "+t.Name+" is e's, in every table: rows whose key changed (a new sort key, say) move, and nil pointers and empty collections clear their columns. It takes its turn with other writers through a conditional write on "+t.Name+"'s version; a writer that loses retries up to Options.Attempts times, then gets a *cqlgen.NotAppliedError. cqlgen.ErrNotFound if there is no such entity. "+promise,
		call("OpUpdate"))
	writeMethod(f, e, "Delete",
		"Delete removes the "+e.GoName+" whose key in "+t.Name+" is e's from every table; the rows of the other tables are found from "+t.Name+"'s values, so e needs only its key. Deleting what does not exist is not an error. "+promise,
		call("OpDelete"))
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
	doc(f, "%s reads the %s that holds the given key of %s, a unique key: the claim in %s names it, and %s, the source of truth, must still give it that key; cqlgen.ErrNotFound if no %s holds it.", t.Method, e.GoName, t.Name, t.Name, e.Canonical.Name, e.GoName)
	callMethod(f, e, t.Method, params, []jen.Code{jen.Op("*").Id(e.GoName), jen.Error()},
		append(checks, jen.Return(jen.Qual(impl, "Resolve").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(e.Names.Writes), jen.Lit(index), jen.Index().Any().Values(vals...)))))
}

// versionedReads writes GetVersioned and Modify of a versioned entity:
// the compare-and-set of a whole entity, by the caller or in a loop.
func versionedReads(f *jen.File, e *model.Entity) {
	t := e.Canonical
	key := append(t.PartitionKey(), t.Clustering()...)
	entity := func(fail jen.Code) (params, body []jen.Code) {
		params, body = keyParams(t, key, fail)
		body = append(body, jen.Id("e").Op(":=").Op("&").Id(e.GoName).Values())
		for _, c := range key {
			if c.Field != nil {
				body = append(body, jen.Id("e").Dot(c.Field.GoName).Op("=").Id(param(c.Field)))
			}
		}
		return params, body
	}
	params, body := entity(jen.List(jen.Nil(), jen.Lit(0)))
	doc(f, "GetVersioned reads the %s with the given key from %s, with its version: pass that to Update or Delete as cqlgen.IfVersion(version), and they apply only if no one changed the %s since (a compare-and-set). cqlgen.ErrNotFound if there is none.", e.GoName, t.Name, e.GoName)
	callMethod(f, e, "GetVersioned", params, []jen.Code{jen.Op("*").Id(e.GoName), jen.Int64(), jen.Error()},
		append(body, jen.Return(jen.Qual(impl, "Versioned").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(e.Names.Writes), jen.Id("e")))))

	params, body = entity(jen.Nil())
	params = append(params, jen.Id("change").Func().Params(jen.Op("*").Id(e.GoName)).Error(), jen.Id("opts").Op("...").Qual(rt, "Option"))
	body = append(body,
		jen.List(jen.Id("o"), jen.Err()).Op(":=").Qual(impl, "BeginVersioned").Call(jen.Id("e"), jen.Id(e.Names.CheckKey), jen.Id("r").Dot("opts"), jen.Id("opts")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Qual(impl, "Modify").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o"), jen.Id(e.Names.Writes), jen.Id("e"), jen.Id(e.Names.Check), jen.Id("change"))),
	)
	doc(f, "Modify reads the %s with the given key, lets change edit it (set a field, add to a collection), and writes the result to every table that stores what changed, if no one changed the %s since it was read; when someone did, it reads it again and calls change again, up to Options.Attempts times, then returns a *cqlgen.VersionConflictError. Nothing is written when change returns an error, which Modify returns; change must not edit the key in %s (cqlgen.ErrKeyChanged). It returns the %s written; cqlgen.ErrNotFound if there is none. It costs one read more than Update, which overwrites whatever a concurrent writer did. Run again after its reply was lost, it applies change again, unless given cqlgen.WithIdempotencyKey, which makes the whole of it apply at most once.", e.GoName, e.GoName, t.Name, e.GoName)
	callMethod(f, e, "Modify", params, []jen.Code{jen.Op("*").Id(e.GoName), jen.Error()}, body)
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
		"Delete removes the "+e.GoName+" whose key in "+t.Name+" is e's from every table, found from "+t.Name+"'s values, in one logical write under the repository's strategy. Deleting what does not exist is not an error.",
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
	n := e.Names
	mo := jen.Id("o").Op("*").Qual(rt, "MaintainOptions")
	report := []jen.Code{jen.Op("*").Qual(rt, "Report"), jen.Error()}
	var tables []jen.Code
	for _, t := range e.Tables {
		if t != e.Canonical {
			tables = append(tables, jen.Lit(t.Name))
		}
	}
	doc(f, "Entity names the entity %s keeps: %s.", n.Repo, e.GoName)
	recvFunc(f, e, "Entity").Params().String().Block(jen.Return(jen.Lit(e.GoName)))
	doc(f, "Tables lists the tables of %s that Repair and Backfill write: every one but %s, the source of truth.", e.GoName, e.Canonical.Name)
	recvFunc(f, e, "Tables").Params().Index().String().Block(jen.Return(jen.Index().String().Values(tables...)))
	doc(f, "Verify compares every table of %s with what %s, the source of truth, implies, and reports the rows missing, stale or orphaned. It writes nothing.", e.GoName, e.Canonical.Name)
	callMethod(f, e, "Verify", []jen.Code{mo}, report, []jen.Code{
		jen.Return(jen.Qual(impl, "Maintain").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(n.Writes), jen.Lit(e.GoName), jen.False(), jen.Id("o")))})
	doc(f, "Repair verifies, then writes the rows missing or stale and deletes the orphans, each at a timestamp that any later write of %s wins over; it is safe while the application writes.", e.GoName)
	callMethod(f, e, "Repair", []jen.Code{mo}, report, []jen.Code{
		jen.Return(jen.Qual(impl, "Maintain").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(n.Writes), jen.Lit(e.GoName), jen.True(), jen.Id("o")))})
	doc(f, "Backfill writes every row %s implies into table, a new one say, token range by token range; with o.Job it records the ranges done and, run again, resumes.", e.Canonical.Name)
	callMethod(f, e, "Backfill", []jen.Code{jen.Id("table").String(), mo}, report, []jen.Code{
		jen.Return(jen.Qual(impl, "Backfill").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id(n.Writes), jen.Lit(e.GoName), jen.Id("table"), jen.Id("o")))})
}
