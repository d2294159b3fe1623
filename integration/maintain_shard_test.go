package integration

import (
	"context"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

// A verify by job, in two shards: range by range, each row read by key,
// it finds exactly the drift the digests find (TestVerifyAndRepair's),
// records each range with the drift it found, and a run again skips them
// and reports that drift; status adds up both shards; a repair by job in
// two shards leaves none, as the digests' verify then confirms. The run's
// consistency level reaches its every read.
// Checks invariant I14: maintenance hides no write.
func TestVerifyByJobInShards(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	repo := testmodel.NewVisitRepo(s)
	const n, ranges = 300, 16
	for i := range n {
		must(t, repo.Insert(ctx, visit(i)))
	}
	opts := func(job string, shard int) *cqlmaintain.Options {
		return &cqlmaintain.Options{Job: job, Ranges: ranges, Shard: shard, Shards: 2}
	}
	// In step: each table's every row checked, none out of step.
	var rows int64
	for shard := range 2 {
		rep, err := repo.Verify(ctx, opts("clean", shard))
		must(t, err)
		rows += rep.Rows
		for _, tr := range rep.Tables {
			if tr.Drift() != 0 || tr.Mismatched != 0 {
				t.Errorf("shard %d, %s in step: %+v", shard, tr.Table, tr)
			}
		}
	}
	if rows != n {
		t.Errorf("the two shards read %d visits, want %d: each exactly once", rows, n)
	}

	// TestVerifyAndRepair's drift.
	version := func(id string) int64 {
		var v int64
		must(t, raw.Query("SELECT cqlgen_version FROM visits WHERE visit_id = ?", id).Scan(&v))
		return v
	}
	v1, v2, v3 := version("v00001"), version("v00002"), version("v00003")
	must(t, raw.Query("UPDATE visits SET page = '/changed', cqlgen_version = ? WHERE visit_id = 'v00001'", v1+10).Exec())
	must(t, raw.Query("UPDATE visits SET at = ?, cqlgen_version = ? WHERE visit_id = 'v00002'", visitDay.Add(-48*time.Hour), v2+10).Exec())
	must(t, raw.Query("UPDATE visits SET user_id = null, site = null, at = null, page = null, millis = null, cqlgen_deleted = true, cqlgen_version = ? WHERE visit_id = 'v00003'", v3+10).Exec())
	must(t, raw.Query("INSERT INTO visits_by_user (user_id, at, visit_id, site, page, millis) VALUES ('u99', ?, 'ghost', 'site-0', '/ghost', 1) USING TIMESTAMP 1000", visitDay).Exec())

	// At ALL (one node: every replica), in two shards.
	all := cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqlgen.All, Write: cqlgen.All})
	found := map[string]cqlmaintain.TableReport{}
	var drift int64
	for shard := range 2 {
		rep, err := repo.Verify(all, opts("drift", shard))
		must(t, err)
		drift += rep.Drift()
		for _, tr := range rep.Tables {
			f := found[tr.Table]
			f.Stale += tr.Stale
			f.Missing += tr.Missing
			f.Orphans += tr.Orphans
			found[tr.Table] = f
		}
	}
	for _, table := range visitTables {
		tr := found[table]
		stale, missing, orphans := int64(1), int64(1), int64(2)
		switch table {
		case "visits_by_user":
			orphans = 3
		case "visits_by_page":
			stale = 0
		}
		if tr.Stale != stale || tr.Missing != missing || tr.Orphans != orphans {
			t.Errorf("%s: verify by job found stale %d, missing %d, orphans %d; want %d, %d, %d", table, tr.Stale, tr.Missing, tr.Orphans, stale, missing, orphans)
		}
	}
	if drift != 3*4+1+3 {
		t.Errorf("verify by job found drift %d, want %d", drift, 3*4+1+3)
	}
	// Run again: every range of the shard was recorded, with its drift.
	var resumed int
	var resumedDrift int64
	for shard := range 2 {
		rep, err := repo.Verify(ctx, opts("drift", shard))
		must(t, err)
		if rep.Rows != 0 || rep.Drift() != 0 || rep.Resumed != ranges/2 {
			t.Errorf("shard %d run again: read %d, drift %d, skipped %d ranges; want 0, 0, %d", shard, rep.Rows, rep.Drift(), rep.Resumed, ranges/2)
		}
		resumed += rep.Resumed
		resumedDrift += rep.ResumedDrift
	}
	if resumed != ranges || resumedDrift != drift {
		t.Errorf("run again: skipped %d ranges with drift %d; want %d and %d", resumed, resumedDrift, ranges, drift)
	}
	st, err := repo.Repair(ctx, &cqlmaintain.Options{Job: "drift", Ranges: ranges, Status: true})
	must(t, err)
	// Visit 3 is deleted: n-1 live visits read.
	if len(st.Jobs) != 1 || st.Jobs[0].Kind != "verify" || st.Jobs[0].Done != ranges || st.Jobs[0].Rows != n-1 || st.Jobs[0].Drift != drift {
		t.Errorf("status of the verify: %+v; want verify, %d ranges, %d rows, drift %d", st.Jobs, ranges, n-1, drift)
	}

	// A level the node cannot give fails the run: the level reaches it.
	if _, err := repo.Verify(cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqlgen.Three}), opts("three", 0)); err == nil {
		t.Errorf("a verify at THREE on one node succeeded: the run's level did not reach its reads")
	}

	for shard := range 2 {
		_, err := repo.Repair(ctx, opts("fix", shard))
		must(t, err)
	}
	mustVerifyClean(t, repo, "after a repair by job in two shards")
}

// A sharded backfill: each worker fills its share of the ranges, and
// skips the verify after, which the job runs once every shard is done.
func TestBackfillInShards(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	const n, ranges, shards = 2000, 32, 3
	loadVisits(t, raw, n)
	repo := testmodel.NewVisitRepo(s)
	var written int64
	for shard := range shards {
		rep, err := repo.Backfill(ctx, "visits_by_site", &cqlmaintain.Options{Job: "fill", Ranges: ranges, Shard: shard, Shards: shards})
		must(t, err)
		if rep.After != nil {
			t.Errorf("shard %d ran the verify after", shard)
		}
		written += rep.Tables[0].Inserted
	}
	if written != n {
		t.Errorf("the shards wrote %d rows, want %d", written, n)
	}
	st, err := repo.Repair(ctx, &cqlmaintain.Options{Job: "fill", Ranges: ranges, Status: true})
	must(t, err)
	if len(st.Jobs) != 1 || st.Jobs[0].Table != "visits_by_site" || st.Jobs[0].Done != ranges || st.Jobs[0].Rows != n {
		t.Errorf("status: %+v", st.Jobs)
	}
	rep, err := repo.Verify(ctx, &cqlmaintain.Options{Tables: []string{"visits_by_site"}})
	must(t, err)
	if rep.Drift() != 0 || rep.Tables[0].Present != n {
		t.Errorf("after the shards: %+v", rep.Tables[0])
	}
	// More shards than ranges, or a shard out of its range, is refused.
	if _, err := repo.Backfill(ctx, "visits_by_site", &cqlmaintain.Options{Job: "x", Ranges: 2, Shard: 0, Shards: 3}); err == nil {
		t.Errorf("3 shards of 2 ranges ran")
	}
}
