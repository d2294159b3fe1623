// Package cqlgenimpl is the support code of the repositories cqlgen
// generates. It is for generated code only: its API may change in any
// release, with no compatibility promise to anyone else. Code written by
// hand uses package cqlgen (github.com/cqlgen/cqlgen/runtime/cqlgen)
// instead, whose API is kept stable.
//
// Generated code declares every statement it runs as a constant, so that a
// reviewer sees the CQL in the generated file; this package runs them. It
// reads pages (one partition, hash buckets merged, time buckets walked
// back), encodes cursors, derives buckets, orders rows as Cassandra does,
// and keeps the tables of an entity in step on Update and Delete.
//
// A generated file asserts SupportPackageIsVersion4 at compile time: built
// against a runtime that no longer provides it, it fails to compile with
// a message naming the mismatch, instead of misbehaving at run time.
package cqlgenimpl

// SupportPackageIsVersion4 is referenced by generated code. The number
// changes whenever generated code and this package stop fitting together.
// Version 4 added the scatter form of the page statements over hash
// buckets (CQL.Scatter, ReadSpec.Scatter).
const SupportPackageIsVersion4 = true

// SupportPackageIsVersion3 is referenced by code generated before
// version 4, which this package still runs: without scatter statements,
// its reads over hash buckets send one request per bucket.
const SupportPackageIsVersion3 = true
