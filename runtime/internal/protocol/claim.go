package protocol

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// Unique tables. A row of a unique table is a claim: its key, its owner
// (the columns of the owner's canonical key the table's key lacks) and
// cqlgen_claim, the version of the owner's change that claimed it. Claims
// are written only by conditional writes, never by the fan-out, so that
// Paxos alone orders them, whatever the clocks say:
//
//   - A change that gives an entity a unique key claims it before the
//     change's own conditional write on the canonical row, with the
//     change's version: INSERT ... IF NOT EXISTS, or, over a claim of its
//     own from an attempt that did not land, a Take of it.
//   - A claim held by another entity is a conflict if that entity holds
//     the key (*cqlgen.UniqueConflictError). If not, the claim was left
//     behind by a change that has not landed, and may be in flight: the
//     writer first fences the owner, moving its version on by a
//     conditional write (so that a change still in flight, conditional on
//     the old version, cannot land), then takes the claim over, on the
//     condition that owner and version are still the ones it read.
//   - A change that gives a key up records it in the pending record, like
//     a row to delete, and releases it after its conditional write: a
//     conditional delete, if the claim is still the entity's and older
//     than the change. Whoever completes the change releases it too.

// Claim claims e's key in unique table p for a change at version ts.
func Claim[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, p *desc.ProjectionOf[P], e P, ts int64) error {
	t := p.Table
	row := p.Row(e, ts, false) // the table's Row columns, then the version
	nkey := len(t.Spec.PartitionKey) + len(t.Spec.Clustering)
	n := len(t.Row)
	if len(row) != n+1 {
		return errors.New("cqlgen: " + t.Spec.Name + ": a claim binds the wrong number of values")
	}
	key, mine := row[:nkey], row[nkey:n]
	for attempt := 1; ; attempt++ {
		// A conditional write of the claim whose reply was lost (or
		// that may have been sent: the session never sends those twice)
		// is no failure of the claim: the claim is read again, and what
		// it holds decides, as after a write that did not apply. Every
		// step conditions on what it read, and Paxos finishes a write
		// still in flight on the claim before the next, so a step that
		// landed after all is found (our own claim: renewed) or makes
		// the next step not apply (read again). That is for failures
		// that pass (transient); others, and any once the attempts or
		// the caller's deadline run out, are returned.
		lost := func(err error) bool {
			return err != nil && transient(err) && attempt < o.Attempts && ctx.Err() == nil
		}
		applied, err := s.ExecCAS(ctx, cqldriver.Query{Stmt: t.Insert, Values: row, SerialConsistency: o.SerialConsistency}, Sinks(n+1)...)
		if (err != nil && !lost(err)) || applied {
			return err
		}
		cur, err := ReadClaim(ctx, s, t, key)
		switch {
		case errors.Is(err, cqlgen.ErrNotFound):
			// Released since: claim it again.
		case err != nil:
			return err
		case sameOwner(t, mine, cur.Cols[nkey:n]):
			// Our own, from an attempt that did not land: renew it.
			if ok, err := Take(ctx, s, o, t, key, mine, ts, cur); ok || (err != nil && !lost(err)) {
				return err
			}
		default:
			owner := make([]any, len(p.Owner))
			for j, c := range p.Owner {
				owner[j] = cqldriver.Encoded(cur.Cols[c])
			}
			st, err := readState(ent, ctx, s, cqldriver.Query{Stmt: ent.Canonical.PreRead, Values: owner})
			found := err == nil
			if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
				return err
			}
			if found && !st.Deleted && desc.Holds(p, st.Row) && desc.SameKey(t, p.Key(st.Row), key) {
				return &cqlgen.UniqueConflictError{Table: t.Spec.Name, Columns: keyNames(t)}
			}
			if !found || st.Version < cur.Version {
				// The owner's change may be in flight: fence it first.
				if ok, err := Fence(ent, ctx, s, o, owner, &st, found); !ok || err != nil {
					if err != nil && !lost(err) {
						return err
					}
					break
				}
			}
			if ok, err := Take(ctx, s, o, t, key, mine, ts, cur); ok || (err != nil && !lost(err)) {
				return err
			}
		}
		if attempt >= o.Attempts {
			return &cqlgen.NotAppliedError{Table: t.Spec.Name, Reason: fmt.Sprintf(
				"the claim of the key changed between each read and write, %d times: another writer is claiming it", attempt)}
		}
		if err := casBackoff.Wait(ctx, attempt); err != nil {
			return err
		}
	}
}

// Take moves the claim cur to owner mine at version ts, if it is still
// cur's.
func Take(ctx context.Context, s cqlgen.Session, o cqlgen.Options, t *desc.Table, key, mine []any, ts int64, cur *claimRow) (bool, error) {
	nkey := len(key)
	values := append(append([]any(nil), mine...), ts)
	values = append(values, key...)
	for _, c := range cur.Cols[nkey:len(t.Row)] {
		values = append(values, cqldriver.Encoded(c))
	}
	// A claim written outside the protocol has no cqlgen_claim.
	values = append(values, desc.Condition(cur.Version))
	return s.ExecCAS(ctx, cqldriver.Query{Stmt: t.Take, Values: values, SerialConsistency: o.SerialConsistency}, Sinks(len(mine)+1)...)
}

// Fence moves the version of an entity whose claim is to be taken over,
// so that a change of it still in flight cannot land: a live entity keeps
// its values; a grave, or an entity never written, becomes a grave.
func Fence[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, owner []any, st *desc.State[P], found bool) (bool, error) {
	oldVersion := st.Version
	old := desc.Condition(oldVersion)
	stmt := ent.Canonical.FenceGrave
	if found && !st.Deleted {
		stmt = ent.Canonical.FenceLive
	}
	values := append([]any{nextVersion(max(oldVersion, st.StaticVersion), desc.Now(o))}, owner...)
	values = append(values, old)
	return s.ExecCAS(ctx, cqldriver.Query{Stmt: stmt, Values: values, SerialConsistency: o.SerialConsistency}, Sinks(1)...)
}

// release gives up the claim of key in unique table p, held by e's
// entity, if it is older than the change at version ts that gives it up.
func release[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, p *desc.ProjectionOf[P], e P, key []any, ts int64) error {
	t := p.Table
	row := p.Row(e, 0, false)
	nkey := len(t.Spec.PartitionKey) + len(t.Spec.Clustering)
	values := append(append([]any(nil), key...), row[nkey:len(t.Row)]...)
	values = append(values, ts)
	q := cqldriver.Query{Stmt: t.Release, Values: values, SerialConsistency: o.SerialConsistency}
	reply := Sinks(len(t.Row) - nkey + 1)
	applied, err := s.ExecCAS(ctx, q, reply...)
	if err != nil || applied {
		return err
	}
	// A claim of the entity's written outside the protocol has no
	// cqlgen_claim, which "cqlgen_claim < ?" never matches: give it the
	// version before the change's, then release it.
	cells := make([][]byte, len(reply))
	for i, r := range reply {
		cells[i] = *r.(*value.Cell)
	}
	owner := cells[:len(cells)-1]
	if cells[len(cells)-1] != nil || !sameOwner(t, row[nkey:len(t.Row)], owner) {
		return nil
	}
	cur := &claimRow{Cols: append(make([][]byte, nkey), owner...)}
	if ok, err := Take(ctx, s, o, t, key, row[nkey:len(t.Row)], ts-1, cur); !ok || err != nil {
		return err
	}
	_, err = s.ExecCAS(ctx, q, Sinks(len(reply))...)
	return err
}

// claimRow is a claim as read: the table's Row columns, encoded, and the
// version of its claim.
type claimRow struct {
	Cols    [][]byte
	Version int64
}

func ReadClaim(ctx context.Context, s cqlgen.Session, t *desc.Table, key []any) (*claimRow, error) {
	n := len(t.Row)
	cells := make([]value.Cell, n)
	dest := make([]any, n+1)
	for i := range cells {
		dest[i] = &cells[i]
	}
	var version *int64
	dest[n] = &version
	it := s.Iter(ctx, cqldriver.Query{Stmt: t.Get, Values: key})
	ok := it.Scan(dest...)
	if err := it.Close(); err != nil {
		return nil, err
	}
	if !ok {
		return nil, cqlgen.ErrNotFound
	}
	r := &claimRow{Cols: make([][]byte, n)}
	for i, c := range cells {
		r.Cols[i] = c
	}
	if version != nil {
		r.Version = *version
	}
	return r, nil
}

// sameOwner reports whether values (Go values) encode as the cells read,
// a frozen set or map (which Cassandra sorts) in Cassandra's order.
func sameOwner(t *desc.Table, values []any, cells [][]byte) bool {
	nkey := len(t.Spec.PartitionKey) + len(t.Spec.Clustering)
	if len(values) != len(cells) {
		return false
	}
	for i, v := range values {
		typ, err := cqldriver.ParseType(t.Row[nkey+i].Type)
		if err != nil {
			return false
		}
		b, err := value.MarshalSorted(typ, v)
		if err != nil || !bytes.Equal(b, cells[i]) {
			return false
		}
	}
	return true
}

func keyNames(t *desc.Table) []string {
	var names []string
	for _, c := range append(append([]desc.Column(nil), t.Spec.PartitionKey...), t.Spec.Clustering...) {
		names = append(names, c.Name)
	}
	return names
}

// Sinks are the destinations of a conditional write's reply when it did
// not apply: read and thrown away (what matters is read again).
func Sinks(n int) []any {
	d := make([]any, n)
	for i := range d {
		d[i] = new(value.Cell)
	}
	return d
}

// Resolve reads the entity that holds key in the unique table
// ent.Projections[i]: the claim, then the owner's canonical row, which
// must hold the key (a claim left behind by a change that never landed
// does not count); cqlgen.ErrNotFound when no entity holds it.
func Resolve[P any](ctx context.Context, s cqlgen.Session, ent *desc.EntityOf[P], i int, key []any) (_ P, err error) {
	if err := AccordCheck(ent.Canonical, ctx, 0, false); err != nil {
		return value.None[P](), err // Cassandra 6's transactional mode (txn.go)
	}
	defer AccordEnd(ent.Canonical, &err)
	p := &ent.Projections[i]
	cur, err := ReadClaim(ctx, s, p.Table, key)
	if err != nil {
		return value.None[P](), err
	}
	owner := make([]any, len(p.Owner))
	for j, c := range p.Owner {
		owner[j] = cqldriver.Encoded(cur.Cols[c])
	}
	st, err := readState(ent, ctx, s, cqldriver.Query{Stmt: ent.Canonical.State, Values: owner})
	if err != nil {
		return value.None[P](), err
	}
	if st.Deleted || !desc.Holds(p, st.Row) || !desc.SameKey(p.Table, p.Key(st.Row), key) {
		return value.None[P](), cqlgen.ErrNotFound
	}
	return st.Row, nil
}
