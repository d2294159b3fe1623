package integration

import (
	"context"
	"fmt"
	"testing"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// Drift spread over every digest bucket (rows missing, rows with other
// values, rows no visit implies), found by a verify without a job that
// holds at most Options.Hold rows (issue 38, item 2): its mismatched
// buckets are split by their keys' hashes until the drift is narrowed,
// and compared Hold rows at a time. It finds exactly the drift made,
// as the comparison that holds every row of the mismatched buckets does
// (the unbounded Hold below, which holds nearly the whole table); a
// repair under the same bound writes all of it away.
// Checks invariant I14: maintenance hides no write.
func TestVerifySpreadDriftWithinHold(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	repo := testmodel.NewVisitRepo(s)
	const n, buckets, hold = 1000, 8, 16
	for i := range n {
		must(t, repo.Insert(ctx, visit(i)))
	}
	var missing, stale, orphans int64
	for i := range n {
		v := visit(i)
		switch {
		case i%20 == 0:
			must(t, raw.Query("DELETE FROM visits_by_user WHERE user_id = ? AND at = ? AND visit_id = ?", v.UserID, v.At, v.VisitID).Exec())
			missing++
		case i%25 == 1:
			must(t, raw.Query("UPDATE visits_by_user SET page = '/changed' WHERE user_id = ? AND at = ? AND visit_id = ?", v.UserID, v.At, v.VisitID).Exec())
			stale++
		}
	}
	for i := range 30 {
		must(t, raw.Query("INSERT INTO visits_by_user (user_id, at, visit_id, site, page, millis) VALUES (?, ?, ?, 'site-0', '/ghost', 1) USING TIMESTAMP 1000",
			fmt.Sprintf("ghost-%d", i%7), visitDay, fmt.Sprintf("ghost-%d", i)).Exec())
		orphans++
	}
	table := []string{"visits_by_user"}
	check := func(name string, o *cqlmaintain.Options) cqlmaintain.TableReport {
		t.Helper()
		rep, err := repo.Verify(ctx, o)
		must(t, err)
		tr := byTable(rep)["visits_by_user"]
		if tr.Missing != missing || tr.Stale != stale || tr.Orphans != orphans {
			t.Errorf("%s: found missing %d, stale %d, orphans %d; want %d, %d, %d (%+v)", name, tr.Missing, tr.Stale, tr.Orphans, missing, stale, orphans, tr)
		}
		if rep.Drift() != missing+stale+orphans {
			t.Errorf("%s: drift %d in all, want %d: %+v", name, rep.Drift(), missing+stale+orphans, rep.Tables)
		}
		return tr
	}
	// Every bucket differs; the comparison that holds the whole of the
	// mismatched buckets holds nearly every row of the table.
	all := check("every row held", &cqlmaintain.Options{Buckets: buckets, Hold: 1 << 30, Tables: table})
	if all.Mismatched != buckets || all.Held < n*9/10 || all.Rounds != 1 {
		t.Errorf("unbounded: %d of %d buckets mismatched, %d rows held, %d rounds; want all, at least %d, 1", all.Mismatched, buckets, all.Held, all.Rounds, n*9/10)
	}
	// Bounded: the same drift, Hold rows at most, after splitting the
	// buckets (and in batches: 120 rows of drift, 16 at a time).
	b := check("hold 16", &cqlmaintain.Options{Buckets: buckets, Hold: hold, Tables: table})
	if b.Mismatched != buckets || b.Held > hold || b.Held == 0 || b.Rounds < 3 {
		t.Errorf("hold %d: %d buckets mismatched, %d rows held, %d rounds; want %d, at most %d, at least 3", hold, b.Mismatched, b.Held, b.Rounds, buckets, hold)
	}
	t.Logf("unbounded: held %d, compared %d, %d rounds; hold %d: held %d, compared %d, %d rounds", all.Held, all.Compared, all.Rounds, hold, b.Held, b.Compared, b.Rounds)
	if b.Compared >= all.Compared {
		t.Errorf("hold %d compared %d rows one by one, the unbounded %d: the split should narrow them", hold, b.Compared, all.Compared)
	}
	// Hold 4: the narrowing's budget (8 sub-buckets a row held, 32) is
	// far less than the 120 sub-buckets the drift spreads over, so the
	// drift is narrowed a part at a time; the same drift, 4 rows held.
	w := check("hold 4", &cqlmaintain.Options{Buckets: buckets, Hold: 4, Tables: table})
	if w.Held > 4 || w.Held == 0 || w.Rounds <= b.Rounds {
		t.Errorf("hold 4: %d rows held, %d rounds; want at most 4, more than hold %d's %d", w.Held, w.Rounds, hold, b.Rounds)
	}
	t.Logf("hold 4: held %d, compared %d, %d rounds", w.Held, w.Compared, w.Rounds)
	// The defaults (4096 buckets), every table: the same.
	check("defaults", nil)

	rep, err := repo.Repair(ctx, &cqlmaintain.Options{Buckets: buckets, Hold: hold, Tables: table})
	must(t, err)
	tr := byTable(rep)["visits_by_user"]
	if tr.Inserted != missing+stale || tr.Deleted != orphans || tr.Held > hold {
		t.Errorf("repair within hold %d: rewrote %d, deleted %d, held %d; want %d, %d, at most %d", hold, tr.Inserted, tr.Deleted, tr.Held, missing+stale, orphans, hold)
	}
	if rep.Left() != 0 {
		t.Errorf("repair left %d rows out of step: %+v", rep.Left(), rep.After)
	}
	mustVerifyClean(t, repo, "after a repair within hold")
}
