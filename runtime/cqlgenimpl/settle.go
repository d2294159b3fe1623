package cqlgenimpl

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Settling a conditional write whose reply was lost.
//
// Each change of the canonical row records, in cqlgen_writes and in the
// same conditional write, the last few changes of the entity: each one's
// version, the version it replaced, and a random id of the attempt. The
// write is conditional on the version read, with the record read beside
// it, so the record is exact: the change that replaced a version is the
// one listed with it. A writer that lost the reply of its write w (from
// version old to ts, with id) reads the row at the serial level, which
// completes or fences off any Paxos round in flight, and learns:
//
//   - applied, when (ts, id) is listed;
//   - not applied, when the row is still at old, or the record lists
//     another change that replaced old (only one change can replace a
//     version, and versions only grow), or there is no row where w
//     expected none;
//   - nothing, when more than writesKept changes came since (or the
//     version moved outside the protocol's changes): the record no longer
//     reaches back to old.
//
// The read is retried (a failed read says nothing), within the caller's
// deadline. What is still unknown is returned with the lost write's
// description, which an idempotency key records: the next call with the
// key settles it again from there (resume).

// writesKept is how many changes the record of an entity's last changes
// lists: a lost write can be settled as long as fewer changes followed it.
const writesKept = 16

// The record of the last changes: a format byte, the number of changes,
// and per change, oldest first, its version, how far it is from the
// version it replaced (0: it replaced no row) and its id, 8 bytes: about
// 19 bytes a change.
const writesFormat = 1

// lostWrite describes a conditional write of the canonical row whose
// reply was lost: enough to settle it later.
type lostWrite struct {
	found bool    // the write expected a row (a grave included)
	old   int64   // the version the write expected, when found
	ts    int64   // the version it wrote
	id    [8]byte // its attempt's id, listed with ts in the record
}

// newWriteID is a random id for one attempt of a change.
func newWriteID() [8]byte {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return id
}

type writeEntry struct {
	version, prev int64
	id            [8]byte
}

// decodeWrites reads a record of the last changes; a record it cannot
// read (none yet, or not written by this protocol) lists nothing.
func decodeWrites(b []byte) []writeEntry {
	if len(b) < 2 || b[0] != writesFormat {
		return nil
	}
	r := b[1:]
	n, k := binary.Uvarint(r)
	if k <= 0 || n > writesKept {
		return nil
	}
	r = r[k:]
	out := make([]writeEntry, 0, n)
	for range n {
		v, k1 := binary.Uvarint(r)
		if k1 <= 0 {
			return nil
		}
		p, k2 := binary.Uvarint(r[k1:])
		if k2 <= 0 || len(r) < k1+k2+8 {
			return nil
		}
		if p > v {
			return nil
		}
		var w writeEntry
		w.version = int64(v)
		if p > 0 {
			w.prev = int64(v - p)
		}
		copy(w.id[:], r[k1+k2:])
		out = append(out, w)
		r = r[k1+k2+8:]
	}
	return out
}

// appendWrite is the record of the last changes after the change w.
func appendWrite(record []byte, w lostWrite) []byte {
	entries := decodeWrites(record)
	if len(entries) >= writesKept {
		entries = entries[len(entries)-writesKept+1:]
	}
	var prev int64
	if w.found {
		prev = w.old
	}
	entries = append(entries, writeEntry{version: w.ts, prev: prev, id: w.id})
	b := make([]byte, 0, 2+len(entries)*(2*binary.MaxVarintLen64+8))
	b = append(b, writesFormat)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(e.version))
		gap := uint64(0)
		if e.prev > 0 {
			gap = uint64(e.version - e.prev)
		}
		b = binary.AppendUvarint(b, gap)
		b = append(b, e.id[:]...)
	}
	return b
}

// errTooManyChanges: the record of the last changes no longer reaches
// back to the lost write.
var errTooManyChanges = fmt.Errorf("the entity changed more than %d times since, or outside the write protocol", writesKept)

// settleOutcome settles w from the canonical row read at the serial
// level: version, the record of its last changes, and whether there was
// a row at all. known is false when the record cannot tell.
func settleOutcome(w lostWrite, found bool, version int64, record []byte) (applied, known bool) {
	if !found {
		// Versions only grow and graves outlive any key: no row means
		// no change since w expected none.
		return false, !w.found
	}
	var prev int64
	if w.found {
		prev = w.old
		if version == w.old {
			return false, true
		}
	}
	for _, e := range decodeWrites(record) {
		if e.version == w.ts && e.id == w.id {
			return true, true
		}
		if e.prev == prev {
			// Another change replaced the version w expected: w, on the
			// same condition, cannot have applied.
			return false, true
		}
	}
	return false, false
}

// settleWait bounds the serial reads of settle when the caller's context
// has no deadline. They run even when the caller's context was cancelled
// (not when its deadline passed): their answer is what the caller, or the
// idempotency key that ran it, is told.
const settleWait = 10 * time.Second

// settleReads bounds the serial reads of one settle, and settleBackoff
// spaces them.
const settleReads = 5

var settleBackoff = cqlgen.RetryOptions{BaseDelay: 10 * time.Millisecond, MaxDelay: 500 * time.Millisecond}

// settle learns whether the lost write w applied, from serial reads of
// the canonical row of e: a read at the serial level completes any Paxos
// round in flight on the row, or fences it off, so what it sees is final.
// A read that fails is tried again, with a pause, a fresh attempt the
// session may send to another node, up to settleReads times, within the
// caller's deadline (settleWait without one). known false comes with the
// reads made and why they could not settle it.
func (ent *Entity[T]) settle(ctx context.Context, s cqlgen.Session, o cqlgen.Options, e *T, w lostWrite) (applied, known bool, reads int, why error) {
	base := context.WithoutCancel(ctx)
	var cancel context.CancelFunc
	if d, ok := ctx.Deadline(); ok {
		base, cancel = context.WithDeadline(base, d)
	} else {
		base, cancel = context.WithTimeout(base, settleWait)
	}
	defer cancel()
	if o.SerialConsistency != 0 {
		base = cqlgen.WithLevels(base, cqlgen.Levels{Serial: o.SerialConsistency})
	}
	for reads < settleReads {
		if reads > 0 {
			if err := settleBackoff.Wait(base, reads); err != nil {
				break
			}
		}
		if base.Err() != nil {
			why = fmt.Errorf("%w before the read %d", base.Err(), reads+1)
			break
		}
		reads++
		st, err := getValue(base, s, cqlgen.Query{Stmt: ent.Canonical.SerialRead, Values: ent.State(e)}, ent.ScanState)
		found := err == nil
		if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
			why = err
			if !maybeApplied(err) && !errors.Is(err, cqlgen.ErrNoConnections) {
				break // refused as invalid: no read will do better
			}
			continue
		}
		if applied, known = settleOutcome(w, found, st.Version, st.Writes); known {
			return applied, true, reads, nil
		}
		return false, false, reads, errTooManyChanges
	}
	return false, false, reads, why
}

// unsettledError is a *cqlgen.WriteUnknownError with the lost write it
// is about, for an idempotency key to record.
type unsettledError struct {
	*cqlgen.WriteUnknownError
	w lostWrite
}

func (u *unsettledError) Unwrap() error { return u.WriteUnknownError }

// public is err as a caller sees it: a *cqlgen.WriteUnknownError without
// the lost write it carries inside the runtime.
func public(err error) error {
	var u *unsettledError
	if errors.As(err, &u) {
		return u.WriteUnknownError
	}
	return err
}

// keyed is err as an idempotency key's run returns it: a write whose
// outcome is still unknown becomes an *cqlgen.OutcomeUnknownError that
// records how to settle it, so that the key's next call does.
func keyed(key string, err error) error {
	var u *unsettledError
	if !errors.As(err, &u) {
		return err
	}
	return &cqlgen.OutcomeUnknownError{Key: key, Outcome: u.WriteUnknownError, Err: u.WriteUnknownError, Settle: u.w.encode()}
}

// The record of a lost write an idempotency key keeps: a format byte,
// flags (1: found), old, ts and the id.
const lostFormat = 1

func (w lostWrite) encode() []byte {
	b := []byte{lostFormat, 0}
	if w.found {
		b[1] = 1
	}
	b = binary.AppendUvarint(b, uint64(w.old))
	b = binary.AppendUvarint(b, uint64(w.ts))
	return append(b, w.id[:]...)
}

func decodeLost(b []byte) (lostWrite, bool) {
	var w lostWrite
	if len(b) < 2 || b[0] != lostFormat {
		return w, false
	}
	w.found = b[1] == 1
	r := b[2:]
	old, k1 := binary.Uvarint(r)
	if k1 <= 0 {
		return w, false
	}
	ts, k2 := binary.Uvarint(r[k1:])
	if k2 <= 0 || len(r) != k1+k2+8 {
		return w, false
	}
	w.old, w.ts = int64(old), int64(ts)
	copy(w.id[:], r[k1+k2:])
	return w, true
}

// resume settles, for an idempotency key's next call, the write an
// earlier run with the key lost the reply of (its record, rec). Applied:
// it finishes what the change left pending and reports done. Not applied:
// done false, and the caller runs the command. Still unknown: the
// *cqlgen.OutcomeUnknownError to record again, with the same record.
func (ent *Entity[T]) resume(ctx context.Context, s cqlgen.Session, o cqlgen.Options, key string, e *T, rec []byte) (done bool, err error) {
	w, ok := decodeLost(rec)
	if !ok {
		return true, &cqlgen.OutcomeUnknownError{Key: key, Err: errors.New("the record of the earlier run's lost write is unreadable")}
	}
	applied, known, reads, why := ent.settle(ctx, s, o, e, w)
	switch {
	case !known:
		we := &cqlgen.WriteUnknownError{Table: ent.Canonical.Spec.Name, Err: errors.New("by an earlier call with the key"), Reads: reads, Cause: why}
		settle := rec
		if errors.Is(why, errTooManyChanges) {
			settle = nil // it will never be known: say so for good
		}
		return true, &cqlgen.OutcomeUnknownError{Key: key, Outcome: we, Err: we, Settle: settle}
	case !applied:
		return false, nil
	}
	// Applied: its rows elsewhere may not all be written yet.
	st, err := getValue(ctx, s, cqlgen.Query{Stmt: ent.Canonical.PreRead, Values: ent.State(e)}, ent.ScanState)
	found := err == nil
	if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
		return true, err
	}
	return true, ent.finish(ctx, s, o, &st, found)
}
