package cqlgen

import (
	"encoding/json"
	"fmt"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
	"maps"
	"slices"
	"strings"
)

// Errors that callers test with errors.Is. Those of a call refused for
// what it was given (ErrEmptyKey, ErrInvalidLimit, ErrInvalidOption,
// ErrInvalidCursor, ErrVectorDimension, ErrBatchTooLarge,
// ErrCrossPartition, ErrIdempotencyConflict) come as an *InputError.
var (
	// ErrNotFound: the row asked for does not exist.
	ErrNotFound = base.ErrNotFound
	// ErrNotApplied: a conditional write did not apply. A *NotAppliedError
	// carries the current values; a *VersionConflictError says which
	// version an IfVersion or IfAbsent write found.
	ErrNotApplied = base.ErrNotApplied
	// ErrInvalidCursor: a cursor that is corrupt or belongs to another
	// query. An *InputError says why.
	ErrInvalidCursor = base.ErrInvalidCursor
	// ErrEmptyKey: a key value is empty or zero, so the statement would
	// address no row. An *InputError names the column.
	ErrEmptyKey = base.ErrEmptyKey
	// ErrBatchTooLarge: a batch exceeds the configured size limit and was
	// not sent. An *InputError gives the sizes.
	ErrBatchTooLarge = base.ErrBatchTooLarge
	// ErrKeyChanged: a Modify's change edited the entity's key in its
	// source of truth, which would make it another entity (Insert creates
	// one). Nothing was written.
	ErrKeyChanged = base.ErrKeyChanged
	// ErrNilEntity: a repository was handed a nil entity.
	ErrNilEntity = base.ErrNilEntity
	// ErrFenced: a command with an idempotency key ran, but its lease ran
	// out meanwhile and another call took the key over, which may run the
	// command again. A *FencedError says which key.
	ErrFenced = base.ErrFenced
	// ErrOutcomeUnknown: whether a write applied is not known. An
	// *OutcomeUnknownError says which idempotency key (the caller's
	// deadline passed before the outcome was known or recorded, or the
	// command itself ended so); a *WriteUnknownError which entity's write
	// (its conditional write lost its reply and serial reads could not
	// settle it); a counter update's error which counter update (see
	// ErrCounterNotApplied).
	ErrOutcomeUnknown = base.ErrOutcomeUnknown
	// ErrTooManyChanges: a write whose reply was lost cannot be settled
	// any more, because more changes of the entity came after it than the
	// record of its last changes keeps (see docs/repositories.md): the
	// record keeps every change within 10 s of the newest, at least 32 and
	// at most 1,024, so a settle or a keyed resend within 10 s of the lost
	// write meets it only when more than 1,024 changes came in that time
	// (or the version moved outside the write protocol). A
	// *WriteUnknownError's Cause matches it; the outcome stays unknown for
	// good.
	ErrTooManyChanges = base.ErrTooManyChanges
	// ErrDeletedSince: a Modify sent again with its idempotency key found
	// that the earlier call's change applied, and the entity has been
	// deleted since, so there is no entity to return. The change did
	// apply: unlike ErrNotFound, which it does not match, it says that
	// something was written.
	ErrDeletedSince = base.ErrDeletedSince
	// ErrInvalidLimit: a read's Limit is negative or above the maximum;
	// nothing was sent. An *InputError gives both; so does
	// one for a multi-get of more keys than allowed.
	ErrInvalidLimit = base.ErrInvalidLimit
	// ErrInvalidOption: an option a call cannot run with; nothing was
	// sent. An *InputError names it.
	ErrInvalidOption = base.ErrInvalidOption
	// ErrRetriesExhausted: every attempt failed. A *RetriesExhaustedError
	// wraps the last cause.
	ErrRetriesExhausted = base.ErrRetriesExhausted
)

// VersionConflictError reports a write with IfVersion or IfAbsent that
// found the entity elsewhere: changed (or deleted) since it was read, or,
// for IfAbsent, there. Nothing was written.
type VersionConflictError struct {
	Table    string // the entity's source of truth
	Expected int64  // the version expected; Absent for none
	Actual   int64  // the version found; Absent when there is no entity, 0 for an entity without versions (stored in one table)
}

func (e *VersionConflictError) Error() string {
	switch {
	case e.Expected == Absent && e.Actual == 0:
		return fmt.Sprintf("cqlgen: %s: a row with the key exists, and IfAbsent asked for none", e.Table)
	case e.Expected == Absent:
		return fmt.Sprintf("cqlgen: %s: the entity exists (version %d), and IfAbsent asked for none", e.Table, e.Actual)
	case e.Actual == Absent:
		return fmt.Sprintf("cqlgen: %s: the entity at version %d is gone", e.Table, e.Expected)
	}
	return fmt.Sprintf("cqlgen: %s: the entity changed since it was read: version %d, expected %d", e.Table, e.Actual, e.Expected)
}

// Is makes errors.Is(err, ErrNotApplied) true; and errors.Is(err,
// ErrNotFound) too when the entity expected is gone (deleted since it was
// read), as a write without the expectation would say.
func (e *VersionConflictError) Is(target error) bool {
	return target == ErrNotApplied || (target == ErrNotFound && e.Actual == Absent && e.Expected != Absent)
}

// UniqueConflictError reports a write that would give an entity a unique
// key (a table declared table:"...,unique") that another entity holds.
// Nothing of the write was applied. The key's values are not part of the
// error: they are often what must not show in logs (an email).
type UniqueConflictError struct {
	Table   string   // the unique table
	Columns []string // its key columns
}

func (e *UniqueConflictError) Error() string {
	return fmt.Sprintf("cqlgen: %s: another entity holds this %s", e.Table, strings.Join(e.Columns, ", "))
}

// Is makes errors.Is(err, ErrNotApplied) true.
func (e *UniqueConflictError) Is(target error) bool { return target == ErrNotApplied }

// NotAppliedError reports a conditional write that did not apply, with the
// values the row holds now (column name to value), as Cassandra returned
// them.
//
// Current can hold anything the row holds (a password hash, an email),
// so the error never prints it: Error, String, GoString (%#v) and
// MarshalJSON give the column names only. Read the values from Current
// itself, where they are needed.
type NotAppliedError struct {
	Table   string         // the conditional write's table
	Current map[string]any // the row's values now, by column; may be nil
	// Reason says why, where the write knows: for the write protocol,
	// the version each attempt expected and the one it found. It names
	// versions, never values.
	Reason string
}

// GoString shows the table and the columns of Current, not their values.
func (e *NotAppliedError) GoString() string {
	return fmt.Sprintf("&cqlgen.NotAppliedError{Table: %q, Current: %s}", e.Table, redacted(e.Current))
}

// MarshalJSON gives the table and the columns of Current, not their
// values.
func (e *NotAppliedError) MarshalJSON() ([]byte, error) {
	cols := slices.Sorted(maps.Keys(e.Current))
	return json.Marshal(struct {
		Table   string   `json:"table"`
		Columns []string `json:"current_columns,omitempty"`
	}{e.Table, cols})
}

func redacted(m map[string]any) string {
	if m == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("{")
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q: <redacted>", k)
	}
	b.WriteString("}")
	return b.String()
}

// Error names the table, and the reason where there is one.
func (e *NotAppliedError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("cqlgen: %s: conditional write not applied: %s", e.Table, e.Reason)
	}
	return fmt.Sprintf("cqlgen: %s: conditional write not applied", e.Table)
}

// Is makes errors.Is(err, ErrNotApplied) true.
func (e *NotAppliedError) Is(target error) bool { return target == ErrNotApplied }

// RetriesExhaustedError reports a statement that failed on every attempt.
//
// It is also returned when the context's deadline left no time for the
// next attempt, or the context ended during a wait: Last then wraps both
// the last cause and context.DeadlineExceeded or context.Canceled, so
// errors.Is finds either.
type RetriesExhaustedError struct {
	Attempts int   // attempts made, the first included
	Last     error // the last attempt's error
}

// Error gives the attempts and the last cause.
func (e *RetriesExhaustedError) Error() string {
	return fmt.Sprintf("cqlgen: gave up after %d attempts: %v", e.Attempts, e.Last)
}

// Is makes errors.Is(err, ErrRetriesExhausted) true.
func (e *RetriesExhaustedError) Is(target error) bool { return target == ErrRetriesExhausted }

// Unwrap returns the last cause.
func (e *RetriesExhaustedError) Unwrap() error { return e.Last }

// FencedError reports a command whose lease ran out while it ran: another
// call took its idempotency key over and may run the command again, so it
// may apply twice. Its own outcome is Outcome.
type FencedError struct {
	Key     string
	Outcome error // what the command returned
}

// Error names the key and the risk.
func (e *FencedError) Error() string {
	return fmt.Sprintf("cqlgen: idempotency key %q: the lease ran out while the command ran, and another call took the key over; the command may apply twice (make the lease longer than the command can take)", e.Key)
}

// Is makes errors.Is(err, ErrFenced) true.
func (e *FencedError) Is(target error) bool { return target == ErrFenced }

// ErrVectorDimension: a vector whose length is not its column's
// dimension. An *InputError names the column and both lengths.
var ErrVectorDimension = base.ErrVectorDimension

// WriteUnknownError reports a write of an entity kept by the write
// protocol whose conditional write on the source of truth lost its reply
// (a timeout, say) and whose outcome reads at the serial level could not
// settle: they failed (Reads of them, the last with Cause), or more
// changes of the entity than its record of the last changes keeps came
// in between. The change may have applied. errors.Is(err,
// ErrOutcomeUnknown) is true of it. Every table still converges (a later
// write or Repair finishes what the change left pending); what is unknown
// is whether this change is among them. Sent again under its idempotency
// key, the call settles it first (see docs/repositories.md).
type WriteUnknownError struct {
	Table string // the source of truth
	Err   error  // the conditional write's error
	Reads int    // the serial reads that tried to settle it
	Cause error  // why they could not: the last read's error, or what they found
	// Transaction: the write was a transaction of the transactional mode
	// (Cassandra 6, Accord), not the protocol's conditional write.
	Transaction bool
}

// Error says what happened: the reply lost, and why the reads that
// followed could not settle it.
func (e *WriteUnknownError) Error() string {
	why := "no serial read could run"
	switch {
	case e.Reads == 1:
		why = "the serial read that followed could not settle it"
	case e.Reads > 1:
		why = fmt.Sprintf("%d serial reads could not settle it", e.Reads)
	}
	if e.Cause != nil {
		why += fmt.Sprintf(" (%v)", e.Cause)
	}
	what := "conditional write"
	if e.Transaction {
		what = "transaction"
	}
	return fmt.Sprintf("cqlgen: %s: the %s's reply was lost (%v) and %s: whether it applied is unknown", e.Table, what, e.Err, why)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true.
func (e *WriteUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap gives the conditional write's error and why it could not be
// settled.
func (e *WriteUnknownError) Unwrap() []error { return []error{e.Err, e.Cause} }

// OutcomeUnknownError reports a command with an idempotency key whose
// outcome this call cannot tell: it ran the command and could not record
// its outcome before the caller's deadline (Outcome is what it returned);
// another call held the key until the deadline; or the command itself
// could not tell whether it applied (Err says why). Calling again with the
// same key gives the outcome once it is known: recorded, settled from
// what the command recorded (Settle), or the holder's lease run out.
type OutcomeUnknownError struct {
	Key     string
	Outcome error // what this call's run returned, when it ran the command
	Err     error // why the outcome is unknown
	// Settle, set by the command, is what a later call with the key needs
	// to learn whether it applied: the runtime records it with the key and
	// hands it to that call's run. Nil: it cannot be
	// learned, and the key answers "unknown" from then on.
	Settle []byte
}

// Error names the key and what happened.
func (e *OutcomeUnknownError) Error() string {
	return fmt.Sprintf("cqlgen: idempotency key %q: outcome unknown: %v", e.Key, e.Err)
}

// Is makes errors.Is(err, ErrOutcomeUnknown) true.
func (e *OutcomeUnknownError) Is(target error) bool { return target == ErrOutcomeUnknown }

// Unwrap gives the cause.
func (e *OutcomeUnknownError) Unwrap() error { return e.Err }

// ErrIdempotencyConflict: an idempotency key was used again with another
// payload. An *InputError names the key.
var ErrIdempotencyConflict = base.ErrIdempotencyConflict

// ErrCounterNotApplied: a counter update failed in a way that proves it
// was not applied; it is safe to send again.
//
// A counter update adds to what is there, so sending it twice would count
// twice: it is sent once and never retried, by cqlgen or by gocql, and
// its error, which names the counter table and wraps what the session
// returned, says which of two things happened:
//
//   - errors.Is(err, ErrOutcomeUnknown): the update may or may not have
//     applied (a timeout, a write failure on a replica, a connection lost
//     after the request went out, the context ended while it was in
//     flight). Sending it again may count it twice; not sending it may
//     count it never. Only the caller can choose.
//   - errors.Is(err, ErrCounterNotApplied): it did not apply (no
//     connection, the cluster refused it as unavailable, overloaded or
//     bootstrapping, or an invalid request).
var ErrCounterNotApplied = base.ErrCounterNotApplied

// ErrPending is returned, wrapped, when a canonical row's pending record
// cannot be read: a row not written by cqlgen's write protocol.
var ErrPending = base.ErrPending

// InputError reports a call refused for what it was given, before
// anything was sent: an empty key value, a limit or a number of keys out
// of bounds, an option the call cannot run with, a cursor of another
// read, a vector of the wrong dimension, a batch too large or across
// partitions, an idempotency key used again with another payload. Nothing
// was read or written, and the same call fails the same way again.
//
// Err is the kind, one of the sentinels ErrEmptyKey, ErrInvalidLimit,
// ErrInvalidOption, ErrInvalidCursor, ErrVectorDimension,
// ErrBatchTooLarge, ErrCrossPartition and ErrIdempotencyConflict, which
// errors.Is matches:
//
//	if errors.Is(err, cqlgen.ErrInvalidCursor) { // a stale or forged cursor: start over
//		page, err = repo.TracksByAlbum(ctx, album, nil)
//	}
type InputError struct {
	Err   error  // the kind: one of the sentinels above
	Table string // the table the call addresses; "" when none is concerned
	// Name is what was wrong: the empty key column or the vector's column
	// (of Table), the option (an Options field, or a read's parameter),
	// the access pattern a cursor was given to; "" when Err says it.
	Name   string
	Reason string // why, for a person; "" when Err says it
}

// Error gives the kind, what was wrong and why.
func (e *InputError) Error() string {
	msg := "cqlgen: invalid input"
	if e.Err != nil {
		msg = e.Err.Error()
	}
	switch {
	case e.Table != "" && e.Name != "":
		msg += ": " + e.Table + "." + e.Name
	case e.Table != "":
		msg += ": " + e.Table
	case e.Name != "":
		msg += ": " + e.Name
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Unwrap gives Err, the kind.
func (e *InputError) Unwrap() error { return e.Err }
