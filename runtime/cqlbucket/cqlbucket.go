// Package cqlbucket computes the bucket a value falls in, as generated
// repositories do, for a pattern split by time (a `bucket:"day(col)"` tag)
// or by hash (`bucket:"hash(col, N)"`; docs/grammar.md): to read or
// write such a table with a query of your own, or to check what another
// client computes.
package cqlbucket

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/bucket"
)

// Time buckets split a pattern's partitions by time (a `bucket:"day(col)"`
// tag, docs/grammar.md): the hour, the day (UTC), the week (from Monday,
// as ISO 8601, or from another day), the month, or N-day ranges that a
// point in time falls in. b.Of(t) is the start of t's bucket, the value
// of the bucket column; b.Prev(start) is the start of the bucket before,
// which reads walk back to.
type Time = bucket.TimeBuckets

// The time buckets of the tags hour, day, week and month.
var (
	Hour  = bucket.HourBuckets
	Day   = bucket.DayBuckets
	Week  = bucket.WeekBuckets
	Month = bucket.MonthBuckets
)

// Hash is N hash buckets, which split one logical partition into
// N (a `bucket:"hash(col, N)"` tag, docs/grammar.md). A value's bucket is
// h % N, where h is the 32-bit FNV-1a hash of the value in its CQL native
// protocol encoding, so any language can compute the same bucket: text
// as UTF-8 bytes; int as 4 big-endian bytes; bigint and timestamp (in
// milliseconds) as 8; smallint 2; tinyint 1; boolean 1; uuid and timeuuid
// as their 16 bytes; date as 4 bytes, days since the epoch plus 2^31; blob
// as it is.
type Hash int

// Text is the bucket of a text, varchar or ascii value.
func (n Hash) Text(v string) int32 { return bucket.HashText(v, int(n)) }

// Blob is the bucket of a blob value.
func (n Hash) Blob(v []byte) int32 { return bucket.HashBlob(v, int(n)) }

// Bigint is the bucket of a bigint value.
func (n Hash) Bigint(v int64) int32 { return bucket.HashBigint(v, int(n)) }

// Int is the bucket of an int value.
func (n Hash) Int(v int32) int32 { return bucket.HashInt(v, int(n)) }

// Smallint is the bucket of a smallint value.
func (n Hash) Smallint(v int16) int32 { return bucket.HashSmallint(v, int(n)) }

// Tinyint is the bucket of a tinyint value.
func (n Hash) Tinyint(v int8) int32 { return bucket.HashTinyint(v, int(n)) }

// Boolean is the bucket of a boolean value.
func (n Hash) Boolean(v bool) int32 { return bucket.HashBoolean(v, int(n)) }

// UUID is the bucket of a uuid or timeuuid value.
func (n Hash) UUID(v [16]byte) int32 { return bucket.HashUUID(v, int(n)) }

// Timestamp is the bucket of a timestamp value, hashed in milliseconds.
func (n Hash) Timestamp(v time.Time) int32 { return bucket.HashTimestamp(v, int(n)) }

// Date is the bucket of a date value.
func (n Hash) Date(v time.Time) int32 { return bucket.HashDate(v, int(n)) }
