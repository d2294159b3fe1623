// Package cqlgenimpl is the support code of the repositories cqlgen
// generates. It is for generated code only: its API may change in any
// release, with no compatibility promise to anyone else. Code written by
// hand uses package cqlgen (github.com/cqlgen/cqlgen/runtime/cqlgen)
// instead, whose API is kept stable.
//
// It is a door and nothing more, as protobuf-go's protoimpl is: every
// name here is an alias, a constant or a one-line function of a package
// under runtime/internal, where the work is done and which nothing
// outside the runtime can import (TestFacadeIsThin keeps it so):
//
//   - impl.go: the implementation of generated repositories, in the rooms
//     under runtime/internal (impl, desc, reads, protocol, maintenance,
//     value; docs/architecture.md walks them);
//   - engine.go: runtime/internal/engine, calls, retries, idempotency;
//   - bucket.go: runtime/internal/bucket, time and hash buckets.
//
// Generated code declares each table as a description (TableSpec, the
// contract of internal/cqlspec); the runtime renders every statement of the
// table from it, with the renderer that lists them on the review page
// (schema.md), and runs them. It reads pages (one partition, hash buckets
// merged, time buckets walked back), encodes cursors, derives buckets,
// orders rows as Cassandra does, and keeps the tables of an entity in
// step on Update and Delete, by the write protocol that docs/protocol.md
// describes (its terms, states and invariants).
//
// A generated file asserts SupportPackageIsVersion10 at compile time: built
// against a runtime that no longer provides it, it fails to compile with
// a message naming the mismatch, instead of misbehaving at run time.
package cqlgenimpl

// SupportPackageIsVersionN is referenced by generated code. The number
// changes whenever generated code and this package stop fitting together.
// Version 4 added the scatter form of the page statements over buckets
// (CQL.Scatter, ReadSpec.Scatter); version 5 scans each row into its
// place (a scan is func(cqldriver.Iter, *T) bool); version 6 reads and
// writes the record of the last changes (State.Writes, Change.Writes), the
// version of a partition's statics (State.StaticVersion, Change.Static)
// and takes bounds of either kind (FromExclusive, ToInclusive); version 7
// reaches the engine through this package alone (StartCall, Apply,
// ApplyOne, Query, Iter moved here from cqlgen, as Observe) and declares
// tables as descriptions, whose statements NewTable renders
// (the CQL constants of earlier versions are gone); version 8 makes each
// method one call of the runtime, which records the call itself (One,
// Entity and ReadSpec have methods of the repository's names); version 9
// calls an entity's methods as functions of this package (Insert, Modify,
// Verify, Tables, ScanLive ... of an EntityOf[P]) and derives a bucketed
// projection's row (Projection.BucketOf); version 10 writes every entity
// kind through its description (NewEntity of an entity in one table, an
// immutable one or a counter table's, with Row; InsertIfAbsent, Add and
// GetOf; One, DeleteAll, Begin and Allow are gone). Code generated for
// earlier versions no longer compiles here: regenerate it.
const SupportPackageIsVersion10 = true
