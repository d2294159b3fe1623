package engine

import (
	"bytes"
	"cmp"
	"context"
	"fmt"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// NewSession makes a Session that runs statements with d. A nil opts
// takes the defaults.
//
// The session sets each statement's consistency from its kind, marks it
// idempotent or not as its Statement says, and runs it with the retry
// policy described at cqlgen.SessionOptions.MaxAttempts. It never asks for speculative
// execution: generated writes would be safe to send twice, but each
// speculative branch runs its own retries, so the attempt budget and the
// load a slow cluster gets would multiply.
func NewSession(d cqldriver.Driver, opts *cqlgen.SessionOptions) cqldriver.Session {
	var o cqlgen.SessionOptions
	if opts != nil {
		o = *opts
	}
	o.ReadConsistency = cmp.Or(o.ReadConsistency, cqldriver.LocalQuorum)
	o.WriteConsistency = cmp.Or(o.WriteConsistency, cqldriver.LocalQuorum)
	o.SerialConsistency = cmp.Or(o.SerialConsistency, cqldriver.LocalSerial)
	r := retryOf(&o).withDefaults()
	o.MaxAttempts, o.BaseDelay, o.MaxDelay = r.MaxAttempts, r.BaseDelay, r.MaxDelay
	o.BatchWarnBytes = cmp.Or(o.BatchWarnBytes, cqlgen.DefaultBatchWarnBytes)
	o.BatchFailBytes = cmp.Or(o.BatchFailBytes, cqlgen.DefaultBatchFailBytes)
	g := &session{d: d, opts: o}
	g.calls, _ = o.Observer.(cqlobserve.CallObserver)
	return g
}

// session is the Session NewSession makes.
type session struct {
	d     cqldriver.Driver
	opts  cqlgen.SessionOptions
	calls cqlobserve.CallObserver // opts.Observer, when it observes calls too
}

// checkSerial refuses, before anything is sent, a conditional statement
// or a serial read whose serial level is not one (Levels.Serial, SessionOptions,
// WithSerialConsistency): gocql v1 would send it for Cassandra to refuse,
// the v2 driver panics.
func (g *session) checkSerial(ctx context.Context, q cqldriver.Query, kind cqldriver.StatementKind) error {
	if kind != cqldriver.Conditional && kind != cqldriver.SerialRead {
		return nil
	}
	if l := g.levels(ctx, q); !l.Serial.IsSerial() {
		return &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "Levels.Serial", Reason: fmt.Sprintf("%v is not a serial consistency level; use Serial or LocalSerial", l.Serial)}
	}
	return nil
}

// request builds the driver request of one pass of q.
func (g *session) request(ctx context.Context, q cqldriver.Query, e *execution) *cqldriver.Request {
	e.pass()
	r := &e.req
	*r = cqldriver.Request{CQL: q.Stmt.CQL, Values: q.Values, Idempotent: q.Stmt.Idempotent, Hooks: e}
	l := g.levels(ctx, q)
	switch q.Stmt.Kind {
	case cqldriver.Read, cqldriver.PreRead, cqldriver.SerialRead:
		r.Consistency = l.Read
		if q.Stmt.Kind == cqldriver.SerialRead {
			r.Consistency = l.Serial
		}
		// A read is one page: nothing runs the query again after Iter
		// returns.
		r.Paged, r.PageSize, r.PageState = true, q.PageSize, q.PageState
	case cqldriver.Write:
		r.Consistency = l.Write
	case cqldriver.Conditional:
		r.Consistency, r.SerialConsistency = l.Write, l.Serial
	}
	return r
}

func (g *session) Exec(ctx context.Context, q cqldriver.Query) error {
	if err := g.checkSerial(ctx, q, q.Stmt.Kind); err != nil {
		return err
	}
	e := g.start(ctx, q.Stmt, nil)
	for {
		err := g.d.Exec(ctx, g.request(ctx, q, e))
		if err == nil || !e.again(err) {
			return e.end(err)
		}
	}
}

func (g *session) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	if err := g.checkSerial(ctx, q, q.Stmt.Kind); err != nil {
		return errIter{err}
	}
	e := g.start(ctx, q.Stmt, nil)
	for {
		it := g.d.Iter(ctx, g.request(ctx, q, e))
		if it.Columns() > 0 {
			// A result with rows, or at least their metadata: no error.
			e.end(nil)
			return it
		}
		err := it.Close() // only peeks: Close can be called again
		if err == nil || !e.again(err) {
			if err = e.end(err); err == nil {
				return it
			}
			return errIter{err}
		}
	}
}

// errIter is the Iter of a read that failed.
type errIter struct{ err error }

func (errIter) Scan(...any) bool  { return false }
func (errIter) PageState() []byte { return nil }
func (it errIter) Close() error   { return it.err }

func (g *session) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	if err := g.checkSerial(ctx, q, q.Stmt.Kind); err != nil {
		return false, err
	}
	e := g.start(ctx, q.Stmt, nil)
	for {
		applied, err := g.d.ScanCAS(ctx, g.request(ctx, q, e), dest...)
		if err == nil || !e.again(err) {
			return applied, e.end(err)
		}
	}
}

// ExecCASMap runs a conditional write and, when it did not apply, puts the
// row's current values in current, by column name. See CAS.
func (g *session) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	if err := g.checkSerial(ctx, q, q.Stmt.Kind); err != nil {
		return false, err
	}
	e := g.start(ctx, q.Stmt, nil)
	for {
		clear(current)
		err := g.d.MapScanCAS(ctx, g.request(ctx, q, e), current)
		if err == nil || !e.again(err) {
			if err = e.end(err); err != nil {
				return false, err
			}
			applied, ok := current[casApplied].(bool)
			if !ok {
				return false, fmt.Errorf("cqlgen: %s: %s is not a conditional write: no [applied] column", q.Stmt.Table, q.Stmt.Pattern)
			}
			delete(current, casApplied)
			return applied, nil
		}
	}
}

const casApplied = "[applied]"

func (g *session) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	if len(qs) == 0 {
		return nil
	}
	size := EstimateBatchBytes(qs)
	if g.opts.BatchFailBytes > 0 && size > g.opts.BatchFailBytes {
		return g.refuse(ctx, qs, size, &cqlgen.InputError{Err: cqlgen.ErrBatchTooLarge, Reason: fmt.Sprintf("%d statements of about %d bytes, over the %d-byte limit; use the concurrent strategy for rows this large", len(qs), size, g.opts.BatchFailBytes)})
	}
	for _, q := range qs {
		if err := g.checkSerial(ctx, q, q.Stmt.Kind); err != nil {
			return err
		}
	}
	if kind == cqldriver.Unlogged {
		if err := g.samePartition(ctx, qs); err != nil {
			return g.refuse(ctx, qs, size, err)
		}
	}
	e := g.start(ctx, nil, qs)
	e.bytes = size
	for {
		e.pass()
		l := g.levels(ctx, cqldriver.Query{})
		e.batchReq = cqldriver.BatchRequest{
			Logged: kind == cqldriver.Logged, Queries: qs,
			Consistency: l.Write, SerialConsistency: l.Serial, Hooks: e,
		}
		err := g.d.Batch(ctx, &e.batchReq)
		if err == nil || !e.again(err) {
			return e.end(err)
		}
	}
}

// refuse reports a batch refused before sending to the observer.
func (g *session) refuse(ctx context.Context, qs []cqldriver.Query, size int, err error) error {
	if g.opts.Observer != nil {
		g.observeBatch(ctx, qs, size, attemptOf{err: err})
	}
	return err
}

// samePartition checks that every statement of an unlogged batch writes
// the same partition: the same keyspace and the same routing key, which
// gocql derives from the prepared statements' partition key columns. Such
// a batch is one mutation, applied atomically and in isolation on each
// replica; across partitions an unlogged batch is a set of independent
// writes that a coordinator failure can leave half done, with no batch log
// to finish them.
func (g *session) samePartition(ctx context.Context, qs []cqldriver.Query) error {
	var first []byte
	var keyspace string
	for i, q := range qs {
		ks, key, err := g.d.RoutingKey(ctx, q.Stmt.CQL, q.Values)
		switch {
		case err != nil:
			return fmt.Errorf("cqlgen: unlogged batch: finding the partition of %s: %w", q.Stmt.Table, err)
		case key == nil:
			return &cqlgen.InputError{Err: cqlgen.ErrCrossPartition, Reason: qs[0].Stmt.Table + " and " + q.Stmt.Table + ": " + "its partition key cannot be told from the statement" + "; use LoggedBatch or Concurrent"}
		case i == 0:
			first, keyspace = key, ks
		case ks != keyspace || !bytes.Equal(key, first):
			return &cqlgen.InputError{Err: cqlgen.ErrCrossPartition, Reason: qs[0].Stmt.Table + " and " + q.Stmt.Table + ": " + "they write different partitions" + "; use LoggedBatch or Concurrent"}
		}
	}
	return nil
}
