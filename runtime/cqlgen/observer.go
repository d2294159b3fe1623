package cqlgen

import (
	"context"
	"time"
)

// Observer sees every attempt of every statement a Session made by
// NewSession runs: one Observation per statement per attempt, including the
// attempts that failed and were retried, and the statements the runtime
// refused before sending (Attempt 0). It is the hook for metrics, tracing
// and logs; the runtime itself logs nothing.
//
// Observe is called on the goroutine running the statement, between the
// attempt and the next one, so it should be quick and must not block; it
// may be called from many goroutines at once.
type Observer interface {
	Observe(ctx context.Context, o Observation)
}

// Observation is one attempt of one statement. It never carries the
// statement's bound values, which may be secrets; its error does not
// either (see NotAppliedError).
type Observation struct {
	Table   string        // the statement's Table
	Pattern string        // the statement's Pattern
	Kind    StatementKind // read, write or conditional write
	// Attempt counts from 1; 0 means the runtime refused the statement
	// before sending it (a batch over the size limit, an unlogged batch
	// across partitions), and Err says why.
	Attempt int
	Latency time.Duration // of this attempt alone, backoff excluded
	Err     error         // nil when the attempt succeeded
	// Batch is the number of statements in the batch this statement was
	// sent in; 0 when it was sent alone. Every statement of a batch is
	// observed, with the batch's latency and error.
	Batch int
	// BatchBytes is the estimated size of the batch's bound values
	// (EstimateBatchBytes); BatchWarn is set when it is over
	// SessionOptions.BatchWarnBytes, Cassandra's batch_size_warn_threshold
	// by default: the batch was sent, but it is larger than it should be.
	BatchBytes int
	BatchWarn  bool // see BatchBytes
}
