package desc

import (
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/internal/bucket"
)

// bucketFunc must give the bucket generated code gave (the bucket of the
// rows already stored): the hash of the column's CQL type over the value
// converted as a named Go type of the field converts, or the time bucket
// of the time (a timeuuid's own).
func TestBucketFuncAsGeneratedCode(t *testing.T) {
	type (
		name   string
		count  int
		small  uint8
		flag   bool
		bytes_ []byte
		id     [16]byte
	)
	at := time.Date(2026, 11, 26, 23, 59, 59, 0, time.UTC)
	u := id{0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x11, 0xd0, 0x80, 1, 2, 3, 4, 5, 6, 7} // a version 1 uuid
	const n = 7
	cases := []struct {
		typ  string
		v    any
		want any
	}{
		{"text", "playlist-42", bucket.HashText("playlist-42", n)},
		{"varchar", name("Ünïcode"), bucket.HashText("Ünïcode", n)},
		{"ascii", name(""), bucket.HashText("", n)},
		{"bigint", int64(-1 << 40), bucket.HashBigint(-1<<40, n)},
		{"bigint", count(12345), bucket.HashBigint(12345, n)},
		{"int", int32(-7), bucket.HashInt(-7, n)},
		{"int", count(1 << 20), bucket.HashInt(1<<20, n)},
		{"smallint", int16(-300), bucket.HashSmallint(-300, n)},
		{"tinyint", small(200), bucket.HashTinyint(int8(-56), n)},
		{"boolean", flag(true), bucket.HashBoolean(true, n)},
		{"boolean", false, bucket.HashBoolean(false, n)},
		{"blob", bytes_{1, 2, 3}, bucket.HashBlob([]byte{1, 2, 3}, n)},
		{"uuid", u, bucket.HashUUID(u, n)},
		{"timeuuid", [16]byte(u), bucket.HashUUID(u, n)},
		{"timestamp", at, bucket.HashTimestamp(at, n)},
		{"date", at, bucket.HashDate(at, n)},
	}
	for _, c := range cases {
		canon := NewTable(cqlspec.Table{Name: "t", PartitionKey: Cols("k " + c.typ)})
		p := &ProjectionOf[*int]{Table: NewTable(cqlspec.Table{Name: "p", PartitionKey: Cols("k "+c.typ, "shard int"), Bucket: cqlspec.BucketHash}), BucketOf: "k", HashBuckets: n}
		if got := bucketFunc(canon, p)(c.v); got != c.want {
			t.Errorf("%s %T %v: bucket %v, want %v", c.typ, c.v, c.v, got, c.want)
		}
	}
	for _, c := range []struct {
		typ string
		v   any
		at  time.Time
	}{
		{"timestamp", at, at},
		{"date", at, at},
		{"timeuuid", u, cqldriver.TimeOfUUID(u)},
	} {
		for _, tb := range []TimeBuckets{bucket.DayBuckets, bucket.WeekBuckets, bucket.DaysBucketsFrom(3, 5)} {
			canon := NewTable(cqlspec.Table{Name: "t", PartitionKey: Cols("k " + c.typ)})
			p := &ProjectionOf[*int]{Table: NewTable(cqlspec.Table{Name: "p", PartitionKey: Cols("k", "bucket date"), Bucket: cqlspec.BucketTime}), BucketOf: "k", TimeBuckets: &tb}
			if got, want := bucketFunc(canon, p)(c.v), tb.Of(c.at); got != want {
				t.Errorf("%s %v in %v: bucket %v, want %v", c.typ, c.v, tb, got, want)
			}
		}
	}
}
