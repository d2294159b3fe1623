package cqlgenimpl_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// Rows written before cqlgen (or by another program): the canonical row
// has its values and no bookkeeping, cqlgen_version null. They must be
// entities like any other (docs/protocol.md, "Rows written outside the
// protocol"). TestCrashPoints runs every write over them through the
// fault suite (legacyPaths); the tests here check the rest.

// legacyKind says which tables hold a row written outside the protocol.
type legacyKind uint8

const (
	// legacyCanonical: only the source of truth, as before a pattern was
	// added (its table not yet backfilled).
	legacyCanonical legacyKind = iota + 1
	// legacyEverywhere: every table, in step, as another program kept
	// them.
	legacyEverywhere
)

// writeLegacy writes e's rows as a program other than cqlgen would: with
// plain statements, no version, no pending record.
func writeLegacy(ctx context.Context, s cqlgen.Session, e *fixture.Reading, kind legacyKind) error {
	if kind == legacyEverywhere {
		// The protocol's rows, then its bookkeeping removed: what
		// another program's writes leave.
		if err := fixture.NewReadingRepo(s).Insert(ctx, e); err != nil {
			return err
		}
		return s.Exec(ctx, cqldriver.Query{Stmt: &cqldriver.Statement{
			CQL:  "UPDATE readings_by_day SET cqlgen_version = null, cqlgen_deleted = null, cqlgen_pending = null, cqlgen_writes = null WHERE sensor_id = ? AND day = ? AND at = ? AND seq = ?",
			Kind: cqlgen.Write, Table: "readings_by_day",
		}, Values: []any{e.SensorID, cqlgenimpl.DayBuckets.Of(e.At), e.At, e.Seq}})
	}
	return s.Exec(ctx, cqldriver.Query{Stmt: &cqldriver.Statement{
		CQL:  "INSERT INTO readings_by_day (sensor_id, day, at, seq, kind, value, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
		Kind: cqlgen.Write, Table: "readings_by_day",
	}, Values: []any{e.SensorID, cqlgenimpl.DayBuckets.Of(e.At), e.At, e.Seq, e.Kind, e.Value, e.Note}})
}

// legacyPaths are the writes of TestCrashPoints over a row written
// outside the protocol, reading("a", 1, "n"), which setup leaves.
var legacyPaths = []writePath{
	{
		name: "update a row written before cqlgen", legacy: legacyCanonical,
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Update(ctx, reading("b", 2, nil)) },
	},
	{
		name: "update a row another program keeps in every table", legacy: legacyEverywhere,
		op: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Update(ctx, reading("c", 3, ptr("m")))
		},
	},
	{
		name: "delete a row written before cqlgen", legacy: legacyCanonical,
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Delete(ctx, reading("", 0, nil)) },
	},
	{
		name: "delete a row another program keeps in every table", legacy: legacyEverywhere,
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Delete(ctx, reading("", 0, nil)) },
	},
	{
		name: "insert the values a row written before cqlgen holds", legacy: legacyCanonical,
		op: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Insert(ctx, reading("a", 1, ptr("n")))
		},
	},
	{
		name: "insert over a row another program keeps in every table", legacy: legacyEverywhere,
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Insert(ctx, reading("b", 2, nil)) },
	},
}

// Checks invariant I11: a stale copy never wins, on a row without a
// version too. GetVersioned gives such a row a version of its own, which
// IfVersion and Modify compare: a change of the row since is a conflict,
// and IfVersion(0) still means no expectation at all.
func TestLegacyRowVersions(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s, instant)
	if err := writeLegacy(ctx, s, reading("a", 1, ptr("n")), legacyCanonical); err != nil {
		t.Fatal(err)
	}
	_, v, err := repo.GetVersioned(ctx, "s1", day0.Add(time.Hour), 1)
	if err != nil || v == 0 {
		t.Fatalf("GetVersioned of a row written before cqlgen: version %d, %v; want a version IfVersion can compare", v, err)
	}
	// Another writer changes it first: the copy read is stale.
	if err := repo.Update(ctx, reading("b", 2, nil)); err != nil {
		t.Fatal(err)
	}
	err = repo.Update(ctx, reading("c", 3, nil), cqlgen.IfVersion(v))
	var conflict *cqlgen.VersionConflictError
	if !errors.As(err, &conflict) || conflict.Expected != v {
		t.Fatalf("IfVersion(%d) after another writer: %v, want a *VersionConflictError expecting %d", v, err, v)
	}
	if d := drift(t, s); len(d) > 0 {
		t.Fatalf("drift: %v", d)
	}

	// IfAbsent over a row written before cqlgen: there is an entity.
	s2 := session(t)
	if err := writeLegacy(ctx, s2, reading("a", 1, ptr("n")), legacyCanonical); err != nil {
		t.Fatal(err)
	}
	err = fixture.NewReadingRepo(s2, instant).Insert(ctx, reading("a", 1, ptr("n")), cqlgen.IfAbsent())
	if !errors.As(err, &conflict) || conflict.Expected != cqlgen.Absent {
		t.Fatalf("IfAbsent over a row written before cqlgen: %v, want a *VersionConflictError", err)
	}
}

// Checks invariant I11: Modify loses no edit on a row without a version.
// Its change is computed from the row as read; a writer that gives the row
// a version first makes Modify read again and edit the new row.
func TestLegacyRowModify(t *testing.T) {
	ctx := context.Background()
	var s *cqltest.Session
	raced, armed := false, false
	s = session(t, cqltest.WithHook(func(ctx context.Context, c cqltest.Call) error {
		if !armed || c.Op != cqltest.OpCAS || raced || c.Queries[0].Stmt.Table != "readings_by_day" {
			return nil
		}
		// Between Modify's read and its write, another client adds 10.
		raced = true
		return fixture.NewReadingRepo(s).Update(ctx, reading("a", 11, ptr("n")))
	}))
	if err := writeLegacy(ctx, s, reading("a", 1, ptr("n")), legacyEverywhere); err != nil {
		t.Fatal(err)
	}
	repo := fixture.NewReadingRepo(s, instant)
	armed = true
	calls := 0
	got, err := repo.Modify(ctx, "s1", day0.Add(time.Hour), 1, func(e *fixture.Reading) error {
		calls++
		e.Value++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !raced || calls != 2 || got.Value != 12 {
		t.Fatalf("Modify over a race: raced %v, change called %d times, value %d; want the race, 2 calls and 12 (1 + 10 + 1)", raced, calls, got.Value)
	}
	if d := drift(t, s); len(d) > 0 {
		t.Fatalf("drift: %v", d)
	}
}

// A write refused after every attempt says why: which version it
// expected and which it found, not a bare "not applied".
func TestNotAppliedSaysWhy(t *testing.T) {
	ctx := context.Background()
	var s *cqltest.Session
	version := int64(5)
	s = session(t, cqltest.WithHook(func(ctx context.Context, c cqltest.Call) error {
		if c.Op != cqltest.OpCAS || c.Queries[0].Stmt.Table != "readings_by_day" {
			return nil
		}
		// Another writer changes the entity between every read and
		// conditional write.
		version++
		e := reading("a", 1, nil)
		return s.Exec(ctx, cqldriver.Query{Stmt: &cqldriver.Statement{
			CQL:  "UPDATE readings_by_day SET cqlgen_version = ? WHERE sensor_id = ? AND day = ? AND at = ? AND seq = ?",
			Kind: cqlgen.Write, Table: "readings_by_day",
		}, Values: []any{version, e.SensorID, cqlgenimpl.DayBuckets.Of(e.At), e.At, e.Seq}})
	}))
	if err := writeLegacy(ctx, s, reading("a", 1, ptr("n")), legacyCanonical); err != nil {
		t.Fatal(err)
	}
	err := fixture.NewReadingRepo(s, instant, cqlgen.WithAttempts(2)).Update(ctx, reading("b", 2, nil))
	var na *cqlgen.NotAppliedError
	if !errors.As(err, &na) {
		t.Fatalf("Update raced on every attempt: %v, want a *NotAppliedError", err)
	}
	want := "2 times: the last attempt expected version 6 and found 7"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
}

// legacyTable finds a table's report.
func legacyTable(t *testing.T, rep *cqlmaintain.Report, table string) cqlmaintain.TableReport {
	t.Helper()
	for _, tr := range rep.Tables {
		if tr.Table == table {
			return tr
		}
	}
	t.Fatalf("no report of %s in %+v", table, rep)
	return cqlmaintain.TableReport{}
}

// Maintenance sees every row: Verify counts the rows written before
// cqlgen and finds their projections missing; Backfill writes them (at
// timestamps any later write wins over) and verifies what it wrote, so a
// row shadowed by a later delete is reported, not passed over; Repair
// writes it at a new version; Adopt gives every such row a version.
// Checks invariant I14: maintenance hides no write.
func TestLegacyRowsMaintained(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s, instant)
	rows := readings(12, 3, 5)
	insertAll(t, repo.Insert, rows[:6])
	for i := range rows[6:] {
		if err := writeLegacy(ctx, s, &rows[6+i], legacyCanonical); err != nil {
			t.Fatal(err)
		}
	}
	if err := repo.Delete(ctx, &rows[0]); err != nil {
		t.Fatal(err)
	}
	o := &cqlmaintain.Options{Ranges: 4, Buckets: 16}
	rep, err := repo.Verify(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 11 || rep.Unversioned != 6 || rep.Graves != 1 {
		t.Fatalf("verify read %d rows, %d without a version, %d graves; want 11, 6, 1", rep.Rows, rep.Unversioned, rep.Graves)
	}
	if tr := legacyTable(t, rep, "readings_by_kind"); tr.Missing != 6 || tr.Expected != 11 {
		t.Fatalf("readings_by_kind: %+v; want the 6 rows written before cqlgen missing", tr)
	}

	// A delete made by hand, after the row was written: the backfill's
	// row for it, at the row's version + 1µs, is shadowed.
	shadowed := rows[7]
	if err := s.Exec(ctx, cqldriver.Query{Stmt: &cqldriver.Statement{
		CQL:  "DELETE FROM readings_by_kind WHERE sensor_id = ? AND kind = ? AND at = ? AND seq = ?",
		Kind: cqlgen.Write, Table: "readings_by_kind",
	}, Values: []any{shadowed.SensorID, shadowed.Kind, shadowed.At, shadowed.Seq}}); err != nil {
		t.Fatal(err)
	}
	o.Job = "fill"
	rep, err = repo.Backfill(ctx, "readings_by_kind", o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 11 || rep.Tables[0].Inserted != 11 {
		t.Fatalf("backfill read %d rows and wrote %d; want 11 and 11", rep.Rows, rep.Tables[0].Inserted)
	}
	if rep.After == nil || rep.Left() != 1 || rep.After.Tables[0].Missing != 1 {
		t.Fatalf("the verify after the backfill: %+v; want the shadowed row missing", rep.After)
	}
	// Run again, the job skips every range, and still says what is left.
	if rep, err = repo.Backfill(ctx, "readings_by_kind", o); err != nil || rep.Resumed != 4 || rep.Left() != 1 {
		t.Fatalf("backfill run again: %+v, %v", rep, err)
	}
	o.Job = ""
	rep, err = repo.Repair(ctx, o)
	if err != nil || rep.After == nil || rep.Left() != 0 {
		t.Fatalf("repair: %+v (after: %+v), %v; want nothing left", rep, rep.After, err)
	}
	if d := drift(t, s); len(d) > 0 {
		t.Fatalf("drift after repair: %v", d)
	}

	// Repair wrote every row written before cqlgen at a new version.
	if rep, err = repo.Verify(ctx, o); err != nil || rep.Unversioned != 0 || rep.Drift() != 0 {
		t.Fatalf("verify after repair: %+v, %v", rep, err)
	}

	// Adopt gives rows another program kept in step a version,
	// resumably, and leaves every table in step.
	s = session(t)
	repo = fixture.NewReadingRepo(s, instant)
	for i := range rows[:5] {
		if err := writeLegacy(ctx, s, &rows[i], legacyEverywhere); err != nil {
			t.Fatal(err)
		}
	}
	o.Adopt, o.Job = true, "adopt"
	rep, err = repo.Repair(ctx, o)
	if err != nil || rep.Adopted != 5 || rep.After == nil || rep.Left() != 0 {
		t.Fatalf("adopt: %+v, %v; want 5 rows given a version, and nothing left", rep, err)
	}
	o.Adopt, o.Job = false, ""
	if rep, err = repo.Verify(ctx, o); err != nil || rep.Unversioned != 0 || rep.Drift() != 0 || rep.Rows != 5 {
		t.Fatalf("verify after adopt: %+v, %v; want 5 rows, every one with a version, in step", rep, err)
	}
	if _, v, err := repo.GetVersioned(ctx, rows[0].SensorID, rows[0].At, rows[0].Seq); err != nil || v <= 1 {
		t.Fatalf("GetVersioned after adopt: %d, %v", v, err)
	}
	o.Adopt, o.Status, o.Job = true, true, "adopt"
	if rep, err = repo.Repair(ctx, o); err != nil || rep.Resumed != 4 || rep.Adopted != 0 {
		t.Fatalf("status of the adopt job: %+v, %v; want its 4 ranges done, nothing written", rep, err)
	}
}

// A Modify that loses to a Delete, and an IfVersion write over an entity
// deleted since it was read, say the entity is not found, as a plain
// Update of it does (issue 35, D6), beside the conflict they are.
func TestConflictWithADeleteIsNotFound(t *testing.T) {
	ctx := context.Background()
	var s *cqltest.Session
	armed := false
	s = session(t, cqltest.WithHook(func(ctx context.Context, c cqltest.Call) error {
		if !armed || c.Op != cqltest.OpCAS || c.Queries[0].Stmt.Table != "readings_by_day" {
			return nil
		}
		// Between Modify's read and its write, another client deletes it.
		armed = false
		return fixture.NewReadingRepo(s).Delete(ctx, reading("", 0, nil))
	}))
	repo := fixture.NewReadingRepo(s, instant)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(repo.Insert(ctx, reading("a", 1, nil)))
	armed = true
	_, err := repo.Modify(ctx, "s1", day0.Add(time.Hour), 1, func(e *fixture.Reading) error { e.Value++; return nil })
	if !errors.Is(err, cqlgen.ErrNotFound) || !errors.Is(err, cqlgen.ErrNotApplied) {
		t.Fatalf("Modify that lost to a Delete: %v; want ErrNotFound (and ErrNotApplied)", err)
	}
	must(repo.Insert(ctx, reading("a", 1, nil)))
	_, v, err := repo.GetVersioned(ctx, "s1", day0.Add(time.Hour), 1)
	must(err)
	must(repo.Delete(ctx, reading("", 0, nil)))
	if err := repo.Update(ctx, reading("b", 2, nil), cqlgen.IfVersion(v)); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Fatalf("IfVersion over an entity deleted since: %v; want ErrNotFound", err)
	}
	// A change, not a delete, stays a conflict only.
	must(repo.Insert(ctx, reading("a", 1, nil)))
	_, v, err = repo.GetVersioned(ctx, "s1", day0.Add(time.Hour), 1)
	must(err)
	must(repo.Update(ctx, reading("c", 3, nil)))
	if err := repo.Update(ctx, reading("d", 4, nil), cqlgen.IfVersion(v)); errors.Is(err, cqlgen.ErrNotFound) || !errors.Is(err, cqlgen.ErrNotApplied) {
		t.Fatalf("IfVersion over an entity changed since: %v; want a conflict, not ErrNotFound", err)
	}
}
