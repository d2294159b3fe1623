package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

func TestNewSessionDefaults(t *testing.T) {
	g := NewSession(nil, nil).(*session)
	o := g.opts
	if o.ReadConsistency != cqldriver.LocalQuorum || o.WriteConsistency != cqldriver.LocalQuorum || o.SerialConsistency != cqldriver.LocalSerial {
		t.Errorf("consistency defaults %v %v %v", o.ReadConsistency, o.WriteConsistency, o.SerialConsistency)
	}
	if o.BatchWarnBytes != 5*1024 || o.BatchFailBytes != 50*1024 || o.MaxAttempts != cqlgen.DefaultMaxAttempts {
		t.Errorf("defaults %+v", o)
	}
	g = NewSession(nil, &cqlgen.SessionOptions{SerialConsistency: cqldriver.Serial, BatchFailBytes: -1, MaxAttempts: 1}).(*session)
	if g.opts.SerialConsistency != cqldriver.Serial || g.opts.BatchFailBytes != -1 || g.opts.MaxAttempts != 1 {
		t.Errorf("options not kept: %+v", g.opts)
	}
}

// A batch over the limit is refused before anything touches the driver:
// this session has no gocql session at all, so sending would panic.
func TestBatchTooLargeIsRefusedBeforeSending(t *testing.T) {
	var seen []cqlobserve.Observation
	s := NewSession(nil, &cqlgen.SessionOptions{
		BatchWarnBytes: 500,
		BatchFailBytes: 1000,
		Observer:       observerFunc(func(_ context.Context, o cqlobserve.Observation) { seen = append(seen, o) }),
	})
	st := &cqldriver.Statement{CQL: "INSERT", Table: "t", Pattern: "Save", Kind: cqldriver.Write, Idempotent: true}
	big := strings.Repeat("x", 400)
	qs := []cqldriver.Query{{Stmt: st, Values: []any{big}}, {Stmt: st, Values: []any{big}}, {Stmt: st, Values: []any{big}}}
	err := cqlgen.LoggedBatch.Apply(context.Background(), s, qs)
	var tl *cqlgen.InputError
	if !errors.Is(err, cqlgen.ErrBatchTooLarge) || !(errors.As(err, &tl) && tl.Err == cqlgen.ErrBatchTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if want := "3 statements of about 1212 bytes, over the 1000-byte limit; use the concurrent strategy for rows this large"; tl.Reason != want {
		t.Errorf("error %+v", tl)
	}
	if len(seen) != 3 || seen[0].Attempt != 0 || !errors.Is(seen[0].Err, cqlgen.ErrBatchTooLarge) || seen[0].Batch != 3 || seen[0].BatchBytes != 3*404 || !seen[0].BatchWarn {
		t.Errorf("observations %+v", seen)
	}
}

// A serial level that is no serial level is refused before the driver
// sees it (this session has none: sending would panic), whichever way it
// was set, and only for conditional statements.
func TestSerialLevelMustBeSerial(t *testing.T) {
	cas := &cqldriver.Statement{CQL: "UPDATE t SET v = ? WHERE k = ? IF v = ?", Table: "t", Pattern: "Set", Kind: cqldriver.Conditional}
	ctx := context.Background()
	for name, c := range map[string]struct {
		s   cqldriver.Session
		ctx context.Context
		q   cqldriver.Query
	}{
		"session":    {NewSession(nil, &cqlgen.SessionOptions{SerialConsistency: cqldriver.Quorum}), ctx, cqldriver.Query{Stmt: cas}},
		"call":       {NewSession(nil, nil), cqlgen.WithLevels(ctx, cqlgen.Levels{Serial: cqldriver.One}), cqldriver.Query{Stmt: cas}},
		"repository": {NewSession(nil, nil), ctx, cqldriver.Query{Stmt: cas, SerialConsistency: cqldriver.LocalQuorum}},
	} {
		if _, err := c.s.ExecCAS(c.ctx, c.q); !errors.Is(err, cqlgen.ErrInvalidOption) {
			t.Errorf("%s: ExecCAS: %v, want an option error", name, err)
		}
		if err := c.s.Exec(c.ctx, c.q); !errors.Is(err, cqlgen.ErrInvalidOption) {
			t.Errorf("%s: Exec: %v, want an option error", name, err)
		}
		if err := c.s.Batch(c.ctx, cqldriver.Logged, []cqldriver.Query{c.q}); !errors.Is(err, cqlgen.ErrInvalidOption) {
			t.Errorf("%s: Batch: %v, want an option error", name, err)
		}
	}
}
