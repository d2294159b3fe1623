package cqldriver_test

import (
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// TimeOfUUID reads a timeuuid's time as gocql's UUID.Time does, to the
// 100 ns, before the Unix epoch too; other versions carry none.
func TestTimeOfUUIDMatchesGocql(t *testing.T) {
	times := []time.Time{
		time.Date(2025, 3, 1, 12, 0, 0, 123456700, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 999999900, time.UTC),
		time.Date(1582, 10, 15, 0, 0, 0, 100, time.UTC),
		time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for _, at := range times {
		u := gocql.UUIDFromTime(at)
		got := cqldriver.TimeOfUUID(u)
		if want := u.Time(); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%v: TimeOfUUID = %v, gocql says %v", at, got, want)
		}
		if !got.Equal(at) {
			t.Errorf("%v: TimeOfUUID = %v", at, got)
		}
	}
	now := gocql.TimeUUID()
	if got := cqldriver.TimeOfUUID(now); !got.Equal(now.Time()) {
		t.Errorf("a fresh timeuuid: %v, gocql says %v", got, now.Time())
	}
	if got := cqldriver.TimeOfUUID(gocql.MustRandomUUID()); !got.IsZero() {
		t.Errorf("a version 4 uuid has time %v", got)
	}
}
