package impl

import (
	"context"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// one is the table of an entity stored in one table (or a counter
// table), as its writes take it: derived by NewEntity (derivePlain), and
// generic over P = *T alone (see Entity).
type one[P any] struct {
	Name  string // the entity's, for observers
	Table *Table
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
	o, err := BeginWrite(e, d.Check, base, opts, AllowTTL|AllowAbsent)
	if err != nil {
		return err
	}
	if o.Expect == cqlgen.Absent {
		return InsertAbsent(ctx, s, o, d.Table, e, d.Key(e), d.created, d.Scan)
	}
	return ApplyOne(ctx, s, o.Strategy, o.Idempotency, Now(o), func(ts int64) cqldriver.Query {
		return InsertQuery(d.Table, o.TTL, d.Row(e, ts, true))
	})
}

// InsertOneIfAbsent is InsertIfAbsent of an entity stored in one table.
func InsertOneIfAbsent[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *one[P], e P) (inserted[P], error) {
	o, err := BeginWrite(e, d.Check, base, opts, AllowTTL|AllowAbsent)
	if err != nil {
		return inserted[P]{}, err
	}
	return insertIfAbsent(ctx, s, o, d.Table, e, d.Key(e), d.created, d.Scan)
}

// UpdateOne is Update of an entity stored in one table: the whole row
// written, nil pointers and empty collections clearing their columns.
func UpdateOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *one[P], e P) error {
	o, err := BeginWrite(e, d.Check, base, opts, AllowTTL)
	if err != nil {
		return err
	}
	return ApplyOne(ctx, s, o.Strategy, o.Idempotency, Now(o), func(ts int64) cqldriver.Query {
		return InsertQuery(d.Table, o.TTL, d.Row(e, ts, false))
	})
}

// DeleteOne is Delete of an entity stored in one table.
func DeleteOne[P any](ctx context.Context, s cqlgen.Session, base cqlgen.Options, opts []cqlgen.Option, d *one[P], e P) error {
	o, err := Begin(e, d.Check, base, opts)
	if err != nil {
		return err
	}
	return ApplyOne(ctx, s, o.Strategy, o.Idempotency, Now(o), func(ts int64) cqldriver.Query {
		return cqldriver.Query{Stmt: d.Table.Delete, Values: d.Remove(e, ts)}
	})
}

// GetOne reads the row stmt selects with values into a new T;
// cqlgen.ErrNotFound when there is none.
func GetOne[T any](ctx context.Context, s cqlgen.Session, stmt *cqldriver.Statement, values []any, scan func(cqldriver.Iter, *T) bool) (*T, error) {
	row, err := GetRow(ctx, s, cqldriver.Query{Stmt: stmt, Values: values}, scan)
	if err != nil {
		return nil, err
	}
	return &row, nil
}
