package cqlgen

// ProgressTable records the token ranges a backfill finished, by job.
const ProgressTable = "cqlgen_progress"

// ProgressTableCQL creates ProgressTable; cqlgen appends it to every
// generated schema.cql.
const ProgressTableCQL = `-- Runtime-owned: the token ranges each backfill job has finished.
CREATE TABLE IF NOT EXISTS cqlgen_progress (
    job         text,
    range_index int,
    rows        bigint,
    PRIMARY KEY (job, range_index)
);
`
