package cqlgen

import (
	"context"
	"testing"

	"github.com/gocql/gocql"
)

// The order of Levels: the call's levels over the query's serial level
// (a repository's WithSerialConsistency) over the session's, field by
// field, nested calls innermost first.
func TestLevelsPrecedence(t *testing.T) {
	g := NewSession(nil, &SessionOptions{ReadConsistency: gocql.Quorum}).(*gocqlSession)
	ctx := context.Background()
	want := func(name string, got, want Levels) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	want("session", g.levels(ctx, Query{}), Levels{Read: gocql.Quorum, Write: gocql.LocalQuorum, Serial: gocql.LocalSerial})
	want("repository serial", g.levels(ctx, Query{SerialConsistency: gocql.Serial}), Levels{Read: gocql.Quorum, Write: gocql.LocalQuorum, Serial: gocql.Serial})
	call := WithLevels(ctx, Levels{Read: gocql.One, Serial: gocql.LocalSerial})
	want("call over repository", g.levels(call, Query{SerialConsistency: gocql.Serial}), Levels{Read: gocql.One, Write: gocql.LocalQuorum, Serial: gocql.LocalSerial})
	inner := WithLevels(call, Levels{Write: gocql.All, Read: gocql.Two})
	want("nested", g.levels(inner, Query{}), Levels{Read: gocql.Two, Write: gocql.All, Serial: gocql.LocalSerial})
	want("outer call unchanged", LevelsOf(call), Levels{Read: gocql.One, Serial: gocql.LocalSerial})
}

// SessionLevels of a NewSession session is another such session: same
// retry options and observer (so StartCall still finds the CallObserver),
// its own levels, and the original left alone.
func TestSessionLevelsKeepsTheSession(t *testing.T) {
	obs := &countingCalls{}
	base := NewSession(nil, &SessionOptions{Observer: obs, Retry: RetryOptions{MaxAttempts: 2}})
	s := SessionLevels(base, Levels{Write: gocql.Quorum, Serial: gocql.Serial})
	g, ok := s.(*gocqlSession)
	if !ok {
		t.Fatalf("SessionLevels returned a %T", s)
	}
	want := Levels{Read: gocql.LocalQuorum, Write: gocql.Quorum, Serial: gocql.Serial}
	if got := g.levels(context.Background(), Query{}); got != want {
		t.Errorf("levels %+v, want %+v", got, want)
	}
	if g.opts.Retry.MaxAttempts != 2 || g.calls == nil {
		t.Errorf("options or observer lost: %+v", g.opts)
	}
	if b := base.(*gocqlSession).opts; b.WriteConsistency != gocql.LocalQuorum || b.SerialConsistency != gocql.LocalSerial {
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
	s := SessionLevels(rec, Levels{Read: gocql.Quorum, Write: gocql.Quorum})
	ctx := WithLevels(context.Background(), Levels{Read: gocql.One})
	_ = s.Exec(ctx, Query{})
	_ = s.Iter(ctx, Query{}).Close()
	_, _ = s.ExecCAS(ctx, Query{})
	_ = s.Batch(ctx, Logged, nil)
	want := Levels{Read: gocql.One, Write: gocql.Quorum}
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

// NewClusterDC keeps a session in its datacenter with a host filter
// (gocql gives no way to make a HostInfo of another datacenter here; the
// cluster suite's TestLocalQuorumInTwoDatacenters checks what it admits).
func TestNewClusterDCFiltersOtherDatacenters(t *testing.T) {
	if NewClusterDC("dc1", "127.0.0.2").HostFilter == nil {
		t.Fatal("NewClusterDC: no host filter")
	}
	if NewCluster("127.0.0.2").HostFilter != nil {
		t.Error("NewCluster filters hosts")
	}
}
