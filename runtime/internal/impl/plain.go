package impl

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// GetTimes is the GetTimes method: Get, through the source of truth's
// Times statement, which selects Get's columns, then the TTL() and
// WRITETIME() of the columns tagged cqlgen:"ttl, writetime" (Spec.Times),
// into what times points at, in that order: a *time.Duration for a TTL,
// the seconds the cell has left (0 when it has none, or is null), and a
// *time.Time for a write time, the cell's timestamp in µs (the zero time
// when null).
func GetTimes[P, M any](ctx context.Context, ent *desc.EntityOf[P], s cqlgen.Session, key []any, times func(*M) []any) (_ P, m M, err error) {
	defer desc.Observe(&ctx, s, ent.Name, "GetTimes").End(&err)
	t := ent.Canonical
	dst := times(&m)
	if ent.Live == nil || t.Times == nil || len(dst) != len(t.Spec.Times) {
		return value.None[P](), m, fmt.Errorf("cqlgen: %s: GetTimes does not fit the table's description: regenerate the package", ent.Name)
	}
	if err := checkPartition(t, key); err != nil {
		return value.None[P](), m, err
	}
	if err := protocol.AccordCheck(t, ctx, 0, false); err != nil {
		return value.None[P](), m, err
	}
	defer protocol.AccordEnd(t, &err)
	raw := make([]*int64, len(dst))
	extra := make([]any, len(dst))
	for i := range raw {
		extra[i] = &raw[i]
	}
	scan := func(it cqldriver.Iter, e P) bool { return ent.Live(&trailing{Iter: it, dest: extra}, e) }
	row := desc.NewRowOf[P]()
	if err := protocol.FetchRow(ctx, s, cqldriver.Query{Stmt: t.Times, Values: key}, scan, row); err != nil {
		return value.None[P](), m, err
	}
	for i, d := range dst {
		if raw[i] == nil {
			continue
		}
		switch d := d.(type) {
		case *time.Duration:
			*d = time.Duration(*raw[i]) * time.Second
		case *time.Time:
			*d = time.UnixMicro(*raw[i]).UTC()
		}
	}
	return row, m, nil
}

// trailing scans the columns a statement selects after those a row's own
// scan asks for into dest.
type trailing struct {
	cqldriver.Iter
	dest []any
}

func (it *trailing) Scan(dest ...any) bool { return it.Iter.Scan(append(dest, it.dest...)...) }

// AddCounters runs a counter update once, for a repository's Add: it
// refuses an idempotency key (the key's machinery may run a command more
// than once, which would count twice) with an *InputError (ErrInvalidOption) before
// anything is sent, and returns what ExecCounter returns. The
// strategy and the clock do not apply: a counter update is one statement,
// and Cassandra refuses a client timestamp on it.
func AddCounters(ctx context.Context, s cqlgen.Session, o cqlgen.Options, q cqldriver.Query) error {
	if o.Idempotency.Key != "" {
		return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "IdempotencyKey", Reason: "a counter update cannot take one: it is not idempotent, and an idempotency key's command may run again after a failed run, counting twice"}
	}
	return engine.ExecCounter(ctx, s, q)
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
	return AddCounters(ctx, s, o, cqldriver.Query{Stmt: ent.Canonical.Add, Values: ent.Plain.Canon.Add(e)})
}
