package engine

import (
	"time"
)

// Timestamp returns the client-side write timestamp for one logical write:
// microseconds since the Unix epoch, as Cassandra's USING TIMESTAMP expects.
// Every statement of one logical write carries the same timestamp, taken
// once, so a retried or re-ordered statement can never overwrite a newer
// write with an older one.
func Timestamp(t time.Time) int64 { return t.UnixMicro() }
