package cqlgen

import (
	"context"
	"errors"
	"testing"
)

// The order of Levels: the call's levels over the query's serial level
// (a repository's WithSerialConsistency) over the session's, field by
// field, nested calls innermost first.
func TestLevelsPrecedence(t *testing.T) {
	g := NewSession(nil, &SessionOptions{ReadConsistency: Quorum}).(*session)
	ctx := context.Background()
	want := func(name string, got, want Levels) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	want("session", g.levels(ctx, Query{}), Levels{Read: Quorum, Write: LocalQuorum, Serial: LocalSerial})
	want("repository serial", g.levels(ctx, Query{SerialConsistency: Serial}), Levels{Read: Quorum, Write: LocalQuorum, Serial: Serial})
	call := WithLevels(ctx, Levels{Read: One, Serial: LocalSerial})
	want("call over repository", g.levels(call, Query{SerialConsistency: Serial}), Levels{Read: One, Write: LocalQuorum, Serial: LocalSerial})
	inner := WithLevels(call, Levels{Write: All, Read: Two})
	want("nested", g.levels(inner, Query{}), Levels{Read: Two, Write: All, Serial: LocalSerial})
	want("outer call unchanged", LevelsOf(call), Levels{Read: One, Serial: LocalSerial})
}

// SessionLevels of a NewSession session is another such session: same
// retry options and observer (so StartCall still finds the CallObserver),
// its own levels, and the original left alone.
func TestSessionLevelsKeepsTheSession(t *testing.T) {
	obs := &countingCalls{}
	base := NewSession(nil, &SessionOptions{Observer: obs, Retry: RetryOptions{MaxAttempts: 2}})
	s := SessionLevels(base, Levels{Write: Quorum, Serial: Serial})
	g, ok := s.(*session)
	if !ok {
		t.Fatalf("SessionLevels returned a %T", s)
	}
	want := Levels{Read: LocalQuorum, Write: Quorum, Serial: Serial}
	if got := g.levels(context.Background(), Query{}); got != want {
		t.Errorf("levels %+v, want %+v", got, want)
	}
	if g.opts.Retry.MaxAttempts != 2 || g.calls == nil {
		t.Errorf("options or observer lost: %+v", g.opts)
	}
	if b := base.(*session).opts; b.WriteConsistency != LocalQuorum || b.SerialConsistency != LocalSerial {
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
	s := SessionLevels(rec, Levels{Read: Quorum, Write: Quorum})
	ctx := WithLevels(context.Background(), Levels{Read: One})
	_ = s.Exec(ctx, Query{})
	_ = s.Iter(ctx, Query{}).Close()
	_, _ = s.ExecCAS(ctx, Query{})
	_ = s.Batch(ctx, Logged, nil)
	want := Levels{Read: One, Write: Quorum}
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
type levelRecorder struct{ seen []Levels }

func (r *levelRecorder) Exec(ctx context.Context, _ Query) error {
	r.seen = append(r.seen, LevelsOf(ctx))
	return nil
}

func (r *levelRecorder) Iter(ctx context.Context, _ Query) Iter {
	r.seen = append(r.seen, LevelsOf(ctx))
	return errIter{}
}

func (r *levelRecorder) ExecCAS(ctx context.Context, _ Query, _ ...any) (bool, error) {
	r.seen = append(r.seen, LevelsOf(ctx))
	return true, nil
}

func (r *levelRecorder) Batch(ctx context.Context, _ BatchKind, _ []Query) error {
	r.seen = append(r.seen, LevelsOf(ctx))
	return nil
}

// countingCalls is a CallObserver that counts the calls it sees start.
type countingCalls struct{ started int }

func (c *countingCalls) Observe(context.Context, Observation) {}

func (c *countingCalls) StartCall(ctx context.Context, _ Call) context.Context {
	c.started++
	return ctx
}

func (c *countingCalls) EndCall(context.Context, CallObservation) {}

// A serial read runs at the serial level, whichever set it (the session,
// the repository through the query, the call), and is refused before it
// is sent when that level is no serial one; a read and a pre-read run at
// the read level.
func TestSerialReadLevel(t *testing.T) {
	g := NewSession(nil, nil).(*session)
	ctx := context.Background()
	consistency := func(ctx context.Context, q Query) Consistency {
		var e execution
		return g.request(ctx, q, &e).Consistency
	}
	serial := &Statement{CQL: "SELECT v FROM t WHERE k = ?", Table: "t", Kind: SerialRead}
	for _, c := range []struct {
		name string
		ctx  context.Context
		q    Query
		want Consistency
	}{
		{"session", ctx, Query{Stmt: serial}, LocalSerial},
		{"repository", ctx, Query{Stmt: serial, SerialConsistency: Serial}, Serial},
		{"call", WithLevels(ctx, Levels{Serial: Serial, Read: One}), Query{Stmt: serial}, Serial},
		{"read", ctx, Query{Stmt: &Statement{Kind: Read}}, LocalQuorum},
		{"pre-read", WithLevels(ctx, Levels{Read: One}), Query{Stmt: &Statement{Kind: PreRead}}, One},
	} {
		if got := consistency(c.ctx, c.q); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	it := g.Iter(WithLevels(ctx, Levels{Serial: Quorum}), Query{Stmt: serial})
	if err := it.Close(); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("a serial read at QUORUM: %v, want an option error", err)
	}
}
