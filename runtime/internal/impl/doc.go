// Package impl is the implementation of the repositories cqlgen
// generates: tables rendered from their descriptions, reads (pages,
// bounds, prefixes, index and ANN reads, hash buckets merged, time
// buckets walked back), cursors, the order of clustering values, writes
// of an entity stored in one table, the write protocol that keeps an
// entity's tables in step (docs/protocol.md), settling, unique claims,
// and maintenance (verify, repair, backfill).
//
// Generated code reaches it through runtime/cqlgenimpl, which re-exports
// what generated code calls and nothing else; being internal, nothing
// outside the runtime imports it, and its API may change freely.
package impl
