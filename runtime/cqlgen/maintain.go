package cqlgen

import "github.com/cqlgen/cqlgen/internal/cqlspec"

// ProgressTable records the token ranges a backfill finished, by job.
const ProgressTable = cqlspec.ProgressTable

// ProgressTableCQL creates ProgressTable; cqlgen appends it to every
// generated schema.cql.
const ProgressTableCQL = cqlspec.ProgressTableCQL
