package cqlgen

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// SessionOptions configure the Session a driver adapter makes
// (gocqlv1.NewSession, gocqlv2.NewSession). Zero fields take
// the defaults.
type SessionOptions struct {
	// ReadConsistency applies to reads and pre-reads; default
	// LocalQuorum. Repositories and calls may override the three levels
	// (SessionLevels, WithLevels; see Levels for the order and the
	// reasons for the defaults).
	ReadConsistency cqldriver.Consistency
	// WriteConsistency applies to writes, batches, and the commit of
	// conditional writes; default LocalQuorum.
	WriteConsistency cqldriver.Consistency
	// SerialConsistency applies to the Paxos phase of conditional writes;
	// default LocalSerial (Serial for a conditional write that must be
	// linearizable across datacenters).
	SerialConsistency cqldriver.Consistency
	// MaxAttempts, BaseDelay and MaxDelay bound and pace the retries of
	// idempotent statements.
	//
	// Only statements marked idempotent are ever retried, and only after
	// an error that says the cluster was slow or out of reach
	// (docs/runtime.md lists them). Between attempts the session waits
	// with exponential backoff and full jitter: before attempt n+1 a
	// uniformly random time in [0, min(MaxDelay, BaseDelay·2^(n-1))). It
	// never waits past the context's deadline: when the next wait would
	// end after it, the session gives up at once. When it gives up on a
	// retryable error, the caller gets a *RetriesExhaustedError wrapping
	// the last one.
	//
	// MaxAttempts counts every attempt, the first included; default
	// DefaultMaxAttempts, 4; 1 turns retries off.
	MaxAttempts int
	// BaseDelay caps the first wait; default DefaultBaseDelay, 25ms.
	BaseDelay time.Duration
	// MaxDelay caps every wait; default DefaultMaxDelay, 1s.
	MaxDelay time.Duration
	// BatchWarnBytes is the estimated batch size (as Cassandra measures a batch) over
	// which observers see BatchWarn; default 5 KiB, Cassandra's
	// batch_size_warn_threshold. Negative: never.
	BatchWarnBytes int
	// BatchFailBytes is the estimated batch size over which Batch refuses to
	// send a batch and returns an *InputError (ErrBatchTooLarge); default 50
	// KiB, Cassandra's batch_size_fail_threshold, over which Cassandra would
	// refuse a multi-partition batch itself. Negative: no limit.
	BatchFailBytes int
	// Observer, if set, sees every attempt of every statement, and every
	// repository call when it is a CallObserver. The driver's own
	// observers (gocql's QueryObserver and BatchObserver of the cluster
	// configuration, where tracing is often hooked) still see every
	// attempt, first: the adapters chain them.
	Observer cqlobserve.Observer
}

// Batch size defaults: Cassandra's own thresholds.
const (
	DefaultBatchWarnBytes = 5 << 10
	DefaultBatchFailBytes = 50 << 10
)

// Retry defaults.
const (
	DefaultMaxAttempts = 4
	DefaultBaseDelay   = 25 * time.Millisecond
	DefaultMaxDelay    = time.Second
)
