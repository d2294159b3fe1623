package cqlgenimpl_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// settleCase is how the first conditional write on the source of truth
// (readings_by_day) of a Modify fails, and what happens before the serial
// read that settles it.
type settleCase struct {
	name string
	// fault is the error of the conditional write: cqltest.LostReply
	// lets it apply first.
	fault error
	// rival, when set, changes the entity before the serial read.
	rival bool
	// want: the increments the entity holds after the call and its
	// resend with the same idempotency key; whether the call's error is
	// ErrOutcomeUnknown.
	want    int64
	unknown bool
}

// A Modify whose conditional write lost its reply learns from a serial
// read whether it applied. Applied: the call succeeds, and its resend with
// the key does not apply it again (before, the error released the key and
// the resend incremented twice). Not applied: the error stands, and the
// resend applies it once. Changed by another writer in between: unknown,
// and the key records it, so no resend runs the change again.
func TestModifySettlesALostConditionalReply(t *testing.T) {
	timeout := &gocql.RequestErrWriteTimeout{WriteType: "CAS"}
	for _, c := range []settleCase{
		{name: "applied, reply lost", fault: cqltest.LostReply(timeout), want: 1},
		{name: "timed out before applying", fault: timeout, want: 1},
		{name: "applied, then changed by another writer", fault: cqltest.LostReply(timeout), rival: true, want: 1 + 10, unknown: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var armed, faulted, rivalled atomic.Bool
			var repo *fixture.ReadingRepo
			ctx := context.Background()
			s := session(t, cqltest.WithHook(func(_ context.Context, call cqltest.Call) error {
				q := call.Queries[0]
				if !armed.Load() || q.Stmt.Table != "readings_by_day" {
					return nil
				}
				switch {
				case call.Op == cqltest.OpCAS && !faulted.Swap(true):
					return c.fault
				case q.Stmt.Kind == cqlgen.SerialRead && c.rival && !rivalled.Swap(true):
					armed.Store(false)
					defer armed.Store(true)
					_, err := repo.Modify(ctx, "s1", day0, 1, func(e *fixture.Reading) error { e.Value += 10; return nil })
					return err
				}
				return nil
			}))
			repo = fixture.NewReadingRepo(s)
			if err := repo.Insert(ctx, &fixture.Reading{SensorID: "s1", At: day0, Seq: 1, Kind: "a"}); err != nil {
				t.Fatal(err)
			}
			inc := func(e *fixture.Reading) error { e.Value++; return nil }
			key := cqlgen.WithIdempotencyKey("inc-1")
			armed.Store(true)
			_, err := repo.Modify(ctx, "s1", day0, 1, inc, key)
			if errors.Is(err, cqlgen.ErrOutcomeUnknown) != c.unknown {
				t.Fatalf("Modify: %v; want outcome unknown: %v", err, c.unknown)
			}
			if c.unknown {
				var we *cqlgen.WriteUnknownError
				if !errors.As(err, &we) || we.Table != "readings_by_day" {
					t.Errorf("Modify: %v, want a *WriteUnknownError on readings_by_day", err)
				}
			}
			again, err2 := repo.Modify(ctx, "s1", day0, 1, inc, key)
			if c.unknown != errors.Is(err2, cqlgen.ErrOutcomeUnknown) || !c.unknown && err2 != nil {
				t.Fatalf("Modify sent again with its key: %v", err2)
			}
			got, err := repo.Get(ctx, "s1", day0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got.Value != c.want {
				t.Errorf("value %d after the call and its resend, want %d", got.Value, c.want)
			}
			if !c.unknown && again.Value != c.want {
				t.Errorf("the resend returned value %d, want %d", again.Value, c.want)
			}
			if rep, err := repo.Verify(ctx, nil); err != nil || rep.Drift() != 0 {
				t.Errorf("Verify: %+v, %v", rep, err)
			}
		})
	}
}
