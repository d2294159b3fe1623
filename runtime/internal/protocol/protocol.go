package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/engine"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// The write protocol of an entity stored in several tables. Its contract
// is stated for users in docs/repositories.md; its vocabulary, the states
// of the canonical row, what each write does to them and the invariants
// I1-I15 that must hold whatever fails are in docs/protocol.md, which
// also lists the tests that check each.
//
// In short: every write of the canonical row is one conditional write on
// the version read, which also records the change's pending record; the
// fan-out to the other tables follows, at the version's timestamps; the
// next writer, or the same call run again, carries out what is pending.

// readState reads the canonical row that q selects, with the state's Row
// never nil: cqlgen.ErrNotFound when there is none.
func readState[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, q cqldriver.Query) (desc.State[P], error) {
	it := s.Iter(ctx, q)
	st, ok := ent.ScanCanonical(it)
	if err := oneRow(it, ok); err != nil {
		return desc.State[P]{Row: ent.NewRow()}, err
	}
	return st, nil
}

// Write runs one write of an entity through the protocol. With an
// idempotency key (cqlgen.WithIdempotencyKey), it applies at most once
// per key, as Apply does; a write whose outcome it could not
// settle is settled by the next call with the key (resume) before
// anything is written again.
func Write[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, ent *desc.EntityOf[P], op desc.Op, e P) error {
	if o.Idempotency.Key == "" {
		return Public(WriteOp(ctx, s, o, ent, op, e))
	}
	payload := engine.PayloadHash([]cqldriver.Query{{Stmt: ent.Canonical.Change, Values: append([]any{uint8(op)}, ent.Data(e)...)}})
	return engine.IdempotentSettle(ctx, s, o.Idempotency, desc.Now(o), payload, func(ctx context.Context, _ int64, settle []byte) error {
		if settle != nil {
			if done, err := resume(ent, ctx, s, o, o.Idempotency.Key, e, settle); done {
				return err
			}
		}
		return keyed(o.Idempotency.Key, WriteOp(ctx, s, o, ent, op, e))
	})
}

func WriteOp[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, ent *desc.EntityOf[P], op desc.Op, e P) error {
	return WriteFrom(ctx, s, o, ent, op, e, nil)
}

// WriteFrom is write whose first attempt starts from held, the canonical
// row as the caller has just read it (Modify), instead of reading it
// again; nil to read it.
//
// An Insert without held, expecting nothing or no entity, first tries the
// create without a read (docs/protocol.md, "A create without a read"):
// the conditional write an absent row gets, sent on the canonical table's
// Create, which conditions on every column the read would return being
// null. When it does not apply, its reply is that row: the write goes on
// from it as from its own read, and that first try is not counted among
// o.Attempts.
func WriteFrom[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, ent *desc.EntityOf[P], op desc.Op, e P, held *desc.State[P]) error {
	if ent.Txn != nil {
		// The transactional mode (txn.go) starts from a held row too.
		return txnWrite(ent, ctx, s, o, op, e, held)
	}
	t := ent.Canonical
	// With IfAbsent, an entity with unique tables reads first: the
	// direct try claims its keys before Create finds the entity there,
	// and the conflict IfAbsent then returns would leave the claims of
	// keys the entity does not hold behind it (docs/protocol.md, "A
	// create without a read"). Without IfAbsent, the write goes on from
	// the row Create returns, and the claims are the change's.
	direct := op == desc.OpInsert && held == nil && ent.Create != nil && (o.Expect == 0 || o.Expect == cqlgen.Absent && !claims(ent))
	for attempt := 1; ; attempt++ {
		var st desc.State[P]
		var found bool
		switch {
		case held != nil:
			st, found, held = *held, true, nil
		case direct:
			// Assume no row: Create checks it.
			st.Row = ent.NewRow()
		default:
			var err error
			st, err = readState(ent, ctx, s, cqldriver.Query{Stmt: t.PreRead, Values: ent.State(e)})
			found = err == nil
			if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
				return err
			}
		}
		live := found && !st.Deleted
		part, err := statics(ent, ctx, s, e, &st, found)
		if err != nil {
			return err
		}
		if err := expected(ent, o, op, e, &st, live); err != nil {
			return err
		}
		next, ok := nextRow(ent, op, e, &st, live)
		if !ok {
			if err := complete(ent, ctx, s, o, &st, found); err != nil || op == desc.OpTouch {
				return err
			}
			return cqlgen.ErrNotFound
		}
		if (value.IsNil(next) && !live) || (op != desc.OpTouch && live && st.Version != 0 && !value.IsNil(next) && same(ent, st.Row, next)) {
			// Nothing to change (a call run again after it applied, say):
			// complete what the last change left pending. A row without
			// a version (written outside the protocol) is changed all the
			// same: the change gives it a version and writes its rows in
			// every table, which nothing wrote before.
			return complete(ent, ctx, s, o, &st, found)
		}
		if found && len(st.Pending) > 0 {
			// This change replaces the pending record: carry out its
			// deletes first. Its inserts are superseded by this change's,
			// but for the rows of tables sharing the statics, whose static
			// cells hold other entities' values too.
			var shared []cqldriver.Query
			for _, p := range ent.Projections {
				if !st.Deleted && storesStatics(&p) && desc.Holds(&p, st.Row) {
					shared = append(shared, cqldriver.Query{Stmt: p.Table.Insert, Values: p.Row(st.Row, st.Version+1, false)})
				}
			}
			if err := carryOut(ent, ctx, s, o, st.Row, st.Pending, st.Version, shared...); err != nil {
				return err
			}
		}
		oldVersion := st.Version
		old := desc.Condition(oldVersion)
		// Past the statics' version too: the rows of other tables that
		// share them are written at versions in the order of the changes.
		ts := nextVersion(max(oldVersion, part.version), desc.Now(o))
		if !value.IsNil(next) {
			// Claim the unique keys the change gives the entity, first.
			for i := range ent.Projections {
				p := &ent.Projections[i]
				if !p.Unique || !desc.Holds(p, next) {
					continue
				}
				if op == desc.OpTouch || !live || !desc.Holds(p, st.Row) || !desc.SameKey(p.Table, p.Key(st.Row), p.Key(next)) {
					if err := Claim(ent, ctx, s, o, p, next, ts); err != nil {
						return err
					}
				}
			}
		}
		var moved []movedRow
		if live {
			for i, p := range ent.Projections {
				if !desc.Holds(&p, st.Row) {
					continue
				}
				k := p.Key(st.Row)
				if value.IsNil(next) || !desc.Holds(&p, next) || !desc.SameKey(p.Table, k, p.Key(next)) {
					moved = append(moved, movedRow{i, k})
				}
			}
		}
		pending, err := encodePending(ent, moved)
		if err != nil {
			return err
		}
		qs, releases := fanOutOf(ent, op, &st, live, next, moved, ts)
		lost := lostWrite{found: found, old: oldVersion, ts: ts, id: newWriteID()}
		c := desc.Change{TS: ts, Old: old, Pending: pending, Writes: appendWrite(st.Writes, lost), Unset: !live, Static: cqldriver.Unset}
		if part.version != 0 {
			c.OldStatic = part.version
		}
		if part.on && (staticsChangedBy(&part, ent, next) || sharesStatics(ent, qs)) {
			c.Static = ts
		}
		q := cqldriver.Query{Stmt: t.Remove}
		switch {
		case value.IsNil(next):
			q.Values = ent.Remove(e, c)
		case direct:
			q.Stmt, q.Values = t.Create, ent.Create(next, c)
		default:
			q.Stmt, q.Values = t.Change, ent.Change(next, c)
		}
		q.SerialConsistency = o.SerialConsistency
		lost.sent = time.Now()
		var applied bool
		reply := Sinks(conditions(ent))
		if direct {
			applied, held, err = createDirect(ent, ctx, s, q, e)
		} else {
			applied, err = s.ExecCAS(ctx, q, reply...)
		}
		if err != nil {
			if !maybeApplied(err) {
				return err
			}
			// The reply was lost, or the round timed out: it may have
			// applied. Learn which, or say it is unknown (with what a
			// later call with the idempotency key settles it from); a
			// caller that sends the call again must not apply it twice.
			known, reads, why := false, 0, error(nil)
			if applied, known, reads, why = settle(ent, ctx, s, o, e, lost); !known {
				return &unsettledError{&cqlgen.WriteUnknownError{Table: t.Spec.Name, Err: err, Reads: reads, Cause: why}, lost}
			}
			if !applied {
				// Settled: it did not apply, and cannot any more (its
				// condition no longer holds, or the land window has
				// passed). That is a conditional write that did not
				// apply: when it failed for a passing reason (a broken
				// connection, a timeout, an unavailable coordinator: see
				// transient), try again from a new read, as after a lost
				// race, while the attempts and the caller's deadline allow
				// (issue 35, goal 2). A create tries Create again.
				if !transient(err) || attempt >= o.Attempts || ctx.Err() != nil {
					return err
				}
				if casBackoff.Wait(ctx, attempt) != nil {
					return err
				}
				continue
			}
		}
		if !applied && direct {
			// A row is there (a live entity, a grave): go on from it, as
			// returned by Create (held), or read when the reply did not
			// hold it. What the try claimed is the entity's, as a try that
			// lost a race leaves it (see claim).
			direct = false
			attempt--
			continue
		}
		if !applied {
			if attempt >= o.Attempts {
				return raced(t, attempt, old, reply)
			}
			if err := casBackoff.Wait(ctx, attempt); err != nil {
				return err
			}
			continue
		}
		if err := fanOut(ctx, s, o, qs); err != nil {
			return &appliedError{err, lost}
		}
		for _, m := range releases {
			if err := release(ent, ctx, s, o, &ent.Projections[m.projection], e, m.key, ts); err != nil {
				return &appliedError{err, lost}
			}
		}
		return nil
	}
}

// claims reports whether the entity has unique tables, whose keys a
// change claims before its conditional write.
func claims[P any](ent *desc.EntityOf[P]) bool {
	for i := range ent.Projections {
		if ent.Projections[i].Unique {
			return true
		}
	}
	return false
}

// raced is the error of a write whose every attempt found the entity
// changed since its read: it says which version the last attempt
// expected and which the row held, from the conditional write's reply.
func raced(t *desc.Table, attempts int, expected any, reply []any) error {
	found := "none"
	if c, ok := reply[0].(*value.Cell); ok && len(*c) == 8 {
		found = strconv.FormatInt(int64(binary.BigEndian.Uint64(*c)), 10)
	} else if ok && *c == nil {
		found = "null"
	}
	want := "null (a row written outside the write protocol, or none)"
	if v, ok := expected.(int64); ok {
		want = strconv.FormatInt(v, 10)
	}
	return &cqlgen.NotAppliedError{Table: t.Spec.Name, Reason: fmt.Sprintf(
		"another writer changed the entity between each read and write, %d times: the last attempt expected version %s and found %s", attempts, want, found)}
}

// fanOutOf is what a change at ts writes after its conditional write:
// the deletes of the rows it moves and the inserts of its new rows, and
// the claims of unique tables it gives up.
func fanOutOf[P any](ent *desc.EntityOf[P], op desc.Op, st *desc.State[P], live bool, next P, moved []movedRow, ts int64) ([]cqldriver.Query, []movedRow) {
	var qs []cqldriver.Query
	var releases []movedRow
	for _, m := range moved {
		p := ent.Projections[m.projection]
		if p.Unique {
			releases = append(releases, m)
			continue
		}
		qs = append(qs, cqldriver.Query{Stmt: p.Table.Delete, Values: append([]any{ts}, m.key...)})
	}
	if !value.IsNil(next) {
		for i, p := range ent.Projections {
			if p.Unique || !desc.Holds(&p, next) {
				continue
			}
			if op != desc.OpTouch && live && st.Version != 0 && !movedHas(moved, i) && desc.Holds(&p, st.Row) && !storesStatics(&p) && sameRow(&p, st.Row, next) {
				// The row is what it was: a change of fields the table
				// does not store touches only the tables that do. (A
				// table sharing the statics gets the row all the same: its
				// static cells may lag behind another entity's change. An
				// entity written outside the protocol gets every row: no
				// change wrote them.)
				continue
			}
			qs = append(qs, cqldriver.Query{Stmt: p.Table.Insert, Values: p.Row(next, ts+1, !live)})
		}
	}
	return qs, releases
}

// partStatics is what a write knows of the statics of its row's
// partition, where the canonical table has static columns.
type partStatics[P any] struct {
	on      bool  // the canonical table has static columns
	row     P     // a row of the partition, which holds its statics; nil for none
	version int64 // their version; 0 for none
}

// statics reads the statics of e's partition: the row's own, read with
// it, or, when the row is not there, the partition's first row's.
func statics[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, e P, st *desc.State[P], found bool) (partStatics[P], error) {
	t := ent.Canonical
	switch {
	case t.Partition == nil:
		return partStatics[P]{}, nil
	case found:
		return partStatics[P]{on: true, row: st.Row, version: st.StaticVersion}, nil
	}
	p, err := readState(ent, ctx, s, cqldriver.Query{Stmt: t.Partition, Values: ent.State(e)[:len(t.Spec.PartitionKey)]})
	if errors.Is(err, cqlgen.ErrNotFound) {
		return partStatics[P]{on: true}, nil
	}
	if err != nil {
		return partStatics[P]{}, err
	}
	return partStatics[P]{on: true, row: p.Row, version: p.StaticVersion}, nil
}

// changedBy reports whether writing next sets the partition's statics
// to other values, or to values they had without a version.
func staticsChangedBy[P any](p *partStatics[P], ent *desc.EntityOf[P], next P) bool {
	if value.IsNil(next) {
		return false
	}
	if value.IsNil(p.row) || p.version == 0 {
		return true
	}
	var x, y []any
	var types []string
	a, b := ent.Data(p.row), ent.Data(next)
	for i, c := range ent.Canonical.Data {
		if c.Static {
			x, y, types = append(x, a[i]), append(y, b[i]), append(types, c.Type)
		}
	}
	return !value.SameEncoded(x, y, func(i int) string { return types[i] })
}

// sharesStatics reports whether qs write a row of a table that stores the
// statics too: its static cells are written at the change's timestamp,
// so the change moves the statics' version on, and the next change of
// the partition writes after it.
func sharesStatics[P any](ent *desc.EntityOf[P], qs []cqldriver.Query) bool {
	for _, q := range qs {
		for _, p := range ent.Projections {
			if q.Stmt == p.Table.Insert && storesStatics(&p) {
				return true
			}
		}
	}
	return false
}

// sharesStatics reports whether p stores static columns of the canonical
// table's, static there too under the same partition key.
func storesStatics[P any](p *desc.ProjectionOf[P]) bool {
	for _, c := range p.Table.Row {
		if c.Static {
			return true
		}
	}
	return false
}

// conditions is how many columns the canonical table's conditional
// writes compare: the version, and the statics' where there are some.
func conditions[P any](ent *desc.EntityOf[P]) int {
	if ent.Canonical.Partition != nil {
		return 2
	}
	return 1
}

// maybeApplied reports whether a conditional write that returned err may
// have applied: anything but an error that says the statement never ran
// (refused as invalid, or never sent).
func maybeApplied(err error) bool {
	if errors.Is(err, cqlgen.ErrNoConnections) {
		return false
	}
	if d := (*cqldriver.DriverError)(nil); errors.As(err, &d) && d.Kind == cqldriver.ErrorNotSent {
		return false
	}
	if code, ok := cqldriver.ServerCode(err); ok {
		switch code {
		case cqldriver.CodeSyntax, cqldriver.CodeInvalid, cqldriver.CodeUnauthorized, cqldriver.CodeConfig,
			cqldriver.CodeCredentials, cqldriver.CodeProtocol, cqldriver.CodeBootstrapping, cqldriver.CodeUnprepared:
			return false
		}
	}
	var in *cqlgen.InputError // refused before it was sent
	return !errors.As(err, &in)
}

// transient reports an error of a conditional write that says the
// cluster or the way to it failed for a while: a broken connection, no
// reply in time, no connection at all, a coordinator unavailable or
// overloaded, a timeout of the write or of its Paxos round. The session
// retries these for an idempotent statement; a conditional write, once
// settled as not applied (or one that is safe to send twice), may be tried
// again after them. Anything else (an error the program does not
// recognise, one from a hook, a refusal) is returned to the caller.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var d *cqldriver.DriverError
	if !errors.As(err, &d) {
		return cqldriver.IsConnError(err)
	}
	switch d.Kind {
	case cqldriver.ErrorConnection, cqldriver.ErrorNoResponse, cqldriver.ErrorNoConnections:
		return true
	case cqldriver.ErrorServer:
		switch d.Code {
		case cqldriver.CodeUnavailable, cqldriver.CodeOverloaded, cqldriver.CodeWriteTimeout,
			cqldriver.CodeReadTimeout, cqldriver.CodeCASWriteUnknown:
			return true
		}
		return false
	}
	return cqldriver.IsConnError(err)
}

// carryOut carries out what a pending record of the change at version
// asks: its deletes, with the statements more, then the release of the
// unique keys it gave up. e is the entity (its canonical key is all that
// is used).
func carryOut[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, e P, pending []byte, version int64, more ...cqldriver.Query) error {
	qs, releases, err := pendingDeletes(ent, pending, version)
	if err != nil {
		return err
	}
	if err := fanOut(ctx, s, o, append(qs, more...)); err != nil {
		return err
	}
	for _, m := range releases {
		if err := release(ent, ctx, s, o, &ent.Projections[m.projection], e, m.key, version); err != nil {
			return err
		}
	}
	return nil
}

// expected checks the version a write expects (IfVersion, IfAbsent)
// against what it read: a *VersionConflictError unless they agree or the
// entity already is what the write would make it (reapplied).
func expected[P any](ent *desc.EntityOf[P], o cqlgen.Options, op desc.Op, e P, st *desc.State[P], live bool) error {
	if o.Expect == 0 {
		return nil
	}
	actual := cqlgen.Absent
	if live {
		actual = desc.Seen(st)
	}
	if actual != o.Expect && !reapplied(ent, op, e, st, live) {
		return &cqlgen.VersionConflictError{Table: ent.Canonical.Spec.Name, Expected: o.Expect, Actual: actual}
	}
	return nil
}

// reapplied reports whether the entity already is what the write would
// make it: the write itself, run again after its reply was lost (or an
// identical one). An IfVersion or IfAbsent write that finds so is no
// conflict: it completes what is pending and succeeds, as any write run
// again does.
func reapplied[P any](ent *desc.EntityOf[P], op desc.Op, e P, st *desc.State[P], live bool) bool {
	switch {
	case op == desc.OpModify:
		return false
	case op == desc.OpDelete:
		return !live
	case !live || st.Version == 0:
		// No row, or one without a version: no earlier attempt of this
		// write made it.
		return false
	case same(ent, st.Row, e):
		return true
	}
	if op == desc.OpInsert && ent.Merge != nil {
		return same(ent, st.Row, ent.Merge(st.Row, e))
	}
	return false
}

type movedRow struct {
	projection int
	key        []any
}

func movedHas(moved []movedRow, projection int) bool {
	for _, m := range moved {
		if m.projection == projection {
			return true
		}
	}
	return false
}

// sameRow reports whether p's rows of a and b hold the same values, as
// Cassandra stores them. It answers false when it cannot tell.
func sameRow[P any](p *desc.ProjectionOf[P], a, b P) bool {
	cols := p.Table.Row
	x, y := p.Row(a, 0, false), p.Row(b, 0, false)
	if len(cols) == 0 || len(x) != len(cols)+1 {
		return false
	}
	return value.SameEncoded(x[:len(cols)], y[:len(cols)], func(i int) string { return cols[i].Type })
}

// Versioned reads the entity with e's key and its version, for a later
// write with cqlgen.IfVersion; cqlgen.ErrNotFound when there is none.
func Versioned[P any](ctx context.Context, s cqlgen.Session, ent *desc.EntityOf[P], e P) (P, int64, error) {
	return versioned(ctx, s, ent.Canonical.State, ent, e)
}

// versioned is Versioned with the statement to read with: State, or
// PreRead for a write's own read.
func versioned[P any](ctx context.Context, s cqlgen.Session, stmt *cqldriver.Statement, ent *desc.EntityOf[P], e P) (P, int64, error) {
	st, err := readState(ent, ctx, s, cqldriver.Query{Stmt: stmt, Values: ent.State(e)})
	if err != nil {
		return value.None[P](), 0, err
	}
	if st.Deleted {
		return value.None[P](), 0, cqlgen.ErrNotFound
	}
	return st.Row, desc.Seen(&st), nil
}

// ModifyEntity reads the entity with key's key, lets change edit it, and writes
// the result through the protocol if the entity is still at the version
// read; when another writer came first, it reads the entity again and
// calls change again, up to o.Attempts times, then returns the
// *cqlgen.VersionConflictError. An error from change is returned as it
// is, with nothing written, and so is check's (empty keys) on the edited
// entity. It returns the entity written.
//
// With an idempotency key, the whole of it applies at most once per key:
// a Modify run again after its reply was lost returns the entity as it
// is, without calling change again. When its conditional write lost its
// reply and serial reads cannot settle whether it applied (see settle),
// it returns an error matching cqlgen.ErrOutcomeUnknown, and the key
// records the lost write: the next call with the key settles it again,
// then returns the entity as it is (applied) or runs the call (not
// applied). Only when more changes than the record of the last changes
// keeps came in between does the key answer "unknown" for good: running
// change again could apply it twice.
//
// Change gets a copy of the entity read, but a shallow one: its slices
// and maps are the read's own, which nothing else holds.
func ModifyEntity[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, ent *desc.EntityOf[P], key P, check func(P) error, change func(P) error) (P, error) {
	if change == nil {
		return value.None[P](), &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "change", Reason: "nil; Modify needs a function that edits the entity"}
	}
	if o.Idempotency.Key == "" {
		out, err := modify(ctx, s, o, ent, key, check, change)
		return out, Public(err)
	}
	// The key names the request, whatever change makes of the entity: the
	// payload is the entity's canonical key alone.
	payload := engine.PayloadHash([]cqldriver.Query{{Stmt: ent.Canonical.State, Values: append([]any{uint8(desc.OpModify)}, ent.State(key)...)}})
	var out P
	inner := o
	inner.Idempotency.Key = ""
	err := engine.IdempotentSettle(ctx, s, o.Idempotency, desc.Now(o), payload, func(ctx context.Context, _ int64, settle []byte) error {
		if settle != nil {
			if done, err := resume(ent, ctx, s, inner, o.Idempotency.Key, key, settle); done {
				return err // applied (out stays nil: read below), or unknown still
			}
		}
		var err error
		out, err = modify(ctx, s, inner, ent, key, check, change)
		// A change made relative to the entity read may apply twice if
		// run again: the key records that it applied (its rows to
		// complete), or that its outcome is unknown and how to settle it.
		if keyed := keyed(o.Idempotency.Key, err); keyed != err {
			return keyed
		}
		if errors.Is(err, cqlgen.ErrOutcomeUnknown) {
			return &cqlgen.OutcomeUnknownError{Key: o.Idempotency.Key, Outcome: err, Err: err}
		}
		return err
	})
	if err != nil {
		return value.None[P](), err
	}
	if value.IsNil(out) {
		// Applied before, by the call whose reply was lost.
		out, _, err = Versioned(ctx, s, ent, key)
		if errors.Is(err, cqlgen.ErrNotFound) {
			// Deleted since: saying "not found" would say the change
			// never applied.
			return value.None[P](), fmt.Errorf("%w (idempotency key %q)", cqlgen.ErrDeletedSince, o.Idempotency.Key)
		}
	}
	return out, err
}

func modify[P any](ctx context.Context, s cqlgen.Session, o cqlgen.Options, ent *desc.EntityOf[P], key P, check func(P) error, change func(P) error) (P, error) {
	for attempt := 1; ; attempt++ {
		// One read serves both: the state the write starts from, and a
		// copy of its row of its own for change to edit.
		st, cur, err := readTwice(ent, ctx, s, key)
		if err != nil {
			return value.None[P](), err
		}
		if st.Deleted {
			return value.None[P](), cqlgen.ErrNotFound
		}
		version := desc.Seen(&st)
		k := ent.State(cur)
		if err := change(cur); err != nil {
			return value.None[P](), err
		}
		if !value.SameEncoded(k, ent.State(cur), func(i int) string { return ent.Canonical.KeyColumn(i).Type }) {
			return value.None[P](), cqlgen.ErrKeyChanged
		}
		if err := check(cur); err != nil {
			return value.None[P](), err
		}
		w := o
		w.Expect = version
		err = WriteFrom(ctx, s, w, ent, desc.OpModify, cur, &st)
		var conflict *cqlgen.VersionConflictError
		if !errors.As(err, &conflict) || conflict.Actual == cqlgen.Absent || attempt >= o.Attempts {
			if err != nil {
				return value.None[P](), err
			}
			return cur, nil
		}
		if err := casBackoff.Wait(ctx, attempt); err != nil {
			return value.None[P](), err
		}
	}
}

// complete carries out a change left pending: the deletes it recorded, and
// the rows the canonical row implies, at the change's own timestamps;
// then it clears the record, unless another change came first (which
// then carried it out).
func complete[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, st *desc.State[P], found bool) error {
	if !found || len(st.Pending) == 0 {
		return nil
	}
	var qs []cqldriver.Query
	if !st.Deleted {
		for _, p := range ent.Projections {
			if !p.Unique && desc.Holds(&p, st.Row) {
				qs = append(qs, cqldriver.Query{Stmt: p.Table.Insert, Values: p.Row(st.Row, st.Version+1, false)})
			}
		}
	}
	if err := carryOut(ent, ctx, s, o, st.Row, st.Pending, st.Version, qs...); err != nil {
		return err
	}
	// The clear sets the record to null if the row is still at the
	// version: sent twice, it leaves what once leaves, so a lost reply
	// for a passing reason (transient) is sent again (the session never
	// re-sends a conditional write that was sent), while the attempts and
	// the caller's deadline allow.
	q := cqldriver.Query{Stmt: ent.Canonical.Settle, Values: ent.Settle(st.Row, st.Version), SerialConsistency: o.SerialConsistency}
	for attempt := 1; ; attempt++ {
		var ignored int64
		_, err := s.ExecCAS(ctx, q, &ignored)
		if err == nil || !transient(err) || attempt >= o.Attempts || ctx.Err() != nil || casBackoff.Wait(ctx, attempt) != nil {
			return err
		}
	}
}

// fanOut writes the statements of a change under the strategy. A change
// already recorded in the canonical row must go out: when the strategy
// refuses them before sending anything (a batch too large, an unlogged
// batch over several partitions), they go out one by one.
func fanOut(ctx context.Context, s cqlgen.Session, o cqlgen.Options, qs []cqldriver.Query) error {
	if len(qs) == 0 {
		return nil
	}
	err := o.Strategy.Apply(ctx, s, qs)
	if errors.Is(err, cqlgen.ErrBatchTooLarge) || errors.Is(err, cqlgen.ErrCrossPartition) {
		return cqlgen.Concurrent(cqlgen.DefaultConcurrency).Apply(ctx, s, qs)
	}
	return err
}

// same reports whether two entities' canonical rows hold the same values,
// as Cassandra stores them.
func same[P any](ent *desc.EntityOf[P], a, b P) bool {
	x, cols := ent.Data(a), ent.Canonical.Data
	if len(x) != len(cols) {
		return false
	}
	return value.SameEncoded(x, ent.Data(b), func(i int) string { return cols[i].Type })
}

// The pending record: a format byte, the number of rows, and per row the
// index of its projection and its primary key values, each as CQL encodes
// it (so a reader needs no Go type to delete the row).
const pendingFormat = 1

// Every change records one, even when it moves no row: its presence says
// that the change's rows in the other tables may not all be written yet.
func encodePending[P any](ent *desc.EntityOf[P], moved []movedRow) ([]byte, error) {
	b := []byte{pendingFormat}
	b = binary.AppendUvarint(b, uint64(len(moved)))
	for _, m := range moved {
		t := ent.Projections[m.projection].Table
		b = binary.AppendUvarint(b, uint64(m.projection))
		b = binary.AppendUvarint(b, uint64(len(m.key)))
		for i, v := range m.key {
			typ, err := cqldriver.ParseType(t.KeyColumn(i).Type)
			if err != nil {
				return nil, err
			}
			raw, err := cqldriver.Marshal(typ, v)
			if err != nil {
				return nil, fmt.Errorf("cqlgen: %s: key column %s: %w", t.Spec.Name, t.KeyColumn(i).Name, err)
			}
			b = binary.AppendUvarint(b, uint64(len(raw)))
			b = append(b, raw...)
		}
	}
	return b, nil
}

// pendingDeletes are the deletes a pending record asks for, at ts, and
// the claims of unique tables it gives up.
func pendingDeletes[P any](ent *desc.EntityOf[P], b []byte, ts int64) ([]cqldriver.Query, []movedRow, error) {
	bad := func(why string) ([]cqldriver.Query, []movedRow, error) {
		return nil, nil, fmt.Errorf("%w in %s: %s", cqlgen.ErrPending, ent.Canonical.Spec.Name, why)
	}
	if len(b) == 0 || b[0] != pendingFormat {
		return bad("unknown format")
	}
	r := b[1:]
	next := func() (int, bool) {
		v, n := binary.Uvarint(r)
		if n <= 0 || v > uint64(len(b)) {
			return 0, false
		}
		r = r[n:]
		return int(v), true
	}
	count, ok := next()
	if !ok {
		return bad("truncated")
	}
	var qs []cqldriver.Query
	var releases []movedRow
	for range count {
		i, ok1 := next()
		n, ok2 := next()
		if !ok1 || !ok2 || i >= len(ent.Projections) {
			return bad("no such table")
		}
		t := ent.Projections[i].Table
		if n != len(t.Spec.PartitionKey)+len(t.Spec.Clustering) {
			return bad("a key of the wrong length for " + t.Spec.Name)
		}
		values := []any{ts}
		for range n {
			l, ok := next()
			if !ok || l > len(r) {
				return bad("truncated")
			}
			values = append(values, cqldriver.Encoded(r[:l]))
			r = r[l:]
		}
		if ent.Projections[i].Unique {
			releases = append(releases, movedRow{i, values[1:]})
			continue
		}
		qs = append(qs, cqldriver.Query{Stmt: t.Delete, Values: values})
	}
	if len(r) != 0 {
		return bad("trailing bytes")
	}
	return qs, releases, nil
}

// nextRow is what op makes of e over the canonical row st (live: the
// entity exists): the row to write, nil to delete. ok is false when
// there is no entity for op to change (an Update or Modify, or repair's
// touch, of none).
func nextRow[P any](ent *desc.EntityOf[P], op desc.Op, e P, st *desc.State[P], live bool) (next P, ok bool) {
	switch op {
	case desc.OpInsert:
		if live && ent.Merge != nil {
			return ent.Merge(st.Row, e), true
		}
	case desc.OpUpdate, desc.OpModify:
		if !live {
			return next, false
		}
	case desc.OpDelete:
		return value.None[P](), true
	case desc.OpTouch:
		return st.Row, live
	}
	return e, true
}

// casBackoff spaces out writers that lost a conditional write to each other.
var casBackoff = backoff{BaseDelay: 2 * time.Millisecond, MaxDelay: 500 * time.Millisecond}

// backoff paces the runtime's own retries, as SessionOptions' retry
// fields pace a session's.
type backoff engine.RetryOptions

// Wait sleeps for the backoff after the given number of failed attempts
// (from 1), or until ctx ends.
func (b backoff) Wait(ctx context.Context, failed int) error {
	return engine.Wait(ctx, engine.RetryOptions(b), failed)
}
