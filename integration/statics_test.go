package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Static columns on the real node (issue 24): the statics belong to the
// partition, and the write protocol guards them with a version of the
// partition's own. Line keeps an order's header (user, edits) static in
// lines; lines_by_order_status shares the user, static too. Every check
// counts the tables with plain gocql.

func orderLine(order, item, user, status string, qty int64) *testmodel.Line {
	return &testmodel.Line{OrderID: order, ItemID: item, UserID: user, Status: status, Qty: qty}
}

// rawLineDrift compares, with plain gocql, the lines of one order in
// lines with their rows in lines_by_status (statuses given) and
// lines_by_order_status, the shared user included.
func rawLineDrift(t *testing.T, raw *gocql.Session, order string, statuses []string) []string {
	t.Helper()
	var want1, want2 []string
	it := raw.Query("SELECT item_id, user_id, status, qty, cqlgen_deleted, cqlgen_version FROM lines WHERE order_id = ?", order).Iter()
	var item, user, status string
	var qty, version int64
	var deleted bool
	for it.Scan(&item, &user, &status, &qty, &deleted, &version) {
		if deleted || version == 0 {
			continue // a grave, or the partition's statics alone
		}
		want1 = append(want1, fmt.Sprintf("%s/%s/%d", status, item, qty))
		want2 = append(want2, fmt.Sprintf("%s/%s/%d/%s", status, item, qty, user))
	}
	must(t, it.Close())
	var got1, got2 []string
	for _, st := range statuses {
		it := raw.Query("SELECT item_id, qty FROM lines_by_status WHERE status = ? AND order_id = ?", st, order).Iter()
		for it.Scan(&item, &qty) {
			got1 = append(got1, fmt.Sprintf("%s/%s/%d", st, item, qty))
		}
		must(t, it.Close())
	}
	it = raw.Query("SELECT status, item_id, qty, user_id FROM lines_by_order_status WHERE order_id = ?", order).Iter()
	var itemp *string
	for it.Scan(&status, &itemp, &qty, &user) {
		if itemp == nil {
			continue // the partition's statics alone
		}
		got2 = append(got2, fmt.Sprintf("%s/%s/%d/%s", status, *itemp, qty, user))
	}
	must(t, it.Close())
	var problems []string
	for _, c := range []struct {
		table     string
		got, want []string
	}{{"lines_by_status", got1, want1}, {"lines_by_order_status", got2, want2}} {
		slices.Sort(c.got)
		slices.Sort(c.want)
		if !slices.Equal(c.got, c.want) {
			problems = append(problems, fmt.Sprintf("%s holds %v, lines implies %v", c.table, c.got, c.want))
		}
	}
	return problems
}

var lineStatuses = []string{"new", "paid", "shipped"}

func insertOrderLines(t *testing.T, r *testmodel.LineRepo, ls ...*testmodel.Line) {
	t.Helper()
	for _, l := range ls {
		must(t, r.Insert(context.Background(), l))
	}
}

// checkOrder fails unless every line of order shows user and edits, and
// the tables are in step, counted with plain gocql.
func checkOrder(t *testing.T, raw *gocql.Session, r *testmodel.LineRepo, order, user string, edits int64) {
	t.Helper()
	page, err := r.Lines(context.Background(), order, nil)
	must(t, err)
	for _, l := range page.Rows {
		if l.UserID != user || l.Edits != edits {
			t.Errorf("%s line %s: user %q, edits %d; want %q, %d", order, l.ItemID, l.UserID, l.Edits, user, edits)
		}
	}
	if d := rawLineDrift(t, raw, order, lineStatuses); d != nil {
		t.Errorf("%s: %v", order, d)
	}
}

// The lost update of issue 24, on the node: it must be a conflict.
// Checks invariant I8: statics have a version of their own.
func TestStaticLostUpdate(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	r := testmodel.NewLineRepo(s)
	insertOrderLines(t, r, orderLine("o1", "a", "joe", "new", 1), orderLine("o1", "b", "joe", "new", 2), orderLine("o1", "c", "joe", "new", 3))
	_, version, err := r.GetVersioned(ctx, "o1", "b")
	must(t, err)
	_, err = r.Modify(ctx, "o1", "a", func(l *testmodel.Line) error { l.UserID = "jen"; return nil })
	must(t, err)
	err = r.Update(ctx, orderLine("o1", "b", "joe", "paid", 2), cqlgen.IfVersion(version))
	var conflict *cqlgen.VersionConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("Update of b on the version read before the header changed: %v; want a *cqlgen.VersionConflictError", err)
	}
	checkOrder(t, raw, r, "o1", "jen", 0)
	_, now, err := r.GetVersioned(ctx, "o1", "b")
	must(t, err)
	if conflict.Actual != now {
		t.Errorf("conflict.Actual = %d, b's version %d", conflict.Actual, now)
	}
	must(t, r.Update(ctx, orderLine("o1", "b", "jen", "paid", 2), cqlgen.IfVersion(now)))
	checkOrder(t, raw, r, "o1", "jen", 0)
	rep, err := r.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 || rep.Rows != 3 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}

// A Modify overtaken, between its read and its write, by another line's
// change of the header reads again; and Modifies of different lines
// counting edits of the header, racing, lose none.
// Checks invariant I8: statics have a version of their own.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestStaticModifyRace(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	r := testmodel.NewLineRepo(s, cqlgen.WithAttempts(1000))
	insertOrderLines(t, r, orderLine("o1", "a", "joe", "new", 1), orderLine("o1", "b", "joe", "new", 2))
	calls := 0
	got, err := r.Modify(ctx, "o1", "b", func(l *testmodel.Line) error {
		calls++
		if calls == 1 {
			if _, err := r.Modify(ctx, "o1", "a", func(l *testmodel.Line) error { l.Edits++; return nil }); err != nil {
				return err
			}
		}
		l.Edits++
		return nil
	})
	must(t, err)
	if calls != 2 || got.Edits != 2 {
		t.Errorf("overtaken: change called %d times, wrote edits %d; want 2 and 2", calls, got.Edits)
	}
	checkOrder(t, raw, r, "o1", "joe", 2)

	const n = 12
	for i := range n {
		insertOrderLines(t, r, orderLine("o2", fmt.Sprint("i", i), "joe", "new", int64(i)))
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := r.Modify(ctx, "o2", fmt.Sprint("i", i), func(l *testmodel.Line) error { l.Edits++; return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	checkOrder(t, raw, r, "o2", "joe", n)
}

// The crash-point suite on Line, on the node: each write path fails at
// each of its calls, then runs again or the line is written again by
// another client; the tables, counted with plain gocql, agree.
// Checks invariant I2: running a call again converges.
// Checks invariant I3: the next write completes the last.
func TestStaticCrashPoints(t *testing.T) {
	raw, base := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	type path struct {
		name  string
		setup func(order string) []*testmodel.Line
		op    func(r *testmodel.LineRepo, order string) error
		item  string
	}
	two := func(order string) []*testmodel.Line {
		return []*testmodel.Line{orderLine(order, "a", "joe", "new", 1), orderLine(order, "b", "joe", "new", 2)}
	}
	paths := []path{
		{"insert changing the header", func(order string) []*testmodel.Line { return two(order)[:1] },
			func(r *testmodel.LineRepo, order string) error {
				return r.Insert(ctx, orderLine(order, "b", "jen", "new", 2))
			}, "b"},
		{"update changing the header and moving", two,
			func(r *testmodel.LineRepo, order string) error {
				return r.Update(ctx, orderLine(order, "a", "jen", "paid", 1))
			}, "a"},
		{"update keeping the header", two,
			func(r *testmodel.LineRepo, order string) error {
				return r.Update(ctx, orderLine(order, "b", "joe", "paid", 5))
			}, "b"},
		{"delete", two,
			func(r *testmodel.LineRepo, order string) error {
				return r.Delete(ctx, orderLine(order, "a", "", "", 0))
			}, "a"},
	}
	recoveries := map[string]func(r *testmodel.LineRepo, order, item string) error{
		"later insert changing the header": func(r *testmodel.LineRepo, order, item string) error {
			return r.Insert(ctx, orderLine(order, item, "kim", "shipped", 7))
		},
		"later delete": func(r *testmodel.LineRepo, order, item string) error {
			return r.Delete(ctx, orderLine(order, item, "", "", 0))
		},
	}
	strategies := map[string]cqlgen.Strategy{"logged": cqlgen.LoggedBatch, "concurrent": cqlgen.Concurrent(2)}
	n := 0
	for _, p := range paths {
		for _, sname := range []string{"logged", "concurrent"} {
			count := &faultSession{Session: base}
			order := fmt.Sprintf("clean-%d", n)
			n++
			repo := testmodel.NewLineRepo(count, cqlgen.WithStrategy(strategies[sname]))
			insertOrderLines(t, repo, p.setup(order)...)
			before := count.calls.Load()
			must(t, p.op(repo, order))
			calls := int(count.calls.Load() - before)
			if d := rawLineDrift(t, raw, order, lineStatuses); d != nil {
				t.Fatalf("%s, %s: the clean run drifts: %v", p.name, sname, d)
			}
			for k := 1; k <= calls; k++ {
				for _, f := range []fault{failBefore, lostReply, dies} {
					for _, rec := range []string{"rerun", "later insert changing the header", "later delete"} {
						name := fmt.Sprintf("%s/%s/call %d of %d/%s/%s", p.name, sname, k, calls, f, rec)
						order := fmt.Sprintf("ord-%d", n)
						n++
						fs := &faultSession{Session: base, k: int64(k), f: f}
						repo := testmodel.NewLineRepo(fs, cqlgen.WithStrategy(strategies[sname]), cqlgen.WithAttempts(3), injected)
						insertOrderLines(t, repo, p.setup(order)...)
						fs.armed.Store(true)
						err := p.op(repo, order)
						fs.armed.Store(false)
						if err == nil && f != lostReply {
							t.Errorf("%s: a failed step went unreported", name)
						}
						if err == nil {
							if d := rawLineDrift(t, raw, order, lineStatuses); d != nil {
								t.Errorf("%s: returned nil and drifts: %v", name, d)
							}
						}
						var rerr error
						if rec == "rerun" {
							rerr = p.op(repo, order)
						} else {
							rerr = recoveries[rec](repo, order, p.item)
						}
						if rerr != nil {
							t.Errorf("%s: %v", name, rerr)
						}
						if d := rawLineDrift(t, raw, order, lineStatuses); d != nil {
							t.Errorf("%s: %v", name, d)
						}
					}
				}
			}
		}
	}
	t.Logf("%d orders written through crash points", n)
	rep, err := testmodel.NewLineRepo(base).Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 || rep.Rows == 0 {
		t.Errorf("verify after the crash points: %+v, %v", rep, err)
	}
}

// Clients of different lines whose clocks are off by ±50ms and ±5s each
// change the header in turn: every line, and the shared copy in
// lines_by_order_status, shows the last one.
// Checks invariant I5: versions only grow, and the fan-out follows them.
func TestStaticClockSkew(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	n := 0
	for _, skew := range []time.Duration{50 * time.Millisecond, -50 * time.Millisecond, 5 * time.Second, -5 * time.Second} {
		n++
		order := fmt.Sprintf("skew-%d", n)
		client := func(i int) *testmodel.LineRepo {
			off := time.Duration(i%2*2-1) * skew
			return testmodel.NewLineRepo(s, cqlgen.WithClock(func() time.Time { return time.Now().Add(off) }))
		}
		steps := []struct {
			what string
			do   func(*testmodel.LineRepo) error
			user string
		}{
			{"insert a", func(r *testmodel.LineRepo) error { return r.Insert(ctx, orderLine(order, "a", "joe", "new", 1)) }, "joe"},
			{"insert b, header kim", func(r *testmodel.LineRepo) error { return r.Insert(ctx, orderLine(order, "b", "kim", "new", 2)) }, "kim"},
			{"update a, header jen", func(r *testmodel.LineRepo) error { return r.Update(ctx, orderLine(order, "a", "jen", "paid", 1)) }, "jen"},
			{"update b, header kim, moving", func(r *testmodel.LineRepo) error { return r.Update(ctx, orderLine(order, "b", "kim", "paid", 2)) }, "kim"},
			{"update a, header kept", func(r *testmodel.LineRepo) error { return r.Update(ctx, orderLine(order, "a", "kim", "paid", 9)) }, "kim"},
			{"update b, header joe", func(r *testmodel.LineRepo) error { return r.Update(ctx, orderLine(order, "b", "joe", "paid", 3)) }, "joe"},
			{"delete a", func(r *testmodel.LineRepo) error { return r.Delete(ctx, orderLine(order, "a", "", "", 0)) }, "joe"},
			{"insert a, header ann", func(r *testmodel.LineRepo) error { return r.Insert(ctx, orderLine(order, "a", "ann", "new", 4)) }, "ann"},
		}
		for i, st := range steps {
			name := fmt.Sprintf("skew %v, %s", skew, st.what)
			if err := st.do(client(i)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkOrder(t, raw, client(0), order, st.user, 0)
		}
	}
}

// Racing writers of different lines of one order, changing the header or
// not, inserting and deleting: the tables end in step.
// Checks invariant I4: writers of one entity take turns.
func TestStaticRacingWriters(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	r := testmodel.NewLineRepo(s, cqlgen.WithAttempts(1000))
	insertOrderLines(t, r, orderLine("o1", "a", "joe", "new", 0), orderLine("o1", "b", "joe", "new", 0))
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			item := []string{"a", "b", "c", "d"}[i%4]
			var err error
			if i%5 == 4 {
				err = r.Delete(ctx, orderLine("o1", item, "", "", 0))
			} else {
				err = r.Insert(ctx, orderLine("o1", item, []string{"joe", "jen"}[i%2], lineStatuses[i%3], int64(i)))
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if d := rawLineDrift(t, raw, "o1", lineStatuses); d != nil {
		t.Errorf("after racing writers: %v", d)
	}
	rep, err := r.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}

// Where only the source of truth stores the statics, a change that keeps
// them moves no other part's version; one that changes them does.
// Checks invariant I8: statics have a version of their own.
func TestStaticKeptIsNoConflict(t *testing.T) {
	_, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	r := testmodel.NewPartRepo(s)
	part := func(id, owner, kind string, qty int64) *testmodel.Part {
		return &testmodel.Part{OrderID: "o1", PartID: id, Owner: owner, Kind: kind, Qty: qty}
	}
	must(t, r.Insert(ctx, part("a", "joe", "bolt", 1)))
	must(t, r.Insert(ctx, part("b", "joe", "nut", 2)))
	_, version, err := r.GetVersioned(ctx, "o1", "a")
	must(t, err)
	must(t, r.Update(ctx, part("b", "joe", "screw", 5)))
	if err := r.Update(ctx, part("a", "joe", "bolt", 3), cqlgen.IfVersion(version)); err != nil {
		t.Fatalf("a's Update after b's that kept the owner: %v", err)
	}
	_, version, err = r.GetVersioned(ctx, "o1", "a")
	must(t, err)
	must(t, r.Update(ctx, part("b", "kim", "screw", 5)))
	if err := r.Update(ctx, part("a", "joe", "bolt", 4), cqlgen.IfVersion(version)); !errors.As(err, new(*cqlgen.VersionConflictError)) {
		t.Fatalf("a's Update after b's that changed the owner: %v; want a conflict", err)
	}
	got, err := r.Get(ctx, "o1", "a")
	if err != nil || got.Owner != "kim" || got.Qty != 3 {
		t.Errorf("a = %+v, %v; want owner kim, qty 3", got, err)
	}
	rep, err := r.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 || rep.Rows != 2 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}

// Once every line of an order is deleted, lines_by_order_status keeps its
// statics, which Cassandra reads as a row of nulls beside them: no read,
// and no Verify, takes it for a line.
// Checks invariant I8: statics have a version of their own.
func TestStaticsAloneAreNoRow(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	r := testmodel.NewLineRepo(s)
	insertOrderLines(t, r, orderLine("o1", "a", "joe", "new", 1), orderLine("o1", "b", "joe", "paid", 2))
	must(t, r.Delete(ctx, orderLine("o1", "a", "", "", 0)))
	must(t, r.Delete(ctx, orderLine("o1", "b", "", "", 0)))
	var n int
	must(t, raw.Query("SELECT count(*) FROM lines_by_order_status WHERE order_id = ?", "o1").Scan(&n))
	if n != 1 {
		t.Fatalf("Cassandra counts %d rows of statics alone; the test expects 1", n)
	}
	page, err := r.LinesByOrderStatus(ctx, "o1", nil)
	if err != nil || len(page.Rows) != 0 {
		t.Errorf("LinesByOrderStatus = %+v, %v; want no row", page.Rows, err)
	}
	rep, err := r.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
	insertOrderLines(t, r, orderLine("o1", "c", "kim", "new", 3))
	checkOrder(t, raw, r, "o1", "kim", 0)
}
