package bucket

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

// TestWeekBucketsFrom checks weeks of every first day against a reader
// that counts its own way: it walks back day by day from the time's UTC
// day until the weekday is the first one. Every day of four weeks, at
// the first and last instant of the day, lands in that reader's bucket,
// and the week before starts seven days earlier.
func TestWeekBucketsFrom(t *testing.T) {
	for first := time.Sunday; first <= time.Saturday; first++ {
		b := WeekBucketsFrom(first)
		for d := 0; d < 28; d++ {
			day := time.Date(2026, 2, 1+d, 0, 0, 0, 0, time.UTC)
			want := day
			for want.Weekday() != first {
				want = want.AddDate(0, 0, -1)
			}
			for _, at := range []time.Time{day, day.Add(24*time.Hour - time.Nanosecond)} {
				if got := b.Of(at); !got.Equal(want) {
					t.Errorf("week from %s: Of(%s) = %s, want %s", first, at.Format(time.RFC3339Nano), got.Format("2006-01-02 Mon"), want.Format("2006-01-02 Mon"))
				}
			}
			if got := b.Prev(b.Of(day)); !got.Equal(want.AddDate(0, 0, -7)) || got.Weekday() != first {
				t.Errorf("week from %s: Prev(%s) = %s", first, want.Format("2006-01-02"), got.Format("2006-01-02 Mon"))
			}
		}
	}
	if WeekBucketsFrom(time.Monday) != WeekBuckets {
		t.Error("a week from Monday is not the ISO week")
	}
}

// TestDaysBucketsFrom checks N-day ranges counted from a chosen day: the
// day itself starts a range, so does every Nth day before and after it,
// and a day in between lands in the range that started before it.
func TestDaysBucketsFrom(t *testing.T) {
	epoch := time.Date(2024, 1, 7, 0, 0, 0, 0, time.UTC) // a Sunday
	days := int64(epoch.Unix() / 86400)
	b := DaysBucketsFrom(10, days)
	for k := -3; k <= 3; k++ {
		start := epoch.AddDate(0, 0, 10*k)
		for d := 0; d < 10; d++ {
			at := start.AddDate(0, 0, d).Add(13 * time.Hour)
			if got := b.Of(at); !got.Equal(start) {
				t.Errorf("days(10) from 2024-01-07: Of(%s) = %s, want %s", at.Format(time.RFC3339), got.Format("2006-01-02"), start.Format("2006-01-02"))
			}
		}
		if got := b.Prev(start); !got.Equal(start.AddDate(0, 0, -10)) {
			t.Errorf("Prev(%s) = %s", start.Format("2006-01-02"), got.Format("2006-01-02"))
		}
	}
	// From the epoch, 7-day ranges are weeks from Sunday.
	if got, want := DaysBucketsFrom(7, days).Of(time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)), WeekBucketsFrom(time.Sunday).Of(time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)); !got.Equal(want) {
		t.Errorf("7-day ranges from a Sunday: %s, weeks from Sunday: %s", got, want)
	}
	if DaysBucketsFrom(10, 0) != DaysBuckets(10) {
		t.Error("ranges from 1970-01-01 are not DaysBuckets")
	}
}
