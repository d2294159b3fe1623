package cqlgenimpl

import (
	"testing"
	"time"
)

// The hash is FNV-1a 32 over the CQL encoding; these vectors pin it, so a
// change of function (which would move every row) fails here, and other
// languages can check their implementation against them.
func TestHashVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  int32
		want int32
	}{
		{"text empty", HashText("", 100), int32(2166136261 % 100)},
		{"text a", HashText("a", 1<<30), int32(0xe40c292c % (1 << 30))},
		{"text track_abc123", HashText("track_abc123", 100), HashBlob([]byte("track_abc123"), 100)},
		{"bigint 1", HashBigint(1, 1000), HashBlob([]byte{0, 0, 0, 0, 0, 0, 0, 1}, 1000)},
		{"int 1", HashInt(1, 1000), HashBlob([]byte{0, 0, 0, 1}, 1000)},
		{"timestamp", HashTimestamp(time.UnixMilli(1), 1000), HashBigint(1, 1000)},
		{"date epoch", HashDate(time.Unix(0, 0), 1000), HashBlob([]byte{0x80, 0, 0, 0}, 1000)},
		{"one bucket", HashText("anything", 1), 0},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, tc.got, tc.want)
		}
	}
}

func TestTimeBuckets(t *testing.T) {
	at := time.Date(2026, 11, 22, 15, 4, 5, 0, time.FixedZone("x", 3600)) // 14:04:05 UTC, a Sunday
	for _, tc := range []struct {
		b          TimeBuckets
		start, prv string
	}{
		{HourBuckets, "2026-11-22T14:00:00Z", "2026-11-22T13:00:00Z"},
		{DayBuckets, "2026-11-22T00:00:00Z", "2026-11-21T00:00:00Z"},
		{WeekBuckets, "2026-11-16T00:00:00Z", "2026-11-09T00:00:00Z"},
		{MonthBuckets, "2026-11-01T00:00:00Z", "2026-10-01T00:00:00Z"},
		{DaysBuckets(10), "2026-11-13T00:00:00Z", "2026-11-03T00:00:00Z"},
	} {
		start := tc.b.Of(at)
		if got := start.Format(time.RFC3339); got != tc.start {
			t.Errorf("%c: Of = %s, want %s", tc.b.kind, got, tc.start)
		}
		if got := tc.b.Prev(start).Format(time.RFC3339); got != tc.prv {
			t.Errorf("%c: Prev = %s, want %s", tc.b.kind, got, tc.prv)
		}
		if !tc.b.Of(start).Equal(start) || !tc.b.Of(tc.b.Prev(start)).Equal(tc.b.Prev(start)) {
			t.Errorf("%c: a bucket start is not its own bucket", tc.b.kind)
		}
	}
	// Before the epoch, N-day ranges still floor.
	if got := DaysBuckets(7).Of(time.Date(1969, 12, 31, 12, 0, 0, 0, time.UTC)); !got.Equal(time.Date(1969, 12, 25, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("days(7) before the epoch: %s", got)
	}
}
