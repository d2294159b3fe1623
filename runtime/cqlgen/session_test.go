package cqlgen

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestNewSessionDefaults(t *testing.T) {
	g := NewSession(nil, nil).(*session)
	o := g.opts
	if o.ReadConsistency != LocalQuorum || o.WriteConsistency != LocalQuorum || o.SerialConsistency != LocalSerial {
		t.Errorf("consistency defaults %v %v %v", o.ReadConsistency, o.WriteConsistency, o.SerialConsistency)
	}
	if o.BatchWarnBytes != 5*1024 || o.BatchFailBytes != 50*1024 || o.Retry.MaxAttempts != DefaultMaxAttempts {
		t.Errorf("defaults %+v", o)
	}
	g = NewSession(nil, &SessionOptions{SerialConsistency: Serial, BatchFailBytes: -1, Retry: RetryOptions{MaxAttempts: 1}}).(*session)
	if g.opts.SerialConsistency != Serial || g.opts.BatchFailBytes != -1 || g.opts.Retry.MaxAttempts != 1 {
		t.Errorf("options not kept: %+v", g.opts)
	}
}

// A batch over the limit is refused before anything touches the driver:
// this session has no gocql session at all, so sending would panic.
func TestBatchTooLargeIsRefusedBeforeSending(t *testing.T) {
	var seen []Observation
	s := NewSession(nil, &SessionOptions{
		BatchWarnBytes: 500,
		BatchFailBytes: 1000,
		Observer:       observerFunc(func(_ context.Context, o Observation) { seen = append(seen, o) }),
	})
	st := &Statement{CQL: "INSERT", Table: "t", Pattern: "Save", Kind: Write, Idempotent: true}
	big := strings.Repeat("x", 400)
	qs := []Query{{Stmt: st, Values: []any{big}}, {Stmt: st, Values: []any{big}}, {Stmt: st, Values: []any{big}}}
	err := LoggedBatch.Apply(context.Background(), s, qs)
	var tl *BatchTooLargeError
	if !errors.Is(err, ErrBatchTooLarge) || !errors.As(err, &tl) {
		t.Fatalf("err = %v", err)
	}
	if tl.Statements != 3 || tl.Bytes != 3*404 || tl.Limit != 1000 {
		t.Errorf("error %+v", tl)
	}
	if len(seen) != 3 || seen[0].Attempt != 0 || !errors.Is(seen[0].Err, ErrBatchTooLarge) || seen[0].Batch != 3 || seen[0].BatchBytes != 3*404 || !seen[0].BatchWarn {
		t.Errorf("observations %+v", seen)
	}
}

// A serial level that is no serial level is refused before the driver
// sees it (this session has none: sending would panic), whichever way it
// was set, and only for conditional statements.
func TestSerialLevelMustBeSerial(t *testing.T) {
	cas := &Statement{CQL: "UPDATE t SET v = ? WHERE k = ? IF v = ?", Table: "t", Pattern: "Set", Kind: Conditional}
	ctx := context.Background()
	for name, c := range map[string]struct {
		s   Session
		ctx context.Context
		q   Query
	}{
		"session":    {NewSession(nil, &SessionOptions{SerialConsistency: Quorum}), ctx, Query{Stmt: cas}},
		"call":       {NewSession(nil, nil), WithLevels(ctx, Levels{Serial: One}), Query{Stmt: cas}},
		"repository": {NewSession(nil, nil), ctx, Query{Stmt: cas, SerialConsistency: LocalQuorum}},
	} {
		if _, err := c.s.ExecCAS(c.ctx, c.q); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: ExecCAS: %v, want an option error", name, err)
		}
		if err := c.s.Exec(c.ctx, c.q); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: Exec: %v, want an option error", name, err)
		}
		if err := c.s.Batch(c.ctx, Logged, []Query{c.q}); !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: Batch: %v, want an option error", name, err)
		}
	}
}
