package base

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// Idempotency defaults.
const (
	DefaultIdempotencyTTL   = 24 * time.Hour
	DefaultIdempotencyLease = 30 * time.Second
)

// Idempotency names a command that must apply at most once: a client that
// does not know whether its write applied (a timeout, a crash, a user
// pressing the button twice) sends it again with the same Key.
type Idempotency struct {
	// Key identifies the command; "" means no idempotency. Keys share one
	// table per keyspace: make them unique across commands, e.g. a
	// request id. Reusing a key for another payload is a conflict.
	Key string
	// TTL is how long a key is remembered after its last change; default
	// DefaultIdempotencyTTL. Resent after that, the command applies again.
	TTL time.Duration
	// Lease is how long the caller that claimed a key has to apply the
	// command and record it before a duplicate may take over; default
	// DefaultIdempotencyLease. It must exceed the time the command can
	// take, retries included (bound that with the context's deadline).
	Lease time.Duration
	// SerialConsistency is the Paxos consistency of the key's conditional
	// writes; 0 keeps the session's. A repository sets it from its own
	// (WithSerialConsistency).
	SerialConsistency cqldriver.Consistency
}
