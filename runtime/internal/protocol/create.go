package protocol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/engine"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// InsertQuery is the write of a row of the table of an entity stored in
// one table: row, as its row function binds it (the write timestamp
// last), under t.Insert, or, with a TTL, under t.InsertTTL with the TTL
// in seconds bound before the timestamp.
func InsertQuery(t *desc.Table, ttl time.Duration, row []any) cqldriver.Query {
	if ttl == 0 {
		return cqldriver.Query{Stmt: t.Insert, Values: row}
	}
	n := len(row)
	v := make([]any, n+1)
	copy(v, row[:n-1])
	v[n-1], v[n] = ttlSeconds(ttl), row[n-1]
	return cqldriver.Query{Stmt: t.InsertTTL, Values: v}
}

// ttlSeconds binds a TTL: its seconds, or unset for none, which leaves
// the table's default_time_to_live to apply (a TTL of 0 would not: it
// means never expire).
func ttlSeconds(ttl time.Duration) any {
	if ttl == 0 {
		return cqldriver.Unset
	}
	return int32(ttl / time.Second)
}

// Inserted is cqlgen.Inserted with P = *T, field for field.
type Inserted[P any] struct {
	Applied, Again bool
	Current        P
}

// InsertIfAbsentOf creates e in t, the table of an entity stored in one
// table, if no row has its key: INSERT ... IF NOT EXISTS, with the TTL
// of o. row is the table's row function (unset: leave nil pointers and
// empty collections unset), key the values of t.Get, scan its scan.
//
// When a row is there, it is read and returned as Current. If it holds
// every value e would write, the insert counts as applied (Again): a
// call sent again after its reply was lost finds its own row, and
// reporting a conflict then would be false. With an idempotency key the
// outcome is recorded, and a call sent again with the key gets it back.
// A row that goes away between the conditional write and the read is
// tried again, up to o.Attempts times.
func InsertIfAbsentOf[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, t *desc.Table, e P, key []any, row func(e P, unset bool) []any, scan func(cqldriver.Iter, P) bool) (Inserted[P], error) {
	values := row(e, true)
	values = append(values[:len(values)-1:len(values)-1], ttlSeconds(o.TTL))
	q := cqldriver.Query{Stmt: t.Create, Values: values, SerialConsistency: o.SerialConsistency}
	var res Inserted[P]
	run := func(ctx context.Context, _ int64) error {
		var err error
		res, err = create(ctx, s, o, t, q, e, key, row, scan)
		if err == nil && !res.Applied {
			// Recorded under the idempotency key as not applied.
			return &cqlgen.NotAppliedError{Table: t.Spec.Name}
		}
		return err
	}
	if o.Idempotency.Key == "" {
		if err := run(ctx, 0); err != nil && !errors.Is(err, cqlgen.ErrNotApplied) {
			return res, err
		}
		return res, nil
	}
	ran := false
	err := engine.Idempotent(ctx, s, o.Idempotency, desc.Now(o), engine.PayloadHash([]cqldriver.Query{q}), func(ctx context.Context, ts int64) error {
		ran = true
		return run(ctx, ts)
	})
	switch {
	case ran && (err == nil || errors.Is(err, cqlgen.ErrNotApplied)):
		return res, nil
	case err == nil:
		// Created by an earlier call with the key, whose reply was lost.
		return Inserted[P]{Applied: true, Again: true}, nil
	case errors.Is(err, cqlgen.ErrNotApplied):
		// An earlier call with the key found another row: so does this one.
		cur := desc.NewRowOf[P]()
		err := FetchRow(ctx, s, cqldriver.Query{Stmt: t.Get, Values: key}, scan, cur)
		if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
			return Inserted[P]{}, err
		}
		if err != nil {
			return Inserted[P]{}, nil
		}
		return Inserted[P]{Current: cur}, nil
	}
	return Inserted[P]{}, err
}

// create runs the conditional insert q and, when a row is there, reads
// it and compares it with e.
func create[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, t *desc.Table, q cqldriver.Query, e P, key []any, row func(P, bool) []any, scan func(cqldriver.Iter, P) bool) (Inserted[P], error) {
	for attempt := 1; ; attempt++ {
		cas, err := engine.CAS(ctx, s, q)
		if err != nil {
			return Inserted[P]{}, err
		}
		if cas.Applied {
			return Inserted[P]{Applied: true}, nil
		}
		cur := desc.NewRowOf[P]()
		err = FetchRow(ctx, s, cqldriver.Query{Stmt: t.Get, Values: key}, scan, cur)
		if errors.Is(err, cqlgen.ErrNotFound) && attempt < o.Attempts {
			// Deleted, or expired, since: the key may be free again.
			continue
		}
		if err != nil {
			return Inserted[P]{}, err
		}
		if SameRowValues(row(e, true), row(cur, true), t.Row) {
			return Inserted[P]{Applied: true, Again: true, Current: cur}, nil
		}
		return Inserted[P]{Current: cur}, nil
	}
}

// SameRowValues reports whether two rows as a row function binds them
// (the timestamp last, not compared) hold the same values, as Cassandra
// stores them: an unset value (a nil pointer, an empty collection) is
// the same as another. It answers false when it cannot tell.
func SameRowValues(a, b []any, cols []desc.Column) bool {
	if len(cols) == 0 || len(a) != len(cols)+1 || len(b) != len(a) {
		return false
	}
	for i, c := range cols {
		x, y := a[i], b[i]
		if ux, uy := cqldriver.IsUnset(x), cqldriver.IsUnset(y); ux || uy {
			if ux != uy {
				return false
			}
			continue
		}
		typ, err := cqldriver.ParseType(c.Type)
		if err != nil {
			return false
		}
		bx, err1 := value.MarshalSorted(typ, x)
		by, err2 := value.MarshalSorted(typ, y)
		if err1 != nil || err2 != nil || !bytes.Equal(bx, by) {
			return false
		}
	}
	return true
}

// InsertAbsent is an Insert with cqlgen.IfAbsent: InsertIfAbsent, then
// nil when it applied, and a *cqlgen.VersionConflictError when another
// row has the key (Actual 0: an entity stored in one table has no
// versions).
func InsertAbsent[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, t *desc.Table, e P, key []any, row func(e P, unset bool) []any, scan func(cqldriver.Iter, P) bool) error {
	res, err := InsertIfAbsentOf(ctx, s, o, t, e, key, row, scan)
	if err != nil || res.Applied {
		return err
	}
	return &cqlgen.VersionConflictError{Table: t.Spec.Name, Expected: cqlgen.Absent}
}

// createDirect sends q, the canonical table's Create of e: Change on "no row",
// conditioned on every column State reads but the key's being null. When
// it does not apply, Cassandra's reply holds those columns, in State's
// order: createDirect returns the row as scanState reads it, the key's columns
// taken from e. It returns a nil state when the reply does not hold one
// the write can start from (a row without a version, written outside the
// protocol, or a reply without the columns): the write then reads it.
func createDirect[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, q cqldriver.Query, e P) (applied bool, held *desc.State[P], err error) {
	it := &createIter{ctx: ctx, s: s, q: q, t: ent.Canonical, key: ent.State(e), keys: ent.Keys}
	st, ok := ent.ScanCanonical(it)
	if it.err != nil || it.applied {
		return it.applied, nil, it.err
	}
	if !ok || st.Version == 0 {
		return false, nil, nil
	}
	return false, &st, nil
}

// createIter is the reply of a Create as an Iter of one row, for
// scanState: its first keys destinations get the key's values, the
// others the reply's columns.
type createIter struct {
	ctx     context.Context
	s       cqlgen.Session
	q       cqldriver.Query
	t       *desc.Table
	key     []any
	keys    int
	applied bool
	err     error // the conditional write's
	done    bool
}

func (c *createIter) Scan(dest ...any) bool {
	if c.done || len(dest) < c.keys || len(c.key) != c.keys {
		return false
	}
	c.done = true
	c.applied, c.err = c.s.ExecCAS(c.ctx, c.q, dest[c.keys:]...)
	if c.err != nil || c.applied {
		return false
	}
	for i := range c.keys {
		if setKey(c.t.KeyColumn(i).Type, c.key[i], dest[i]) != nil {
			return false // read instead
		}
	}
	return true
}

// setKey decodes v, a key value as the entity binds it, into dest, as a
// read of the column would.
func setKey(cqlType string, v, dest any) error {
	typ, err := cqldriver.ParseType(cqlType)
	if err != nil {
		return err
	}
	b, err := cqldriver.Marshal(typ, v)
	if err != nil {
		return err
	}
	if b == nil {
		return fmt.Errorf("cqlgen: a null key value")
	}
	return cqldriver.Unmarshal(typ, b, dest)
}

func (c *createIter) PageState() []byte { return nil }
func (c *createIter) Close() error      { return nil }

// readTwice reads the canonical row of key's entity once and decodes it
// twice: the state as read, and a row of its own (no slice or map shared
// with the state's) for Modify's change to edit, so that what the write
// compares with, and moves rows away from, stays as read.
// cqlgen.ErrNotFound when there is no row.
func readTwice[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, key P) (desc.State[P], P, error) {
	rec := &recordIter{Iter: s.Iter(ctx, cqldriver.Query{Stmt: ent.Canonical.PreRead, Values: ent.State(key)})}
	st, ok := ent.ScanCanonical(rec)
	if err := oneRow(rec, ok); err != nil {
		return desc.State[P]{}, value.None[P](), err
	}
	again := &decodeAgainIter{row: rec.row}
	cp, ok := ent.ScanCanonical(again)
	if !ok || again.err != nil {
		return desc.State[P]{}, value.None[P](), fmt.Errorf("cqlgen: %s: decoding the row again: %w", ent.Canonical.Spec.Name, again.err)
	}
	return st, cp.Row, nil
}

// captured is one column of a row as read: its type and its bytes.
type captured struct {
	t    *cqldriver.Type
	data []byte // nil for null
}

func (c *captured) UnmarshalCQLValue(t *cqldriver.Type, data []byte) error {
	c.t = t
	if data != nil {
		c.data = append(make([]byte, 0, len(data)), data...)
	}
	return nil
}

// recordIter scans one row into its destinations, as its Iter would, and
// keeps the row's bytes, for a decodeAgainIter to decode again.
type recordIter struct {
	cqldriver.Iter
	row []captured
	err error
}

func (r *recordIter) Scan(dest ...any) bool {
	row := make([]captured, len(dest))
	caps := make([]any, len(dest))
	for i := range row {
		caps[i] = &row[i]
	}
	if !r.Iter.Scan(caps...) {
		return false
	}
	for i, d := range dest {
		if err := cqldriver.Unmarshal(row[i].t, row[i].data, d); err != nil {
			r.err = err
			return false
		}
	}
	r.row = row
	return true
}

func (r *recordIter) Close() error {
	if err := r.Iter.Close(); err != nil {
		return err
	}
	return r.err
}

// decodeAgainIter decodes, once, the row a recordIter kept.
type decodeAgainIter struct {
	row  []captured
	done bool
	err  error
}

func (r *decodeAgainIter) Scan(dest ...any) bool {
	if r.done || len(dest) != len(r.row) {
		if !r.done {
			r.err = fmt.Errorf("%d columns to decode into, %d read", len(dest), len(r.row))
		}
		return false
	}
	r.done = true
	for i, d := range dest {
		if err := cqldriver.Unmarshal(r.row[i].t, r.row[i].data, d); err != nil {
			r.err = err
			return false
		}
	}
	return true
}

func (r *decodeAgainIter) PageState() []byte { return nil }
func (r *decodeAgainIter) Close() error      { return r.err }
