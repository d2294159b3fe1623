package cqlspec

import "strconv"

// HumanDuration writes seconds the way a person would: 90 days, 12 hours.
// Days are the largest unit, as TTLs are reasoned about in days; a
// duration is written in the largest unit that divides it, so 36 hours
// stay 36 hours rather than becoming 1 day. schema.cql, schema.md and the
// demo write TTLs with it.
func HumanDuration(s int64) string {
	units := []struct {
		secs int64
		name string
	}{{86400, "day"}, {3600, "hour"}, {60, "minute"}, {1, "second"}}
	for _, u := range units {
		if s%u.secs == 0 {
			n := s / u.secs
			if n == 1 {
				return "1 " + u.name
			}
			return strconv.FormatInt(n, 10) + " " + u.name + "s"
		}
	}
	return "0 seconds"
}
