package cqlgenimpl_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// The write protocol's contract, tried step by step: every write path,
// under every strategy, fails at each of its calls in turn (an error
// before the call applies, a reply lost after it applied, or a client that
// dies there and sends nothing more); then the call is run again, or a
// later write of the entity comes along. Every table must end up holding
// exactly what the canonical row implies.

// drift lists how the tables of Reading disagree with their source of
// truth: a missing or stale row in a projection, or an orphan.
func drift(t *testing.T, s *cqltest.Session) []string {
	t.Helper()
	rowsOf := func(table string) map[string]string {
		rows, err := s.Rows(table)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows {
			if r["cqlgen_deleted"] == true {
				continue
			}
			key := fmt.Sprintf("%v/%v", r["sensor_id"], r["seq"])
			val := fmt.Sprintf("at=%v kind=%v value=%v note=%v", r["at"], r["kind"], r["value"], r["note"])
			if _, dup := out[key]; dup {
				out[key+"#dup"] = val
			}
			out[key] = val
		}
		return out
	}
	canon := rowsOf("readings_by_day")
	var problems []string
	for _, table := range []string{"readings_16", "readings_by_kind"} {
		got := rowsOf(table)
		for k, want := range canon {
			switch g, ok := got[k]; {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: %s missing", table, k))
			case g != want:
				problems = append(problems, fmt.Sprintf("%s: %s stale: %s, want %s", table, k, g, want))
			}
		}
		for k := range got {
			if _, ok := canon[k]; !ok {
				problems = append(problems, fmt.Sprintf("%s: %s orphan", table, k))
			}
		}
	}
	slices.Sort(problems)
	return problems
}

// snapshot is every live row of every table, for comparing two runs.
func snapshot(t *testing.T, s *cqltest.Session) map[string][]string {
	out := readingTables(t, s)
	return out
}

type fault uint8

const (
	failBefore fault = iota + 1 // the call fails before applying
	lostReply                   // the call applies, and its reply is lost
	dies                        // the call and every later one of the client fail: it died
)

func (f fault) String() string { return [...]string{"", "fail-before", "lost-reply", "client-dies"}[f] }

// faulty makes a hook that fails the k-th call (from 1) after arm() with
// the given fault; calls before arming pass.
type faulty struct {
	k     int64
	f     fault
	armed atomic.Bool
	n     atomic.Int64
}

func (fy *faulty) hook(_ context.Context, _ cqltest.Call) error {
	if !fy.armed.Load() {
		return nil
	}
	n := fy.n.Add(1)
	switch {
	case n == fy.k && fy.f == lostReply:
		return cqltest.LostReply(errors.New("injected: reply lost"))
	case n == fy.k, n > fy.k && fy.f == dies:
		return errors.New("injected: " + fy.f.String())
	}
	return nil
}

type writePath struct {
	name  string
	setup func(context.Context, *fixture.ReadingRepo) error
	op    func(context.Context, *fixture.ReadingRepo) error
	// later is another write of the entity, after a failed op.
	later func(context.Context, *fixture.ReadingRepo) error
	// legacy, when set, has setup start from reading("a", 1, "n")
	// written outside the protocol (writeLegacy).
	legacy legacyKind
}

func reading(kind string, value int64, note *string) *fixture.Reading {
	return &fixture.Reading{SensorID: "s1", At: day0.Add(time.Hour), Seq: 1, Kind: kind, Value: value, Note: note}
}

var writePaths = []writePath{
	{
		name: "insert new",
		op: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Insert(ctx, reading("a", 1, ptr("n")))
		},
	},
	{
		name: "insert over existing, moving",
		setup: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Insert(ctx, reading("a", 1, ptr("n")))
		},
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Insert(ctx, reading("b", 2, nil)) },
	},
	{
		name: "update in place",
		setup: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Insert(ctx, reading("a", 1, ptr("n")))
		},
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Update(ctx, reading("a", 2, nil)) },
	},
	{
		name: "update moving",
		setup: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Insert(ctx, reading("a", 1, ptr("n")))
		},
		op: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Update(ctx, reading("c", 3, ptr("m")))
		},
	},
	{
		name: "update moving twice",
		setup: func(ctx context.Context, r *fixture.ReadingRepo) error {
			if err := r.Insert(ctx, reading("a", 1, nil)); err != nil {
				return err
			}
			return r.Update(ctx, reading("b", 2, nil))
		},
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Update(ctx, reading("a", 3, nil)) },
	},
	{
		name: "delete",
		setup: func(ctx context.Context, r *fixture.ReadingRepo) error {
			return r.Insert(ctx, reading("a", 1, ptr("n")))
		},
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Delete(ctx, reading("", 0, nil)) },
	},
	{
		name: "insert after delete",
		setup: func(ctx context.Context, r *fixture.ReadingRepo) error {
			if err := r.Insert(ctx, reading("a", 1, ptr("n"))); err != nil {
				return err
			}
			return r.Delete(ctx, reading("", 0, nil))
		},
		op: func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Insert(ctx, reading("b", 2, nil)) },
	},
}

// later writes are another client's change after a failed call: each must
// finish what the failed call left, then make its own change.
var laterWrites = map[string]func(context.Context, *fixture.ReadingRepo) error{
	"later insert": func(ctx context.Context, r *fixture.ReadingRepo) error {
		return r.Insert(ctx, reading("d", 9, ptr("z")))
	},
	"later delete": func(ctx context.Context, r *fixture.ReadingRepo) error { return r.Delete(ctx, reading("", 0, nil)) },
}

var strategies = map[string]cqlgen.Strategy{
	"logged":     cqlgen.LoggedBatch,
	"unlogged":   cqlgen.UnloggedBatch, // refused across partitions: the protocol falls back
	"concurrent": cqlgen.Concurrent(2),
}

// Checks invariant I1: nil means applied everywhere.
// Checks invariant I2: running a call again converges.
// Checks invariant I3: the next write completes the last.
// Checks invariant I6: a pending record is carried out at its change's timestamps.
func TestCrashPoints(t *testing.T) {
	ctx := context.Background()
	cases := 0
	for _, wp := range append(writePaths, legacyPaths...) {
		for sname, st := range slices.Sorted(maps.Keys(strategies)) {
			_ = sname
			strategy := strategies[st]
			// A clean run counts the calls of the op, and gives the end
			// state a re-run must reach.
			clean := session(t)
			repo := fixture.NewReadingRepo(clean, cqlgen.WithStrategy(strategy))
			if wp.legacy != 0 {
				if err := writeLegacy(ctx, clean, reading("a", 1, ptr("n")), wp.legacy); err != nil {
					t.Fatalf("%s: legacy row: %v", wp.name, err)
				}
			}
			if wp.setup != nil {
				if err := wp.setup(ctx, repo); err != nil {
					t.Fatalf("%s: setup: %v", wp.name, err)
				}
			}
			before := len(clean.Calls())
			if err := wp.op(ctx, repo); err != nil {
				t.Fatalf("%s, %s: clean run: %v", wp.name, st, err)
			}
			calls := len(clean.Calls()) - before
			want := snapshot(t, clean)
			if d := drift(t, clean); len(d) > 0 {
				t.Fatalf("%s, %s: clean run drifts: %v", wp.name, st, d)
			}
			for k := 1; k <= calls; k++ {
				for _, f := range []fault{failBefore, lostReply, dies} {
					recoveries := append([]string{"rerun"}, slices.Sorted(maps.Keys(laterWrites))...)
					for _, rec := range recoveries {
						cases++
						name := fmt.Sprintf("%s/%s/call %d of %d/%s/%s", wp.name, st, k, calls, f, rec)
						fy := &faulty{k: int64(k), f: f}
						s := session(t, cqltest.WithHook(fy.hook))
						repo := fixture.NewReadingRepo(s, cqlgen.WithStrategy(strategy), cqlgen.WithAttempts(3), instant)
						if wp.legacy != 0 {
							if err := writeLegacy(ctx, s, reading("a", 1, ptr("n")), wp.legacy); err != nil {
								t.Fatalf("%s: legacy row: %v", name, err)
							}
						}
						if wp.setup != nil {
							if err := wp.setup(ctx, repo); err != nil {
								t.Fatalf("%s: setup: %v", name, err)
							}
						}
						fy.armed.Store(true)
						err := wp.op(ctx, repo)
						if err == nil && f != lostReply {
							// A failing call must not report success,
							// except where the failed step was optional.
							if d := drift(t, s); len(d) > 0 {
								t.Errorf("%s: returned nil and drifts: %v", name, d)
							}
						}
						fy.armed.Store(false)
						if rec == "rerun" {
							if err := wp.op(ctx, repo); err != nil {
								t.Errorf("%s: the re-run failed: %v", name, err)
								continue
							}
							if got := snapshot(t, s); !maps.EqualFunc(got, want, slices.Equal) {
								t.Errorf("%s: after the re-run\n got %v\nwant %v", name, got, want)
							}
						} else if err := laterWrites[rec](ctx, repo); err != nil {
							t.Errorf("%s: the later write failed: %v", name, err)
							continue
						}
						if d := drift(t, s); len(d) > 0 {
							t.Errorf("%s: drift %v", name, d)
						}
						// Verify, the oracle users get, agrees.
						if rep, err := repo.Verify(ctx, &cqlmaintain.Options{Ranges: 2, Buckets: 16}); err != nil || rep.Drift() != 0 {
							t.Errorf("%s: verify: %v, %+v", name, err, rep)
						}
					}
				}
			}
		}
	}
	t.Logf("%d crash points tried", cases)
}

// Writers whose clocks disagree with each other and with the server, by
// ±50ms and ±5s: each write of a sequence must show, in every table,
// whatever the clocks say.
// Checks invariant I5: versions only grow, and the fan-out follows them.
func TestClockSkew(t *testing.T) {
	ctx := context.Background()
	for _, skew := range []time.Duration{50 * time.Millisecond, 5 * time.Second} {
		for _, sign := range []time.Duration{1, -1} {
			for _, order := range [][]int{{1, -1, 0, 1}, {-1, 1, -1, 1}, {0, 1, -1, -1}} {
				name := fmt.Sprintf("skew %v, clients %v", sign*skew, order)
				server := day0
				s := session(t, cqltest.WithClock(func() time.Time { return server }))
				client := func(i int) *fixture.ReadingRepo {
					off := time.Duration(order[i]) * sign * skew
					return fixture.NewReadingRepo(s, cqlgen.WithClock(func() time.Time { return server.Add(off) }))
				}
				step := func(i int, what string, do func(*fixture.ReadingRepo) error, want *fixture.Reading) {
					server = server.Add(time.Millisecond)
					if err := do(client(i)); err != nil {
						t.Fatalf("%s: %s: %v", name, what, err)
					}
					got, err := client(0).Get(ctx, "s1", day0.Add(time.Hour), 1)
					switch {
					case want == nil && !errors.Is(err, cqlgen.ErrNotFound):
						t.Errorf("%s: after %s, Get = %+v, %v; want not found", name, what, got, err)
					case want != nil && (err != nil || got.Kind != want.Kind || got.Value != want.Value):
						t.Errorf("%s: after %s, Get = %+v, %v; want kind %s value %d", name, what, got, err, want.Kind, want.Value)
					}
					if d := drift(t, s); len(d) > 0 {
						t.Errorf("%s: after %s: drift %v", name, what, d)
					}
				}
				step(0, "insert", func(r *fixture.ReadingRepo) error { return r.Insert(ctx, reading("a", 1, nil)) }, reading("a", 1, nil))
				step(1, "update", func(r *fixture.ReadingRepo) error { return r.Update(ctx, reading("b", 2, nil)) }, reading("b", 2, nil))
				step(2, "delete", func(r *fixture.ReadingRepo) error { return r.Delete(ctx, reading("", 0, nil)) }, nil)
				step(3, "insert again", func(r *fixture.ReadingRepo) error { return r.Insert(ctx, reading("c", 3, nil)) }, reading("c", 3, nil))
			}
		}
	}
}

// Racing writers of one entity take turns: whatever interleaving, every
// table ends in step, holding one of the writers' values.
// Checks invariant I4: writers of one entity take turns.
func TestRacingWriters(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s, cqlgen.WithAttempts(1000))
	if err := repo.Insert(ctx, reading("a", 0, nil)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			kind := []string{"a", "b", "c", "d"}[i%4]
			var err error
			if i%5 == 4 {
				err = repo.Insert(ctx, reading(kind, int64(i), nil))
			} else {
				err = repo.Update(ctx, reading(kind, int64(i), nil))
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if d := drift(t, s); len(d) > 0 {
		t.Errorf("drift after racing writers: %v", d)
	}
}

// refusing is a session whose batches of more than max statements are
// refused before anything is sent, as cqlgenimpl.NewSession refuses a batch
// over its size limit or an unlogged one across partitions.
type refusing struct {
	*cqltest.Session
	max int
}

func (r refusing) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	if len(qs) > r.max {
		return &cqlgen.InputError{Err: cqlgen.ErrBatchTooLarge, Reason: fmt.Sprintf("%d statements of about %d bytes, over the %d-byte limit; use the concurrent strategy for rows this large", len(qs), 1<<20, 50<<10)}
	}
	return r.Session.Batch(ctx, kind, qs)
}

// A change already recorded in the canonical row goes out even when the
// strategy refuses its batch: statement by statement, and the call says
// nothing false (no "not sent" after the canonical row changed).
// Checks invariant I13: "nothing was sent" is true.
func TestStrategyRefusalFallsBack(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(refusing{s, 1})
	for i, op := range []func() error{
		func() error { return repo.Insert(ctx, reading("a", 1, ptr("n"))) },
		func() error { return repo.Update(ctx, reading("b", 2, nil)) },
		func() error { return repo.Delete(ctx, reading("", 0, nil)) },
	} {
		if err := op(); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if d := drift(t, s); len(d) > 0 {
			t.Errorf("write %d: drift %v", i, d)
		}
	}
}

// An option a call cannot run with is refused before anything is sent,
// rather than panicking after the canonical row changed.
// Checks invariant I13: "nothing was sent" is true.
func TestNilOptionsAreRefusedFirst(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s)
	if err := repo.Insert(ctx, reading("a", 1, nil)); err != nil {
		t.Fatal(err)
	}
	before := len(s.Calls())
	for name, opt := range map[string]cqlgen.Option{"strategy": cqlgen.WithStrategy(nil), "clock": cqlgen.WithClock(nil)} {
		for op, call := range map[string]func() error{
			"insert": func() error { return repo.Insert(ctx, reading("b", 2, nil), opt) },
			"update": func() error { return repo.Update(ctx, reading("b", 2, nil), opt) },
			"delete": func() error { return repo.Delete(ctx, reading("", 0, nil), opt) },
		} {
			var oe *cqlgen.InputError
			if err := call(); !errors.Is(err, cqlgen.ErrInvalidOption) || !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) {
				t.Errorf("%s with a nil %s: %v", op, name, err)
			}
		}
	}
	if n := len(s.Calls()) - before; n != 0 {
		t.Errorf("%d statements sent with a nil option", n)
	}
}

// A repository's serial consistency reaches every conditional write of
// the write protocol (LocalSerial by default in the session; Serial for an
// entity written from several datacenters).
// Checks invariant I4: writers of one entity take turns.
func TestSerialConsistencyPerRepository(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	repo := fixture.NewReadingRepo(s, cqlgen.WithSerialConsistency(cqlgen.Serial))
	if err := repo.Insert(ctx, reading("a", 1, nil)); err != nil {
		t.Fatal(err)
	}
	if err := repo.Update(ctx, reading("b", 2, nil)); err != nil {
		t.Fatal(err)
	}
	cas := 0
	for _, c := range s.Calls() {
		if c.Op == cqltest.OpCAS {
			cas++
			if c.Queries[0].SerialConsistency != cqlgen.Serial {
				t.Errorf("%s ran at serial consistency %v", c.Queries[0].Stmt.Table, c.Queries[0].SerialConsistency)
			}
		}
	}
	if cas < 2 {
		t.Errorf("%d conditional writes seen", cas)
	}
}
