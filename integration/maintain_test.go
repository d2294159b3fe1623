package integration

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/messaging"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
)

var (
	_ cqlmaintain.Maintainer = (*testmodel.VisitRepo)(nil)
	_ cqlmaintain.Maintainer = (*messaging.MessageRepo)(nil) // immutable
)

var visitTables = []string{"visits_by_user", "visits_by_site", "visits_by_site_day", "visits_by_page"}

var visitDay = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

func visit(i int) *testmodel.Visit {
	return &testmodel.Visit{
		VisitID: fmt.Sprintf("v%05d", i), UserID: fmt.Sprintf("u%d", i%13), Site: fmt.Sprintf("site-%d", i%3),
		At: visitDay.Add(time.Duration(i) * 7 * time.Minute), Page: fmt.Sprintf("/p/%d", i), Millis: int32(i),
	}
}

// byTable indexes a report's tables.
func byTable(r *cqlmaintain.Report) map[string]cqlmaintain.TableReport {
	m := map[string]cqlmaintain.TableReport{}
	for _, t := range r.Tables {
		m[t.Table] = t
	}
	return m
}

func mustVerifyClean(t *testing.T, repo *testmodel.VisitRepo, when string) *cqlmaintain.Report {
	t.Helper()
	rep, err := repo.Verify(context.Background(), nil)
	if err != nil {
		t.Fatalf("%s: verify: %v", when, err)
	}
	if rep.Drift() != 0 {
		t.Fatalf("%s: drift %+v", when, rep.Tables)
	}
	return rep
}

// Drift of each kind, made as failures make it (a change whose fan-out
// never ran, a delete whose fan-out never ran) and by hand (a row no
// visit implies), in a plain, a hash-bucketed and a time-bucketed table:
// Verify reports exactly it, and Repair leaves none.
// Checks invariant I14: maintenance hides no write.
func TestVerifyAndRepair(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	repo := testmodel.NewVisitRepo(s)
	const n = 300
	for i := range n {
		must(t, repo.Insert(ctx, visit(i)))
	}
	rep := mustVerifyClean(t, repo, "after inserts")
	for _, tr := range rep.Tables {
		if tr.Expected != n || tr.Present != n || tr.Mismatched != 0 || tr.Compared != 0 {
			t.Errorf("%s: clean verify %+v; want %d rows, no bucket compared", tr.Table, tr, n)
		}
	}
	// A change recorded in the canonical row whose fan-out never ran:
	// visit 1's page (stale everywhere), visit 2's time (every row moves:
	// missing where it goes, orphan where it was). A delete likewise: visit
	// 3 (orphans everywhere).
	version := func(id string) int64 {
		var v int64
		must(t, raw.Query("SELECT cqlgen_version FROM visits WHERE visit_id = ?", id).Scan(&v))
		return v
	}
	v1, v2, v3 := version("v00001"), version("v00002"), version("v00003")
	must(t, raw.Query("UPDATE visits SET page = '/changed', cqlgen_version = ? WHERE visit_id = 'v00001'", v1+10).Exec())
	must(t, raw.Query("UPDATE visits SET at = ?, cqlgen_version = ? WHERE visit_id = 'v00002'", visitDay.Add(-48*time.Hour), v2+10).Exec())
	must(t, raw.Query("UPDATE visits SET user_id = null, site = null, at = null, page = null, millis = null, cqlgen_deleted = true, cqlgen_version = ? WHERE visit_id = 'v00003'", v3+10).Exec())
	// And a row of visits_by_user that no visit implies.
	must(t, raw.Query("INSERT INTO visits_by_user (user_id, at, visit_id, site, page, millis) VALUES ('u99', ?, 'ghost', 'site-0', '/ghost', 1) USING TIMESTAMP 1000", visitDay).Exec())

	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	got := byTable(rep)
	for _, table := range visitTables {
		tr := got[table]
		// Visit 1's new page is stale in the tables that store it, and
		// moves its row in visits_by_page, which visit 2's new time does
		// not touch (it stores no time).
		stale, missing, orphans := int64(1), int64(1), int64(2)
		switch table {
		case "visits_by_user":
			orphans = 3
		case "visits_by_page":
			stale = 0
		}
		if tr.Stale != stale || tr.Missing != missing || tr.Orphans != orphans {
			t.Errorf("%s: verify found stale %d, missing %d, orphans %d; want %d, %d, %d (%+v)", table, tr.Stale, tr.Missing, tr.Orphans, stale, missing, orphans, tr)
		}
		if tr.Mismatched == 0 || tr.Compared >= n {
			t.Errorf("%s: %d buckets mismatched, %d rows compared: the digests should narrow the comparison", table, tr.Mismatched, tr.Compared)
		}
	}
	if got["visits_by_user"].OrphanKeys == nil || rep.Drift() != 3*4+1+3 {
		t.Errorf("report: drift %d, orphan samples %v", rep.Drift(), got["visits_by_user"].OrphanKeys)
	}

	rep, err = repo.Repair(ctx, nil)
	must(t, err)
	// The two visits whose rows were missing or stale are written again
	// through the protocol, in every table at once; every orphan goes.
	var rewritten int64
	for _, tr := range rep.Tables {
		rewritten += tr.Inserted
		if tr.Deleted != tr.Orphans {
			t.Errorf("%s: repair deleted %d of %d orphans", tr.Table, tr.Deleted, tr.Orphans)
		}
	}
	if rewritten < 2 || rewritten > 3 {
		t.Errorf("repair rewrote %d visits, want 2 (or 3, if visits_by_page came first): %+v", rewritten, rep.Tables)
	}
	mustVerifyClean(t, repo, "after repair")
	if v, err := repo.VisitsByUser(ctx, "u1", nil); err != nil || len(v.Rows) == 0 {
		t.Errorf("after repair: %v, %v", v, err)
	}
}

// Repair while the application writes: writers move visits (a new time,
// so every table's row moves) while Repair runs; afterwards no table
// drifts, and every visit holds its last acknowledged write.
// Checks invariant I14: maintenance hides no write.
func TestRepairWhileWriting(t *testing.T) {
	_, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	repo := testmodel.NewVisitRepo(s, cqlgen.WithAttempts(100))
	const n = 200
	for i := range n {
		must(t, repo.Insert(ctx, visit(i)))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	last := make([]*testmodel.Visit, n)
	var writes int
	var mu sync.Mutex
	for w := range 4 {
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				i := (w + 4*k) % n
				v := visit(i)
				v.At = v.At.Add(time.Duration(k+1) * time.Hour)
				v.Page = fmt.Sprintf("/moved/%d/%d", w, k)
				if err := repo.Update(ctx, v); err != nil {
					t.Errorf("writer: %v", err)
					return
				}
				mu.Lock()
				last[i] = v
				writes++
				mu.Unlock()
			}
		})
	}
	var repairs int
	for range 3 {
		if _, err := repo.Repair(ctx, &cqlmaintain.Options{Ranges: 16}); err != nil {
			t.Fatalf("repair while writing: %v", err)
		}
		repairs++
	}
	close(stop)
	wg.Wait()
	t.Logf("%d writes during %d repairs", writes, repairs)
	mustVerifyClean(t, repo, "after writers and repairs")
	for i, v := range last {
		if v == nil {
			continue
		}
		got, err := repo.Get(ctx, v.VisitID)
		if err != nil || got.Page != v.Page || !got.At.Equal(v.At) {
			t.Errorf("visit %d: %+v, %v; the last acknowledged write was %+v", i, got, err, v)
		}
	}
}

// backfillRows is the size of TestBackfillResumes: CQLGEN_BACKFILL_ROWS,
// or 100,000.
func backfillRows(t *testing.T) int {
	if v := os.Getenv("CQLGEN_BACKFILL_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("CQLGEN_BACKFILL_ROWS=%q", v)
		}
		return n
	}
	return 100_000
}

// A new access pattern over existing data: visits_by_site starts empty,
// and a backfill of every visit is stopped midway, then run again with
// the same job: it resumes at the ranges not done, and ends in step.
// Checks invariant I14: maintenance hides no write.
func TestBackfillResumes(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	n := backfillRows(t)
	// The canonical rows, written directly as the write protocol would
	// have (a version each), fast.
	loadVisits(t, raw, n)
	repo := testmodel.NewVisitRepo(s)

	stopAt := 0
	ctx1, cancel := context.WithCancel(ctx)
	o := &cqlmaintain.Options{Job: "add-visits-by-site", Ranges: 64, Concurrency: 4, Progress: func(p cqlmaintain.Progress) {
		if p.Done >= 32 && stopAt == 0 {
			stopAt = p.Done
			cancel()
		}
	}}
	start := time.Now()
	first, err := repo.Backfill(ctx1, "visits_by_site", o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped backfill: %v", err)
	}
	o.Progress = nil
	second, err := repo.Backfill(ctx, "visits_by_site", o)
	must(t, err)
	elapsed := time.Since(start)
	if first.Rows == 0 || second.Rows == 0 || second.Rows >= int64(n) {
		t.Errorf("first run wrote %d rows, the resumed one %d of %d: it should resume, not start over", first.Rows, second.Rows, n)
	}
	rep, err := repo.Verify(ctx, &cqlmaintain.Options{Tables: []string{"visits_by_site"}})
	must(t, err)
	if tr := rep.Tables[0]; rep.Drift() != 0 || tr.Present != int64(n) {
		t.Errorf("after the backfill: %+v", tr)
	}
	t.Logf("backfill of %d rows, stopped after %d of 64 ranges, resumed: %d + %d rows written in %v (%.0f rows/s)",
		n, stopAt, first.Rows, second.Rows, elapsed.Round(time.Millisecond), float64(first.Rows+second.Rows)/elapsed.Seconds())
}

// loadVisits writes n canonical rows of visits with plain gocql.
func loadVisits(t *testing.T, raw *gocql.Session, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < n; i += 16 {
				v := visit(i)
				if err := raw.Query("INSERT INTO visits (visit_id, user_id, site, at, page, millis, cqlgen_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
					v.VisitID, v.UserID, v.Site, v.At, v.Page, v.Millis, int64(1_000_000+i)).Exec(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// hookSession runs before, once, ahead of the first Exec it matches.
type hookSession struct {
	cqlgen.Session
	mu    sync.Mutex
	hooks []func(q cqldriver.Query) bool // true: it ran, drop it
}

func (h *hookSession) run(qs ...cqldriver.Query) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, q := range qs {
		for i, f := range h.hooks {
			if f(q) {
				h.hooks = append(h.hooks[:i], h.hooks[i+1:]...)
				return
			}
		}
	}
}

func (h *hookSession) Exec(ctx context.Context, q cqldriver.Query) error {
	h.run(q)
	return h.Session.Exec(ctx, q)
}

func (h *hookSession) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	h.run(qs...)
	return h.Session.Batch(ctx, kind, qs)
}

// Repair racing the application, deterministically: a writer changes a
// visit just before Repair writes the rows it found missing (after
// Repair's conditional write), and again just before Repair deletes the
// row it found orphaned. Repair writes at the timestamps of the version it
// set, and deletes at the orphan's own, so neither hides the writer's
// writes: every table ends in step with the writer.
// Checks invariant I14: maintenance hides no write.
func TestRepairRacesAWriter(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	app := testmodel.NewVisitRepo(s)
	for i := range 20 {
		must(t, app.Insert(ctx, visit(i)))
	}
	// Visit 2's change of time recorded in the source of truth only: its
	// new rows are missing, its old ones orphans.
	var v2 int64
	must(t, raw.Query("SELECT cqlgen_version FROM visits WHERE visit_id = 'v00002'").Scan(&v2))
	must(t, raw.Query("UPDATE visits SET at = ?, cqlgen_version = ? WHERE visit_id = 'v00002'", visitDay.Add(-48*time.Hour), v2+10).Exec())

	moved := visit(2)
	moved.At = visitDay.Add(-24 * time.Hour)
	hooked := &hookSession{Session: s}
	hooked.hooks = []func(cqldriver.Query) bool{
		// Before Repair inserts visit 2's missing row: move it elsewhere.
		func(q cqldriver.Query) bool {
			if q.Stmt.Table != "visits_by_user" || q.Stmt.CQL[:6] != "INSERT" {
				return false
			}
			must(t, app.Update(ctx, moved))
			return true
		},
		// Before Repair deletes visit 2's orphan: move it back there.
		func(q cqldriver.Query) bool {
			if q.Stmt.Table != "visits_by_user" || q.Stmt.CQL[:6] != "DELETE" {
				return false
			}
			must(t, app.Update(ctx, visit(2)))
			return true
		},
	}
	rep, err := testmodel.NewVisitRepo(hooked).Repair(ctx, &cqlmaintain.Options{Tables: []string{"visits_by_user"}, Concurrency: 1})
	must(t, err)
	if len(hooked.hooks) != 0 {
		t.Fatalf("the writer did not run: repair %+v", rep.Tables)
	}
	mustVerifyClean(t, app, "after repair raced the writer")
	got, err := app.Get(ctx, "v00002")
	if err != nil || !got.At.Equal(visit(2).At) {
		t.Errorf("visit 2: %+v, %v; want the writer's last write", got, err)
	}
	page, err := app.VisitsByUser(ctx, visit(2).UserID, nil)
	must(t, err)
	found := 0
	for _, r := range page.Rows {
		if r.VisitID == "v00002" {
			found++
		}
	}
	if found != 1 {
		t.Errorf("visits_by_user lists visit 2 %d times, want once", found)
	}
}

// The maintenance command a team builds on cqlmaintain.Run: exit 0
// when in step, 1 when verify finds drift, a JSON report, and repair.
func TestRunMaintenance(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	repo := testmodel.NewVisitRepo(s)
	for i := range 30 {
		must(t, repo.Insert(ctx, visit(i)))
	}
	run := func(args ...string) (int, string, string) {
		var out, errs strings.Builder
		code := cqlmaintain.Run(ctx, args, &out, &errs, repo)
		return code, out.String(), errs.String()
	}
	if code, out, errs := run("verify"); code != 0 || !strings.Contains(out, "visits_by_site_day") {
		t.Fatalf("verify in step = %d\n%s%s", code, out, errs)
	}
	must(t, raw.Query("DELETE FROM visits_by_user WHERE user_id = 'u1' AND at = ? AND visit_id = 'v00001'", visit(1).At).Exec())
	code, out, errs := run("verify", "-json", "-table", "visits_by_user")
	var rep cqlmaintain.Report
	if code != 1 || json.Unmarshal([]byte(out), &rep) != nil || rep.Drift() != 1 || rep.Tables[0].MissingKeys == nil {
		t.Fatalf("verify with a row missing = %d\n%s%s", code, out, errs)
	}
	// The sample key names its columns, not its values, unless asked.
	code, out, errs = run("verify", "-table", "visits_by_user")
	if code != 1 || !strings.Contains(out, "missing: user_id=#") || strings.Contains(out, "v00001") {
		t.Errorf("verify, keys redacted = %d\n%s%s", code, out, errs)
	}
	code, out, errs = run("verify", "-show-keys", "-table", "visits_by_user")
	if code != 1 || !strings.Contains(out, "missing: user_id=u1 ") || !strings.Contains(out, "visit_id=v00001") {
		t.Errorf("verify -show-keys = %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run("repair", "-entity", "Visit", "-rate", "100"); code != 0 || !strings.Contains(out, "repair wrote 1 missing or stale, deleted 0 orphans") {
		t.Fatalf("repair = %d\n%s%s", code, out, errs)
	}
	if code, _, _ := run("verify"); code != 0 {
		t.Errorf("verify after repair = %d", code)
	}
	if code, _, errs := run("backfill", "-table", "visits_by_user"); code != 2 || !strings.Contains(errs, "-job") {
		t.Errorf("backfill without a job = %d: %s", code, errs)
	}
	// A misspelt table is a bad command line naming the tables there are,
	// not a run of nothing that succeeds.
	for _, args := range [][]string{
		{"backfill", "-entity", "Visit", "-table", "visits_by_usr", "-job", "j"},
		{"verify", "-table", "nope"},
	} {
		code, out, errs := run(args...)
		if code != 2 || out != "" || !strings.Contains(errs, strings.Join(visitTables, ", ")) {
			t.Errorf("%v = %d\n%s%s", args, code, out, errs)
		}
	}
	// A backfill's report says what it read and what it wrote.
	code, out, errs = run("backfill", "-table", "visits_by_site", "-job", "refill")
	if code != 0 || !strings.Contains(out, "read 30 rows of visits") || !strings.Contains(out, "wrote 30 rows") || strings.Contains(out, "expected") {
		t.Errorf("backfill = %d\n%s%s", code, out, errs)
	}
}

// An immutable entity, a message written once, drifts as an Insert cut
// short leaves it (under the unlogged strategy), as a Delete cut short
// leaves it, and by hand: Verify reports exactly that; Repair writes the
// missing row at the message's own timestamp and the stale one just after
// the tampering, so that a later Delete still wins over both, and deletes
// the orphans. Every table is then counted with plain gocql.
// Checks invariant I14: maintenance hides no write.
func TestRepairImmutable(t *testing.T) {
	raw, s := repoSession(t, messaging.Schema)
	ctx := context.Background()
	repo := messaging.NewMessageRepo(s)
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	const n = 200
	msgs := make([]*messaging.Message, n+1)
	for i := range msgs {
		at := base.Add(time.Duration(i) * time.Minute)
		msgs[i] = &messaging.Message{ConversationID: fmt.Sprintf("c%d", i%7), MessageID: gocql.UUIDFromTime(at), UserID: fmt.Sprintf("u%d", i%11), SentAt: at, Text: fmt.Sprintf("message %d", i)}
	}
	for _, m := range msgs[:n] {
		must(t, repo.Insert(ctx, m))
	}
	if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 || rep.Tables[0].Expected != n {
		t.Fatalf("verify after inserts: %v, %+v", err, rep)
	}
	// Message n reached its source of truth only, a second ago.
	m, written := msgs[n], time.Now().Add(-time.Second).UnixMicro()
	must(t, raw.Query("INSERT INTO messages_by_conversation (conversation_id, sent_at, message_id, user_id, text) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?",
		m.ConversationID, m.SentAt, m.MessageID, m.UserID, m.Text, written).Exec())
	// Message 2's text changed by hand in messages_by_user, after it was
	// written; message 3's delete reached its source of truth only; and a
	// row no message implies.
	m2, m3 := msgs[2], msgs[3]
	must(t, raw.Query("UPDATE messages_by_user SET text = 'tampered' WHERE user_id = ? AND sent_at = ? AND message_id = ?", m2.UserID, m2.SentAt, m2.MessageID).Exec())
	must(t, raw.Query("DELETE FROM messages_by_conversation WHERE conversation_id = ? AND sent_at = ? AND message_id = ?", m3.ConversationID, m3.SentAt, m3.MessageID).Exec())
	must(t, raw.Query("INSERT INTO messages_by_user (user_id, sent_at, message_id, conversation_id, text) VALUES ('ghost', ?, ?, 'c0', 'boo')", base, gocql.TimeUUID()).Exec())

	rep, err := repo.Verify(ctx, nil)
	must(t, err)
	if tr := rep.Tables[0]; tr.Missing != 1 || tr.Stale != 1 || tr.Orphans != 2 || rep.Drift() != 4 {
		t.Fatalf("verify found %+v; want 1 missing, 1 stale, 2 orphans", tr)
	}
	rep, err = repo.Repair(ctx, nil)
	must(t, err)
	if tr := rep.Tables[0]; tr.Inserted != 2 || tr.Deleted != 2 {
		t.Errorf("repair wrote %d and deleted %d rows, want 2 and 2: %+v", tr.Inserted, tr.Deleted, tr)
	}
	if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
		t.Fatalf("verify after repair: %v, %+v", err, rep)
	}
	var text string
	var wt int64
	must(t, raw.Query("SELECT text FROM messages_by_user WHERE user_id = ? AND sent_at = ? AND message_id = ?", m2.UserID, m2.SentAt, m2.MessageID).Scan(&text))
	if text != m2.Text {
		t.Errorf("message 2 in messages_by_user reads %q after repair, want %q", text, m2.Text)
	}
	must(t, raw.Query("SELECT writetime(text) FROM messages_by_user WHERE user_id = ? AND sent_at = ? AND message_id = ?", m.UserID, m.SentAt, m.MessageID).Scan(&wt))
	if wt != written {
		t.Errorf("the missing row was written at %d, want the message's own timestamp %d", wt, written)
	}
	count := func(table string) int { return len(scanTable(t, raw, "SELECT * FROM "+table)) }
	if c, u := count("messages_by_conversation"), count("messages_by_user"); c != n || u != n {
		t.Errorf("after repair: %d rows in messages_by_conversation, %d in messages_by_user; want %d each", c, u, n)
	}
	// The repaired rows lose to the Delete that follows, and a repair then
	// brings nothing back.
	must(t, repo.Delete(ctx, m))
	must(t, repo.Delete(ctx, m2))
	rep, err = repo.Repair(ctx, nil)
	if err != nil || rep.Drift() != 0 || rep.Tables[0].Inserted != 0 {
		t.Fatalf("repair after deletes: %v, %+v", err, rep)
	}
	if c, u := count("messages_by_conversation"), count("messages_by_user"); c != n-2 || u != n-2 {
		t.Errorf("after deletes: %d rows in messages_by_conversation, %d in messages_by_user; want %d each", c, u, n-2)
	}
}
