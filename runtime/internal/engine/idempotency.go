package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// IdempotencyTable is the table that records idempotency keys, in the
// keyspace of the session.
const IdempotencyTable = cqlspec.IdempotencyTable

// IdempotencyTableCQL creates IdempotencyTable. cqlgen appends it to every
// generated schema.cql; apply it once per keyspace before using
// idempotency keys.
const IdempotencyTableCQL = cqlspec.IdempotencyTableCQL

// Apply runs one logical write with strategy st (LoggedBatch when nil):
// build returns its statements for a write timestamp, and every statement
// must carry that timestamp. Without an idempotency key it is
// st.Apply(ctx, s, build(ts)). With one, it is Idempotent, with the
// payload fingerprint PayloadHash(build(0)): the statements as built for
// timestamp 0, so that resending a command at another time is not a
// conflict. build must therefore depend only on the command and the
// timestamp; it is called twice.
//
// Code of your own writes a command that way too:
//
//	err := cqlgen.Apply(ctx, s, cqlgen.LoggedBatch, base.Idempotency{Key: requestID},
//		cqlgen.Timestamp(time.Now()), func(ts int64) []cqlgen.Query {
//			return []cqlgen.Query{{Stmt: insertOrder, Values: []any{id, total, ts}}}
//		})
func Apply(ctx context.Context, s cqldriver.Session, st cqlgen.Strategy, id base.Idempotency, ts int64, build func(ts int64) []cqldriver.Query) error {
	if st == nil {
		st = cqlgen.LoggedBatch
	}
	if id.Key == "" {
		return st.Apply(ctx, s, build(ts))
	}
	return Idempotent(ctx, s, id, ts, PayloadHash(build(0)), func(ctx context.Context, ts int64) error {
		return st.Apply(ctx, s, build(ts))
	})
}

// ApplyOne is Apply for a write of one statement. Without an idempotency
// key, and with one of this package's strategies (each sends a lone
// statement with Session.Exec), it sends build(ts) as it is, without the
// slice Apply's build returns: one allocation fewer on every write of an
// entity stored in one table. Otherwise it is Apply.
func ApplyOne(ctx context.Context, s cqldriver.Session, st cqlgen.Strategy, id base.Idempotency, ts int64, build func(ts int64) cqldriver.Query) error {
	if id.Key == "" {
		switch st.(type) {
		case nil, interface{ OwnStrategy(base.Own) }:
			return s.Exec(ctx, build(ts))
		}
	}
	return Apply(ctx, s, st, id, ts, func(ts int64) []cqldriver.Query { return []cqldriver.Query{build(ts)} })
}

// Idempotent runs fn, a command identified by id.Key with payload
// fingerprint payload, so that it applies at most once within id.TTL.
// fn receives the write timestamp every statement it writes must carry:
// ts, or the timestamp the key was first claimed with when this call
// completes an earlier attempt.
//
// The states of a key, in IdempotencyTable: absent; pending (claimed by one
// caller, its owner, until the lease runs out); done (fn succeeded, or
// returned a *NotAppliedError, and that outcome is recorded).
//
//   - Absent: this call claims the key (INSERT ... IF NOT EXISTS), runs fn
//     and records the outcome. Of any number of concurrent calls, one
//     claims it.
//   - Done, same payload: fn is not run; the recorded outcome is returned:
//     nil, or a *NotAppliedError (without current values).
//   - Any state, another payload: an *InputError (ErrIdempotencyConflict); fn is not run.
//   - Pending, lease running: this call waits, polling, until the key is
//     done (and returns its outcome) or the lease runs out, or ctx ends.
//   - Pending, lease run out: the owner crashed or gave up. This call takes
//     the key over (a conditional update on the old owner, so one caller
//     does), and runs fn with the timestamp of the first claim, so that a
//     write made since by someone else, with a later timestamp, still
//     wins over the completed command.
//
// When fn fails with an *OutcomeUnknownError (it cannot tell whether it
// applied, and running it again could apply it twice, as a Modify's
// relative change would), that is recorded as the outcome: this call and
// every later one with the key get an *OutcomeUnknownError, and fn never
// runs again. (IdempotentSettle's fn can do better: it records how to
// settle it later.) When fn fails with any other error, the owner
// releases its lease, so that the next call with the key completes the
// command at once, and returns the error; nothing is recorded.
//
// The guarantee, precisely: within the TTL, fn runs to success at most
// once per key, and every call that returns nil, or the recorded
// *NotAppliedError, reports that one run. fn may start more than once: it
// runs again after a failed or interrupted run (which may have written
// some of its statements), and, if an owner overruns its lease, a second
// caller may run it alongside. So fn must be idempotent itself, as
// generated writes are (fixed keys, one client timestamp); a statement
// that is not, such as a counter update or a list append, may apply twice
// across such runs, though never twice within one (the session does not
// retry it). If fn succeeds but the outcome cannot be recorded (the
// cluster went away between the two), Idempotent still returns nil, and a
// later duplicate runs fn again with the same timestamp. Leases compare
// the owner's clock with the duplicate's: keep clocks synchronised well
// within the lease.
func Idempotent(ctx context.Context, s cqldriver.Session, id base.Idempotency, ts int64, payload []byte, fn func(ctx context.Context, ts int64) error) error {
	return IdempotentSettle(ctx, s, id, ts, payload, func(ctx context.Context, ts int64, _ []byte) error {
		return fn(ctx, ts)
	})
}

// IdempotentSettle is Idempotent for a command that, when it cannot tell
// whether it applied, can record what a later call needs to learn it:
// fn returns an *OutcomeUnknownError whose Settle holds that record. The
// key is then left unsettled, not done: the next call with it takes it
// over at once and runs fn with the record as settle (nil on any other
// run), and fn learns from it whether the earlier run applied, then
// reports that, or runs the command, or returns another
// *OutcomeUnknownError (the same record, or its own run's). Until then
// every call in between is such a next call: none is told "unknown" for
// good while the outcome can still be learned.
func IdempotentSettle(ctx context.Context, s cqldriver.Session, id base.Idempotency, ts int64, payload []byte, fn func(ctx context.Context, ts int64, settle []byte) error) error {
	if id.Key == "" {
		return &cqlgen.InputError{Err: cqlgen.ErrEmptyKey, Table: IdempotencyTable, Name: "key"}
	}
	if id.TTL <= 0 {
		id.TTL = base.DefaultIdempotencyTTL
	}
	if id.Lease <= 0 {
		id.Lease = base.DefaultIdempotencyLease
	}
	if id.TTL < id.Lease {
		// The record would expire while its owner still holds the lease,
		// and a duplicate would run the command alongside it.
		return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "Idempotency.TTL", Reason: fmt.Sprintf("%v is shorter than the lease, %v; a key must outlive the lease that claims it", id.TTL, id.Lease)}
	}
	owner, err := randomUUID()
	if err != nil {
		return err
	}
	c := claim{s: s, id: id, payload: payload, owner: owner, ttl: max(1, int(id.TTL/time.Second))}
	var failures, polls int
	for {
		now := time.Now()
		res, err := CAS(ctx, s, cqldriver.Query{Stmt: claimStmt, Values: []any{id.Key, payload, owner, ts, now.Add(id.Lease), c.ttl}, SerialConsistency: id.SerialConsistency})
		if err != nil {
			if err := c.stepFailed(ctx, err, &failures); err != nil {
				return err
			}
			continue
		}
		failures = 0
		if res.Applied {
			return c.run(ctx, ts, nil, fn)
		}
		r := readRecord(res.Current)
		switch {
		case !bytes.Equal(r.fingerprint, payload):
			return &cqlgen.InputError{Err: cqlgen.ErrIdempotencyConflict, Name: "key " + strconv.Quote(id.Key), Reason: "used before for another payload; nothing written"}
		case r.state != statePending && r.state != stateDone && r.state != stateUnsettled:
			// Not written by this runtime: no step could move it.
			return fmt.Errorf("cqlgen: idempotency key %q: record in %s has unknown state %q", id.Key, IdempotencyTable, r.state)
		case r.state == stateDone:
			return r.outcome(id.Key)
		case r.owner == owner && r.state == statePending:
			// Our own claim (or takeover) applied, but its reply was
			// lost and we asked again.
			return c.run(ctx, r.writeTS, r.settle(), fn)
		case r.state == statePending && now.Before(r.leaseUntil):
			polls++
			wait := min(pollDelay.backoff(polls), time.Until(r.leaseUntil)+time.Millisecond)
			if err := Sleep(ctx, wait); err != nil {
				return &cqlgen.OutcomeUnknownError{Key: id.Key, Err: fmt.Errorf("another call held the key until this call's context ended: %w", err)}
			}
		default:
			// A lease run out, or an outcome left to settle: take it over
			// (from the state seen, so that one caller does).
			take := cqldriver.Query{Stmt: leaseStmt, Values: []any{c.ttl, payload, owner, r.writeTS, now.Add(id.Lease), r.outcomeText, id.Key, r.owner}, SerialConsistency: id.SerialConsistency}
			if r.state == stateUnsettled {
				take.Stmt = resumeStmt
			}
			res, err := CAS(ctx, s, take)
			if err != nil {
				if err := c.stepFailed(ctx, err, &failures); err != nil {
					return err
				}
				continue // the claim above tells whether it applied
			}
			if res.Applied {
				return c.run(ctx, r.writeTS, r.settle(), fn)
			}
			// Someone else took it over, or finished: look again, after a
			// pause, as others may be contending for it too.
			polls++
			if err := Sleep(ctx, pollDelay.backoff(polls)); err != nil {
				return fmt.Errorf("cqlgen: idempotency key %q: taking over an abandoned attempt: %w", id.Key, err)
			}
		}
	}
}

// pollDelay paces a duplicate waiting for the owner of a key.
var pollDelay = retryOptions{BaseDelay: 10 * time.Millisecond, MaxDelay: 500 * time.Millisecond}

// maxStepFailures bounds the failed steps in a row (claims, takeovers,
// records) of one call, for contexts without a deadline.
const maxStepFailures = 8

const (
	statePending = "pending"
	stateDone    = "done"
	// stateUnsettled: the command ended with its outcome unknown, and
	// recorded in outcome how to learn it (settlePrefix and the record,
	// in base64); the next call takes the key over at once. The record
	// stays in outcome while that call holds the key.
	stateUnsettled = "unsettled"
	notApplied     = "not_applied:" // outcome prefix; the table follows
	unknown        = "unknown"      // the command ended with its outcome unknown, for good
	settlePrefix   = "settle:"
)

var (
	claimStmt = &cqldriver.Statement{
		CQL: "INSERT INTO " + IdempotencyTable + " (key, fingerprint, state, owner, write_ts, lease_until)" +
			" VALUES (?, ?, '" + statePending + "', ?, ?, ?) IF NOT EXISTS USING TTL ?",
		Table: IdempotencyTable, Pattern: "idempotency.claim", Kind: cqldriver.Conditional, Idempotent: true,
	}
	// leaseStmt moves a pending key's lease: to a new owner (a takeover),
	// or to the epoch (a release, by its owner). Outcome carries the
	// record of an earlier run to settle, if any, so that every cell of
	// the row expires together.
	leaseStmt = &cqldriver.Statement{
		CQL: "UPDATE " + IdempotencyTable + " USING TTL ?" +
			" SET fingerprint = ?, state = '" + statePending + "', owner = ?, write_ts = ?, lease_until = ?, outcome = ?" +
			" WHERE key = ? IF owner = ? AND state = '" + statePending + "'",
		Table: IdempotencyTable, Pattern: "idempotency.lease", Kind: cqldriver.Conditional, Idempotent: true,
	}
	// resumeStmt takes an unsettled key over, keeping its record.
	resumeStmt = &cqldriver.Statement{
		CQL: "UPDATE " + IdempotencyTable + " USING TTL ?" +
			" SET fingerprint = ?, state = '" + statePending + "', owner = ?, write_ts = ?, lease_until = ?, outcome = ?" +
			" WHERE key = ? IF owner = ? AND state = '" + stateUnsettled + "'",
		Table: IdempotencyTable, Pattern: "idempotency.resume", Kind: cqldriver.Conditional, Idempotent: true,
	}
	doneStmt = &cqldriver.Statement{
		CQL: "UPDATE " + IdempotencyTable + " USING TTL ?" +
			" SET fingerprint = ?, state = ?, owner = ?, write_ts = ?, lease_until = ?, outcome = ?" +
			" WHERE key = ? IF owner = ?",
		Table: IdempotencyTable, Pattern: "idempotency.done", Kind: cqldriver.Conditional, Idempotent: true,
	}
)

// claim is one call of Idempotent.
type claim struct {
	s       cqldriver.Session
	id      base.Idempotency
	payload []byte
	owner   uuidValue
	ttl     int // seconds
}

// run runs fn as the key's owner, with the record of an earlier run to
// settle, and records its outcome.
func (c *claim) run(ctx context.Context, ts int64, settle []byte, fn func(context.Context, int64, []byte) error) error {
	err := fn(ctx, ts, settle)
	state, outcome, final := outcomeOf(err)
	// The record must be written even if fn ended because the caller's
	// context did; it is worth nothing after the lease, nor to a caller
	// whose deadline passed.
	budget := c.id.Lease
	if d, ok := ctx.Deadline(); ok {
		budget = min(budget, max(time.Until(d), 0))
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	defer cancel()
	if !final {
		// Best effort: if the release fails, duplicates wait for the
		// lease to run out instead.
		_, _ = CAS(rctx, c.s, cqldriver.Query{Stmt: leaseStmt, Values: []any{c.ttl, c.payload, c.owner, ts, time.UnixMilli(0), settleText(settle), c.id.Key, c.owner}, SerialConsistency: c.id.SerialConsistency})
		return err
	}
	var failures int
	for {
		res, rerr := CAS(rctx, c.s, cqldriver.Query{Stmt: doneStmt, Values: []any{c.ttl, c.payload, state, c.owner, ts, time.UnixMilli(0), outcome, c.id.Key, c.owner}, SerialConsistency: c.id.SerialConsistency})
		switch {
		case rerr == nil && res.Applied:
			return err
		case rerr == nil:
			// Our lease ran out while fn ran, and another call took the
			// key over: it may run the command again.
			return &cqlgen.FencedError{Key: c.id.Key, Outcome: err}
		case c.stepFailed(rctx, rerr, &failures) != nil:
			if rctx.Err() != nil && ctx.Err() != nil {
				// The caller's deadline passed before the outcome was
				// recorded.
				return &cqlgen.OutcomeUnknownError{Key: c.id.Key, Outcome: err, Err: fmt.Errorf("the deadline passed before the outcome was recorded: %w", rerr)}
			}
			return err // the cluster is gone: fn's outcome stands
		}
	}
}

// stepFailed decides whether a failed step of the protocol may be tried
// again, and waits before it; it returns the error to give up with.
// Trying again is safe whatever the step's outcome: each step is
// conditional on the state the caller saw, and the caller recognises its
// own claim. Retrying here rather than in the session covers what the
// session must not retry in general: a conditional write's timeout.
func (c *claim) stepFailed(ctx context.Context, err error, failures *int) error {
	*failures++
	if code, ok := cqldriver.ServerCode(err); ok {
		switch code {
		case cqldriver.CodeSyntax, cqldriver.CodeInvalid, cqldriver.CodeUnauthorized, cqldriver.CodeConfig, cqldriver.CodeCredentials, cqldriver.CodeProtocol:
			return err
		}
	}
	if ctx.Err() != nil {
		// The caller's deadline ended the step: whether it applied (a
		// claim, a takeover) is as unknown as the command's outcome.
		return &cqlgen.OutcomeUnknownError{Key: c.id.Key, Err: fmt.Errorf("the context ended (%v) while a step of the key failed: %w", ctx.Err(), err)}
	}
	if *failures >= maxStepFailures || errors.Is(err, cqldriver.ErrSessionClosed) {
		return err
	}
	if serr := Sleep(ctx, pollDelay.backoff(*failures)); serr != nil {
		return err
	}
	return nil
}

// outcomeOf tells whether fn's result is a recordable outcome, and the
// key's state and outcome column that record it: success, a conditional
// write that did not apply, or an outcome unknown, to settle later or for
// good. Anything else is not recorded.
func outcomeOf(err error) (state, outcome string, final bool) {
	var na *cqlgen.NotAppliedError
	var ou *cqlgen.OutcomeUnknownError
	switch {
	case err == nil:
		return stateDone, "", true
	case errors.As(err, &na):
		return stateDone, notApplied + na.Table, true
	case errors.As(err, &ou) && ou.Settle != nil:
		// The next call with the key learns the outcome from the record.
		return stateUnsettled, settleText(ou.Settle), true
	case errors.As(err, &ou):
		// The command cannot tell whether it applied, and running it
		// again could apply it twice: every later call is told so.
		return stateDone, unknown, true
	}
	return "", "", false
}

type record struct {
	fingerprint []byte
	state       string
	owner       uuidValue
	writeTS     int64
	leaseUntil  time.Time
	outcomeText string
}

func readRecord(m map[string]any) record {
	var r record
	r.fingerprint, _ = m["fingerprint"].([]byte)
	r.state, _ = m["state"].(string)
	r.owner, _ = uuidOf(m["owner"])
	r.writeTS, _ = m["write_ts"].(int64)
	r.leaseUntil, _ = m["lease_until"].(time.Time)
	r.outcomeText, _ = m["outcome"].(string)
	return r
}

// settleText is the outcome column that keeps settle, the record of an
// earlier run to settle; "" for none.
func settleText(settle []byte) string {
	if settle == nil {
		return ""
	}
	return settlePrefix + base64.StdEncoding.EncodeToString(settle)
}

// settle is the record of how to settle an earlier run's outcome, kept
// in outcome while the key is unsettled or taken over from there; nil
// when there is none.
func (r record) settle() []byte {
	t, ok := strings.CutPrefix(r.outcomeText, settlePrefix)
	if !ok {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(t)
	if err != nil {
		return nil
	}
	return b
}

// outcome replays a recorded outcome.
func (r record) outcome(key string) error {
	if table, ok := strings.CutPrefix(r.outcomeText, notApplied); ok {
		return &cqlgen.NotAppliedError{Table: table}
	}
	if r.outcomeText == unknown {
		return &cqlgen.OutcomeUnknownError{Key: key, Err: errors.New("the call that ran the command could not tell whether it applied")}
	}
	return nil
}

// uuidValue is a uuid the runtime binds itself, whatever the driver.
type uuidValue [16]byte

func (u uuidValue) MarshalCQLValue(*cqldriver.Type) ([]byte, error) { return u[:], nil }

// randomUUID is a version 4 uuid.
func randomUUID() (uuidValue, error) {
	var u uuidValue
	if _, err := rand.Read(u[:]); err != nil {
		return u, err
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u, nil
}

// uuidOf is the 16 bytes of a uuid as a driver returns it: any array of
// 16 bytes (gocql's UUID, v1 or v2).
func uuidOf(v any) (uuidValue, bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Array || rv.Len() != 16 || rv.Type().Elem().Kind() != reflect.Uint8 {
		return uuidValue{}, false
	}
	var u uuidValue
	reflect.Copy(reflect.ValueOf(u[:]), rv)
	return u, true
}
