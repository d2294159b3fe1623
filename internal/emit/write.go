package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
)

// stmt finds one of t's statements.
func stmt(t *model.Table, slot cqlspec.Slot) *model.Statement {
	for _, s := range t.Statements() {
		if s.Slot == slot {
			return s
		}
	}
	return nil
}

// entityWrite is a write method that is one call of the runtime's
// function of its name, given the entity's description: ctx, the
// description, the session, the options, e.
func entityWrite(f *jen.File, e *model.Entity, name, docText string, results ...jen.Code) {
	if len(results) == 0 {
		results = []jen.Code{jen.Error()}
	}
	doc(f, "%s", docText)
	thinMethod(f, e, name, []jen.Code{jen.Id("e").Op("*").Id(e.GoName), jen.Id("opts").Op("...").Qual(rt, "Option")}, results,
		entityCall(e, name, r("s"), r("opts"), jen.Id("opts"), jen.Id("e")))
}

// entityCall calls the runtime's function of an entity's method name,
// with ctx, the entity's description, then args.
func entityCall(e *model.Entity, name string, args ...jen.Code) *jen.Statement {
	return jen.Qual(impl, name).Call(append([]jen.Code{jen.Id("ctx"), jen.Id(e.Names.Writes)}, args...)...)
}

// plainWrites writes the writes of an entity written without the write
// protocol, each one call of its description (cqlgenimpl.NewEntity),
// which derives what each statement binds: an entity stored in one table
// (Insert, InsertIfAbsent, and Update unless it is immutable, Delete), an
// immutable one in several tables (Insert, Delete), and one stored in a
// counter table (Add, which adds the entity's counter fields to its row
// in one update that is never retried, and Delete; Cassandra refuses an
// INSERT on a counter table).
func plainWrites(f *jen.File, e *model.Entity) {
	t := e.Canonical
	switch {
	case e.Counting():
		var names []string
		for _, c := range t.CounterColumns() {
			names = append(names, c.Field.GoName)
		}
		entityWrite(f, e, "Add", "Add adds e's counter fields ("+strings.Join(names, ", ")+") to the row with e's key in "+t.Name+", sent once, never retried (docs/repositories.md, Counter tables).")
		entityWrite(f, e, "Delete", "Delete removes the row with e's key from "+t.Name+"; a deleted counter row must not be counted again (docs/repositories.md, Counter tables).")
		return
	case e.Single():
		entityWrite(f, e, "Insert", insertDoc(e))
		entityWrite(f, e, "InsertIfAbsent", "InsertIfAbsent writes e unless a row has its key (IF NOT EXISTS).",
			jen.Qual(rt, "Inserted").Types(jen.Id(e.GoName)), jen.Error())
		if !e.Immutable {
			entityWrite(f, e, "Update", "Update writes e over its row; nil pointers and empty collections clear.")
			entityWrite(f, e, "Delete", "Delete removes the row with e's key.")
			return
		}
	default:
		entityWrite(f, e, "Insert", insertDoc(e))
	}
	entityWrite(f, e, "Delete", "Delete removes the "+e.GoName+" with e's key from every table, found from "+t.Name+"'s values, in one logical write.")
}

func insertDoc(e *model.Entity) string {
	if len(e.Tables) == 1 {
		return "Insert writes e; nil pointers and empty collections stay unset."
	}
	return "Insert writes e to every table of " + e.GoName + " in one logical write, leaving nil pointers and empty collections unset (docs/repositories.md, Writes)."
}

// writesVar writes the description of an entity that its methods run on:
// the write protocol's (cqlgenimpl.Write), or, for an entity written
// without it, that of its one table, its immutable rows or its counters.
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
	} else if e.Immutable {
		immutable = jen.True()
	}
	var state, scanState jen.Code = jen.Id(n.State), jen.Id(n.ScanState)
	var vals, fields jen.Code
	var check, checkKey jen.Code = jen.Id(e.Names.Check), jen.Id(e.Names.CheckKey)
	if derivedChecks(e) {
		check, checkKey = nil, nil
	} else if len(e.Tables) == 1 {
		checkKey = nil // Check, as the runtime takes it
	}
	var row jen.Code
	if valuesMode(t) {
		p := entityPrefix(e)
		vals, fields = jen.Id(p+"Values"), jen.Id(p+"Fields")
		if !versioned {
			vals, row = nil, jen.Id(n.Row)
		}
		state, scanState, data, change, remove, settle = nil, nil, nil, nil, nil, nil
	}
	f.Var().Id(e.Names.Writes).Op("=").Qual(impl, "NewEntity").Call(jen.Op("&").Qual(impl, "Entity").Types(jen.Id(e.GoName)).Add(keyed(
		jen.Id("Name"), jen.Lit(e.GoName),
		jen.Id("Check"), check,
		jen.Id("CheckKey"), checkKey,
		jen.Id("Canonical"), jen.Id(n.Var),
		jen.Id("Immutable"), immutable,
		jen.Id("Values"), vals,
		jen.Id("Row"), row,
		jen.Id("Fields"), fields,
		jen.Id("State"), state,
		jen.Id("ScanState"), scanState,
		jen.Id("Data"), data,
		jen.Id("Merge"), merge,
		jen.Id("Change"), change,
		jen.Id("Remove"), remove,
		jen.Id("Settle"), settle,
		jen.Id("Projections"), projectionsLit(e, projections),
	)))
}

// projectionsLit is the Projections of an entity's description; nil for
// an entity stored in one table.
func projectionsLit(e *model.Entity, projections []jen.Code) jen.Code {
	if len(projections) == 0 {
		return nil
	}
	return jen.Index().Qual(impl, "Projection").Types(jen.Id(e.GoName)).Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, projections...)
}

// protocolWrites writes Insert, Update and Delete of a versioned entity:
// each one call of its description.
func protocolWrites(f *jen.File, e *model.Entity) {
	entityWrite(f, e, "Insert", "Insert writes e to every table; nil pointers and empty collections stay unset.")
	entityWrite(f, e, "Update", "Update replaces e in every table; nil pointers and empty collections clear.")
	entityWrite(f, e, "Delete", "Delete removes e, given its key alone, from every table.")
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
