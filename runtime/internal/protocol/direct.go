package protocol

import (
	"context"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

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
