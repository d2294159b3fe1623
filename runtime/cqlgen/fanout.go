package cqlgen

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// A Strategy writes the statements of one logical write, which touch
// several tables, and states what a reader may observe while it runs and
// after a crash. Every statement of one logical write carries the same
// client-side timestamp (USING TIMESTAMP), whatever the strategy, so a
// retried or late statement can never overwrite a newer write, and running
// a logical write again with the same timestamp is harmless.
type Strategy interface {
	// Apply runs the statements.
	Apply(ctx context.Context, s Session, qs []cqldriver.Query) error
	// Name names the strategy in errors and observers.
	Name() string
}

// LoggedBatch writes every statement in one logged batch: the default.
//
// While it runs: there is no isolation. A reader may see the row in one
// table before it appears in another, for as long as the replicas take to
// apply the batch (milliseconds).
//
// Once Cassandra acknowledges the batch, every statement has applied, or
// will: the coordinator wrote the batch to its batch log on other nodes
// first, and they replay it if the coordinator dies mid-way. If the call
// fails (a timeout, a lost connection) or the client crashes, the batch
// may not have reached the batch log, and then none of it applies; or it
// did, and then all of it eventually applies. Never some tables forever
// and others not. Run the write again (it is idempotent) to be sure.
//
// The batch's estimated size is checked before it is sent, against
// SessionOptions.BatchFailBytes: a larger batch gets an *InputError
// (ErrBatchTooLarge) and nothing is written. A single statement is sent on its
// own.
var LoggedBatch Strategy = batchStrategy{kind: cqldriver.Logged, name: "logged-batch"}

// UnloggedBatch writes every statement in one unlogged batch, and is only
// for statements that all write the same partition (the same partition key
// value, in tables of one keyspace). Such a batch is one mutation on each
// replica, written to its commit log as a whole.
//
// While it runs: within a table, a reader sees the partition's rows before
// the batch or after it, never in between; across the batch's tables, one
// may be updated an instant before another.
//
// After a failure or a crash: each replica holds all of the batch or none
// of it; replicas that missed it converge through hints and repair.
//
// The session enforces the rule before sending: statements of different
// partitions, or whose partition cannot be told, get an *InputError
// (ErrCrossPartition), because across partitions an unlogged batch has no batch
// log, and a coordinator failure would leave it half done forever.
var UnloggedBatch Strategy = batchStrategy{kind: cqldriver.Unlogged, name: "unlogged-batch"}

type batchStrategy struct {
	kind cqldriver.BatchKind
	name string
}

func (b batchStrategy) Name() string { return b.name }

// OwnStrategy marks one of this package's strategies (see base.Own).
func (batchStrategy) OwnStrategy(base.Own) {}

func (b batchStrategy) Apply(ctx context.Context, s Session, qs []cqldriver.Query) error {
	if len(qs) < 2 {
		return applyOne(ctx, s, qs)
	}
	return s.Batch(ctx, b.kind, qs)
}

// applyOne runs qs, of one statement or none, as every strategy does: the
// statement on its own, without a batch or a goroutine.
func applyOne(ctx context.Context, s Session, qs []cqldriver.Query) error {
	if len(qs) == 0 {
		return nil
	}
	return s.Exec(ctx, qs[0])
}

// DefaultConcurrency bounds the statements Concurrent(0) runs at once.
const DefaultConcurrency = 8

// Concurrent writes each statement on its own, at most limit at a time
// (DefaultConcurrency when limit is 0 or less), and waits for all of them,
// even when one fails. Each statement goes straight to a replica of its
// partition, and no batch log is written, so it is the fastest strategy,
// and the one for rows too large for a batch.
//
// While it runs: a reader may see the write in some tables and not others.
//
// After a failure or a crash: some tables may hold the write and others not,
// and nothing finishes it by itself. Idempotent statements are retried by the
// session (see SessionOptions.MaxAttempts); a failed call should be run again
// whole, with the same timestamp, or repaired from the canonical table. An
// idempotency key (WithIdempotencyKey) makes running it again safe for callers
// that cannot tell whether it applied. Statements not marked idempotent, such
// as counter updates, are sent once and never retried; after a failure their
// outcome is unknown.
func Concurrent(limit int) Strategy {
	if limit <= 0 {
		limit = DefaultConcurrency
	}
	return concurrent{limit: limit}
}

type concurrent struct{ limit int }

// OwnStrategy marks one of this package's strategies (see base.Own).
func (concurrent) OwnStrategy(base.Own) {}

func (c concurrent) Name() string { return fmt.Sprintf("concurrent(%d)", c.limit) }

func (c concurrent) Apply(ctx context.Context, s Session, qs []cqldriver.Query) error {
	if len(qs) < 2 {
		return applyOne(ctx, s, qs)
	}
	limit := c.limit
	if limit <= 0 { // a zero concurrent{} made without Concurrent
		limit = DefaultConcurrency
	}
	errs := make([]error, len(qs))
	sem := make(chan struct{}, min(limit, len(qs)))
	var wg sync.WaitGroup
	for i := range qs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		// A slot freed as the context ended makes both cases ready, and
		// select picks either: the context is asked again, so that no
		// statement starts once it has ended.
		if ctx.Err() != nil {
			// Statements not started yet fail with the context's error;
			// those running finish.
			for j := i; j < len(qs); j++ {
				errs[j] = ctx.Err()
			}
			wg.Wait()
			return errors.Join(errs...)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Exec(ctx, qs[i])
			<-sem
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ErrCrossPartition: an unlogged batch's statements do not all write one
// partition, so the batch was not sent. An *InputError names the tables.
var ErrCrossPartition = base.ErrCrossPartition
