package cqlgen

import (
	"context"
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

// SessionOptions configure a Session made by NewSession.
type SessionOptions struct {
	// ReadConsistency applies to reads; default LocalQuorum.
	ReadConsistency gocql.Consistency
	// WriteConsistency applies to writes and batches; default LocalQuorum.
	WriteConsistency gocql.Consistency
	// SerialConsistency applies to conditional writes; default LocalSerial.
	SerialConsistency gocql.SerialConsistency
}

// NewSession adapts a gocql session. A nil opts takes the defaults.
func NewSession(s *gocql.Session, opts *SessionOptions) Session {
	o := SessionOptions{
		ReadConsistency:   gocql.LocalQuorum,
		WriteConsistency:  gocql.LocalQuorum,
		SerialConsistency: gocql.LocalSerial,
	}
	if opts != nil {
		if opts.ReadConsistency != 0 {
			o.ReadConsistency = opts.ReadConsistency
		}
		if opts.WriteConsistency != 0 {
			o.WriteConsistency = opts.WriteConsistency
		}
		if opts.SerialConsistency != 0 {
			o.SerialConsistency = opts.SerialConsistency
		}
	}
	return &gocqlSession{s: s, opts: o}
}

type gocqlSession struct {
	s    *gocql.Session
	opts SessionOptions
}

func (g *gocqlSession) query(ctx context.Context, q Query) *gocql.Query {
	gq := g.s.Query(q.Stmt.CQL, q.Values...).WithContext(ctx).Idempotent(q.Stmt.Idempotent)
	switch q.Stmt.Kind {
	case Read:
		gq.Consistency(g.opts.ReadConsistency)
		if q.PageSize > 0 {
			gq.PageSize(q.PageSize)
		}
		gq.PageState(q.PageState)
	case Write:
		gq.Consistency(g.opts.WriteConsistency)
	case Conditional:
		gq.Consistency(g.opts.WriteConsistency).SerialConsistency(g.opts.SerialConsistency)
	}
	return gq
}

func (g *gocqlSession) Exec(ctx context.Context, q Query) error {
	gq := g.query(ctx, q)
	err := gq.Exec()
	gq.Release()
	return err
}

func (g *gocqlSession) Iter(ctx context.Context, q Query) Iter {
	return g.query(ctx, q).Iter()
}

func (g *gocqlSession) ExecCAS(ctx context.Context, q Query, dest ...any) (bool, error) {
	gq := g.query(ctx, q)
	applied, err := gq.ScanCAS(dest...)
	gq.Release()
	return applied, err
}

func (g *gocqlSession) Batch(ctx context.Context, kind BatchKind, qs []Query) error {
	typ := gocql.LoggedBatch
	if kind == Unlogged {
		typ = gocql.UnloggedBatch
	}
	b := g.s.NewBatch(typ).WithContext(ctx)
	b.SetConsistency(g.opts.WriteConsistency)
	b.Entries = make([]gocql.BatchEntry, len(qs))
	for i, q := range qs {
		b.Entries[i] = gocql.BatchEntry{Stmt: q.Stmt.CQL, Args: q.Values, Idempotent: q.Stmt.Idempotent}
	}
	return g.s.ExecuteBatch(b)
}

// NewCluster returns a gocql cluster configuration with the defaults
// cqlgen's repositories are tested with:
//
//   - token-aware routing (over round robin; set a DC-aware fallback for a
//     multi-datacenter cluster), so each statement goes straight to a
//     replica of its partition;
//   - WriteCoalesceWaitTime 0: gocql's default of 200µs batches writes on a
//     connection, which helps throughput under heavy load but adds up to
//     200µs to every request on a quiet one; repositories issue few,
//     latency-bound requests, so they do not wait;
//   - 5 s request and connect timeouts;
//   - LocalQuorum consistency (NewSession sets reads, writes and serial
//     consistency per statement kind).
func NewCluster(hosts ...string) *gocql.ClusterConfig {
	c := gocql.NewCluster(hosts...)
	c.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	c.WriteCoalesceWaitTime = 0
	c.Timeout = 5 * time.Second
	c.ConnectTimeout = 5 * time.Second
	c.Consistency = gocql.LocalQuorum
	return c
}
