package impl

import (
	"context"
	"errors"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/engine"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// The writes of entities written without the write protocol, through
// what NewEntity derives for them (desc.Plain): an entity stored in one
// table (Insert, InsertIfAbsent, Update, Delete), an immutable one
// (Insert, Delete) and a counter table's (Add, Delete).

// runPlain runs Insert, Update or Delete of an entity written without
// the protocol.
func runPlain[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, method string, op desc.Op, e P) (err error) {
	defer desc.Observe(&ctx, s, ent.Name, method).End(&err)
	pl := ent.Plain
	if op != desc.OpDelete && pl.Canon.Row == nil {
		return fmt.Errorf("cqlgen: %s has no %s: a counter table takes Add: regenerate the package", ent.Name, method)
	}
	switch {
	case op == desc.OpInsert && pl.One != nil:
		return InsertOne(ctx, s, base, opts, pl.One, e)
	case op == desc.OpUpdate && pl.One != nil:
		return UpdateOne(ctx, s, base, opts, pl.One, e)
	case op == desc.OpDelete && pl.One != nil && !ent.Immutable:
		return DeleteOne(ctx, s, base, opts, pl.One, e)
	case op == desc.OpInsert:
		o, err := protocol.Begin(e, ent.Check, base, opts)
		if err != nil {
			return err
		}
		return engine.Apply(ctx, s, o.Strategy, o.Idempotency, desc.Now(o), func(ts int64) []cqldriver.Query {
			// The source of truth's row, bound once: the other tables'
			// rows are picked from it where they derive from it.
			vs := pl.Canon.Row(e, ts, true)
			return plainQueries(ent, e, func(t *desc.Table, b *desc.Binds[P]) cqldriver.Query {
				switch {
				case b == &pl.Canon:
					return cqldriver.Query{Stmt: t.Insert, Values: vs}
				case b.RowOf != nil:
					return cqldriver.Query{Stmt: t.Insert, Values: b.RowOf(vs)}
				}
				return cqldriver.Query{Stmt: t.Insert, Values: b.Row(e, ts, true)}
			})
		})
	case op == desc.OpDelete:
		return deleteImmutable(ent, ctx, s, base, opts, e)
	}
	return fmt.Errorf("cqlgen: %s has no %s: regenerate the package", ent.Name, method)
}

// plainQueries is one statement q makes for each table of ent that holds
// e: the source of truth's, then every other table's that holds every
// entity, then those of the tables that hold e by their predicate.
func plainQueries[P any](ent *desc.EntityOf[P], e P, q func(*desc.Table, *desc.Binds[P]) cqldriver.Query) []cqldriver.Query {
	pl := ent.Plain
	qs := make([]cqldriver.Query, 0, 1+len(ent.Projections))
	qs = append(qs, q(ent.Canonical, &pl.Canon))
	for i := range ent.Projections {
		if ent.Projections[i].Holds == nil {
			qs = append(qs, q(ent.Projections[i].Table, &pl.Tables[i]))
		}
	}
	for i := range ent.Projections {
		if p := &ent.Projections[i]; p.Holds != nil && p.Holds(e) {
			qs = append(qs, q(p.Table, &pl.Tables[i]))
		}
	}
	return qs
}

// deleteImmutable is Delete of an immutable entity: the source of truth's
// row, read by e's key, gives the keys of its rows in the other tables,
// and every row is deleted in one logical write; nothing is sent when
// there is no row.
func deleteImmutable[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) error {
	o, err := protocol.Begin(e, ent.CheckKey, base, opts)
	if err != nil {
		return err
	}
	pl := ent.Plain
	cur := ent.NewRow()
	err = protocol.FetchRow(ctx, s, cqldriver.Query{Stmt: ent.Canonical.Get, Values: pl.Canon.Key(e)}, pl.Scan, cur)
	if errors.Is(err, cqlgen.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return engine.Apply(ctx, s, o.Strategy, o.Idempotency, desc.Now(o), func(ts int64) []cqldriver.Query {
		return plainQueries(ent, cur, func(t *desc.Table, b *desc.Binds[P]) cqldriver.Query {
			return cqldriver.Query{Stmt: t.Delete, Values: b.Remove(cur, ts)}
		})
	})
}

// InsertIfAbsent is the InsertIfAbsent method of an entity stored in one
// table.
func InsertIfAbsent[T any](ctx context.Context, ent *desc.Entity[T], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e *T) (cqlgen.Inserted[T], error) {
	res, err := insertEntityIfAbsent(ent, ctx, s, base, opts, e)
	return cqlgen.Inserted[T](res), err
}

func insertEntityIfAbsent[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) (_ protocol.Inserted[P], err error) {
	defer desc.Observe(&ctx, s, ent.Name, "InsertIfAbsent").End(&err)
	if ent.Plain == nil || ent.Plain.One == nil || !ent.Canonical.Spec.Single {
		return protocol.Inserted[P]{}, fmt.Errorf("cqlgen: %s is not stored in one table: regenerate the package", ent.Name)
	}
	return InsertOneIfAbsent(ctx, s, base, opts, ent.Plain.One, e)
}

// GetOf is the Get method of an entity whose reads NewEntity derives:
// the row of its source of truth with the given primary key (bucket
// included), as its Get statement binds it.
func GetOf[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, key []any) (P, error) {
	if ent.Live == nil {
		return value.None[P](), fmt.Errorf("cqlgen: %s: a Get whose row is not derived from its fields: regenerate the package", ent.Name)
	}
	return Get(ctx, s, ent.Name, "Get", ent.Canonical, key, ent.Live)
}

// Add is the Add method of an entity stored in a counter table: e's
// counter fields added to its row in one update, sent once (see
// AddCounters).
func Add[P any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, e P) (err error) {
	defer desc.Observe(&ctx, s, ent.Name, "Add").End(&err)
	if ent.Plain == nil || ent.Plain.Canon.Add == nil {
		return fmt.Errorf("cqlgen: %s has no counter table: regenerate the package", ent.Name)
	}
	o, err := protocol.Begin(e, ent.Check, base, opts)
	if err != nil {
		return err
	}
	return protocol.AddCounters(ctx, s, o, cqldriver.Query{Stmt: ent.Canonical.Add, Values: ent.Plain.Canon.Add(e)})
}
