// Package cqldriver is the driver interface of cqlgen's runtime: what a
// Session runs (Statement, Query, Iter, the statement kinds and
// consistency levels), the Driver a driver adapter implements under it
// (Request, Attempt, DriverError and the protocol's error codes), and the
// codec of CQL values (Type, Marshal, Codec).
//
// Users of generated repositories do not need it: they get a Session from
// an adapter (gocqlv1.NewSession, gocqlv2.NewSession) or from cqltest,
// and name it cqlgen.Session. It is for the adapters (runtime/gocqlv1,
// the module runtime/gocqlv2), for the in-memory cqltest session, and for
// code that wraps a Session (to inject faults, say) or runs statements of
// its own through one.
//
// An adapter's Driver becomes a Session through cqladapter.NewSession
// (github.com/cqlgen/cqlgen/runtime/cqladapter), which sets each
// statement's consistency from its kind, retries idempotent statements,
// refuses oversized batches and reports attempts to observers; everything
// above the Driver is the same whatever the driver. An adapter needs
// nothing else of the runtime, so one can be written in any module.
package cqldriver
