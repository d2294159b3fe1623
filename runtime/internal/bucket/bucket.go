package bucket

import (
	"encoding/binary"
	"math"
	"time"
)

// Hash buckets split one logical partition into N: bucket = h % N, where h
// is the 32-bit FNV-1a hash of the source column's value in its CQL native
// protocol encoding (text as UTF-8 bytes; int as 4 big-endian bytes; bigint
// and timestamp, in milliseconds, as 8; smallint 2; tinyint 1; boolean 1;
// uuid and timeuuid as their 16 bytes; date as 4 bytes, days since the
// epoch plus 2^31; blob as is). Any language can compute the same bucket.

const (
	fnvOffset32 = 2166136261
	fnvPrime32  = 16777619
)

func fnvString(s string) uint32 {
	h := uint32(fnvOffset32)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime32
	}
	return h
}

func fnvBytes(b []byte) uint32 {
	h := uint32(fnvOffset32)
	for _, c := range b {
		h ^= uint32(c)
		h *= fnvPrime32
	}
	return h
}

func bucketOf(h uint32, n int) int32 { return int32(h % uint32(n)) }

// HashText is the bucket of a text, varchar or ascii value.
func HashText(v string, n int) int32 { return bucketOf(fnvString(v), n) }

// HashBlob is the bucket of a blob value.
func HashBlob(v []byte, n int) int32 { return bucketOf(fnvBytes(v), n) }

// HashBigint is the bucket of a bigint value.
func HashBigint(v int64, n int) int32 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(v))
	return bucketOf(fnvBytes(b[:]), n)
}

// HashInt is the bucket of an int value.
func HashInt(v int32, n int) int32 {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(v))
	return bucketOf(fnvBytes(b[:]), n)
}

// HashSmallint is the bucket of a smallint value.
func HashSmallint(v int16, n int) int32 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], uint16(v))
	return bucketOf(fnvBytes(b[:]), n)
}

// HashTinyint is the bucket of a tinyint value.
func HashTinyint(v int8, n int) int32 { return bucketOf(fnvBytes([]byte{byte(v)}), n) }

// HashBoolean is the bucket of a boolean value.
func HashBoolean(v bool, n int) int32 {
	if v {
		return bucketOf(fnvBytes([]byte{1}), n)
	}
	return bucketOf(fnvBytes([]byte{0}), n)
}

// HashUUID is the bucket of a uuid or timeuuid value.
func HashUUID(v [16]byte, n int) int32 { return bucketOf(fnvBytes(v[:]), n) }

// HashTimestamp is the bucket of a timestamp value, at millisecond
// precision as Cassandra stores it.
func HashTimestamp(v time.Time, n int) int32 { return HashBigint(v.UnixMilli(), n) }

// HashDate is the bucket of a date value.
func HashDate(v time.Time, n int) int32 {
	days := int64(math.Floor(float64(v.Unix()) / 86400))
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], uint32(days+(1<<31)))
	return bucketOf(fnvBytes(b[:]), n)
}

// TimeBuckets derives a time bucket: the start, in UTC, of the hour, day,
// week (starting on Monday, as ISO 8601, or on another day), month or
// N-day range (counted from 1970-01-01, or another day) that a point in
// time falls in. Reads walk from a bucket to the one before it.
type TimeBuckets struct {
	kind byte  // 'h', 'd', 'w', 'm', 'n'
	days int   // the width of an N-day range
	from int64 // a week's first day (time.Weekday - Monday); the day N-day ranges count from
}

// The time bucket kinds.
var (
	HourBuckets  = TimeBuckets{kind: 'h'}
	DayBuckets   = TimeBuckets{kind: 'd'}
	WeekBuckets  = TimeBuckets{kind: 'w'}
	MonthBuckets = TimeBuckets{kind: 'm'}
)

// DaysBuckets are N-day ranges counted from 1970-01-01.
func DaysBuckets(n int) TimeBuckets { return TimeBuckets{kind: 'n', days: n} }

// WeekBucketsFrom are weeks that start on first: WeekBucketsFrom(time.Sunday)
// buckets as a reader that counts weeks from Sunday does.
// WeekBucketsFrom(time.Monday) is WeekBuckets.
func WeekBucketsFrom(first time.Weekday) TimeBuckets {
	return TimeBuckets{kind: 'w', from: int64(first) - int64(time.Monday)}
}

// DaysBucketsFrom are N-day ranges counted from the day epoch, in days
// since 1970-01-01: one range starts on it, and the others every n days
// before and after.
func DaysBucketsFrom(n int, epoch int64) TimeBuckets {
	return TimeBuckets{kind: 'n', days: n, from: epoch}
}

// Of returns the start of the bucket t falls in.
func (b TimeBuckets) Of(t time.Time) time.Time {
	t = t.UTC()
	switch b.kind {
	case 'h':
		return t.Truncate(time.Hour)
	case 'd':
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case 'w':
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		back := mod(int64(day.Weekday())-int64(time.Monday)-b.from, 7) // days since the first day
		return day.AddDate(0, 0, -int(back))
	case 'm':
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	days := int64(math.Floor(float64(t.Unix()) / 86400))
	start := days - mod(days-b.from, int64(b.days))
	return time.Unix(start*86400, 0).UTC()
}

func mod(a, n int64) int64 { return ((a % n) + n) % n }

// Prev returns the start of the bucket before the one starting at start.
func (b TimeBuckets) Prev(start time.Time) time.Time {
	switch b.kind {
	case 'h':
		return start.Add(-time.Hour)
	case 'd':
		return start.AddDate(0, 0, -1)
	case 'w':
		return start.AddDate(0, 0, -7)
	case 'm':
		return start.AddDate(0, -1, 0)
	}
	return start.AddDate(0, 0, -b.days)
}
