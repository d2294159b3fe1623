package cqlgen

import (
	"context"
	"errors"
	"sync"
)

// A Strategy writes the statements of one logical write, which touch
// several tables, and states what a reader may observe while it runs and
// after a crash. Every statement carries the same client-side timestamp
// (USING TIMESTAMP), whatever the strategy, so retries never reorder.
type Strategy interface {
	// Apply runs the statements.
	Apply(ctx context.Context, s Session, qs []Query) error
	// Name names the strategy in errors and observers.
	Name() string
}

// LoggedBatch writes every statement in one logged batch: the default.
//
// Once Cassandra acknowledges it, every statement eventually applies, even
// if the coordinator dies mid-way (the batch log replays it). There is no
// isolation: a reader may see one table updated before another for a
// moment. If the call fails, the write may or may not have happened; retry
// it (it is idempotent) to be sure. Batches over the size limit are refused
// before they are sent.
var LoggedBatch Strategy = batchStrategy{kind: Logged, name: "logged-batch"}

// UnloggedBatch writes every statement in one unlogged batch. Use it only
// where every statement hits the same partition: then the batch is applied
// atomically and isolated by Cassandra. Across partitions it is merely a
// set of independent writes sent through one coordinator.
var UnloggedBatch Strategy = batchStrategy{kind: Unlogged, name: "unlogged-batch"}

type batchStrategy struct {
	kind BatchKind
	name string
}

func (b batchStrategy) Name() string { return b.name }

func (b batchStrategy) Apply(ctx context.Context, s Session, qs []Query) error {
	if len(qs) == 1 {
		return s.Exec(ctx, qs[0])
	}
	return s.Batch(ctx, b.kind, qs)
}

// Concurrent writes each statement on its own, at most limit at a time,
// and waits for all of them. Each statement goes straight to a replica of
// its partition, so it is the fastest strategy; but while it runs, and
// forever if the process dies mid-way, some tables may hold the write and
// others not. Statements are idempotent and retried by the session's retry
// policy; a failed call should be retried whole (or repaired from the
// canonical table). A limit of 0 or less means no limit.
func Concurrent(limit int) Strategy { return concurrent{limit: limit} }

type concurrent struct{ limit int }

func (c concurrent) Name() string { return "concurrent" }

func (c concurrent) Apply(ctx context.Context, s Session, qs []Query) error {
	if len(qs) == 1 {
		return s.Exec(ctx, qs[0])
	}
	errs := make([]error, len(qs))
	var wg sync.WaitGroup
	var sem chan struct{}
	if c.limit > 0 && c.limit < len(qs) {
		sem = make(chan struct{}, c.limit)
	}
	for i := range qs {
		if sem != nil {
			sem <- struct{}{}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Exec(ctx, qs[i])
			if sem != nil {
				<-sem
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}
