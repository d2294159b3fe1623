package emit

import (
	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/gen/model"
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

// query is a cqlgen.Query literal running t's statement in slot.
func query(t *model.Table, slot model.Slot, values jen.Code) *jen.Statement {
	return jen.Qual(rt, "Query").Values(jen.Dict{jen.Id("Stmt"): jen.Id(t.Names.Var).Dot(string(slot)), jen.Id("Values"): values})
}

// element is the same inside a []cqlgen.Query literal.
func element(t *model.Table, slot model.Slot, values jen.Code) jen.Code {
	return jen.Values(jen.Dict{jen.Id("Stmt"): jen.Id(t.Names.Var).Dot(string(slot)), jen.Id("Values"): values})
}

// writeMethod writes a write method of the repository: Insert, Update or
// Delete, whose body follows the shared prologue (a nil entity and empty
// keys refused, the call's options applied, as o).
func writeMethod(f *jen.File, e *model.Entity, name, docText string, body ...jen.Code) {
	doc(f, "%s", docText)
	prologue := []jen.Code{
		jen.List(jen.Id("o"), jen.Err()).Op(":=").Qual(impl, "Begin").Call(jen.Id("e"), jen.Id(e.Names.Check), jen.Id("r").Dot("opts"), jen.Id("opts")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
	}
	recvFunc(f, e, name).Params(ctxParam(), jen.Id("e").Op("*").Id(e.GoName), jen.Id("opts").Op("...").Qual(rt, "Option")).Error().
		Block(append(prologue, body...)...)
}

func insert(f *jen.File, e *model.Entity) {
	var qs []jen.Code
	for _, t := range e.Tables {
		qs = append(qs, element(t, model.SlotInsert, row(t, jen.Id("e"), "ts", true)))
	}
	writeMethod(f, e, "Insert",
		"Insert writes e to every table of "+e.GoName+" in one logical write, under the repository's strategy (a logged batch unless told otherwise), all statements with one client-side timestamp. Nil pointers and empty collections are left unset, so no tombstones are written. With cqlgen.WithIdempotencyKey, a resent Insert applies at most once. To change an entity that exists, use Update.",
		jen.Return(jen.Qual(rt, "Apply").Call(jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o").Dot("Strategy"), jen.Id("o").Dot("Idempotency"), jen.Qual(impl, "Now").Call(jen.Id("o")),
			jen.Func().Params(jen.Id("ts").Int64()).Index().Qual(rt, "Query").Block(jen.Return(jen.Index().Qual(rt, "Query").Values(qs...))))),
	)
}

func updateSingle(f *jen.File, e *model.Entity) {
	t := e.Canonical
	writeMethod(f, e, "Update",
		"Update writes e over the row with its key in "+t.Name+". Unlike Insert, nil pointers and empty collections clear their columns.",
		jen.Id("ts").Op(":=").Qual(impl, "Now").Call(jen.Id("o")),
		jen.Return(jen.Id("r").Dot("s").Dot("Exec").Call(jen.Id("ctx"), query(t, model.SlotInsert, row(t, jen.Id("e"), "ts", false)))),
	)
}

func deleteSingle(f *jen.File, e *model.Entity) {
	t := e.Canonical
	s := stmt(t, model.SlotDelete)
	writeMethod(f, e, "Delete",
		"Delete removes the row with e's key from "+t.Name+".",
		jen.Id("ts").Op(":=").Qual(impl, "Now").Call(jen.Id("o")),
		jen.Return(jen.Id("r").Dot("s").Dot("Exec").Call(jen.Id("ctx"), query(t, model.SlotDelete, jen.Index().Any().Values(values(s, binding{recv: jen.Id("e"), ts: "ts"})...)))),
	)
}

// changeVersioned calls cqlgenimpl.ChangeVersioned for an Update or
// Delete: cas builds the conditional write on the canonical table from
// cur and ts, after the writes to the other tables.
func changeVersioned(e *model.Entity, cas model.Slot, after []jen.Code, missingOK bool) jen.Code {
	t := e.Canonical
	cur := jen.Id("cur").Op("*").Qual(impl, "Versioned").Types(jen.Id(e.GoName))
	get := stmt(t, model.SlotGetVersion)
	casValues := values(stmt(t, cas), binding{recv: jen.Id("e"), ts: "ts"})
	return jen.Return(jen.Qual(impl, "ChangeVersioned").Call(
		jen.Id("ctx"), jen.Id("r").Dot("s"), jen.Id("o"),
		query(t, model.SlotGetVersion, jen.Index().Any().Values(values(get, binding{recv: jen.Id("e")})...)),
		jen.Id(t.Names.ScanVersion),
		jen.Func().Params(cur, jen.Id("ts").Int64()).Qual(rt, "Query").Block(jen.Return(query(t, cas, jen.Index().Any().Values(casValues...)))),
		jen.Func().Params(cur.Clone(), jen.Id("ts").Int64()).Index().Qual(rt, "Query").Block(after...),
		jen.Lit(missingOK),
	))
}

func updateVersioned(f *jen.File, e *model.Entity) {
	t := e.Canonical
	after := []jen.Code{
		jen.List(jen.Id("del"), jen.Id("ins")).Op(":=").Qual(impl, "DeleteThenInsert").Call(jen.Id("ts")),
		jen.Var().Id("qs").Index().Qual(rt, "Query"),
	}
	for _, o := range e.Tables {
		if o == t {
			continue
		}
		old := binding{recv: jen.Id("cur").Dot("Row"), ts: "del"}
		after = append(after, comments("%s: a changed key moves the row, deleted at ts and inserted at ts+1µs.", o.Name)...)
		after = append(after,
			jen.If(jen.Op("!").Qual(impl, "SameKey").Call(jen.Id(o.Names.Var), jen.Id(o.Names.Key).Call(jen.Op("&").Id("cur").Dot("Row")), jen.Id(o.Names.Key).Call(jen.Id("e")))).Block(
				jen.Id("qs").Op("=").Append(jen.Id("qs"), query(o, model.SlotDelete, jen.Index().Any().Values(values(stmt(o, model.SlotDelete), old)...))),
			),
			jen.Id("qs").Op("=").Append(jen.Id("qs"), query(o, model.SlotInsert, row(o, jen.Id("e"), "ins", false))),
		)
	}
	after = append(after, jen.Return(jen.Id("qs")))
	writeMethod(f, e, "Update",
		"Update changes the "+e.GoName+" whose key in "+t.Name+" is e's: the old values come from "+t.Name+", the source of truth, so the caller passes only the new entity. A conditional write on "+t.Name+"'s version makes concurrent updates take turns (a loser re-reads and retries, up to Options.Attempts, then gets a *cqlgen.NotAppliedError). Then every other table whose primary key changed (a new sort key, say) has its old row deleted at the new timestamp and the new one inserted 1µs later; tables whose key did not change are upserted. The key of "+t.Name+" itself cannot change: that would be another entity. cqlgen.ErrNotFound if there is none.",
		changeVersioned(e, model.SlotUpdateIf, after, false),
	)
}

func deleteVersioned(f *jen.File, e *model.Entity) {
	t := e.Canonical
	var dels []jen.Code
	for _, o := range e.Tables {
		if o != t {
			dels = append(dels, element(o, model.SlotDelete, jen.Index().Any().Values(values(stmt(o, model.SlotDelete), binding{recv: jen.Id("cur").Dot("Row"), ts: "ts"})...)))
		}
	}
	writeMethod(f, e, "Delete",
		"Delete removes the "+e.GoName+" whose key in "+t.Name+" is e's from every table: from "+t.Name+" with a conditional write on its version, then the rows the other tables hold for it, found from "+t.Name+"'s values. Deleting what does not exist is not an error.",
		changeVersioned(e, model.SlotDeleteIf, []jen.Code{jen.Return(jen.Index().Qual(rt, "Query").Values(dels...))}, true),
	)
}
