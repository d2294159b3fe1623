package cqlspec

import "strings"

// ReservedPrefix starts the name of every column and table cqlgen adds of
// its own: the write protocol's columns above, the runtime's tables below
// and the migration runner's ledger. A declaration may not use it.
const ReservedPrefix = "cqlgen_"

// Owned reports whether a column's or table's name, quoted or not, is
// one of cqlgen's own: ReservedPrefix in either case.
func Owned(name string) bool {
	return strings.HasPrefix(strings.ToLower(name), ReservedPrefix)
}

// The tables cqlgen's runtime owns, in the keyspace of its session. Every
// generated schema.cql creates them (RuntimeTablesCQL), and the runtime
// reads and writes them by these names.
const (
	// IdempotencyTable records idempotency keys.
	IdempotencyTable = "cqlgen_idempotency"
	// ProgressTable records the token ranges a backfill finished, by job.
	ProgressTable = "cqlgen_progress"
)

// IdempotencyTableCQL creates IdempotencyTable: one row per key, written
// only through lightweight transactions by the runtime, every column at
// once, so that all of a row's cells expire together, a TTL after its
// last change.
const IdempotencyTableCQL = `-- Runtime-owned: idempotency keys of cqlgen repositories, written only by
-- the runtime through lightweight transactions; rows expire after the TTL.
CREATE TABLE IF NOT EXISTS ` + IdempotencyTable + ` (
    key         text PRIMARY KEY,
    fingerprint blob,
    state       text,
    owner       uuid,
    write_ts    bigint,
    lease_until timestamp,
    outcome     text
);
`

// ProgressTableCQL creates ProgressTable.
const ProgressTableCQL = `-- Runtime-owned: the token ranges each backfill job has finished.
CREATE TABLE IF NOT EXISTS ` + ProgressTable + ` (
    job         text,
    range_index int,
    rows        bigint,
    PRIMARY KEY (job, range_index)
);
`

// RuntimeTablesCQL is the DDL of the runtime's tables, which every
// generated schema.cql ends with.
const RuntimeTablesCQL = IdempotencyTableCQL + "\n" + ProgressTableCQL

// The tables of cqlgen migrate's ledger: a row a migration file applied,
// and the lock one run holds. The runner creates them; cqlgen diff knows
// them as the runner's, not the model's.
const (
	MigrationsTable     = "cqlgen_migrations"
	MigrationsLockTable = "cqlgen_migrations_lock"
)
