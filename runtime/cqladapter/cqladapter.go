// Package cqladapter turns a cqldriver.Driver into the cqlgen.Session
// that generated repositories run on. It is the one thing a driver
// adapter needs of the runtime beyond the driver interface
// (github.com/cqlgen/cqlgen/runtime/cqldriver) and the user API
// (github.com/cqlgen/cqlgen/runtime/cqlgen); the adapters of the project
// (runtime/gocqlv1, the module runtime/gocqlv2) use nothing else, so an
// adapter written in another module (for another driver, a wrapper that
// traces or counts the requests of one, a session for a fork of a driver)
// can do all they do.
//
// An adapter implements cqldriver.Driver over its driver's session:
//
//   - it runs each cqldriver.Request as the request says (consistency,
//     serial consistency, idempotence, one page of a read) and binds the
//     runtime's own values (cqldriver.Unset, cqldriver.Encoded,
//     cqldriver.ValueMarshaler, sets and maps: cqldriver.ConvertValues)
//     as its driver's;
//   - it lets the request's cqldriver.AttemptHooks decide every retry
//     inside the driver and see every attempt, and never retries of its
//     own;
//   - it returns its driver's errors classified, as *cqldriver.DriverError
//     (nothing sent, no reply, a server error and its code): the
//     runtime's retries and the write protocol's settling of lost replies
//     decide on that classification alone;
//   - from an init function it registers its driver's codec
//     (cqldriver.RegisterCodec), with which the runtime encodes the keys it
//     keeps itself, and its classification (cqldriver.RegisterClassifier),
//     unless the program links an adapter that registers them for the
//     same driver.
//
// Then NewSession(driver, opts) is the session; everything above the
// Driver (consistency per statement kind, retries and backoff, batch size
// limits, observers, the write protocol) is the runtime's, the same
// whatever the driver. A Driver may also wrap another: the module in
// integration/adapter counts the requests of runtime/gocqlv1's Driver
// and runs a generated repository through it (docs/runtime.md, "Writing
// an adapter").
package cqladapter

import (
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/engine"
)

// NewSession makes the Session generated repositories run on, over d: it
// sets each statement's consistency from its kind (opts.ReadConsistency,
// WriteConsistency, SerialConsistency), retries as opts.MaxAttempts
// describes through d's hooks, refuses batches over opts.BatchFailBytes
// and reports attempts and calls to opts.Observer. A nil opts takes the
// defaults. It never asks d for speculative execution.
//
// The session also implements cqldriver.MapCASer, through d.MapScanCAS.
func NewSession(d cqldriver.Driver, opts *cqlgen.SessionOptions) cqlgen.Session {
	return engine.NewSession(d, opts)
}
