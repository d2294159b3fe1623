package protocol

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/engine"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
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
//   - nothing, when the record no longer reaches back to old: more
//     changes came since than it keeps (see writesSpan), or the version
//     moved outside the protocol's changes.
//
// The read is retried (a failed read says nothing), within the caller's
// deadline. What is still unknown is returned with the lost write's
// description, which an idempotency key records: the next call with the
// key settles it again from there (resume).

// lostWrite describes a conditional write of the canonical row whose
// reply was lost: enough to settle it later.
type lostWrite struct {
	found bool      // the write expected a row (a grave included)
	old   int64     // the version the write expected, when found
	ts    int64     // the version it wrote
	id    [8]byte   // its attempt's id, listed with ts in the record
	sent  time.Time // when it was sent (see cqlgen.Options.LandWindow); zero: long ago
	// gone marks a write that removes the row (a delete in the
	// transactional mode, which leaves no grave): no row means it, or
	// another delete, applied.
	gone bool
	// applied marks a write known to have applied whose rows in other
	// tables may not all be written (appliedError): a later call with
	// the key completes them instead of running the command again.
	applied bool
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

// errTooManyChanges: the record of the last changes no longer reaches
// back to the lost write.
var errTooManyChanges = fmt.Errorf("%w: the record keeps the changes of the last %s (at least %d, at most %d), or a change outside the write protocol came",
	cqlgen.ErrTooManyChanges, writesSpan, writesKept, writesCap)

// settleOutcome settles w from the canonical row read at the serial
// level: version, the record of its last changes, and whether there was
// a row at all. known is false when the record cannot tell. unchanged
// reports a "not applied" that rests on the row being as w expected it,
// which w's own coordinator may still change (see lostWrite.sent); a "not
// applied" that rests on another change of the version w expected is
// final, as w's condition can never hold again.
func settleOutcome(w lostWrite, found bool, version int64, record []byte) (applied, known, unchanged bool) {
	if !found && w.gone {
		// The entity is gone, as the write would leave it.
		return true, true, false
	}
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

// settleReads bounds the failed serial reads of one settle, and
// settleBackoff spaces them.
const settleReads = 5

var settleBackoff = backoff{BaseDelay: 10 * time.Millisecond, MaxDelay: 500 * time.Millisecond}

// settlePoll spaces the serial reads of a settle that found the row as
// the write expected it within the land window: from 20ms, doubling, up
// to 250ms (about 15 reads in a 3s window).
func settlePoll(n int) time.Duration {
	return min(20*time.Millisecond<<min(n, 4), 250*time.Millisecond)
}

// settle learns whether the lost write w applied, from serial reads of
// the canonical row of e: a read at the serial level completes any Paxos
// round in flight on the row, or fences it off, so what it sees is final.
// A read that fails is tried again, with a pause, a fresh attempt the
// session may send to another node, up to settleReads times, within the
// caller's deadline (settleWait without one). A row found as w expected
// it, within the land window, is read again every settlePoll until it
// changes (the record then says at once whether w replaced it, with few
// changes since: a busy rival cannot push it out of the record while
// settle waits) or the window has passed (then "not applied" stands).
// known false comes with the reads made and why they could not settle it.
func settle[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, e P, w lostWrite) (applied, known bool, reads int, why error) {
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
	window := o.LandWindow
	if window <= 0 {
		window = cqlgen.DefaultLandWindow
	}
	failed, polls := 0, 0
	for {
		if base.Err() != nil {
			why = fmt.Errorf("%w before the read %d", base.Err(), reads+1)
			break
		}
		reads++
		start := time.Now()
		st, err := readState(ent, base, s, cqldriver.Query{Stmt: ent.Canonical.SerialRead, Values: ent.State(e)})
		found := err == nil
		if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
			why = err
			failed++
			if failed >= settleReads || !maybeApplied(err) && !errors.Is(err, cqlgen.ErrNoConnections) {
				break // too many failures, or refused as invalid: no read will do better
			}
			if err := settleBackoff.Wait(base, failed); err != nil {
				break
			}
			continue
		}
		applied, known, unchanged := settleOutcome(w, found, st.Version, st.Writes)
		if !known {
			return false, false, reads, errTooManyChanges
		}
		// A read that began once the window had passed since the write
		// was sent saw a row its coordinator can no longer change.
		if land := w.sent.Add(window).Sub(start); unchanged && land > 0 {
			// The row is as the write expected it, but its coordinator
			// may still land it: ask again, until it changes or the
			// write can no longer land.
			pause := min(land, settlePoll(polls))
			polls++
			if d, ok := base.Deadline(); ok && time.Until(d) < pause {
				why = fmt.Errorf("the row was as the write expected it, but the write could still land until %s after it was sent, past the deadline", window)
				break
			}
			if err := engine.Sleep(base, pause); err != nil {
				why = err
				break
			}
			continue
		}
		return applied, true, reads, nil
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

// appliedError is the error of a write whose change of the canonical row
// applied (w) and whose next steps, the rows of other tables and the
// release of unique keys, failed (err). The change stands: the next write
// of the entity, or a repair, completes them. A call with an idempotency
// key records w, so that the key's next call completes them too, and
// does not run the command again over what applied (a Modify would add
// its change twice, an Insert write over a later change).
type appliedError struct {
	err error
	w   lostWrite
}

func (a *appliedError) Error() string { return a.err.Error() }
func (a *appliedError) Unwrap() error { return a.err }

// Public is err as a caller sees it: a *cqlgen.WriteUnknownError without
// the lost write it carries inside the runtime, and the error of the
// steps that failed after a change applied.
func Public(err error) error {
	var u *unsettledError
	if errors.As(err, &u) {
		return u.WriteUnknownError
	}
	var a *appliedError
	if errors.As(err, &a) {
		return a.err
	}
	return err
}

// incomplete is the error a call with the key returns when the change w
// applied and writing what follows it failed (err): unsettled, with the
// record that makes the key's next call complete the change.
func incomplete(key string, w lostWrite, err error) error {
	w.applied = true
	return &cqlgen.OutcomeUnknownError{Key: key, Outcome: err, Settle: w.encode(),
		Err: fmt.Errorf("the change applied, but writing its rows in other tables failed: a call with the key completes them: %w", err)}
}

// keyed is err as an idempotency key's run returns it: a write whose
// outcome is still unknown becomes an *cqlgen.OutcomeUnknownError that
// records how to settle it, so that the key's next call does.
func keyed(key string, err error) error {
	var a *appliedError
	if errors.As(err, &a) {
		return incomplete(key, a.w, a.err)
	}
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
// flags (1: found, 2: gone, 4: applied), old, ts, when it was sent (Unix microseconds; 0:
// long ago) and the id.
const lostFormat = 1

func (w lostWrite) encode() []byte {
	b := []byte{lostFormat, 0}
	if w.found {
		b[1] = 1
	}
	if w.gone {
		b[1] |= 2
	}
	if w.applied {
		b[1] |= 4
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
	w.found, w.gone, w.applied = b[1]&1 != 0, b[1]&2 != 0, b[1]&4 != 0
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
// *cqlgen.OutcomeUnknownError to record again, with the same record. A
// write recorded as applied (appliedError) is not settled again: its
// change is completed, whatever changes came after it.
func resume[P any](ent *desc.EntityOf[P], ctx context.Context, s cqlgen.Session, o cqlgen.Options, key string, e P, rec []byte) (done bool, err error) {
	w, ok := decodeLost(rec)
	if !ok {
		return true, &cqlgen.OutcomeUnknownError{Key: key, Err: errors.New("the record of the earlier run's lost write is unreadable")}
	}
	applied, known, reads, why := w.applied, w.applied, 0, error(nil)
	if !w.applied {
		applied, known, reads, why = settle(ent, ctx, s, o, e, w)
	}
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
	if err == nil || errors.Is(err, cqlgen.ErrNotFound) {
		err = complete(ent, ctx, s, o, &st, found)
	}
	if err != nil {
		// Still to complete: the key's next call tries again.
		return true, incomplete(key, w, err)
	}
	return true, nil
}
