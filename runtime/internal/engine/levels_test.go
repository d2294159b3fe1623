package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// The order of Levels: the call's levels over the query's serial level
// (a repository's WithSerialConsistency) over the session's, field by
// field, nested calls innermost first.
func TestLevelsPrecedence(t *testing.T) {
	g := NewSession(nil, &cqlgen.SessionOptions{ReadConsistency: cqldriver.Quorum}).(*session)
	ctx := context.Background()
	want := func(name string, got, want cqlgen.Levels) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	want("session", g.levels(ctx, cqldriver.Query{}), cqlgen.Levels{Read: cqldriver.Quorum, Write: cqldriver.LocalQuorum, Serial: cqldriver.LocalSerial})
	want("repository serial", g.levels(ctx, cqldriver.Query{SerialConsistency: cqldriver.Serial}), cqlgen.Levels{Read: cqldriver.Quorum, Write: cqldriver.LocalQuorum, Serial: cqldriver.Serial})
	call := cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqldriver.One, Serial: cqldriver.LocalSerial})
	want("call over repository", g.levels(call, cqldriver.Query{SerialConsistency: cqldriver.Serial}), cqlgen.Levels{Read: cqldriver.One, Write: cqldriver.LocalQuorum, Serial: cqldriver.LocalSerial})
	inner := cqlgen.WithLevels(call, cqlgen.Levels{Write: cqldriver.All, Read: cqldriver.Two})
	want("nested", g.levels(inner, cqldriver.Query{}), cqlgen.Levels{Read: cqldriver.Two, Write: cqldriver.All, Serial: cqldriver.LocalSerial})
	want("outer call unchanged", LevelsOf(call), cqlgen.Levels{Read: cqldriver.One, Serial: cqldriver.LocalSerial})
}

// SessionLevels of a NewSession session is another such session: same
// retry options and observer (so StartCall still finds the CallObserver),
// its own levels, and the original left alone.
func TestSessionLevelsKeepsTheSession(t *testing.T) {
	obs := &countingCalls{}
	base := NewSession(nil, &cqlgen.SessionOptions{Observer: obs, MaxAttempts: 2})
	s := cqlgen.SessionLevels(base, cqlgen.Levels{Write: cqldriver.Quorum, Serial: cqldriver.Serial})
	g, ok := s.(*session)
	if !ok {
		t.Fatalf("SessionLevels returned a %T", s)
	}
	want := cqlgen.Levels{Read: cqldriver.LocalQuorum, Write: cqldriver.Quorum, Serial: cqldriver.Serial}
	if got := g.levels(context.Background(), cqldriver.Query{}); got != want {
		t.Errorf("levels %+v, want %+v", got, want)
	}
	if g.opts.MaxAttempts != 2 || g.calls == nil {
		t.Errorf("options or observer lost: %+v", g.opts)
	}
	if b := base.(*session).opts; b.WriteConsistency != cqldriver.LocalQuorum || b.SerialConsistency != cqldriver.LocalSerial {
		t.Errorf("the original session changed: %+v", b)
	}
	_, call := StartCall(context.Background(), s, "Ticket", "Get")
	call.End(nil)
	if obs.started != 1 {
		t.Errorf("CallObserver saw %d calls through the derived session", obs.started)
	}
}

// Any other Session gets the levels on the context of every statement,
// under the call's own.
func TestSessionLevelsOfAnotherSession(t *testing.T) {
	rec := &levelRecorder{}
	s := cqlgen.SessionLevels(rec, cqlgen.Levels{Read: cqldriver.Quorum, Write: cqldriver.Quorum})
	ctx := cqlgen.WithLevels(context.Background(), cqlgen.Levels{Read: cqldriver.One})
	_ = s.Exec(ctx, cqldriver.Query{})
	_ = s.Iter(ctx, cqldriver.Query{}).Close()
	_, _ = s.ExecCAS(ctx, cqldriver.Query{})
	_ = s.Batch(ctx, cqldriver.Logged, nil)
	want := cqlgen.Levels{Read: cqldriver.One, Write: cqldriver.Quorum}
	if len(rec.seen) != 4 {
		t.Fatalf("%d statements seen", len(rec.seen))
	}
	for i, l := range rec.seen {
		if l != want {
			t.Errorf("statement %d ran with %+v, want %+v", i, l, want)
		}
	}
}

// levelRecorder is a Session that records the levels on each context.
type levelRecorder struct{ seen []cqlgen.Levels }

func (r *levelRecorder) Exec(ctx context.Context, _ cqldriver.Query) error {
	r.seen = append(r.seen, LevelsOf(ctx))
	return nil
}

func (r *levelRecorder) Iter(ctx context.Context, _ cqldriver.Query) cqldriver.Iter {
	r.seen = append(r.seen, LevelsOf(ctx))
	return errIter{}
}

func (r *levelRecorder) ExecCAS(ctx context.Context, _ cqldriver.Query, _ ...any) (bool, error) {
	r.seen = append(r.seen, LevelsOf(ctx))
	return true, nil
}

func (r *levelRecorder) Batch(ctx context.Context, _ cqldriver.BatchKind, _ []cqldriver.Query) error {
	r.seen = append(r.seen, LevelsOf(ctx))
	return nil
}

// countingCalls is a CallObserver that counts the calls it sees start.
type countingCalls struct{ started int }

func (c *countingCalls) Observe(context.Context, cqlobserve.Observation) {}

func (c *countingCalls) StartCall(ctx context.Context, _ cqlobserve.Call) context.Context {
	c.started++
	return ctx
}

func (c *countingCalls) EndCall(context.Context, cqlobserve.CallObservation) {}

// A serial read runs at the serial level, whichever set it (the session,
// the repository through the query, the call), and is refused before it
// is sent when that level is no serial one; a read and a pre-read run at
// the read level.
func TestSerialReadLevel(t *testing.T) {
	g := NewSession(nil, nil).(*session)
	ctx := context.Background()
	consistency := func(ctx context.Context, q cqldriver.Query) cqldriver.Consistency {
		var e execution
		return g.request(ctx, q, &e).Consistency
	}
	serial := &cqldriver.Statement{CQL: "SELECT v FROM t WHERE k = ?", Table: "t", Kind: cqldriver.SerialRead}
	for _, c := range []struct {
		name string
		ctx  context.Context
		q    cqldriver.Query
		want cqldriver.Consistency
	}{
		{"session", ctx, cqldriver.Query{Stmt: serial}, cqldriver.LocalSerial},
		{"repository", ctx, cqldriver.Query{Stmt: serial, SerialConsistency: cqldriver.Serial}, cqldriver.Serial},
		{"call", cqlgen.WithLevels(ctx, cqlgen.Levels{Serial: cqldriver.Serial, Read: cqldriver.One}), cqldriver.Query{Stmt: serial}, cqldriver.Serial},
		{"read", ctx, cqldriver.Query{Stmt: &cqldriver.Statement{Kind: cqldriver.Read}}, cqldriver.LocalQuorum},
		{"pre-read", cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqldriver.One}), cqldriver.Query{Stmt: &cqldriver.Statement{Kind: cqldriver.PreRead}}, cqldriver.One},
	} {
		if got := consistency(c.ctx, c.q); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	it := g.Iter(cqlgen.WithLevels(ctx, cqlgen.Levels{Serial: cqldriver.Quorum}), cqldriver.Query{Stmt: serial})
	if err := it.Close(); !errors.Is(err, cqlgen.ErrInvalidOption) {
		t.Errorf("a serial read at QUORUM: %v, want an option error", err)
	}
}
