package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// The transactional mode (table:"...,canonical,transactional", Cassandra 6
// with Accord; docs/cassandra6.md). Each write of the entity is one
// transaction that
//
//   - reads the canonical row's version (LET cur) and the claim of each
//     unique key the change takes (LET claim_<table>);
//   - returns what it read (SELECT), since a transaction has no
//     [applied]: the client compares it with what it expected;
//   - if every row is as the write read it before (IF ... THEN), writes
//     the canonical row (or deletes it), deletes the rows of other tables
//     whose key the change moves or whose predicate it makes false,
//     inserts the new rows, takes the new claims and deletes the claims
//     given up.
//
// Nothing is left pending: no record, no fan-out, nothing to repair
// after a crash. The write's own read before (the pre-read) decides the
// shape of the transaction; the transaction's condition makes sure the
// shape still holds. The version is kept, and the record of the last
// changes (cqlgen_writes), so that IfVersion, Modify, idempotency keys
// and the settling of a lost reply work as under the protocol.
//
// Most of the code here is not generic: the generic part (txnWrite,
// txnImageOf, txnClaims, over P = *T as the protocol's, see
// docs/architecture.md) reads the entity's rows and turns the entity
// into a txnImage (values and, per table, whether it holds the entity,
// its key and its row); txnEntity builds and caches the statement of
// each shape of transaction, and decides from its reply.

// run sends the transaction of w and reports whether its condition held:
// the row it returns is what it read of each row it checked, in order.
func runTxn(x *desc.TxnEntity, ctx context.Context, s cqlgen.Session, o cqlgen.Options, w *desc.TxnPlan) (bool, error) {
	stmt, values := x.Statement(w)
	got := make([]*int64, len(w.Expects))
	dest := make([]any, len(got))
	for i := range got {
		dest[i] = &got[i]
	}
	it := s.Iter(ctx, cqldriver.Query{Stmt: stmt, Values: values, SerialConsistency: o.SerialConsistency, PageSize: cqldriver.Unpaged})
	ok := it.Scan(dest...)
	if err := it.Close(); err != nil {
		return false, txnLevelError(x, err)
	}
	if !ok {
		return false, fmt.Errorf("cqlgen: %s: the transaction returned no row", x.Canon.Spec.Name)
	}
	for i, e := range w.Expects {
		switch {
		case e.Absent && got[i] != nil, !e.Absent && (got[i] == nil || *got[i] != e.Version):
			return false, nil
		}
	}
	return true, nil
}

// accordTakes reports whether Accord takes level c for a statement's
// reads, writes or serial phase (of: "read", "write", "serial") on a table
// in the transactional mode. 6.0 refuses the others on every statement of
// such a table, reads included ("ConsistencyLevel LOCAL_QUORUM is
// unsupported with Accord for read, supported are [ONE, QUORUM, ALL,
// SERIAL]"; for write/commit it adds ANY, which cqlgen never sends). Zero
// is no level named: the one further out applies.
func accordTakes(of string, c cqldriver.Consistency) bool {
	switch c {
	case 0:
		return true
	case cqldriver.Serial:
		return true
	case cqldriver.One, cqldriver.Quorum, cqldriver.All:
		return of != "serial"
	}
	return false
}

// checkAccordLevels refuses, before anything is sent, a level Accord does
// not take on table (in the transactional mode) that the call named
// (WithLevels on ctx) or, for a write, the repository or the call
// (serial, WithSerialConsistency). A read checks the read level alone. A
// level of the session's is the server's to refuse (accordLevelError).
func checkAccordLevels(table string, ctx context.Context, serial cqldriver.Consistency, write bool) error {
	l, _ := ctx.Value(base.LevelsKey{}).(cqlgen.Levels)
	type named struct {
		of, name string
		level    cqldriver.Consistency
	}
	checks := []named{{"read", "WithLevels.Read", l.Read}}
	if write {
		checks = append(checks, named{"write", "WithLevels.Write", l.Write}, named{"serial", "WithLevels.Serial", l.Serial},
			named{"serial", "WithSerialConsistency", serial})
	}
	for _, c := range checks {
		if !accordTakes(c.of, c.level) {
			from := "the call's context (WithLevels)"
			if c.name == "WithSerialConsistency" {
				from = "the repository's or the call's options (WithSerialConsistency)"
			}
			return levelRefused(table, c.name, c.of, c.level.String(), from, "nothing was sent")
		}
	}
	return nil
}

// levelRefused is the *cqlgen.InputError of a level Accord does not take
// on table: name is where it was set, of what it is for, from where it
// came from, and then what happened.
func levelRefused(table, name, of, level, from, then string) error {
	return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Table: table, Name: name, Reason: fmt.Sprintf(
		"%s, a %s level from %s, but %s is in the transactional mode (Accord), which takes no %s level %s: use One, Quorum or All for reads and writes and Serial for the serial level (docs/cassandra6.md); %s",
		level, of, from, table, of, level, then)}
}

// accordLevelError is err, or, when the server refused a level Accord does
// not take on table (a level of the session's: the call's and the
// repository's were checked before sending), an *cqlgen.InputError that
// names it and the table.
func accordLevelError(table string, err error) error {
	if err == nil || errors.Is(err, cqlgen.ErrInvalidOption) {
		return err
	}
	msg := err.Error()
	i := strings.Index(msg, " is unsupported with Accord")
	if i < 0 {
		return err
	}
	level := msg[:i]
	if j := strings.LastIndex(level, "ConsistencyLevel "); j >= 0 {
		level = level[j+len("ConsistencyLevel "):]
	}
	of, name := "read", "SessionOptions.ReadConsistency"
	switch {
	case strings.HasPrefix(level, "LOCAL_SERIAL") || level == "SERIAL":
		of, name = "serial", "SessionOptions.SerialConsistency"
	case strings.HasPrefix(msg[i:], " is unsupported with Accord for write"):
		of, name = "write", "SessionOptions.WriteConsistency"
	}
	return levelRefused(table, name, of, level, "the session (SessionOptions, or SessionLevels)", "the server refused it: "+msg)
}

// levelError is accordLevelError on the entity's canonical table.
func txnLevelError(x *desc.TxnEntity, err error) error {
	return accordLevelError(x.Canon.Spec.Name, err)
}

// txnWrite is write in the transactional mode: one transaction per
// attempt, which the pre-read shapes and the transaction's condition
// checks; an attempt whose condition did not hold reads again. held, when
// not nil, is the canonical row as the caller has just read it (Modify):
// the first attempt starts from it instead of reading it again.
func txnWrite[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, op desc.Op, e P, held *desc.State[P]) error {
	x, t := ent.Txn, ent.Canonical
	if err := checkAccordLevels(t.Spec.Name, ctx, o.SerialConsistency, true); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		st := desc.State[P]{Row: ent.NewRow()}
		found := false
		if held != nil {
			st, found, held = *held, true, nil
		} else if attempt > 1 || op != desc.OpInsert || o.Attempts <= 1 || (o.Expect != 0 && o.Expect != cqlgen.Absent) {
			var err error
			st, err = readState(ent, ctx, s, cqldriver.Query{Stmt: t.PreRead, Values: ent.State(e)})
			found = err == nil
			if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
				return txnLevelError(x, err)
			}
		}
		// Else an Insert's first attempt expects a new entity without
		// reading: when there is a row, the condition fails and the next
		// attempt reads it.
		if found && len(st.Pending) > 0 {
			// Left pending by the write protocol, before the entity moved
			// to the transactional mode: complete it first, then read
			// again.
			if err := complete(ent, ctx, s, o, &st, found); err != nil {
				return err
			}
			continue
		}
		live := found && !st.Deleted
		if err := expected(ent, o, op, e, &st, live); err != nil {
			return err
		}
		next, ok := nextRow(ent, op, e, &st, live)
		if !ok {
			if op == desc.OpTouch {
				return nil
			}
			return cqlgen.ErrNotFound
		}
		if (value.IsNil(next) && !live) || (op != desc.OpTouch && live && !value.IsNil(next) && same(ent, st.Row, next)) {
			return nil // nothing to change: the write ran before, say
		}
		var oldVersion int64
		if found {
			oldVersion = st.Version
		}
		ts := nextVersion(oldVersion, desc.Now(o))
		var cur, nxt *desc.TxnImage
		if live {
			cur = txnImageOf(ent, st.Row, false)
		}
		expects := []desc.TxnExpect{{Table: -1, Key: ent.State(e), Absent: !found, Version: oldVersion}}
		if !value.IsNil(next) {
			nxt = txnImageOf(ent, next, !live)
			// The first attempt expects each new claim absent, as it
			// mostly is, without reading it; when one is not, the
			// condition fails and the next attempt reads the claims.
			optimistic := attempt == 1 && o.Attempts > 1 && op != desc.OpTouch
			claims, err := txnClaims(ent, ctx, s, cur, nxt, op == desc.OpTouch, optimistic)
			if err != nil {
				return txnLevelError(x, err)
			}
			expects = append(expects, claims...)
		}
		lost := lostWrite{found: found, old: oldVersion, ts: ts, id: newWriteID(), gone: value.IsNil(next)}
		w := x.Plan(cur, nxt, ts, appendWrite(st.Writes, lost), expects, op == desc.OpTouch)
		lost.sent = time.Now()
		held, err := runTxn(x, ctx, s, o, w)
		if err != nil && migrating(err) {
			// Refused while the table's ranges migrate to Accord, and yet
			// 6.0-alpha2 applied the refused transaction's writes
			// (docs/cassandra6.md): say which, never "not applied" alone.
			// A serial read fails there too (on a node running Paxos v1:
			// "Can't migrate from PaxosV1 to anything"): read the record of
			// the last changes at the read level; the refusal came after
			// the transaction ran, not while it could still land.
			applied, known := false, false
			cur, rerr := readState(ent, ctx, s, cqldriver.Query{Stmt: t.PreRead, Values: ent.State(e)})
			if rerr == nil || errors.Is(rerr, cqlgen.ErrNotFound) {
				applied, known, _ = settleOutcome(lost, rerr == nil, cur.Version, cur.Writes)
			}
			outcome := "its outcome is unknown"
			if known && applied {
				outcome = "it applied all the same"
			} else if known {
				outcome = "it did not apply"
			}
			return fmt.Errorf("cqlgen: %s: the migration of the table to Accord is not complete, so the transactional mode cannot write it yet (docs/cassandra6.md), and %s: %w", t.Spec.Name, outcome, err)
		}
		if err != nil {
			var in *cqlgen.InputError
			if !maybeApplied(err) || errors.As(err, &in) {
				return err
			}
			// The reply was lost: learn whether it applied, as the
			// protocol does, from the record of the last changes.
			applied, known, reads, why := settle(ent, ctx, s, o, e, lost)
			if !known {
				return &unsettledError{&cqlgen.WriteUnknownError{Table: t.Spec.Name, Err: err, Reads: reads, Cause: why, Transaction: true}, lost}
			}
			if !applied {
				return err
			}
			return nil
		}
		if held {
			return nil
		}
		if attempt >= o.Attempts {
			return &cqlgen.NotAppliedError{Table: t.Spec.Name, Reason: fmt.Sprintf("the transaction's condition failed on each of its %d attempts: the rows it checks changed each time", attempt)}
		}
		if err := casBackoff.Wait(ctx, attempt); err != nil {
			return err
		}
	}
}

// txnImageOf is e as the transaction writes it; unset leaves its nil
// pointers and empty collections unset (creating).
func txnImageOf[P any](ent *desc.EntityOf[P], e P, unset bool) *desc.TxnImage {
	img := &desc.TxnImage{Values: ent.Values(e, unset), Key: ent.State(e), Rows: make([]desc.TxnRow, len(ent.Projections))}
	for i := range ent.Projections {
		p := &ent.Projections[i]
		if !desc.Holds(p, e) {
			continue
		}
		img.Rows[i] = desc.TxnRow{Holds: true, Key: p.Key(e), Row: p.Row(e, 0, unset)}
	}
	return img
}

// txnClaims reads the claims of the unique keys next takes (all of them
// with touch), or, optimistic, expects each absent without reading it.
// Read, each is expected absent, or held by the entity itself, or
// held by another entity that no longer holds the key (a claim left
// behind by the write protocol), which the transaction takes over. A
// claim another entity holds is a *cqlgen.UniqueConflictError.
func txnClaims[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, cur, next *desc.TxnImage, touch, optimistic bool) ([]desc.TxnExpect, error) {
	var out []desc.TxnExpect
	for i := range ent.Projections {
		p := &ent.Projections[i]
		r := next.Rows[i]
		if !p.Unique || !r.Holds {
			continue
		}
		if !touch && cur != nil && cur.Rows[i].Holds && desc.SameKey(p.Table, cur.Rows[i].Key, r.Key) {
			continue // kept: already the entity's
		}
		if optimistic {
			out = append(out, desc.TxnExpect{Table: i, Key: r.Key, Absent: true})
			continue
		}
		t := p.Table
		nkey := len(t.Spec.PartitionKey) + len(t.Spec.Clustering)
		c, err := ReadClaim(ctx, s, t, r.Key)
		if errors.Is(err, cqlgen.ErrNotFound) {
			out = append(out, desc.TxnExpect{Table: i, Key: r.Key, Absent: true})
			continue
		}
		if err != nil {
			return nil, err
		}
		owner := make([]any, len(t.Row)-nkey)
		for j := range owner {
			owner[j] = cqldriver.Encoded(c.Cols[nkey+j])
		}
		if !sameOwner(t, r.Row[nkey:len(t.Row)], c.Cols[nkey:len(t.Row)]) {
			canonKey := make([]any, len(p.Owner))
			for j, k := range p.Owner {
				canonKey[j] = cqldriver.Encoded(c.Cols[k])
			}
			st, err := readState(ent, ctx, s, cqldriver.Query{Stmt: ent.Canonical.PreRead, Values: canonKey})
			if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
				return nil, err
			}
			if err == nil && !st.Deleted && desc.Holds(p, st.Row) && desc.SameKey(t, p.Key(st.Row), r.Key) {
				return nil, &cqlgen.UniqueConflictError{Table: t.Spec.Name, Columns: keyNames(t)}
			}
		}
		out = append(out, desc.TxnExpect{Table: i, Key: r.Key, Version: c.Version, Owner: owner})
	}
	return out, nil
}

// migrating reports the refusal of a transaction on a table whose move
// into Accord (ALTER TABLE ... WITH transactional_mode) is not complete.
func migrating(err error) bool {
	return strings.Contains(err.Error(), "before migration to Accord is complete")
}

// AccordCheck is checkAccordLevels for a call on t, nil unless t is in
// the transactional mode.
func AccordCheck(t *desc.Table, ctx context.Context, serial cqldriver.Consistency, write bool) error {
	if !t.Spec.Transactional {
		return nil
	}
	return checkAccordLevels(t.Spec.Name, ctx, serial, write)
}

// AccordEnd, deferred by a call on t, turns the server's refusal of a
// level of the session's into a *cqlgen.LevelError when t is in the
// transactional mode.
func AccordEnd(t *desc.Table, err *error) {
	if *err != nil && t.Spec.Transactional {
		*err = accordLevelError(t.Spec.Name, *err)
	}
}
