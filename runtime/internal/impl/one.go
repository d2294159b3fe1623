package impl

import (
	"context"

	"github.com/cqlgen/cqlgen/runtime/internal/engine"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
)

// created is d's Row for a conditional create, at no timestamp.
func created[P any](d *desc.One[P]) func(e P, unset bool) []any {
	return func(e P, unset bool) []any { return d.Row(e, 0, unset) }
}

// InsertOne is Insert of an entity stored in one table: the row written
// at a client-side timestamp, nil pointers and empty collections left
// unset; with cqlgen.IfAbsent, InsertAbsent.
func InsertOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *desc.One[P], e P) error {
	o, err := protocol.BeginWrite(e, d.Check, base, opts, protocol.AllowTTL|protocol.AllowAbsent)
	if err != nil {
		return err
	}
	if o.Expect == cqlgen.Absent {
		return protocol.InsertAbsent(ctx, s, o, d.Table, e, d.Key(e), created(d), d.Scan)
	}
	return engine.ApplyOne(ctx, s, o.Strategy, o.Idempotency, desc.Now(o), func(ts int64) cqldriver.Query {
		return protocol.InsertQuery(d.Table, o.TTL, d.Row(e, ts, true))
	})
}

// InsertOneIfAbsent is InsertIfAbsent of an entity stored in one table.
func InsertOneIfAbsent[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *desc.One[P], e P) (protocol.Inserted[P], error) {
	o, err := protocol.BeginWrite(e, d.Check, base, opts, protocol.AllowTTL|protocol.AllowAbsent)
	if err != nil {
		return protocol.Inserted[P]{}, err
	}
	return protocol.InsertIfAbsentOf(ctx, s, o, d.Table, e, d.Key(e), created(d), d.Scan)
}

// UpdateOne is Update of an entity stored in one table: the whole row
// written, nil pointers and empty collections clearing their columns.
func UpdateOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *desc.One[P], e P) error {
	o, err := protocol.BeginWrite(e, d.Check, base, opts, protocol.AllowTTL)
	if err != nil {
		return err
	}
	return engine.ApplyOne(ctx, s, o.Strategy, o.Idempotency, desc.Now(o), func(ts int64) cqldriver.Query {
		return protocol.InsertQuery(d.Table, o.TTL, d.Row(e, ts, false))
	})
}

// DeleteOne is Delete of an entity stored in one table.
func DeleteOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *desc.One[P], e P) error {
	o, err := protocol.Begin(e, d.Check, base, opts)
	if err != nil {
		return err
	}
	return engine.ApplyOne(ctx, s, o.Strategy, o.Idempotency, desc.Now(o), func(ts int64) cqldriver.Query {
		return cqldriver.Query{Stmt: d.Table.Delete, Values: d.Remove(e, ts)}
	})
}

// GetOne reads the row stmt selects with values into a new T;
// cqlgen.ErrNotFound when there is none.
func GetOne[T any](ctx context.Context, s cqlgen.Session, stmt *cqldriver.Statement, values []any, scan func(cqldriver.Iter, *T) bool) (*T, error) {
	row, err := protocol.GetRow(ctx, s, cqldriver.Query{Stmt: stmt, Values: values}, scan)
	if err != nil {
		return nil, err
	}
	return &row, nil
}
