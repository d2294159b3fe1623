package cqlgenimpl_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// Static columns belong to a partition, not to the row whose write set
// them: the write protocol guards them with a version of the partition's
// own (issue 24). Line keeps its order's header (user, edits) static in
// lines; lines_by_order_status shares the user, static too.

func line(item, user, status string, qty int64) *fixture.Line {
	return &fixture.Line{OrderID: "o1", ItemID: item, UserID: user, Status: status, Qty: qty}
}

// lineDrift lists how Line's tables disagree with lines: a missing,
// stale or orphan row, the shared user of lines_by_order_status included.
func lineDrift(t *testing.T, s *cqltest.Session) []string {
	t.Helper()
	rows := func(table string) []map[string]any {
		rs, err := s.Rows(table)
		if err != nil {
			t.Fatal(err)
		}
		return rs
	}
	want := map[string]map[string]string{"lines_by_status": {}, "lines_by_order_status": {}}
	for _, r := range rows("lines") {
		if r["cqlgen_deleted"] == true || r["item_id"] == nil {
			continue // a grave, or a partition's statics alone
		}
		want["lines_by_status"][fmt.Sprintf("%v/%v/%v", r["status"], r["order_id"], r["item_id"])] = fmt.Sprintf("qty=%v", r["qty"])
		want["lines_by_order_status"][fmt.Sprintf("%v/%v/%v", r["order_id"], r["status"], r["item_id"])] = fmt.Sprintf("qty=%v user=%v", r["qty"], r["user_id"])
	}
	var problems []string
	for table, rowsWanted := range want {
		got := map[string]string{}
		for _, r := range rows(table) {
			if r["item_id"] == nil {
				continue
			}
			if table == "lines_by_status" {
				got[fmt.Sprintf("%v/%v/%v", r["status"], r["order_id"], r["item_id"])] = fmt.Sprintf("qty=%v", r["qty"])
			} else {
				got[fmt.Sprintf("%v/%v/%v", r["order_id"], r["status"], r["item_id"])] = fmt.Sprintf("qty=%v user=%v", r["qty"], r["user_id"])
			}
		}
		for k, w := range rowsWanted {
			switch g, ok := got[k]; {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: %s missing", table, k))
			case g != w:
				problems = append(problems, fmt.Sprintf("%s: %s stale: %s, want %s", table, k, g, w))
			}
		}
		for k := range got {
			if _, ok := rowsWanted[k]; !ok {
				problems = append(problems, fmt.Sprintf("%s: %s orphan", table, k))
			}
		}
	}
	slices.Sort(problems)
	return problems
}

// lineSnapshot is every live row of Line's tables, for comparing runs.
func lineSnapshot(t *testing.T, s *cqltest.Session) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range []string{"lines", "lines_by_status", "lines_by_order_status"} {
		rows, err := s.Rows(table)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r["cqlgen_deleted"] == true {
				continue
			}
			out[table] = append(out[table], fmt.Sprintf("%v/%v/%v/%v/%v/%v", r["order_id"], r["item_id"], r["user_id"], r["edits"], r["status"], r["qty"]))
		}
		slices.Sort(out[table])
	}
	return out
}

func insertLines(t *testing.T, r *fixture.LineRepo, ls ...*fixture.Line) {
	t.Helper()
	for _, l := range ls {
		if err := r.Insert(context.Background(), l); err != nil {
			t.Fatal(err)
		}
	}
}

// checkLines fails unless every line of o1 shows user and Verify finds
// the tables in step.
func checkLines(t *testing.T, s *cqltest.Session, r *fixture.LineRepo, user string, edits int64) {
	t.Helper()
	page, err := r.Lines(context.Background(), "o1", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range page.Rows {
		if l.UserID != user || l.Edits != edits {
			t.Errorf("line %s: user %q, edits %d; want %q, %d", l.ItemID, l.UserID, l.Edits, user, edits)
		}
	}
	if d := lineDrift(t, s); len(d) > 0 {
		t.Errorf("drift: %v", d)
	}
	if rep, err := r.Verify(context.Background(), &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %v, %+v", err, rep)
	}
}

// The lost update of issue 24: line b's version, then another line's
// change of the header, then b's Update on the version read, still
// carrying the old header. It must be a conflict, not put the old header
// back.
// Checks invariant I8: statics have a version of their own.
func TestStaticChangeIsAConflict(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	r := fixture.NewLineRepo(s)
	insertLines(t, r, line("a", "joe", "new", 1), line("b", "joe", "new", 2), line("c", "joe", "new", 3))
	_, version, err := r.GetVersioned(ctx, "o1", "b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Modify(ctx, "o1", "a", func(l *fixture.Line) error { l.UserID = "jen"; return nil }); err != nil {
		t.Fatal(err)
	}
	err = r.Update(ctx, line("b", "joe", "paid", 2), cqlgen.IfVersion(version))
	var conflict *cqlgen.VersionConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("Update of b on the version read before the header changed: %v; want a *cqlgen.VersionConflictError", err)
	}
	_, now, err := r.GetVersioned(ctx, "o1", "b")
	if err != nil || conflict.Actual != now || now <= version {
		t.Errorf("conflict.Actual = %d, b's version now %d (%v), read before %d", conflict.Actual, now, err, version)
	}
	checkLines(t, s, r, "jen", 0)
	// On the version seen now, it applies.
	if err := r.Update(ctx, line("b", "jen", "paid", 2), cqlgen.IfVersion(now)); err != nil {
		t.Fatal(err)
	}
	checkLines(t, s, r, "jen", 0)
}

// A Modify of one line that another line's change of the header overtakes
// between its read and its write reads again: no edit of the header is
// lost. The overtaking change runs inside the first attempt's change, so
// the interleaving is certain.
// Checks invariant I8: statics have a version of their own.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestStaticModifyOvertaken(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	r := fixture.NewLineRepo(s)
	insertLines(t, r, line("a", "joe", "new", 1), line("b", "joe", "new", 2))
	calls := 0
	got, err := r.Modify(ctx, "o1", "b", func(l *fixture.Line) error {
		calls++
		if calls == 1 {
			if _, err := r.Modify(ctx, "o1", "a", func(l *fixture.Line) error { l.Edits++; return nil }); err != nil {
				return err
			}
		}
		l.Edits++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || got.Edits != 2 {
		t.Errorf("change called %d times, wrote edits %d; want 2 calls, edits 2", calls, got.Edits)
	}
	checkLines(t, s, r, "joe", 2)
}

// Modifies of different lines of one order, each counting an edit of the
// header, racing: every edit counts.
// Checks invariant I8: statics have a version of their own.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestStaticModifyRace(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	r := fixture.NewLineRepo(s, cqlgen.WithAttempts(1000))
	const n = 12
	for i := range n {
		insertLines(t, r, line(fmt.Sprint("i", i), "joe", "new", int64(i)))
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := r.Modify(ctx, "o1", fmt.Sprint("i", i), func(l *fixture.Line) error { l.Edits++; return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	checkLines(t, s, r, "joe", n)
}

// Inserting a line into an order whose header differs changes the header
// of every line, and is a conflict for a line's IfVersion write.
// Checks invariant I8: statics have a version of their own.
func TestStaticInsertChangesHeader(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	r := fixture.NewLineRepo(s)
	insertLines(t, r, line("a", "joe", "new", 1))
	_, version, err := r.GetVersioned(ctx, "o1", "a")
	if err != nil {
		t.Fatal(err)
	}
	insertLines(t, r, line("b", "kim", "new", 2))
	checkLines(t, s, r, "kim", 0)
	err = r.Delete(ctx, line("a", "", "", 0), cqlgen.IfVersion(version))
	if !errors.As(err, new(*cqlgen.VersionConflictError)) {
		t.Fatalf("Delete of a on the version read before the header changed: %v; want a conflict", err)
	}
	// A line that keeps the header still writes its row in
	// lines_by_order_status, whose shared user cell it rewrites: that too
	// moves the statics' version on, and is a conflict.
	_, version, err = r.GetVersioned(ctx, "o1", "a")
	if err != nil {
		t.Fatal(err)
	}
	insertLines(t, r, line("c", "kim", "new", 3))
	if err := r.Delete(ctx, line("a", "", "", 0), cqlgen.IfVersion(version)); !errors.As(err, new(*cqlgen.VersionConflictError)) {
		t.Fatalf("Delete of a after a line that kept the header: %v; want a conflict", err)
	}
	checkLines(t, s, r, "kim", 0)
}

// The crash-point suite on Line: every write path, failing at each of
// its calls, then run again or followed by another line's change of the
// header.
// Checks invariant I2: running a call again converges.
// Checks invariant I3: the next write completes the last.
func TestStaticCrashPoints(t *testing.T) {
	ctx := context.Background()
	type path struct {
		name  string
		setup []*fixture.Line
		op    func(*fixture.LineRepo) error
		item  string // the line op writes
	}
	paths := []path{
		{"insert keeping the header", []*fixture.Line{line("a", "joe", "new", 1)},
			func(r *fixture.LineRepo) error { return r.Insert(ctx, line("b", "joe", "new", 2)) }, "b"},
		{"insert changing the header", []*fixture.Line{line("a", "joe", "new", 1)},
			func(r *fixture.LineRepo) error { return r.Insert(ctx, line("b", "jen", "new", 2)) }, "b"},
		{"update changing the header and moving", []*fixture.Line{line("a", "joe", "new", 1), line("b", "joe", "new", 2)},
			func(r *fixture.LineRepo) error { return r.Update(ctx, line("a", "jen", "paid", 1)) }, "a"},
		{"update keeping the header", []*fixture.Line{line("a", "joe", "new", 1), line("b", "joe", "new", 2)},
			func(r *fixture.LineRepo) error { return r.Update(ctx, line("b", "joe", "paid", 5)) }, "b"},
		{"delete", []*fixture.Line{line("a", "joe", "new", 1), line("b", "joe", "new", 2)},
			func(r *fixture.LineRepo) error { return r.Delete(ctx, line("a", "", "", 0)) }, "a"},
	}
	// Later writes of the same line, by another client, which finish
	// what the failed call left.
	later := map[string]func(*fixture.LineRepo, string) error{
		"later insert changing the header": func(r *fixture.LineRepo, item string) error {
			return r.Insert(ctx, line(item, "kim", "shipped", 7))
		},
		"later delete": func(r *fixture.LineRepo, item string) error { return r.Delete(ctx, line(item, "", "", 0)) },
	}
	cases := 0
	for _, p := range paths {
		for _, sname := range slices.Sorted(maps.Keys(strategies)) {
			strategy := strategies[sname]
			clean := session(t)
			repo := fixture.NewLineRepo(clean, cqlgen.WithStrategy(strategy))
			insertLines(t, repo, p.setup...)
			before := len(clean.Calls())
			if err := p.op(repo); err != nil {
				t.Fatalf("%s, %s: clean run: %v", p.name, sname, err)
			}
			calls := len(clean.Calls()) - before
			want := lineSnapshot(t, clean)
			if d := lineDrift(t, clean); len(d) > 0 {
				t.Fatalf("%s, %s: clean run drifts: %v", p.name, sname, d)
			}
			for k := 1; k <= calls; k++ {
				for _, f := range []fault{failBefore, lostReply, dies} {
					for _, rec := range append([]string{"rerun"}, slices.Sorted(maps.Keys(later))...) {
						cases++
						name := fmt.Sprintf("%s/%s/call %d of %d/%s/%s", p.name, sname, k, calls, f, rec)
						fy := &faulty{k: int64(k), f: f}
						s := session(t, cqltest.WithHook(fy.hook))
						repo := fixture.NewLineRepo(s, cqlgen.WithStrategy(strategy), cqlgen.WithAttempts(3), instant)
						insertLines(t, repo, p.setup...)
						fy.armed.Store(true)
						err := p.op(repo)
						if err == nil && f != lostReply {
							if d := lineDrift(t, s); len(d) > 0 {
								t.Errorf("%s: returned nil and drifts: %v", name, d)
							}
						}
						fy.armed.Store(false)
						if rec == "rerun" {
							if err := p.op(repo); err != nil {
								t.Errorf("%s: the re-run failed: %v", name, err)
								continue
							}
							if got := lineSnapshot(t, s); !maps.EqualFunc(got, want, slices.Equal) {
								t.Errorf("%s: after the re-run\n got %v\nwant %v", name, got, want)
							}
						} else if err := later[rec](repo, p.item); err != nil {
							t.Errorf("%s: the later write failed: %v", name, err)
							continue
						}
						if d := lineDrift(t, s); len(d) > 0 {
							t.Errorf("%s: drift %v", name, d)
						}
						if rep, err := repo.Verify(ctx, &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() != 0 {
							t.Errorf("%s: verify: %v, %+v", name, err, rep)
						}
					}
				}
			}
		}
	}
	t.Logf("%d crash points tried", cases)
}

// Writers of different lines whose clocks disagree, each changing the
// header: every table shows the last header, lines_by_order_status's
// shared copy included, whatever the clocks say.
// Checks invariant I5: versions only grow, and the fan-out follows them.
func TestStaticClockSkew(t *testing.T) {
	ctx := context.Background()
	for _, skew := range []time.Duration{50 * time.Millisecond, 5 * time.Second} {
		for _, sign := range []time.Duration{1, -1} {
			name := fmt.Sprintf("skew %v", sign*skew)
			server := day0
			s := session(t, cqltest.WithClock(func() time.Time { return server }))
			client := func(i int) *fixture.LineRepo {
				off := time.Duration(i%2*2-1) * sign * skew
				return fixture.NewLineRepo(s, cqlgen.WithClock(func() time.Time { return server.Add(off) }))
			}
			steps := []struct {
				what string
				do   func(*fixture.LineRepo) error
				user string
			}{
				{"insert a", func(r *fixture.LineRepo) error { return r.Insert(ctx, line("a", "joe", "new", 1)) }, "joe"},
				{"insert b, header kim", func(r *fixture.LineRepo) error { return r.Insert(ctx, line("b", "kim", "new", 2)) }, "kim"},
				{"update a, header jen", func(r *fixture.LineRepo) error { return r.Update(ctx, line("a", "jen", "paid", 1)) }, "jen"},
				{"update b, header kim, moving", func(r *fixture.LineRepo) error { return r.Update(ctx, line("b", "kim", "paid", 2)) }, "kim"},
				{"update a, header kim kept", func(r *fixture.LineRepo) error { return r.Update(ctx, line("a", "kim", "paid", 9)) }, "kim"},
				{"update b, header joe", func(r *fixture.LineRepo) error { return r.Update(ctx, line("b", "joe", "paid", 3)) }, "joe"},
				{"delete a", func(r *fixture.LineRepo) error { return r.Delete(ctx, line("a", "", "", 0)) }, "joe"},
				{"insert a, header ann", func(r *fixture.LineRepo) error { return r.Insert(ctx, line("a", "ann", "new", 4)) }, "ann"},
			}
			for i, st := range steps {
				server = server.Add(time.Millisecond)
				if err := st.do(client(i)); err != nil {
					t.Fatalf("%s: %s: %v", name, st.what, err)
				}
				if d := lineDrift(t, s); len(d) > 0 {
					t.Errorf("%s: after %s: drift %v", name, st.what, d)
				}
				page, err := client(0).Lines(ctx, "o1", nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range page.Rows {
					if l.UserID != st.user {
						t.Errorf("%s: after %s, line %s shows user %q, want %q", name, st.what, l.ItemID, l.UserID, st.user)
					}
				}
			}
		}
	}
}

// Racing writers of different lines of one order, changing the header
// or not: every table ends in step.
// Checks invariant I4: writers of one entity take turns.
func TestStaticRacingWriters(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	r := fixture.NewLineRepo(s, cqlgen.WithAttempts(1000))
	insertLines(t, r, line("a", "joe", "new", 0), line("b", "joe", "new", 0))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			item := []string{"a", "b", "c", "d"}[i%4]
			user := []string{"joe", "jen"}[i%2]
			status := []string{"new", "paid", "shipped"}[i%3]
			var err error
			if i%5 == 4 {
				err = r.Delete(ctx, line(item, "", "", 0))
			} else {
				err = r.Insert(ctx, line(item, user, status, int64(i)))
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if d := lineDrift(t, s); len(d) > 0 {
		t.Errorf("drift after racing writers: %v", d)
	}
	if rep, err := r.Verify(ctx, &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %v, %+v", err, rep)
	}
}

// Where no other table stores the statics, a change of a part that keeps
// them moves no other part's version; one that changes them does, and
// writes the version column (null before: no statics yet).
// Checks invariant I8: statics have a version of their own.
func TestStaticKeptIsNoConflict(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	r := fixture.NewPartRepo(s)
	part := func(id, owner, kind string, qty int64) *fixture.Part {
		return &fixture.Part{OrderID: "o1", PartID: id, Owner: owner, Kind: kind, Qty: qty}
	}
	for _, p := range []*fixture.Part{part("a", "joe", "bolt", 1), part("b", "joe", "nut", 2)} {
		if err := r.Insert(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	_, version, err := r.GetVersioned(ctx, "o1", "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Update(ctx, part("b", "joe", "screw", 5)); err != nil {
		t.Fatal(err)
	}
	if err := r.Update(ctx, part("a", "joe", "bolt", 3), cqlgen.IfVersion(version)); err != nil {
		t.Fatalf("a's Update after b's that kept the owner: %v", err)
	}
	_, version, err = r.GetVersioned(ctx, "o1", "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Update(ctx, part("b", "kim", "screw", 5)); err != nil {
		t.Fatal(err)
	}
	err = r.Update(ctx, part("a", "joe", "bolt", 4), cqlgen.IfVersion(version))
	if !errors.As(err, new(*cqlgen.VersionConflictError)) {
		t.Fatalf("a's Update after b's that changed the owner: %v; want a conflict", err)
	}
	got, err := r.Get(ctx, "o1", "a")
	if err != nil || got.Owner != "kim" || got.Qty != 3 {
		t.Errorf("a = %+v, %v; want owner kim, qty 3", got, err)
	}
	if rep, err := r.Verify(ctx, &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %v, %+v", err, rep)
	}
}

// Once every line of an order is deleted, its statics stay: in
// lines_by_order_status at once (a row's delete leaves them), in lines
// when the graves expire. Cassandra reads such a partition as one row of
// nulls beside the statics; no read, and no Verify, takes it for a line.
// Checks invariant I8: statics have a version of their own.
func TestStaticsAloneAreNoRow(t *testing.T) {
	ctx := context.Background()
	now := day0
	s := session(t, cqltest.WithClock(func() time.Time { return now }))
	r := fixture.NewLineRepo(s, cqlgen.WithClock(func() time.Time { return now }))
	insertLines(t, r, line("a", "joe", "new", 1), line("b", "joe", "paid", 2))
	for _, item := range []string{"a", "b"} {
		if err := r.Delete(ctx, line(item, "", "", 0)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		byStatus, err := r.LinesByOrderStatus(ctx, "o1", nil)
		if err != nil || len(byStatus.Rows) != 0 {
			t.Errorf("%s: LinesByOrderStatus = %+v, %v; want no row", when, byStatus.Rows, err)
		}
		lines, err := r.Lines(ctx, "o1", nil)
		if err != nil || len(lines.Rows) != 0 {
			t.Errorf("%s: Lines = %+v, %v; want no row", when, lines.Rows, err)
		}
		if rep, err := r.Verify(ctx, &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() != 0 {
			t.Errorf("%s: verify: %v, %+v", when, err, rep)
		}
	}
	check("after the deletes")
	now = now.Add(11 * 24 * time.Hour) // past the graves' TTL
	check("once the graves expired")
	// A line inserted again shows, with the header it brings.
	insertLines(t, r, line("c", "kim", "new", 3))
	checkLines(t, s, r, "kim", 0)
}
