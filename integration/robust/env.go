package robust

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Environment variables of a run (make robust sets them):
//
//	CQLGEN_ROBUST_SEED   the first seed (default: drawn from the clock); each
//	                     history i runs seed+i
//	CQLGEN_ROBUST_SEEDS  how many histories (default: the test's, or 1 with a seed)
//	CQLGEN_ROBUST_OPS    calls per history (default: the test's)
//	CQLGEN_ROBUST_OUT    where visualizations go (default: integration/out/robust)
//	CQLGEN_ROBUST_RESEND resend a write of unknown outcome with its idempotency
//	                     key up to this many times (default 0: keys unused);
//	                     see docs/testing.md for what it finds today
const (
	EnvSeed   = "CQLGEN_ROBUST_SEED"
	EnvSeeds  = "CQLGEN_ROBUST_SEEDS"
	EnvOps    = "CQLGEN_ROBUST_OPS"
	EnvOut    = "CQLGEN_ROBUST_OUT"
	EnvResend = "CQLGEN_ROBUST_RESEND"
)

// Runs is what a test runs: its seeds and the size of each history.
type Runs struct {
	Seeds  []uint64
	Ops    int
	Out    string
	Fixed  bool // the seed was given
	Resend int  // Config.Resend
}

// FromEnv reads the environment over the test's defaults: histories of
// ops calls each.
func FromEnv(t testing.TB, histories, ops int) Runs {
	t.Helper()
	num := func(name string, def int) int {
		v := os.Getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive number", name, v)
		}
		return n
	}
	r := Runs{Out: os.Getenv(EnvOut)}
	if r.Out == "" {
		// Tests run in their package's folder, one below integration/.
		r.Out = filepath.Join("..", "out", "robust")
	}
	base := uint64(time.Now().UnixNano() % 1_000_000_000)
	if v := os.Getenv(EnvSeed); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want a number", EnvSeed, v)
		}
		base, r.Fixed = n, true
		histories = 1
	}
	histories = num(EnvSeeds, histories)
	r.Ops = num(EnvOps, ops)
	if os.Getenv(EnvResend) != "" {
		r.Resend = num(EnvResend, 0)
	}
	for i := range histories {
		r.Seeds = append(r.Seeds, base+uint64(i))
	}
	return r
}

// Replay is the command that runs seed again, for a test of package pkg
// (./runtime, ./cluster) whose name is test; env are extra settings.
func (r Runs) Replay(seed uint64, pkg, test string, env ...string) string {
	if r.Resend > 0 {
		env = append(env, fmt.Sprintf("%s=%d", EnvResend, r.Resend))
	}
	return fmt.Sprintf("cd integration && %s %s=%d %s=%d go test -count=1 -v -run '^%s$' %s",
		strings.Join(env, " "), EnvSeed, seed, EnvOps, r.Ops, test, pkg)
}

// Totals add up a run's histories.
type Totals struct {
	Histories, Calls, Maybe, Faults int
	Record, Check                   time.Duration
}

func (t Totals) String() string {
	return fmt.Sprintf("%d histories, %d calls checked (%d maybe-operations), %d faults; recorded in %s, checked in %s",
		t.Histories, t.Calls, t.Maybe, t.Faults, t.Record.Round(time.Millisecond), t.Check.Round(time.Millisecond))
}

// RunAndCheck records a history for cfg and checks it (within
// checkTimeout), logging its summary. A history that is not linearizable,
// or that the checker could not decide in time, fails the test with its
// seed, the visualization's path and replay, the command that runs it
// again.
func (r Runs) RunAndCheck(t testing.TB, ctx context.Context, cfg Config, stores []Store, inject func(context.Context, Fault), checkTimeout time.Duration, name, replay string, tot *Totals) {
	t.Helper()
	h, err := Run(ctx, cfg, stores, inject)
	if err != nil {
		t.Fatalf("seed %d: %v (replay: %s)", cfg.Seed, err, replay)
	}
	v := Check(h, checkTimeout, r.Out, name)
	t.Logf("%s; %s", h.Summary(), v)
	if len(h.Errors) > 0 {
		t.Logf("seed %d: errors of the maybe-operations: %v", cfg.Seed, h.Errors)
	}
	if tot != nil {
		tot.Histories++
		tot.Calls += h.Calls
		tot.Maybe += h.Maybe
		tot.Faults += h.Faults
		tot.Record += h.Took
		tot.Check += v.Took
	}
	if !v.OK() {
		t.Errorf("seed %d: the history is %s (not linearizable, or the checker could not tell within %s); replay: %s", cfg.Seed, v, checkTimeout, replay)
	}
}
