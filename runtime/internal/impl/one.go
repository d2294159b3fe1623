package impl

import (
	"context"

	"github.com/cqlgen/cqlgen/runtime/internal/engine"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
)

// One describes, for its writes, the table of an entity stored in one
// table that is not a counter table: generated code declares it once.
type One[T any] struct {
	Name  string // the entity's, for observers
	Table *desc.Table
	// Check refuses an entity whose partition key values are empty.
	Check func(*T) error
	// Key is e's primary key, as Get binds it.
	Key func(e *T) []any
	// Row binds Insert for e at ts; with unset, nil pointers and empty
	// collections are left unset.
	Row func(e *T, ts int64, unset bool) []any
	// Remove binds Delete for e at ts.
	Remove func(e *T, ts int64) []any
	Scan   func(cqldriver.Iter, *T) bool
}

// one is One with P = *T, field for field: One's methods convert to it,
// so that the writes are generic over P alone (see Entity).
type one[P any] struct {
	Name  string // the entity's, for observers
	Table *desc.Table
	// Check refuses an entity whose partition key values are empty.
	Check func(P) error
	// Key is e's primary key, as Get binds it.
	Key func(e P) []any
	// Row binds Insert for e at ts; with unset, nil pointers and empty
	// collections are left unset.
	Row func(e P, ts int64, unset bool) []any
	// Remove binds Delete for e at ts.
	Remove func(e P, ts int64) []any
	Scan   func(cqldriver.Iter, P) bool
}

func (d *one[P]) created(e P, unset bool) []any { return d.Row(e, 0, unset) }

// InsertOne is Insert of an entity stored in one table: the row written
// at a client-side timestamp, nil pointers and empty collections left
// unset; with cqlgen.IfAbsent, InsertAbsent.
func InsertOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *one[P], e P) error {
	o, err := protocol.BeginWrite(e, d.Check, base, opts, protocol.AllowTTL|protocol.AllowAbsent)
	if err != nil {
		return err
	}
	if o.Expect == cqlgen.Absent {
		return protocol.InsertAbsent(ctx, s, o, d.Table, e, d.Key(e), d.created, d.Scan)
	}
	return engine.ApplyOne(ctx, s, o.Strategy, o.Idempotency, desc.Now(o), func(ts int64) cqldriver.Query {
		return protocol.InsertQuery(d.Table, o.TTL, d.Row(e, ts, true))
	})
}

// InsertOneIfAbsent is InsertIfAbsent of an entity stored in one table.
func InsertOneIfAbsent[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *one[P], e P) (protocol.Inserted[P], error) {
	o, err := protocol.BeginWrite(e, d.Check, base, opts, protocol.AllowTTL|protocol.AllowAbsent)
	if err != nil {
		return protocol.Inserted[P]{}, err
	}
	return protocol.InsertIfAbsentOf(ctx, s, o, d.Table, e, d.Key(e), d.created, d.Scan)
}

// UpdateOne is Update of an entity stored in one table: the whole row
// written, nil pointers and empty collections clearing their columns.
func UpdateOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *one[P], e P) error {
	o, err := protocol.BeginWrite(e, d.Check, base, opts, protocol.AllowTTL)
	if err != nil {
		return err
	}
	return engine.ApplyOne(ctx, s, o.Strategy, o.Idempotency, desc.Now(o), func(ts int64) cqldriver.Query {
		return protocol.InsertQuery(d.Table, o.TTL, d.Row(e, ts, false))
	})
}

// DeleteOne is Delete of an entity stored in one table.
func DeleteOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *one[P], e P) error {
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
