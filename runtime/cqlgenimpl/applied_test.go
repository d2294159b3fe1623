package cqlgenimpl_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

type fanOutFailsKey struct{}

// A keyed write whose change of the source of truth applied, and whose
// rows in other tables could not be written, is completed by the key's
// next call, not run again: a rival's change in between stands, and a
// Modify adds its change once. Before, the key kept nothing of the call
// (its error was the fan-out's, not an outcome), so the resend ran the
// command anew: a Modify added its increment a second time, an Insert
// or Update wrote over the rival's change, an IfVersion reported a
// conflict with its own write. Found by the linearizability run with
// keyed resends (docs/testing.md). Checks invariant I10.
func TestKeyedResendAfterItsFanOutFailed(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "BATCH"}
	for _, op := range []string{"modify", "insert", "update", "ifversion"} {
		t.Run(op, func(t *testing.T) {
			ctx := context.Background()
			s := session(t, cqltest.WithHook(func(ctx context.Context, call cqltest.Call) error {
				if ctx.Value(fanOutFailsKey{}) == nil || call.Op == cqltest.OpCAS {
					return nil
				}
				for _, q := range call.Queries {
					if q.Stmt.Table != "readings_by_day" && q.Stmt.Kind != cqlgen.Read && q.Stmt.Kind != cqlgen.SerialRead {
						return timeout // every row of another table, every attempt
					}
				}
				return nil
			}))
			repo := fixture.NewReadingRepo(s, cqlgen.WithAttempts(2))
			if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a", Value: 1}); err != nil {
				t.Fatal(err)
			}
			_, v, err := repo.GetVersioned(ctx, "s1", day0, 1)
			if err != nil {
				t.Fatal(err)
			}
			key := cqlgen.WithIdempotencyKey("k-" + op)
			call := func(ctx context.Context) error {
				switch op {
				case "modify":
					_, err := repo.Modify(ctx, "s1", day0, 1, func(e *fixture.Reading) error { e.Value++; return nil }, key)
					return err
				case "insert":
					return repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "b", Value: 1}, key)
				case "update":
					return repo.Update(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "b", Value: 1}, key)
				default:
					return repo.Update(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "b", Value: 1}, key, cqlgen.IfVersion(v))
				}
			}
			err = call(context.WithValue(ctx, fanOutFailsKey{}, true))
			if !errors.Is(err, cqlgen.ErrOutcomeUnknown) || !errors.Is(err, timeout) {
				t.Fatalf("first call, its rows in other tables refused: %v (%T), want outcome unknown wrapping the fan-out's error", err, err)
			}
			// A rival changes the entity before the resend.
			if _, err := repo.Modify(ctx, "s1", day0, 1, func(e *fixture.Reading) error { e.Value += 10; e.Kind = "c"; return nil }); err != nil {
				t.Fatal(err)
			}
			if err := call(ctx); err != nil {
				t.Fatalf("resend with the key: %v", err)
			}
			got, err := repo.Get(ctx, "s1", day0, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(11) // the rival's +10 over the call's 1
			if op == "modify" {
				want = 12 // 1, +1 once, +10
			}
			if got.Value != want || got.Kind != "c" {
				t.Fatalf("after the resend: value %d kind %q, want %d %q: the resend ran the command again", got.Value, got.Kind, want, "c")
			}
			// Every table holds the entity as the source of truth does.
			from, to := "a", "c" // kinds a and b
			page, err := repo.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{KindFrom: &from, KindTo: &to})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Rows) != 0 {
				t.Errorf("readings_by_kind still holds an older kind: %+v", page.Rows)
			}
			page16, err := repo.Readings16(ctx, "s1", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(page16.Rows) != 1 || page16.Rows[0].Value != want {
				t.Fatalf("readings_16: %+v, want the entity at value %d", page16.Rows, want)
			}
		})
	}
}

type lostModifyKey struct{}

// A keyed Modify whose change applied (its reply lost, and every serial
// read of the call that would settle it failed), and whose entity is
// deleted before the resend, is told so: ErrDeletedSince, never
// ErrNotFound, which would say the change did not apply. Found by the
// linearizability run with keyed resends (docs/testing.md).
func TestKeyedModifyResentAfterADelete(t *testing.T) {
	ctx := context.Background()
	var lost atomic.Bool
	s := session(t, cqltest.WithHook(func(ctx context.Context, call cqltest.Call) error {
		if ctx.Value(lostModifyKey{}) == nil || call.Queries[0].Stmt.Table != "readings_by_day" {
			return nil
		}
		switch {
		case call.Op == cqltest.OpCAS && !lost.Swap(true):
			return cqltest.LostReply(&gocql.RequestErrWriteTimeout{WriteType: "CAS"})
		case call.Queries[0].Stmt.Kind == cqlgen.SerialRead:
			return &gocql.RequestErrReadTimeout{}
		}
		return nil
	}))
	repo := fixture.NewReadingRepo(s, cqlgen.WithLandWindow(time.Millisecond))
	r := &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a", Value: 1}
	if err := repo.Insert(ctx, r); err != nil {
		t.Fatal(err)
	}
	key := cqlgen.WithIdempotencyKey("inc-then-delete")
	inc := func(e *fixture.Reading) error { e.Value++; return nil }
	_, err := repo.Modify(context.WithValue(ctx, lostModifyKey{}, true), "s1", day0, 1, inc, key)
	if !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
		t.Fatalf("first call, its reply and its serial reads lost: %v, want outcome unknown", err)
	}
	if err := repo.Delete(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := repo.Modify(ctx, "s1", day0, 1, inc, key)
	if !errors.Is(err, cqlgen.ErrDeletedSince) || errors.Is(err, cqlgen.ErrNotFound) || got != nil {
		t.Fatalf("resend after a delete: %v, %v; want ErrDeletedSince (the change applied), not ErrNotFound", got, err)
	}
	// A third call with the key says the same: it is recorded as done.
	if _, err := repo.Modify(ctx, "s1", day0, 1, inc, key); !errors.Is(err, cqlgen.ErrDeletedSince) {
		t.Fatalf("third call with the key: %v, want ErrDeletedSince", err)
	}
}
