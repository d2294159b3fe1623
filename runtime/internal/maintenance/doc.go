// Package maintenance is verify, repair, backfill and adopt, the work of
// runtime/cqlmaintain: token ranges scanned, digests of the rows expected
// and the rows found, and repair's writes through the write protocol. It
// stands on protocol, desc and value.
package maintenance
