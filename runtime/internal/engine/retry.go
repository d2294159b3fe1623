package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// RetryOptions are the retry fields of cqlgen.SessionOptions
// (MaxAttempts, BaseDelay, MaxDelay), which cqlgenimpl's own backoffs
// take too.
type RetryOptions struct {
	MaxAttempts         int
	BaseDelay, MaxDelay time.Duration
}

// retryOptions are RetryOptions with the engine's methods.
type retryOptions RetryOptions

// retryOf is the retry options of o.
func retryOf(o *cqlgen.SessionOptions) retryOptions {
	return retryOptions{MaxAttempts: o.MaxAttempts, BaseDelay: o.BaseDelay, MaxDelay: o.MaxDelay}
}

func (r retryOptions) withDefaults() retryOptions {
	if r.MaxAttempts <= 0 {
		r.MaxAttempts = cqlgen.DefaultMaxAttempts
	}
	if r.BaseDelay <= 0 {
		r.BaseDelay = cqlgen.DefaultBaseDelay
	}
	if r.MaxDelay <= 0 {
		r.MaxDelay = cqlgen.DefaultMaxDelay
	}
	if r.MaxDelay < r.BaseDelay {
		r.MaxDelay = r.BaseDelay
	}
	return r
}

// backoffCap is the longest wait after the given number of failed
// attempts (from 1): BaseDelay doubled each time, capped at MaxDelay.
func (r retryOptions) backoffCap(failed int) time.Duration {
	d := r.BaseDelay
	for i := 1; i < failed && d < r.MaxDelay; i++ {
		d *= 2
	}
	return min(d, r.MaxDelay)
}

// backoff draws the wait after the given number of failed attempts. Full
// jitter (uniform from zero) rather than a jittered exponential spreads
// clients that failed together, e.g. when one node went away, so they do
// not come back in step.
func (r retryOptions) backoff(failed int) time.Duration {
	return time.Duration(jitter(int64(r.backoffCap(failed))))
}

// Wait sleeps for r's backoff after the given number of failed attempts
// (from 1): a uniformly random time below min(MaxDelay,
// BaseDelay·2^(failed-1)), zero fields taking the defaults. It returns
// early with the context's error when the context ends first.
func Wait(ctx context.Context, r RetryOptions, failed int) error {
	return Sleep(ctx, retryOptions(r).withDefaults().backoff(failed))
}

// jitter draws uniformly from [0, n); tests replace it.
var jitter = rand.Int64N

// Retryable reports whether err, returned by an attempt of a statement of
// the given kind, may be followed by another attempt, provided the
// statement is idempotent. next is true when the next attempt should go
// to another node. It reads the classification driver adapters give
// errors (*DriverError), and recognises broken connections below any
// driver.
//
//   - Read and write timeouts reported by the coordinator: yes, on the same
//     coordinator, which is alive; the replicas were slow. Except a write
//     timeout of a CAS (lightweight transaction) or counter write, and any
//     timeout of a conditional statement: Paxos may have committed, so a
//     second attempt could report "not applied" for a write that applied.
//   - Unavailable, overloaded: yes, on another node, except for
//     conditional statements: Cassandra 5.0's Paxos can raise either after
//     a proposal was accepted, so a retry could find its own write and
//     answer "not applied".
//   - Bootstrapping: yes, on another node; that coordinator ran nothing.
//   - No connection to any node: yes. Nothing was sent.
//   - A connection that broke or timed out client-side: yes, on another
//     node, except for conditional statements.
//   - Syntax, invalid request, unauthorized, configuration, read/write
//     failures on replicas, CAS_WRITE_UNKNOWN, context errors, and anything
//     not recognised: never.
func Retryable(err error, kind cqldriver.StatementKind) (retry, next bool) {
	cond := kind == cqldriver.Conditional
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false, false
	}
	var d *cqldriver.DriverError
	errors.As(err, &d)
	if d == nil {
		if cqldriver.IsConnError(err) {
			return !cond, !cond
		}
		return false, false
	}
	switch d.Kind {
	case cqldriver.ErrorNoConnections:
		return true, true
	case cqldriver.ErrorNoResponse, cqldriver.ErrorConnection:
		return !cond, !cond
	case cqldriver.ErrorServer:
		switch d.Code {
		case cqldriver.CodeUnavailable, cqldriver.CodeOverloaded:
			return !cond, !cond
		case cqldriver.CodeWriteTimeout:
			switch d.WriteType {
			case "CAS", "COUNTER":
				return false, false
			}
			return !cond, false
		case cqldriver.CodeReadTimeout:
			return !cond, false
		case cqldriver.CodeBootstrapping:
			return true, true
		}
		return false, false
	case cqldriver.ErrorOther:
		if cqldriver.IsConnError(err) {
			return !cond, !cond
		}
	}
	return false, false
}

// An execution is one call of a Session method: every attempt of one
// statement or batch. It is the AttemptHooks of that call's driver
// requests, which the adapter installs as the driver's retry policy and,
// when the session has an Observer, its observer.
//
// gocql (v1 and v2) consults one RetryPolicy with Attempt(query) and then
// GetRetryType(err), and never the other way round; a policy shared by all
// queries cannot see both the error and the query, nor tell its caller why
// it stopped. One execution per call, pooled so that the happy path
// allocates nothing for it, can: it decides in RetryType with the
// statement's kind and idempotency at hand, waits there, and leaves behind
// whether the caller should see a RetriesExhaustedError.
//
// gocql's executor walks a query plan of hosts and stops when the plan runs
// dry, even if the policy asked for another host (on a one-node cluster,
// after the first attempt), and it never consults the policy when no host
// had a connection. The session then re-issues the statement itself while
// the execution allows it, so the attempt budget and backoff hold across
// plans (see again).
type execution struct {
	s     *session
	ctx   context.Context
	stmt  *cqldriver.Statement // nil for a batch
	batch []cqldriver.Query    // a batch's statements
	bytes int                  // a batch's estimated size
	kind  cqldriver.StatementKind
	// idempotent is the statement's flag; Attempt also gets the driver's query's,
	// which is what it will actually send.
	idempotent bool

	// The pass's request, reused (their Hooks are the execution).
	req      cqldriver.Request
	batchReq cqldriver.BatchRequest

	prior     int  // attempts made by earlier passes (driver requests)
	attempts  int  // attempts made so far, the last failed one included
	consulted bool // the policy saw the last failure of this pass
	granted   bool // ...and allowed another attempt, after its wait
	exhausted bool // gave up because MaxAttempts were made
	observed  bool // the driver reported an attempt of this pass
	stopped   error
}

var executions = sync.Pool{New: func() any { return new(execution) }}

func (g *session) start(ctx context.Context, stmt *cqldriver.Statement, batch []cqldriver.Query) *execution {
	e := executions.Get().(*execution)
	e.s, e.ctx, e.stmt, e.batch = g, ctx, stmt, batch
	if stmt != nil {
		e.kind, e.idempotent = stmt.Kind, stmt.Idempotent
	} else {
		e.kind, e.idempotent = cqldriver.Write, true
		for _, q := range batch {
			e.idempotent = e.idempotent && q.Stmt.Idempotent
			if q.Stmt.Kind == cqldriver.Conditional {
				e.kind = cqldriver.Conditional
			}
		}
	}
	return e
}

// end returns the execution to the pool and the error the caller sees.
func (e *execution) end(err error) error {
	if err != nil {
		switch {
		case e.exhausted:
			err = &cqlgen.RetriesExhaustedError{Attempts: e.attempts, Last: err}
		case e.stopped != nil:
			err = &cqlgen.RetriesExhaustedError{Attempts: e.attempts, Last: fmt.Errorf("%w (%w)", err, e.stopped)}
		}
	}
	*e = execution{}
	executions.Put(e)
	return err
}

// pass starts one driver request.
func (e *execution) pass() { e.consulted, e.granted, e.observed = false, false, false }

// again decides, after a pass failed with err, whether to run another.
func (e *execution) again(err error) bool {
	if e.ctx.Err() != nil {
		return false
	}
	if e.granted {
		// The policy allowed another attempt, and has waited, but gocql's
		// query plan ran out of hosts: honour it with a new plan.
		e.prior = e.attempts
		return true
	}
	if e.consulted {
		return false
	}
	// The policy never saw this failure: the driver found no connection
	// to any host (no attempt), or the error ended the pass early.
	e.attempts = e.prior + 1
	if !e.observed && e.s.opts.Observer != nil {
		e.observe(attemptOf{n: e.attempts, err: err})
	}
	e.prior = e.attempts
	if !e.idempotent && !ranNothing(err) {
		return false
	}
	_, ok := e.decide(err)
	return ok
}

// ranNothing reports an error that proves the pass sent nothing: the
// driver found no connection to any host, so it attempted nothing (gocql
// and the v2 driver return ErrNoConnections only when their query plan
// gave them no host to send to). Sending the statement again then sends
// it once, whatever it is: a conditional write or a counter update, which
// are not idempotent, waits and tries again within the attempt budget
// and the caller's deadline like any statement. Only the session's own
// passes see it: the driver consults the retry policy after an attempt,
// and a statement not idempotent is never attempted twice in one pass, so
// every pass of such a statement before the last sent nothing either.
func ranNothing(err error) bool {
	var d *cqldriver.DriverError
	return errors.As(err, &d) && d.Kind == cqldriver.ErrorNoConnections
}

// Attempt is called by the driver after every failed attempt, before
// RetryType. gocql asks it even for queries not marked idempotent (only
// speculative execution checks the flag), so it checks the flag here.
func (e *execution) Attempt(attempts int, idempotent bool) bool {
	e.consulted, e.granted = true, false
	e.attempts = e.prior + attempts
	return idempotent
}

// RetryType classifies the error, waits, and tells the driver where to
// try next; Rethrow hands the error to the session.
func (e *execution) RetryType(err error) cqldriver.RetryType {
	rt, ok := e.decide(err)
	if !ok {
		return cqldriver.Rethrow
	}
	e.granted = true
	return rt
}

// decide applies the classification, the attempt budget and the deadline,
// and waits out the backoff. e.attempts must count the failed attempt.
func (e *execution) decide(err error) (cqldriver.RetryType, bool) {
	retry, next := Retryable(err, e.kind)
	if !retry {
		return cqldriver.Rethrow, false
	}
	r := retryOf(&e.s.opts)
	if e.attempts >= r.MaxAttempts {
		e.exhausted = true
		return cqldriver.Rethrow, false
	}
	d := r.backoff(e.attempts)
	if deadline, ok := e.ctx.Deadline(); ok && time.Until(deadline) <= d {
		// Waiting would end at or after the deadline, and the attempt
		// after it could not finish in time: give up now, not later.
		e.stopped = context.DeadlineExceeded
		return cqldriver.Rethrow, false
	}
	if err := Sleep(e.ctx, d); err != nil {
		e.stopped = err
		return cqldriver.Rethrow, false
	}
	if next {
		return cqldriver.RetryNextHost, true
	}
	return cqldriver.Retry, true
}

// Sleep waits for d or until ctx is done, and then returns its error.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Observed reports whether the driver should report attempts.
func (e *execution) Observed() bool { return e.s.opts.Observer != nil }

// Observe relays the driver's report of one attempt to the Observer.
func (e *execution) Observe(_ context.Context, a cqldriver.Attempt) {
	e.observed = true
	e.observe(attemptOf{
		n: e.prior + a.N + 1, latency: a.End.Sub(a.Start), err: a.Err,
		host: a.Host, keyspace: a.Keyspace, rows: a.Rows,
	})
}

// attemptOf is what the driver tells of one attempt.
type attemptOf struct {
	n        int
	latency  time.Duration
	err      error
	host     string
	keyspace string
	rows     int
}

func (e *execution) observe(a attemptOf) {
	call := callOf(e.ctx)
	if e.stmt != nil {
		o := cqlobserve.Observation{
			Table: e.stmt.Table, Pattern: e.stmt.Pattern, Kind: e.stmt.Kind,
			Attempt: a.n, Latency: a.latency, Err: a.err,
			Host: a.host, Keyspace: a.keyspace, Call: callName(call),
		}
		if a.err == nil {
			o.Rows = a.rows
		}
		count(call, o.Attempt, o.Kind, o.Rows, o.Err)
		e.s.opts.Observer.Observe(e.ctx, o)
		return
	}
	e.s.observeBatch(e.ctx, e.batch, e.bytes, a)
}

func (g *session) observeBatch(ctx context.Context, qs []cqldriver.Query, bytes int, a attemptOf) {
	warn := g.opts.BatchWarnBytes > 0 && bytes > g.opts.BatchWarnBytes
	call := callOf(ctx)
	count(call, a.n, cqldriver.Write, 0, a.err)
	host := a.host
	for _, q := range qs {
		g.opts.Observer.Observe(ctx, cqlobserve.Observation{
			Table: q.Stmt.Table, Pattern: q.Stmt.Pattern, Kind: q.Stmt.Kind,
			Attempt: a.n, Latency: a.latency, Err: a.err,
			Host: host, Keyspace: a.keyspace, Call: callName(call),
			Batch: len(qs), BatchBytes: bytes, BatchWarn: warn,
		})
	}
}
