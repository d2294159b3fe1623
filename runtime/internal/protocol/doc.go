// Package protocol is the write protocol that keeps an entity's tables
// in step (docs/protocol.md): versions, the pending record and its
// fan-out, settling a write whose reply was lost (settle.go) from the
// record of the last changes (writes.go), claims of unique keys
// (claim.go), the write without a read (create.go), the transactional
// mode's execution (txn.go), and what a write begins with (Begin). It
// stands on desc, value and the engine, never on reads.
package protocol
