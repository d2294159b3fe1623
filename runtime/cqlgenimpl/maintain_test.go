package cqlgenimpl_test

import (
	"context"
	"encoding/json"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// Verify and Repair on the in-memory session, with drift made as a client
// dying mid-change makes it (a canonical row changed, its fan-out lost),
// in a hash-bucketed table (readings_16) and a plain one with three
// clustering columns (readings_by_kind), while the source of truth is
// itself day-bucketed.
// Checks invariant I14: maintenance hides no write.
func TestVerifyAndRepairInMemory(t *testing.T) {
	ctx := context.Background()
	fy := &faulty{k: 3, f: dies}
	s := session(t, cqltest.WithHook(fy.hook))
	repo := fixture.NewReadingRepo(s)
	rows := readings(60, 3, 9)
	insertAll(t, repo.Insert, rows)
	if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 || rep.Rows != 60 {
		t.Fatalf("verify in step: %+v, %v", rep, err)
	}
	// Move reading 5 to another kind; the client dies after the
	// conditional write (state read, CAS, then the fan-out fails).
	r := rows[5]
	r.Kind, r.Value = "z", 500
	fy.armed.Store(true)
	if err := repo.Update(ctx, &r); err == nil {
		t.Fatal("the update did not fail")
	}
	fy.armed.Store(false)
	rep, err := repo.Verify(ctx, &cqlmaintain.Options{Ranges: 8})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]cqlmaintain.TableReport{}
	for _, tr := range rep.Tables {
		got[tr.Table] = tr
	}
	// readings_16 keeps its key (stale value); readings_by_kind's row
	// moves (missing where it goes, orphan where it was).
	if tr := got["readings_16"]; tr.Stale != 1 || tr.Missing != 0 || tr.Orphans != 0 {
		t.Errorf("readings_16: %+v", tr)
	}
	if tr := got["readings_by_kind"]; tr.Stale != 0 || tr.Missing != 1 || tr.Orphans != 1 {
		t.Errorf("readings_by_kind: %+v", tr)
	}
	// The test's own oracle, which keys rows by reading, agrees: two
	// tables out of step.
	if d := drift(t, s); len(d) != 2 {
		t.Errorf("the oracle sees %v", d)
	}
	if _, err := repo.Repair(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if d := drift(t, s); len(d) > 0 {
		t.Errorf("after repair: %v", d)
	}
	if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
		t.Errorf("verify after repair: %+v, %v", rep, err)
	}
	got2, err := repo.Get(ctx, r.SensorID, r.At, r.Seq)
	if err != nil || got2.Kind != "z" || got2.Value != 500 {
		t.Errorf("the change is lost: %+v, %v", got2, err)
	}
}

// A report's sample keys name their columns but not their values unless
// asked: an email in a key is redacted to a stable hash, the same in two
// reports and in two tables, and shown with ShowKeys.
func TestVerifyRedactsSampleKeys(t *testing.T) {
	ctx := context.Background()
	fy := &faulty{k: 3, f: dies}
	s := session(t, cqltest.WithHook(fy.hook))
	repo := fixture.NewReadingRepo(s)
	const email = "ann@example.com"
	rows := readings(20, 2, 4)
	for i := range rows {
		rows[i].SensorID = email
	}
	insertAll(t, repo.Insert, rows)
	r := rows[5]
	r.Kind = "zzz-secret-kind"
	fy.armed.Store(true)
	if err := repo.Update(ctx, &r); err == nil {
		t.Fatal("the update did not fail")
	}
	fy.armed.Store(false)
	samples := func(rep *cqlmaintain.Report) map[string][]string {
		out := map[string][]string{}
		for _, tr := range rep.Tables {
			out[tr.Table] = append(append(append(out[tr.Table], tr.MissingKeys...), tr.StaleKeys...), tr.OrphanKeys...)
		}
		return out
	}
	rep, err := repo.Verify(ctx, nil)
	if err != nil || rep.Drift() == 0 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
	redacted := regexp.MustCompile(`^[a-z_]+=#[0-9a-f]{8}$`)
	keys := samples(rep)
	var sensor []string
	for table, ks := range keys {
		for _, k := range ks {
			for _, part := range strings.Fields(k) {
				if !redacted.MatchString(part) {
					t.Errorf("%s: sample key %q shows a value: %q", table, k, part)
				}
				if name, _, _ := strings.Cut(part, "="); name == "sensor_id" {
					sensor = append(sensor, part)
				}
			}
		}
	}
	if len(sensor) < 3 || slices.ContainsFunc(sensor, func(p string) bool { return p != sensor[0] }) {
		t.Errorf("one sensor_id, redacted, reads differently across tables: %v", sensor)
	}
	if j, _ := json.Marshal(rep); strings.Contains(string(j), email) || strings.Contains(string(j), "secret") {
		t.Errorf("the JSON report shows a key: %s", j)
	}
	again, err := repo.Verify(ctx, &cqlmaintain.Options{Ranges: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(samples(again), keys) {
		t.Errorf("two reports of one drift redact differently:\n%v\n%v", keys, samples(again))
	}
	shown, err := repo.Verify(ctx, &cqlmaintain.Options{ShowKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	orphan := samples(shown)["readings_by_kind"]
	if !slices.ContainsFunc(orphan, func(k string) bool {
		return strings.Contains(k, "sensor_id="+email) && strings.Contains(k, "kind=zzz-secret-kind")
	}) {
		t.Errorf("ShowKeys: readings_by_kind's samples %q do not show the key", orphan)
	}
}

// A backfill run again under a finished job skips every range, and says
// so, rather than reporting nothing read as if the table were empty.
func TestBackfillReportsResumedRanges(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	insertAll(t, repo.Insert, readings(12, 2, 5))
	o := &cqlmaintain.Options{Ranges: 8, Job: "refill"}
	rep, err := repo.Backfill(ctx, "readings_16", o)
	if err != nil || rep.Rows != 12 || rep.Tables[0].Inserted != 12 || rep.Resumed != 0 {
		t.Fatalf("backfill = %+v, %v; want 12 rows read and written, none resumed", rep, err)
	}
	rep, err = repo.Backfill(ctx, "readings_16", o)
	if err != nil || rep.Rows != 0 || rep.Tables[0].Inserted != 0 || rep.Resumed != 8 {
		t.Fatalf("backfill again = %+v, %v; want the 8 ranges skipped", rep, err)
	}
}

// A repair's progress never counts more ranges done than there are: the
// repair phase keeps the scan's count of ranges.
func TestRepairProgressCounts(t *testing.T) {
	ctx := context.Background()
	fy := &faulty{k: 3, f: dies}
	s := session(t, cqltest.WithHook(fy.hook))
	repo := fixture.NewReadingRepo(s)
	rows := readings(10, 2, 6)
	insertAll(t, repo.Insert, rows)
	r := rows[2]
	r.Kind = "q"
	fy.armed.Store(true)
	if err := repo.Update(ctx, &r); err == nil {
		t.Fatal("the update did not fail")
	}
	fy.armed.Store(false)
	var seen []cqlmaintain.Progress
	o := &cqlmaintain.Options{Ranges: 4, Progress: func(p cqlmaintain.Progress) { seen = append(seen, p) }}
	if _, err := repo.Repair(ctx, o); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 {
		t.Fatal("no progress")
	}
	last := seen[len(seen)-1]
	if last.Phase != "done" || last.Done != last.Ranges {
		t.Errorf("the final progress reads %d/%d ranges (%s)", last.Done, last.Ranges, last.Phase)
	}
	for _, p := range seen {
		if p.Done > p.Ranges {
			t.Errorf("progress %s: %d/%d ranges", p.Phase, p.Done, p.Ranges)
		}
	}
}
