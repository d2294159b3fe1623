package cqlgen

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"
)

// Session is everything generated code asks of a Cassandra driver. It is
// deliberately narrow: generated repositories depend on it alone, so that a
// change of driver (the Apache gocql v2 line, say) touches this package
// only. NewSession adapts a *gocql.Session.
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
	ReadConsistency gocql.Consistency
	// WriteConsistency applies to writes, batches, and the commit of
	// conditional writes; default LocalQuorum.
	WriteConsistency gocql.Consistency
	// SerialConsistency applies to the Paxos phase of conditional writes;
	// default LocalSerial (Serial for a conditional write that must be
	// linearizable across datacenters).
	SerialConsistency gocql.SerialConsistency
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
	// repository call when it is a CallObserver. The QueryObserver and
	// BatchObserver of the gocql session's cluster configuration (where
	// tracing is often hooked) still see every attempt, first: the
	// session chains them.
	Observer Observer
}

// Batch size defaults: Cassandra's own thresholds.
const (
	DefaultBatchWarnBytes = 5 << 10
	DefaultBatchFailBytes = 50 << 10
)

// NewSession adapts a gocql session. A nil opts takes the defaults.
//
// The session sets each statement's consistency from its kind, marks it
// idempotent or not as its Statement says, and runs it with the retry
// policy described at RetryOptions. It never uses gocql's speculative
// execution: generated writes would be safe to send twice, but each
// speculative branch runs its own retries, so the attempt budget and the
// load a slow cluster gets would multiply.
func NewSession(s *gocql.Session, opts *SessionOptions) Session {
	var o SessionOptions
	if opts != nil {
		o = *opts
	}
	if o.ReadConsistency == 0 {
		o.ReadConsistency = gocql.LocalQuorum
	}
	if o.WriteConsistency == 0 {
		o.WriteConsistency = gocql.LocalQuorum
	}
	if o.SerialConsistency == 0 {
		o.SerialConsistency = gocql.LocalSerial
	}
	o.Retry = o.Retry.withDefaults()
	if o.BatchWarnBytes == 0 {
		o.BatchWarnBytes = DefaultBatchWarnBytes
	}
	if o.BatchFailBytes == 0 {
		o.BatchFailBytes = DefaultBatchFailBytes
	}
	g := &gocqlSession{s: s, opts: o}
	g.calls, _ = o.Observer.(CallObserver)
	if o.Observer != nil {
		g.chainQuery, g.chainBatch = driverObservers(s)
	}
	return g
}

type gocqlSession struct {
	s     *gocql.Session
	opts  SessionOptions
	calls CallObserver // opts.Observer, when it observes calls too
	// The gocql session's own observers, which setting a query's
	// observer would otherwise silence.
	chainQuery gocql.QueryObserver
	chainBatch gocql.BatchObserver
}

func (g *gocqlSession) query(ctx context.Context, q Query, e *execution) *gocql.Query {
	e.pass()
	gq := g.s.Query(q.Stmt.CQL, q.Values...).WithContext(ctx)
	gq.Idempotent(q.Stmt.Idempotent).RetryPolicy(e)
	if g.opts.Observer != nil {
		gq.Observer(e)
	}
	l := g.levels(ctx, q)
	switch q.Stmt.Kind {
	case Read, PreRead:
		gq.Consistency(l.Read)
		if q.PageSize > 0 {
			gq.PageSize(q.PageSize)
		}
		// Also turns gocql's automatic paging off: a read is one page,
		// and nothing runs the query again after Iter returns.
		gq.PageState(q.PageState)
	case Write:
		gq.Consistency(l.Write)
	case Conditional:
		gq.Consistency(l.Write).SerialConsistency(l.Serial)
	}
	return gq
}

func (g *gocqlSession) Exec(ctx context.Context, q Query) error {
	e := g.start(ctx, q.Stmt, nil)
	for {
		gq := g.query(ctx, q, e)
		err := gq.Exec()
		n := 0
		if err != nil { // Attempts takes a lock: not on the happy path
			n = gq.Attempts()
		}
		gq.Release()
		if err == nil || !e.again(err, n) {
			return e.end(err)
		}
	}
}

func (g *gocqlSession) Iter(ctx context.Context, q Query) Iter {
	e := g.start(ctx, q.Stmt, nil)
	for {
		gq := g.query(ctx, q, e)
		it := gq.Iter()
		if len(it.Columns()) > 0 {
			// A result with rows, or at least their metadata: no error.
			gq.Release() // the page is fetched; the Iter no longer needs it
			e.end(nil)
			return it
		}
		err := it.Close() // only peeks: Close can be called again
		n := gq.Attempts()
		gq.Release()
		if err == nil || !e.again(err, n) {
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

func (g *gocqlSession) ExecCAS(ctx context.Context, q Query, dest ...any) (bool, error) {
	e := g.start(ctx, q.Stmt, nil)
	for {
		gq := g.query(ctx, q, e)
		applied, err := gq.ScanCAS(dest...)
		n := 0
		if err != nil {
			n = gq.Attempts()
		}
		gq.Release()
		if err == nil || !e.again(err, n) {
			return applied, e.end(err)
		}
	}
}

// ExecCASMap runs a conditional write and, when it did not apply, puts the
// row's current values in current, by column name. See CAS.
func (g *gocqlSession) ExecCASMap(ctx context.Context, q Query, current map[string]any) (bool, error) {
	e := g.start(ctx, q.Stmt, nil)
	for {
		clear(current)
		gq := g.query(ctx, q, e)
		// The result's columns depend on the row found, not on the
		// prepared statement: its metadata must come with it.
		it := gq.NoSkipMetadata().Iter()
		it.MapScan(current)
		err := it.Close()
		n := gq.Attempts()
		gq.Release()
		if err == nil || !e.again(err, n) {
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

func (g *gocqlSession) Batch(ctx context.Context, kind BatchKind, qs []Query) error {
	if len(qs) == 0 {
		return nil
	}
	size := EstimateBatchBytes(qs)
	if g.opts.BatchFailBytes > 0 && size > g.opts.BatchFailBytes {
		return g.refuse(ctx, qs, size, &BatchTooLargeError{Statements: len(qs), Bytes: size, Limit: g.opts.BatchFailBytes})
	}
	typ := gocql.LoggedBatch
	if kind == Unlogged {
		typ = gocql.UnloggedBatch
		if err := g.samePartition(ctx, qs); err != nil {
			return g.refuse(ctx, qs, size, err)
		}
	}
	entries := make([]gocql.BatchEntry, len(qs))
	for i, q := range qs {
		entries[i] = gocql.BatchEntry{Stmt: q.Stmt.CQL, Args: q.Values, Idempotent: q.Stmt.Idempotent}
	}
	e := g.start(ctx, nil, qs)
	e.bytes = size
	for {
		e.pass()
		b := g.s.NewBatch(typ).WithContext(ctx)
		b.Entries = entries
		l := g.levels(ctx, Query{})
		b.SetConsistency(l.Write)
		b.SerialConsistency(l.Serial)
		b.RetryPolicy(e)
		if g.opts.Observer != nil {
			b.Observer(e)
		}
		err := g.s.ExecuteBatch(b)
		if err == nil || !e.again(err, b.Attempts()) {
			return e.end(err)
		}
	}
}

// refuse reports a batch refused before sending to the observer.
func (g *gocqlSession) refuse(ctx context.Context, qs []Query, size int, err error) error {
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
func (g *gocqlSession) samePartition(ctx context.Context, qs []Query) error {
	var first []byte
	var keyspace string
	for i, q := range qs {
		gq := g.s.Query(q.Stmt.CQL, q.Values...).WithContext(ctx)
		key, err := gq.GetRoutingKey()
		ks := gq.Keyspace()
		gq.Release()
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

// NewCluster returns a gocql cluster configuration with the defaults
// cqlgen's repositories are tested with (checked against gocql v1.7.0):
//
//   - token-aware routing over round robin, so each statement goes straight
//     to a replica of its partition: gocql prepares every statement and
//     computes its routing key from the partition key columns of the
//     prepared metadata (for a batch, from its first statement). For a
//     cluster of several datacenters, use NewClusterDC. gocql panics when
//     one host selection policy serves two sessions: create sessions with
//     CreateSession, which gives each one its own.
//   - WriteCoalesceWaitTime 0: with gocql's default of 200µs, a request on
//     an idle connection starts a 200µs timer and is written when it fires,
//     so that later requests share the write system call; that helps
//     throughput under heavy load but adds 200µs to every request of a
//     latency-bound service. 0 writes each request at once.
//   - Timeout 11 s (gocql's default, kept on purpose): a client timeout
//     must exceed the server's own (Cassandra's largest default,
//     range_request_timeout, is 10 s), otherwise the client gives up first
//     with an opaque ErrTimeoutNoResponse instead of the coordinator's
//     typed read or write timeout, which says whether a retry is safe.
//     Bound the latency of a call with its context's deadline instead: the
//     session honours it, backoff included.
//   - ConnectTimeout 5 s, protocol version 4 (the highest gocql v1.7.0
//     speaks; fixing it skips a failed v5 handshake with Cassandra 4+).
//   - LocalQuorum consistency; NewSession sets reads, writes and serial
//     consistency per statement kind anyway.
func NewCluster(hosts ...string) *gocql.ClusterConfig {
	return newCluster(func() gocql.HostSelectionPolicy { return gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()) }, hosts)
}

// NewClusterDC is NewCluster for a cluster of several datacenters: routing
// is token-aware over the replicas of localDC, then round robin within it,
// and never leaves it; with LocalQuorum and LocalSerial (the session's
// defaults), every statement stays in the local datacenter.
//
// "Never leaves it" takes a host filter: gocql's DC-aware policy puts the
// other datacenters' nodes after the local ones, and a retry on the next
// host (after Unavailable, say) reaches them once the local ones are
// down; LOCAL_QUORUM there is that datacenter's quorum, which need not
// hold what the local one wrote. With the filter the session connects to
// localDC's nodes alone, and a local outage is a typed Unavailable.
func NewClusterDC(localDC string, hosts ...string) *gocql.ClusterConfig {
	c := newCluster(func() gocql.HostSelectionPolicy {
		return gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(localDC))
	}, hosts)
	c.HostFilter = gocql.DataCentreHostFilter(localDC)
	return c
}

// policies remembers how to make a fresh host selection policy for the
// configurations NewCluster and NewClusterDC made.
var policies sync.Map // *gocql.ClusterConfig → func() gocql.HostSelectionPolicy

func newCluster(policy func() gocql.HostSelectionPolicy, hosts []string) *gocql.ClusterConfig {
	c := gocql.NewCluster(hosts...)
	c.PoolConfig.HostSelectionPolicy = policy()
	policies.Store(c, policy)
	c.WriteCoalesceWaitTime = 0
	c.Timeout = 11 * time.Second
	c.ConnectTimeout = 5 * time.Second
	c.ProtoVersion = 4
	c.Consistency = gocql.LocalQuorum
	return c
}

// CreateSession creates a gocql session from cluster, which may serve any
// number of sessions: a configuration made by NewCluster or NewClusterDC
// gets a host selection policy of its own for each. gocql panics when one
// policy serves two sessions; with any other configuration that panic
// comes back as an error.
func CreateSession(cluster *gocql.ClusterConfig) (s *gocql.Session, err error) {
	c := *cluster
	if mk, ok := policies.Load(cluster); ok {
		c.PoolConfig.HostSelectionPolicy = mk.(func() gocql.HostSelectionPolicy)()
	}
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("cqlgen: creating a session: %v (give each session its own host selection policy)", r)
		}
	}()
	return c.CreateSession()
}
