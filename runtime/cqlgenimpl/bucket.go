package cqlgenimpl

import (
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/bucket"
)

// The buckets of generated code, from runtime/internal/bucket; users find
// them in cqlbucket (Time, Hash).

// TimeBuckets is cqlbucket.Time.
type TimeBuckets = bucket.TimeBuckets

// The time buckets of the tags hour, day, week and month.
var (
	HourBuckets  = bucket.HourBuckets
	DayBuckets   = bucket.DayBuckets
	WeekBuckets  = bucket.WeekBuckets
	MonthBuckets = bucket.MonthBuckets
)

// DaysBuckets are N-day ranges counted from 1970-01-01.
func DaysBuckets(n int) TimeBuckets { return bucket.DaysBuckets(n) }

// DaysBucketsFrom are N-day ranges counted from the day epoch, in days
// since 1970-01-01.
func DaysBucketsFrom(n int, epoch int64) TimeBuckets { return bucket.DaysBucketsFrom(n, epoch) }

// WeekBucketsFrom are weeks that start on first.
func WeekBucketsFrom(first time.Weekday) TimeBuckets { return bucket.WeekBucketsFrom(first) }

// The hash bucket of a value of each CQL type, among n (cqlbucket.Hash).
func HashText(v string, n int) int32         { return bucket.HashText(v, n) }
func HashBlob(v []byte, n int) int32         { return bucket.HashBlob(v, n) }
func HashBigint(v int64, n int) int32        { return bucket.HashBigint(v, n) }
func HashInt(v int32, n int) int32           { return bucket.HashInt(v, n) }
func HashSmallint(v int16, n int) int32      { return bucket.HashSmallint(v, n) }
func HashTinyint(v int8, n int) int32        { return bucket.HashTinyint(v, n) }
func HashBoolean(v bool, n int) int32        { return bucket.HashBoolean(v, n) }
func HashUUID(v [16]byte, n int) int32       { return bucket.HashUUID(v, n) }
func HashTimestamp(v time.Time, n int) int32 { return bucket.HashTimestamp(v, n) }
func HashDate(v time.Time, n int) int32      { return bucket.HashDate(v, n) }
