package cqlgenimpl_test

import (
	"context"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
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
	rep, err := repo.Verify(ctx, &cqlgen.MaintainOptions{Ranges: 8})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]cqlgen.TableReport{}
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
