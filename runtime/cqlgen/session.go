package cqlgen

import (
	"bytes"
	"context"
	"fmt"
)

// Session is everything generated code asks of Cassandra. It is
// deliberately narrow: generated repositories depend on it alone.
// NewSession makes one from a Driver, which a driver adapter supplies
// (gocqlv1.NewSession and gocqlv2.NewSession do both at once).
type Session interface {
	// Exec runs a statement that returns no rows.
	Exec(ctx context.Context, q Query) error
	// Iter runs a read and iterates over one page of its rows.
	Iter(ctx context.Context, q Query) Iter
	// ExecCAS runs a conditional write. When it did not apply, dest
	// receives the row's current values.
	ExecCAS(ctx context.Context, q Query, dest ...any) (applied bool, err error)
	// Batch runs statements as one batch, logged or not.
	Batch(ctx context.Context, kind BatchKind, qs []Query) error
}

// Iter iterates over the rows of one page.
type Iter interface {
	// Scan copies the next row into dest, positionally, and reports
	// whether there was one.
	Scan(dest ...any) bool
	// PageState is where the next page starts; empty after the last page.
	PageState() []byte
	// Close ends the iteration and returns its error, if any.
	Close() error
}

// BatchKind is the kind of a batch.
type BatchKind uint8

const (
	// Logged batches go through the batch log: once Cassandra accepts one,
	// every statement in it eventually applies, though a reader may see
	// some applied before others.
	Logged BatchKind = iota
	// Unlogged batches skip the batch log: cheap, and atomic only when
	// every statement hits the same partition.
	Unlogged
)

// SessionOptions configure a Session made by NewSession. Zero fields take
// the defaults.
type SessionOptions struct {
	// ReadConsistency applies to reads and pre-reads; default
	// LocalQuorum. Repositories and calls may override the three levels
	// (SessionLevels, WithLevels; see Levels for the order and the
	// reasons for the defaults).
	ReadConsistency Consistency
	// WriteConsistency applies to writes, batches, and the commit of
	// conditional writes; default LocalQuorum.
	WriteConsistency Consistency
	// SerialConsistency applies to the Paxos phase of conditional writes;
	// default LocalSerial (Serial for a conditional write that must be
	// linearizable across datacenters).
	SerialConsistency Consistency
	// Retry bounds and paces retries of idempotent statements.
	Retry RetryOptions
	// BatchWarnBytes is the estimated batch size (EstimateBatchBytes) over
	// which observers see BatchWarn; default 5 KiB, Cassandra's
	// batch_size_warn_threshold. Negative: never.
	BatchWarnBytes int
	// BatchFailBytes is the estimated batch size over which Batch refuses
	// to send a batch and returns a *BatchTooLargeError; default 50 KiB,
	// Cassandra's batch_size_fail_threshold, over which Cassandra would
	// refuse a multi-partition batch itself. Negative: no limit.
	BatchFailBytes int
	// Observer, if set, sees every attempt of every statement, and every
	// repository call when it is a CallObserver. The driver's own
	// observers (gocql's QueryObserver and BatchObserver of the cluster
	// configuration, where tracing is often hooked) still see every
	// attempt, first: the adapters chain them.
	Observer Observer
}

// Batch size defaults: Cassandra's own thresholds.
const (
	DefaultBatchWarnBytes = 5 << 10
	DefaultBatchFailBytes = 50 << 10
)

// NewSession makes a Session that runs statements with d. A nil opts
// takes the defaults.
//
// The session sets each statement's consistency from its kind, marks it
// idempotent or not as its Statement says, and runs it with the retry
// policy described at RetryOptions. It never asks for speculative
// execution: generated writes would be safe to send twice, but each
// speculative branch runs its own retries, so the attempt budget and the
// load a slow cluster gets would multiply.
func NewSession(d Driver, opts *SessionOptions) Session {
	var o SessionOptions
	if opts != nil {
		o = *opts
	}
	if o.ReadConsistency == 0 {
		o.ReadConsistency = LocalQuorum
	}
	if o.WriteConsistency == 0 {
		o.WriteConsistency = LocalQuorum
	}
	if o.SerialConsistency == 0 {
		o.SerialConsistency = LocalSerial
	}
	o.Retry = o.Retry.withDefaults()
	if o.BatchWarnBytes == 0 {
		o.BatchWarnBytes = DefaultBatchWarnBytes
	}
	if o.BatchFailBytes == 0 {
		o.BatchFailBytes = DefaultBatchFailBytes
	}
	g := &session{d: d, opts: o}
	g.calls, _ = o.Observer.(CallObserver)
	return g
}

// session is the Session NewSession makes.
type session struct {
	d     Driver
	opts  SessionOptions
	calls CallObserver // opts.Observer, when it observes calls too
}

// checkSerial refuses, before anything is sent, a conditional statement
// or a serial read whose serial level is not one (Levels.Serial, SessionOptions,
// WithSerialConsistency): gocql v1 would send it for Cassandra to refuse,
// the v2 driver panics.
func (g *session) checkSerial(ctx context.Context, q Query, kind StatementKind) error {
	if kind != Conditional && kind != SerialRead {
		return nil
	}
	if l := g.levels(ctx, q); !l.Serial.IsSerial() {
		return &OptionError{Option: "Levels.Serial", Reason: fmt.Sprintf("%v is not a serial consistency level; use Serial or LocalSerial", l.Serial)}
	}
	return nil
}

// request builds the driver request of one pass of q.
func (g *session) request(ctx context.Context, q Query, e *execution) *Request {
	e.pass()
	r := &e.req
	*r = Request{CQL: q.Stmt.CQL, Values: q.Values, Idempotent: q.Stmt.Idempotent, Hooks: e}
	l := g.levels(ctx, q)
	switch q.Stmt.Kind {
	case Read, PreRead, SerialRead:
		r.Consistency = l.Read
		if q.Stmt.Kind == SerialRead {
			r.Consistency = l.Serial
		}
		// A read is one page: nothing runs the query again after Iter
		// returns.
		r.Paged, r.PageSize, r.PageState = true, q.PageSize, q.PageState
	case Write:
		r.Consistency = l.Write
	case Conditional:
		r.Consistency, r.SerialConsistency = l.Write, l.Serial
	}
	return r
}

func (g *session) Exec(ctx context.Context, q Query) error {
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

func (g *session) Iter(ctx context.Context, q Query) Iter {
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

func (g *session) ExecCAS(ctx context.Context, q Query, dest ...any) (bool, error) {
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
func (g *session) ExecCASMap(ctx context.Context, q Query, current map[string]any) (bool, error) {
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

func (g *session) Batch(ctx context.Context, kind BatchKind, qs []Query) error {
	if len(qs) == 0 {
		return nil
	}
	size := EstimateBatchBytes(qs)
	if g.opts.BatchFailBytes > 0 && size > g.opts.BatchFailBytes {
		return g.refuse(ctx, qs, size, &BatchTooLargeError{Statements: len(qs), Bytes: size, Limit: g.opts.BatchFailBytes})
	}
	for _, q := range qs {
		if err := g.checkSerial(ctx, q, q.Stmt.Kind); err != nil {
			return err
		}
	}
	if kind == Unlogged {
		if err := g.samePartition(ctx, qs); err != nil {
			return g.refuse(ctx, qs, size, err)
		}
	}
	e := g.start(ctx, nil, qs)
	e.bytes = size
	for {
		e.pass()
		l := g.levels(ctx, Query{})
		e.batchReq = BatchRequest{
			Logged: kind == Logged, Queries: qs,
			Consistency: l.Write, SerialConsistency: l.Serial, Hooks: e,
		}
		err := g.d.Batch(ctx, &e.batchReq)
		if err == nil || !e.again(err) {
			return e.end(err)
		}
	}
}

// refuse reports a batch refused before sending to the observer.
func (g *session) refuse(ctx context.Context, qs []Query, size int, err error) error {
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
func (g *session) samePartition(ctx context.Context, qs []Query) error {
	var first []byte
	var keyspace string
	for i, q := range qs {
		ks, key, err := g.d.RoutingKey(ctx, q.Stmt.CQL, q.Values)
		switch {
		case err != nil:
			return fmt.Errorf("cqlgen: unlogged batch: finding the partition of %s: %w", q.Stmt.Table, err)
		case key == nil:
			return &CrossPartitionError{First: qs[0].Stmt.Table, Other: q.Stmt.Table, Reason: "its partition key cannot be told from the statement"}
		case i == 0:
			first, keyspace = key, ks
		case ks != keyspace || !bytes.Equal(key, first):
			return &CrossPartitionError{First: qs[0].Stmt.Table, Other: q.Stmt.Table, Reason: "they write different partitions"}
		}
	}
	return nil
}
