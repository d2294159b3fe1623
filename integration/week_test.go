package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// sundayOf is how a reader that counts weeks from Sunday finds the week
// of a time, written here without cqlgen: the UTC day, walked back to a
// Sunday.
func sundayOf(at time.Time) time.Time {
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	for day.Weekday() != time.Sunday {
		day = day.AddDate(0, 0, -1)
	}
	return day
}

// fortnightOf is how the payroll system finds a pay period: whole
// fortnights since Sunday 7 January 2024, in either direction.
func fortnightOf(at time.Time) time.Time {
	epoch := time.Date(2024, 1, 7, 0, 0, 0, 0, time.UTC)
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	n := int(day.Sub(epoch).Hours()/24) / 14
	start := epoch.AddDate(0, 0, 14*n)
	if start.After(day) {
		start = start.AddDate(0, 0, -14)
	}
	return start
}

// TestWeekFromSunday writes helpdesk time entries around week and
// fortnight boundaries (a Saturday 23:59, the Sunday 00:00 after it, a
// Monday, a Sunday before the pay epoch) and reads each back, with plain
// gocql, from the partition that a Sunday-based reader, and the payroll
// system, compute on their own: every entry is there and nowhere else.
// Under the ISO default (weeks from Monday) the Saturday and the Sunday
// would share a partition and the Sunday reader would miss the Sunday.
// Then the repository's own reads walk those partitions back, newest
// (or oldest) first, and return every entry once.
func TestWeekFromSunday(t *testing.T) {
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	now := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC) // a Monday
	repo := helpdesk.NewTimeEntryRepo(s, cqlgen.WithClock(func() time.Time { return now }))
	at := []time.Time{
		time.Date(2026, 3, 7, 23, 59, 59, 0, time.UTC), // Saturday
		time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC),    // Sunday: a new week
		time.Date(2026, 3, 9, 8, 30, 0, 0, time.UTC),   // Monday, same week
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),    // Sunday, a new fortnight
		time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC),  // Saturday, the fortnight before
		time.Date(2023, 12, 31, 10, 0, 0, 0, time.UTC), // before the pay epoch
	}
	if sundayOf(at[0]).Equal(sundayOf(at[1])) {
		t.Fatal("the test's Saturday and Sunday are in one week")
	}
	ids := map[gocql.UUID]time.Time{}
	for i, a := range at {
		e := &helpdesk.TimeEntry{OrgID: "org", AgentID: "ada", LoggedAt: a, EntryID: gocql.TimeUUID(), TicketID: gocql.TimeUUID(), Spent: time.Duration(i+1) * time.Minute}
		must(t, repo.Insert(ctx, e))
		ids[e.EntryID] = a
	}
	for id, a := range ids {
		for _, read := range []struct {
			table, col string
			bucket     time.Time
		}{{"time_entries", "week_start", sundayOf(a)}, {"time_entries_by_pay_period", "period_start", fortnightOf(a)}} {
			var n int
			q := fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE org_id = ? AND agent_id = ? AND %s = ? AND logged_at = ? AND entry_id = ?", read.table, read.col)
			must(t, raw.Query(q, "org", "ada", read.bucket, a, id).Scan(&n))
			if n != 1 {
				t.Errorf("%s: the entry of %s is not in the partition of %s", read.table, a.Format(time.RFC3339), read.bucket.Format("2006-01-02 Mon"))
			}
			var total int
			must(t, raw.Query(fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE entry_id = ? ALLOW FILTERING", read.table), id).Scan(&total))
			if total != 1 {
				t.Errorf("%s: the entry of %s is stored %d times", read.table, a.Format(time.RFC3339), total)
			}
		}
	}

	// The repository's reads find them all, walking back from now.
	seen := map[gocql.UUID]int{}
	o := &helpdesk.TimeEntriesOptions{Limit: 2, LookBack: 200}
	for {
		page, err := repo.TimeEntries(ctx, "org", "ada", o)
		must(t, err)
		for _, e := range page.Rows {
			seen[e.EntryID]++
		}
		if page.Cursor == "" {
			break
		}
		o.Cursor = page.Cursor
	}
	p := &helpdesk.PayPeriodEntriesOptions{LookBack: 60}
	page, err := repo.PayPeriodEntries(ctx, "org", "ada", p)
	must(t, err)
	for _, e := range page.Rows {
		seen[e.EntryID] += 10
	}
	for id, a := range ids {
		if seen[id] != 11 {
			t.Errorf("entry of %s read %d times by week and %d by pay period, want once each", a.Format(time.RFC3339), seen[id]%10, seen[id]/10)
		}
	}
}
