package impl

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
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
const writesKept = 32

// The record of the last changes, oldest first: a format byte, the number
// of changes, the first one's version; then per change, its version less
// the one before it (not for the first), the version it replaced (0: no
// row; 1: the change before it; n: its own version less n-1), and its id,
// 8 bytes. About 12 bytes a change, 400 for a full record.
const writesFormat = 1

// lostWrite describes a conditional write of the canonical row whose
// reply was lost: enough to settle it later.
type lostWrite struct {
	found bool      // the write expected a row (a grave included)
	old   int64     // the version the write expected, when found
	ts    int64     // the version it wrote
	id    [8]byte   // its attempt's id, listed with ts in the record
	sent  time.Time // when it was sent (see cqlgen.Options.LandWindow); zero: long ago
}

// The window in which a conditional write's coordinator may still land
// it (cqlgen.Options.LandWindow): a serial read fences off the Paxos
// round in flight, but not the coordinator, which starts a new round with
// a higher ballot and, nothing having changed the row, applies the write,
// until cas_contention_timeout has passed since the request arrived;
// that round's last messages may take up to write_request_timeout more.
// So a row found unchanged says "not applied" only once the window has
// passed since the write was sent; before, settle waits for it, within
// the caller's deadline, and reads again.

// newWriteID is a random id for one attempt of a change.
func newWriteID() [8]byte {
	var id [8]byte
	_, _ = rand.Read(id[:])
	return id
}

type writeEntry struct {
	version, prev int64 // prev 0: no row
	id            [8]byte
}

// decodeWrites reads a record of the last changes; a record it cannot
// read (none yet, or not written by this protocol) lists nothing.
func decodeWrites(b []byte) []writeEntry {
	if len(b) < 2 || b[0] != writesFormat {
		return nil
	}
	r := b[1:]
	next := func() (uint64, bool) {
		v, k := binary.Uvarint(r)
		if k <= 0 {
			return 0, false
		}
		r = r[k:]
		return v, true
	}
	n, ok := next()
	if !ok || n == 0 || n > writesKept {
		return nil
	}
	first, ok := next()
	if !ok || first > math.MaxInt64 {
		return nil
	}
	out := make([]writeEntry, 0, n)
	version := int64(first)
	for i := range n {
		if i > 0 {
			d, ok := next()
			if !ok || d == 0 || d > uint64(math.MaxInt64-version) {
				return nil
			}
			version += int64(d)
		}
		p, ok := next()
		if !ok || len(r) < 8 {
			return nil
		}
		w := writeEntry{version: version}
		switch {
		case p == 1 && i == 0:
			return nil
		case p == 1:
			w.prev = out[i-1].version
		case p > 1:
			if p-1 > uint64(version) {
				return nil
			}
			w.prev = version - int64(p-1)
		}
		copy(w.id[:], r)
		r = r[8:]
		out = append(out, w)
	}
	if len(r) != 0 {
		return nil
	}
	return out
}

// appendWrite is the record of the last changes after the change w.
func appendWrite(record []byte, w lostWrite) []byte {
	entries := decodeWrites(record)
	if len(entries) > 0 && entries[len(entries)-1].version >= w.ts {
		entries = nil // not ours to continue: start afresh
	}
	if len(entries) >= writesKept {
		entries = entries[len(entries)-writesKept+1:]
	}
	var prev int64
	if w.found {
		prev = w.old
	}
	entries = append(entries, writeEntry{version: w.ts, prev: prev, id: w.id})
	b := make([]byte, 0, 12+len(entries)*14)
	b = append(b, writesFormat)
	b = binary.AppendUvarint(b, uint64(len(entries)))
	b = binary.AppendUvarint(b, uint64(entries[0].version))
	for i, e := range entries {
		if i > 0 {
			b = binary.AppendUvarint(b, uint64(e.version-entries[i-1].version))
		}
		switch {
		case e.prev == 0:
			b = append(b, 0)
		case i > 0 && e.prev == entries[i-1].version:
			b = append(b, 1)
		default:
			b = binary.AppendUvarint(b, uint64(e.version-e.prev)+1)
		}
		b = append(b, e.id[:]...)
	}
	return b
}

// errTooManyChanges: the record of the last changes no longer reaches
// back to the lost write.
var errTooManyChanges = fmt.Errorf("%w: more than %d, or a change outside the write protocol", cqlgen.ErrTooManyChanges, writesKept)

// settleOutcome settles w from the canonical row read at the serial
// level: version, the record of its last changes, and whether there was
// a row at all. known is false when the record cannot tell. unchanged
// reports a "not applied" that rests on the row being as w expected it,
// which w's own coordinator may still change (see lostWrite.sent); a "not
// applied" that rests on another change of the version w expected is
// final, as w's condition can never hold again.
func settleOutcome(w lostWrite, found bool, version int64, record []byte) (applied, known, unchanged bool) {
	if !found {
		// Versions only grow and graves outlive any key: no row means
		// no change since w expected none.
		return false, !w.found, !w.found
	}
	var prev int64
	if w.found {
		prev = w.old
		if version == w.old {
			return false, true, true
		}
	}
	for _, e := range decodeWrites(record) {
		if e.version == w.ts && e.id == w.id {
			return true, true, false
		}
		if e.prev == prev {
			// Another change replaced the version w expected: w, on the
			// same condition, cannot have applied.
			return false, true, false
		}
	}
	return false, false, false
}

// settleWait bounds the serial reads of settle when the caller's context
// has no deadline. They run even when the caller's context was cancelled
// (not when its deadline passed): their answer is what the caller, or the
// idempotency key that ran it, is told.
const settleWait = 10 * time.Second

// settleReads bounds the serial reads of one settle, and settleBackoff
// spaces them.
const settleReads = 5

var settleBackoff = backoff{BaseDelay: 10 * time.Millisecond, MaxDelay: 500 * time.Millisecond}

// settle learns whether the lost write w applied, from serial reads of
// the canonical row of e: a read at the serial level completes any Paxos
// round in flight on the row, or fences it off, so what it sees is final.
// A read that fails is tried again, with a pause, a fresh attempt the
// session may send to another node, up to settleReads times, within the
// caller's deadline (settleWait without one). known false comes with the
// reads made and why they could not settle it.
func settle[P any](ent *entity[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, e P, w lostWrite) (applied, known bool, reads int, why error) {
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
		st, err := readState(ent, base, s, cqldriver.Query{Stmt: ent.Canonical.SerialRead, Values: ent.State(e)})
		found := err == nil
		if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
			why = err
			if !maybeApplied(err) && !errors.Is(err, cqlgen.ErrNoConnections) {
				break // refused as invalid: no read will do better
			}
			continue
		}
		applied, known, unchanged := settleOutcome(w, found, st.Version, st.Writes)
		if !known {
			return false, false, reads, errTooManyChanges
		}
		window := o.LandWindow
		if window <= 0 {
			window = cqlgen.DefaultLandWindow
		}
		if land := time.Until(w.sent.Add(window)); unchanged && land > 0 {
			// The row is as the write expected it, but its coordinator
			// may still land it: ask again once it no longer can.
			if d, ok := base.Deadline(); ok && time.Until(d) < land {
				why = fmt.Errorf("the row was as the write expected it, but the write could still land until %s after it was sent, past the deadline", window)
				break
			}
			if err := sleep(base, land); err != nil {
				why = err
				break
			}
			w.sent = time.Time{}
			continue
		}
		return applied, true, reads, nil
	}
	return false, false, reads, why
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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
	settle := u.w.encode()
	if errors.Is(u.Cause, cqlgen.ErrTooManyChanges) {
		settle = nil // it will never be known: say so for good
	}
	return &cqlgen.OutcomeUnknownError{Key: key, Outcome: u.WriteUnknownError, Err: u.WriteUnknownError, Settle: settle}
}

// The record of a lost write an idempotency key keeps: a format byte,
// flags (1: found), old, ts, when it was sent (Unix microseconds; 0:
// long ago) and the id.
const lostFormat = 1

func (w lostWrite) encode() []byte {
	b := []byte{lostFormat, 0}
	if w.found {
		b[1] = 1
	}
	b = binary.AppendUvarint(b, uint64(w.old))
	b = binary.AppendUvarint(b, uint64(w.ts))
	var sent uint64
	if !w.sent.IsZero() {
		sent = uint64(w.sent.UnixMicro())
	}
	b = binary.AppendUvarint(b, sent)
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
	if k2 <= 0 {
		return w, false
	}
	sent, k3 := binary.Uvarint(r[k1+k2:])
	if k3 <= 0 || len(r) != k1+k2+k3+8 || sent > math.MaxInt64 {
		return w, false
	}
	w.old, w.ts = int64(old), int64(ts)
	if sent != 0 {
		w.sent = time.UnixMicro(int64(sent))
	}
	copy(w.id[:], r[k1+k2+k3:])
	return w, true
}

// resume settles, for an idempotency key's next call, the write an
// earlier run with the key lost the reply of (its record, rec). Applied:
// it completes what the change left pending and reports done. Not applied:
// done false, and the caller runs the command. Still unknown: the
// *cqlgen.OutcomeUnknownError to record again, with the same record.
func resume[P any](ent *entity[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, key string, e P, rec []byte) (done bool, err error) {
	w, ok := decodeLost(rec)
	if !ok {
		return true, &cqlgen.OutcomeUnknownError{Key: key, Err: errors.New("the record of the earlier run's lost write is unreadable")}
	}
	applied, known, reads, why := settle(ent, ctx, s, o, e, w)
	switch {
	case !known:
		we := &cqlgen.WriteUnknownError{Table: ent.Canonical.Spec.Name, Err: errors.New("by an earlier call with the key"), Reads: reads, Cause: why}
		settle := rec
		if errors.Is(why, cqlgen.ErrTooManyChanges) {
			settle = nil // it will never be known: say so for good
		}
		return true, &cqlgen.OutcomeUnknownError{Key: key, Outcome: we, Err: we, Settle: settle}
	case !applied:
		return false, nil
	}
	// Applied: its rows elsewhere may not all be written yet.
	st, err := readState(ent, ctx, s, cqldriver.Query{Stmt: ent.Canonical.PreRead, Values: ent.State(e)})
	found := err == nil
	if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
		return true, err
	}
	return true, complete(ent, ctx, s, o, &st, found)
}
