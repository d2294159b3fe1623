package cqlgenimpl_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// A create without a read (docs/protocol.md): an Insert of an entity
// whose source of truth has no statics tries Create, the conditional
// write an absent row gets, before reading anything, and goes on from the
// row its reply returns when one is there; Modify's write starts from
// Modify's own read. These pin what each sends, and what each does when
// its guess is wrong.

// sent names the calls s saw from the n-th on: the op, then the table
// and the statement's kind, "Iter readings_by_day/PreRead", say.
func sent(s *cqltest.Session, n int) []string {
	var out []string
	for _, c := range s.Calls()[n:] {
		q := c.Queries[0]
		out = append(out, fmt.Sprintf("%s %s/%v", c.Op, q.Stmt.Table, q.Stmt.Kind))
	}
	return out
}

// readsIn counts the reads among calls of sent.
func readsIn(calls []string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, "Iter ") {
			n++
		}
	}
	return n
}

// order is the one Order these tests write, with status and total: a
// change of status moves its rows in orders_by_status and orders_4.
func order(status string, total int64) *fixture.Order {
	return &fixture.Order{UserID: "u", PlacedAt: orderAt, OrderID: "o1", Ref: "r-" + status, Event: orderEvent,
		Status: status, Total: total, Items: 1}
}

var (
	orderAt    = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	orderEvent = gocql.UUIDFromTime(orderAt) // once: each call gives another clock sequence
)

// verified fails t when Order's tables disagree with their source of truth.
func verified(t *testing.T, r *fixture.OrderRepo) {
	t.Helper()
	if rep, err := r.Verify(context.Background(), &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %v, %+v", err, rep)
	}
}

// A new entity is created by its conditional write first: no read before
// it. An entity whose source of truth has statics keeps its read first
// (the statics' version and values come from another row of the
// partition, which Create's reply would not hold), and so does one whose
// source of truth is split over buckets (Reading).
// Checks invariant I4: writers of one entity take turns.
func TestDirectCreateSendsNoRead(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	orders := fixture.NewOrderRepo(s)
	n := len(s.Calls())
	if err := orders.Insert(ctx, order("new", 1)); err != nil {
		t.Fatal(err)
	}
	if got := sent(s, n); readsIn(got) != 0 || len(got) != 2 || got[0] != "CAS orders/conditional" {
		t.Errorf("a new order's Insert sent %v; want its conditional write, then the fan-out, and no read", got)
	}
	verified(t, orders)
	lines := fixture.NewLineRepo(s)
	n = len(s.Calls())
	insertLines(t, lines, line("a", "joe", "new", 1))
	if got := sent(s, n); readsIn(got) == 0 || !strings.HasPrefix(got[0], "Iter lines/") {
		t.Errorf("the first line of an order sent %v; want a read first, as before", got)
	}
	checkLines(t, s, lines, "joe", 0)
	readings := fixture.NewReadingRepo(s)
	n = len(s.Calls())
	if err := readings.Insert(ctx, reading("a", 1, nil)); err != nil {
		t.Fatal(err)
	}
	if got := sent(s, n); readsIn(got) != 1 {
		t.Errorf("a new reading's Insert sent %v; want a read first, as before", got)
	}
}

// Over a live entity, the direct create does not apply, and its reply is
// the row: the Insert replaces it from there without a read, moving the
// rows whose keys change (their old keys are the reply's), and the try
// that did not apply is no attempt of its own (one attempt allowed is
// enough). With IfAbsent, other values are a conflict; the same values (a
// call run again) are not.
// Checks invariant I1: nil means applied everywhere.
// Checks invariant I2: a row that leaves a table is deleted there.
func TestDirectCreateFindsALiveRow(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewOrderRepo(s, cqlgen.WithAttempts(1))
	if err := repo.Insert(ctx, order("new", 1)); err != nil {
		t.Fatal(err)
	}
	n := len(s.Calls())
	if err := repo.Insert(ctx, order("paid", 2)); err != nil {
		t.Fatalf("Insert over a live order, one attempt: %v", err)
	}
	if got := sent(s, n); readsIn(got) != 0 || len(got) != 3 {
		t.Errorf("Insert over a live order sent %v; want the direct create, the change, the fan-out, and no read", got)
	}
	got, err := repo.Get(ctx, "u", order("", 0).PlacedAt, "o1")
	if err != nil || got.Status != "paid" || got.Total != 2 {
		t.Errorf("Get = %+v, %v; want status paid, total 2", got, err)
	}
	verified(t, repo)
	if err := repo.Insert(ctx, order("shipped", 2), cqlgen.IfAbsent()); !errors.As(err, new(*cqlgen.VersionConflictError)) {
		t.Errorf("IfAbsent over a live order of other values: %v; want a conflict", err)
	}
	n = len(s.Calls())
	if err := repo.Insert(ctx, order("paid", 2), cqlgen.IfAbsent()); err != nil {
		t.Errorf("IfAbsent over the same order (a call run again): %v", err)
	}
	if got := sent(s, n); readsIn(got) != 0 {
		t.Errorf("IfAbsent over the same order sent %v; want no read", got)
	}
	verified(t, repo)
}

// Insert keeps, over a live entity, what it leaves unset: the values
// come from the direct create's reply.
// Checks invariant I1: nil means applied everywhere.
func TestDirectCreateMergesFromTheReply(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewTickRepo(s, cqlgen.WithAttempts(1))
	if err := repo.Insert(ctx, &fixture.Tick{Stream: "x", Seq: 1, Tags: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	n := len(s.Calls())
	if err := repo.Insert(ctx, &fixture.Tick{Stream: "x", Seq: 1}); err != nil {
		t.Fatal(err)
	}
	if got := sent(s, n); readsIn(got) != 0 {
		t.Errorf("Insert over a live tick sent %v; want no read", got)
	}
	got, _, err := repo.GetVersioned(ctx, "x", 1)
	if err != nil || fmt.Sprint(got.Tags) != "[a b]" {
		t.Errorf("GetVersioned = %+v, %v; want the tags [a b] kept", got, err)
	}
}

// Over a grave, the direct create does not apply (the grave keeps its
// version): the Insert conditions on the grave's version, from the
// reply, and writes past it.
// Checks invariant I7: graves fence re-creation.
func TestDirectCreateFindsAGrave(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewOrderRepo(s)
	if err := repo.Insert(ctx, order("new", 1)); err != nil {
		t.Fatal(err)
	}
	_, v1, err := repo.GetVersioned(ctx, "u", order("", 0).PlacedAt, "o1")
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Delete(ctx, order("new", 1)); err != nil {
		t.Fatal(err)
	}
	grave := graveVersion(t, s, "orders")
	if grave <= v1 {
		t.Fatalf("the grave's version %d is not past the entity's %d", grave, v1)
	}
	n := len(s.Calls())
	if err := repo.Insert(ctx, order("paid", 2)); err != nil {
		t.Fatal(err)
	}
	if got := sent(s, n); readsIn(got) != 0 {
		t.Errorf("Insert over a grave sent %v; want no read", got)
	}
	got, v2, err := repo.GetVersioned(ctx, "u", order("", 0).PlacedAt, "o1")
	if err != nil || got.Status != "paid" {
		t.Fatalf("GetVersioned = %+v, %v; want status paid", got, err)
	}
	if v2 <= grave {
		t.Errorf("created again at version %d, not past the grave's %d", v2, grave)
	}
	verified(t, repo)
}

// graveVersion is the version of the one grave in table.
func graveVersion(t *testing.T, s *cqltest.Session, table string) int64 {
	t.Helper()
	rows, err := s.Rows(table)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r["cqlgen_deleted"] == true {
			return r["cqlgen_version"].(int64)
		}
	}
	t.Fatal("no grave")
	return 0
}

// A change whose fan-out never landed leaves its pending record (rows to
// delete elsewhere): a later Insert's direct create does not apply over
// it, and the Insert carries the record out, from the reply, before its
// own change.
// Checks invariant I3: the next write completes the last.
func TestDirectCreateFindsAPendingRecord(t *testing.T) {
	ctx := context.Background()
	var failBatches atomic.Bool
	s := session(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
		if failBatches.Load() && c.Op != cqltest.OpCAS && c.Op != cqltest.OpIter {
			return errors.New("injected: the client died after its conditional write")
		}
		return nil
	}))
	repo := fixture.NewOrderRepo(s)
	if err := repo.Insert(ctx, order("new", 1)); err != nil {
		t.Fatal(err)
	}
	failBatches.Store(true)
	if err := repo.Update(ctx, order("paid", 2)); err == nil {
		t.Fatal("the Update whose fan-out failed returned nil")
	}
	failBatches.Store(false)
	if rep, err := repo.Verify(ctx, &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() == 0 {
		t.Fatalf("no drift after a fan-out that failed (%v): the test does not test", err)
	}
	n := len(s.Calls())
	if err := repo.Insert(ctx, order("shipped", 3)); err != nil {
		t.Fatal(err)
	}
	if got := sent(s, n); readsIn(got) != 0 {
		t.Errorf("Insert over a pending record sent %v; want no read", got)
	}
	verified(t, repo)
}

// A partition whose statics have a version: a new row's Insert reads
// first (no direct create with statics), and conditions on the statics'
// version. One that keeps the statics moves no other row's version (its
// IfVersion still holds); one that changes them does.
// Checks invariant I8: statics have a version of their own.
func TestDirectCreateFindsStatics(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	r := fixture.NewPartRepo(s)
	part := func(id, owner string, qty int64) *fixture.Part {
		return &fixture.Part{OrderID: "o1", PartID: id, Owner: owner, Kind: "bolt", Qty: qty}
	}
	if err := r.Insert(ctx, part("a", "joe", 1)); err != nil {
		t.Fatal(err)
	}
	_, v, err := r.GetVersioned(ctx, "o1", "a")
	if err != nil {
		t.Fatal(err)
	}
	n := len(s.Calls())
	if err := r.Insert(ctx, part("b", "joe", 2)); err != nil {
		t.Fatal(err)
	}
	if got := sent(s, n); readsIn(got) == 0 {
		t.Errorf("a part into a partition with statics sent %v; want a read", got)
	}
	if err := r.Update(ctx, part("a", "joe", 3), cqlgen.IfVersion(v)); err != nil {
		t.Fatalf("a's Update after b's Insert that kept the owner: %v", err)
	}
	_, v, err = r.GetVersioned(ctx, "o1", "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Insert(ctx, part("c", "kim", 4)); err != nil {
		t.Fatal(err)
	}
	if err := r.Update(ctx, part("a", "joe", 5), cqlgen.IfVersion(v)); !errors.As(err, new(*cqlgen.VersionConflictError)) {
		t.Fatalf("a's Update after c's Insert that changed the owner: %v; want a conflict", err)
	}
	got, err := r.Get(ctx, "o1", "b")
	if err != nil || got.Owner != "kim" || got.Qty != 2 {
		t.Errorf("b = %+v, %v; want owner kim, qty 2", got, err)
	}
	if rep, err := r.Verify(ctx, &cqlmaintain.Options{Ranges: 2}); err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %v, %+v", err, rep)
	}
}

// Creators of one entity race, each with the direct create: one applies,
// the others find its row and replace it in turn; with IfAbsent, exactly
// one applies and the others are told of the conflict.
// Checks invariant I4: writers of one entity take turns.
// Checks invariant I11: a stale copy never wins.
func TestDirectCreateRacingCreators(t *testing.T) {
	ctx := context.Background()
	for _, absent := range []bool{false, true} {
		s := session(t)
		repo := fixture.NewOrderRepo(s, cqlgen.WithAttempts(1000))
		var wg sync.WaitGroup
		var won, lost atomic.Int64
		for i := range 16 {
			wg.Go(func() {
				var opts []cqlgen.Option
				if absent {
					opts = append(opts, cqlgen.IfAbsent())
				}
				err := repo.Insert(ctx, order(string(rune('a'+i%4)), int64(i)), opts...)
				switch {
				case err == nil:
					won.Add(1)
				case absent && errors.As(err, new(*cqlgen.VersionConflictError)):
					lost.Add(1)
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if absent && (won.Load() != 1 || lost.Load() != 15) {
			t.Errorf("IfAbsent: %d created, %d conflicts; want 1 and 15", won.Load(), lost.Load())
		}
		if !absent && won.Load() != 16 {
			t.Errorf("%d of 16 racing Inserts succeeded", won.Load())
		}
		verified(t, repo)
	}
}

// The direct create's reply is lost, and the serial reads that would
// settle it fail too: the call says its outcome is unknown. Sent again
// (with IfAbsent), it finds its own row: no conflict, every copy written.
// Checks invariant I9: a lost write is settled, never guessed.
// Checks invariant I11: a call run again is no conflict.
func TestDirectCreateLostReplyThenResend(t *testing.T) {
	ctx := context.Background()
	var armed, lostOne atomic.Bool
	s := session(t, cqltest.WithHook(func(_ context.Context, c cqltest.Call) error {
		if !armed.Load() {
			return nil
		}
		switch {
		case c.Op == cqltest.OpCAS && !lostOne.Swap(true):
			return cqltest.LostReply(errors.New("injected: reply lost"))
		case c.Queries[0].Stmt.Kind == cqlgen.SerialRead:
			return errors.New("injected: the settling read failed")
		}
		return nil
	}))
	repo := fixture.NewOrderRepo(s, instant)
	armed.Store(true)
	err := repo.Insert(ctx, order("new", 1), cqlgen.IfAbsent())
	if !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
		t.Fatalf("the Insert whose reply was lost: %v; want its outcome unknown", err)
	}
	armed.Store(false)
	if err := repo.Insert(ctx, order("new", 1), cqlgen.IfAbsent()); err != nil {
		t.Fatalf("the Insert sent again: %v", err)
	}
	verified(t, repo)
	if got, err := repo.Get(ctx, "u", order("", 0).PlacedAt, "o1"); err != nil || got.Status != "new" {
		t.Errorf("Get = %+v, %v", got, err)
	}
}

// Modify reads the canonical row once: its write starts from what Modify
// read, and reads again only when another writer came first.
// Checks invariant I11: Modify loses no concurrent edit.
func TestModifyReadsOnce(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	if err := repo.Insert(ctx, reading("a", 1, nil)); err != nil {
		t.Fatal(err)
	}
	n := len(s.Calls())
	got, err := repo.Modify(ctx, "s1", day0.Add(3600e9), 1, func(e *fixture.Reading) error { e.Value++; e.Kind = "b"; return nil })
	if err != nil || got.Value != 2 {
		t.Fatalf("Modify = %+v, %v", got, err)
	}
	if calls := sent(s, n); readsIn(calls) != 1 {
		t.Errorf("Modify sent %v; want one read", calls)
	}
	if d := drift(t, s); len(d) > 0 {
		t.Errorf("drift: %v", d)
	}
	// Overtaken between its read and its write: it reads again, and
	// edits what it finds.
	var once atomic.Bool
	got, err = repo.Modify(ctx, "s1", day0.Add(3600e9), 1, func(e *fixture.Reading) error {
		if !once.Swap(true) {
			if err := repo.Update(ctx, reading("c", 10, nil)); err != nil {
				return err
			}
		}
		e.Value++
		return nil
	})
	if err != nil || got.Value != 11 || got.Kind != "c" {
		t.Errorf("Modify overtaken = %+v, %v; want value 11, kind c", got, err)
	}
	if d := drift(t, s); len(d) > 0 {
		t.Errorf("drift: %v", d)
	}
}

// Modify's change edits a row of its own: editing a slice in place leaves
// the state the write compares with as read, so the edit is written (a
// row sharing the read's slice would look unchanged, and nothing would
// be written).
// Checks invariant I1: nil means applied everywhere.
func TestModifyEditsInPlace(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewTickRepo(s)
	if err := repo.Insert(ctx, &fixture.Tick{Stream: "x", Seq: 1, Tags: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.Modify(ctx, "x", 1, func(e *fixture.Tick) error { e.Tags[0] = "z"; return nil }); err != nil {
		t.Fatal(err)
	}
	got, err := repo.Get(ctx, "x", 1)
	if err != nil || len(got.Tags) != 2 || got.Tags[0] != "z" {
		t.Fatalf("Get = %+v, %v; want tags [z b]", got, err)
	}
	rows, err := s.Rows("ticks_4")
	if err != nil || len(rows) != 1 || fmt.Sprint(rows[0]["tags"]) != "[z b]" {
		t.Errorf("ticks_4 = %v, %v; want the tags [z b]", rows, err)
	}
}
