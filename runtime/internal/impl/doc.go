// Package impl holds the methods the façade (runtime/cqlgenimpl)
// forwards to, each a few lines over the rooms below it: an entity's
// Insert, Update, Delete, Modify, Verify, Repair, Backfill and Tables,
// those of an entity stored in one table (One), a read's Page
// (ReadSpec), the reads of one row and of many keys. The work is done
// in desc (descriptors), reads, protocol (the write protocol) and
// maintenance; docs/architecture.md walks the rooms.
//
// Generated code reaches it through runtime/cqlgenimpl, which re-exports
// what generated code calls and nothing else; being internal, nothing
// outside the runtime imports it, and its API may change freely.
package impl
