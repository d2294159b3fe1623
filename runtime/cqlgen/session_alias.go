package cqlgen

import "github.com/cqlgen/cqlgen/runtime/cqldriver"

// Session is what a generated repository runs its statements on. A driver
// adapter makes one: gocqlv1.NewSession(gocqlSession, opts) (package
// github.com/cqlgen/cqlgen/runtime/gocqlv1) or gocqlv2.NewSession (the
// module github.com/cqlgen/cqlgen/runtime/gocqlv2), configured by
// SessionOptions. For tests, cqltest.New(schemaCQL) (package
// github.com/cqlgen/cqlgen/runtime/cqltest) returns one in memory. Wrap one
// with SessionLevels to change its consistency levels. Its methods are the
// statement interface of package cqldriver, which only adapters and
// wrappers need.
type Session = cqldriver.Session

// The consistency levels, for Levels, SessionOptions and
// WithSerialConsistency. Serial and LocalSerial are for the Paxos phase of
// conditional writes (Levels.Serial).
const (
	Any         = cqldriver.Any
	One         = cqldriver.One
	Two         = cqldriver.Two
	Three       = cqldriver.Three
	Quorum      = cqldriver.Quorum
	All         = cqldriver.All
	LocalQuorum = cqldriver.LocalQuorum
	EachQuorum  = cqldriver.EachQuorum
	Serial      = cqldriver.Serial
	LocalSerial = cqldriver.LocalSerial
	LocalOne    = cqldriver.LocalOne
)

// The kinds of statement an Observation reports (Observation.Kind); see
// cqldriver.StatementKind.
const (
	Read        = cqldriver.Read
	Write       = cqldriver.Write
	Conditional = cqldriver.Conditional
	PreRead     = cqldriver.PreRead
	SerialRead  = cqldriver.SerialRead
)

// Errors of the connection to the cluster, which the errors of every driver
// match with errors.Is.
var (
	ErrNoConnections = cqldriver.ErrNoConnections
	ErrNoResponse    = cqldriver.ErrNoResponse
	ErrSessionClosed = cqldriver.ErrSessionClosed
)
