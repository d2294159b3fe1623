package robust

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1" // cqltest's codec
)

// op is a recorded call for the hand-written histories below.
func op(client int, in Input, call int64, out Output, ret int64) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

var (
	a = Value{Name: "a", Count: 5, Group: 1}
	b = Value{Name: "b", Count: 9, Group: 2}
)

func check(t *testing.T, ops []porcupine.Operation) porcupine.CheckResult {
	t.Helper()
	return porcupine.CheckOperationsTimeout(Model, ops, 10*time.Second)
}

// The checker can fail: each history breaks one promise of
// docs/repositories.md, and porcupine must find it Illegal; the same
// history with the promise kept must be Ok.
func TestModelFindsViolations(t *testing.T) {
	ins := func(v Value, call, ret int64) porcupine.Operation {
		return op(0, Input{Key: 0, Kind: Insert, V: v}, call, Output{R: OK}, ret)
	}
	get := func(client int, found bool, v Value, call, ret int64) porcupine.Operation {
		return op(client, Input{Key: 0, Kind: Get}, call, Output{R: OK, Found: found, V: v}, ret)
	}
	mod := func(client int, out Value, call, ret int64) porcupine.Operation {
		return op(client, Input{Key: 0, Kind: Modify}, call, Output{R: OK, V: out}, ret)
	}
	inc := func(v Value, n int64) Value { v.Count += n; return v }
	cases := []struct {
		name    string
		illegal []porcupine.Operation
		legal   []porcupine.Operation
	}{
		{
			name:    "a stale read after an acknowledged insert",
			illegal: []porcupine.Operation{ins(a, 0, 10), get(1, false, Value{}, 20, 30)},
			legal:   []porcupine.Operation{ins(a, 0, 10), get(1, true, a, 20, 30)},
		},
		{
			name:    "a read that goes back to an older value",
			illegal: []porcupine.Operation{ins(a, 0, 10), ins(b, 11, 20), get(1, true, b, 21, 22), get(2, true, a, 23, 24)},
			legal:   []porcupine.Operation{ins(a, 0, 10), ins(b, 11, 20), get(1, true, a, 15, 22), get(2, true, b, 23, 24)},
		},
		{
			name: "a lost increment: two Modifys acknowledged, counted once",
			illegal: []porcupine.Operation{ins(a, 0, 1), mod(1, inc(a, 1), 2, 10), mod(2, inc(a, 1), 3, 11),
				op(3, Input{Key: 0, Kind: Get, Serial: true}, 20, Output{R: OK, Found: true, V: inc(a, 1)}, 21)},
			legal: []porcupine.Operation{ins(a, 0, 1), mod(1, inc(a, 1), 2, 10), mod(2, inc(a, 2), 3, 11),
				op(3, Input{Key: 0, Kind: Get, Serial: true}, 20, Output{R: OK, Found: true, V: inc(a, 2)}, 21)},
		},
		{
			name: "an IfVersion that conflicts with the version it read, nobody else writing",
			illegal: []porcupine.Operation{ins(a, 0, 1),
				op(1, Input{Key: 0, Kind: IfVersion, V: b, Expect: a, Version: 7}, 2, Output{R: Conflict}, 3)},
			legal: []porcupine.Operation{ins(a, 0, 1),
				op(1, Input{Key: 0, Kind: IfVersion, V: b, Expect: a, Version: 7}, 2, Output{R: OK}, 3), get(2, true, b, 4, 5)},
		},
		{
			name:    "an Update of an absent entity that says it applied",
			illegal: []porcupine.Operation{op(0, Input{Key: 0, Kind: Update, V: a}, 0, Output{R: OK}, 1)},
			legal:   []porcupine.Operation{op(0, Input{Key: 0, Kind: Update, V: a}, 0, Output{R: NotFound}, 1)},
		},
		{
			name: "a Delete acknowledged, then the entity read back",
			illegal: []porcupine.Operation{ins(a, 0, 1), op(1, Input{Key: 0, Kind: Delete}, 2, Output{R: OK}, 3),
				get(2, true, a, 4, 5)},
			legal: []porcupine.Operation{ins(a, 0, 1), op(1, Input{Key: 0, Kind: Delete}, 2, Output{R: OK}, 3),
				get(2, false, Value{}, 4, 5)},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(t, c.illegal); got != porcupine.Illegal {
				t.Errorf("violation: %s, want Illegal", got)
			}
			if got := check(t, c.legal); got != porcupine.Ok {
				t.Errorf("the same without the violation: %s, want Ok", got)
			}
		})
	}
}

// A maybe-operation (outcome unknown, returned "at infinity") may have
// applied or not: a later read of either is linearizable, a read of
// something it could not have written is not.
func TestMaybeOperations(t *testing.T) {
	end := int64(math.MaxInt64)
	maybeUpdate := op(1, Input{Key: 0, Kind: Update, V: b}, 2, Output{R: Unknown, Err: "timeout"}, end)
	maybeMod := op(1, Input{Key: 0, Kind: Modify}, 2, Output{R: Unknown, Err: "timeout"}, end)
	ins := op(0, Input{Key: 0, Kind: Insert, V: a}, 0, Output{R: OK}, 1)
	read := func(v Value) porcupine.Operation {
		return op(2, Input{Key: 0, Kind: Get, Serial: true}, 10, Output{R: OK, Found: true, V: v}, 11)
	}
	a6 := a
	a6.Count++
	a7 := a6
	a7.Count++
	for _, c := range []struct {
		name string
		ops  []porcupine.Operation
		want porcupine.CheckResult
	}{
		{"update applied", []porcupine.Operation{ins, maybeUpdate, read(b)}, porcupine.Ok},
		{"update not applied", []porcupine.Operation{ins, maybeUpdate, read(a)}, porcupine.Ok},
		{"increment applied", []porcupine.Operation{ins, maybeMod, read(a6)}, porcupine.Ok},
		{"increment not applied", []porcupine.Operation{ins, maybeMod, read(a)}, porcupine.Ok},
		{"increment applied twice", []porcupine.Operation{ins, maybeMod, read(a7)}, porcupine.Illegal},
		{"update applied, then undone", []porcupine.Operation{ins, maybeUpdate, read(b),
			op(2, Input{Key: 0, Kind: Get}, 12, Output{R: OK, Found: true, V: a}, 13)}, porcupine.Illegal},
	} {
		if got := check(t, c.ops); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// Classify follows the runtime's errors.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Result
	}{
		{nil, OK},
		{cqlgen.ErrNotFound, NotFound},
		{&cqlgen.VersionConflictError{Table: "t", Expected: 1, Actual: 3}, Conflict},
		{&cqlgen.NotAppliedError{Table: "t"}, NotApplied},
		{&cqlgen.WriteUnknownError{Table: "t", Err: errors.New("timeout")}, Unknown},
		{context.DeadlineExceeded, Unknown},
		{errors.New("gocql: no hosts available in the pool"), Unknown},
	} {
		if got := Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// memStores are clients of one in-memory session (cqltest), wrapped by
// wrap if given.
func memStores(t *testing.T, clients int, hook cqltest.Hook, wrap func(cqlgen.Session) cqlgen.Session) []Store {
	t.Helper()
	var opts []cqltest.Option
	if hook != nil {
		opts = append(opts, cqltest.WithHook(hook))
	}
	mem, err := cqltest.New(music.Schema, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var s cqlgen.Session = mem
	if wrap != nil {
		s = wrap(s)
	}
	var stores []Store
	for range clients {
		// A write that failed in memory never lands later: no land
		// window to wait out.
		stores = append(stores, &Tracks{Repo: music.NewTrackRepo(s, cqlgen.WithAttempts(50), cqlgen.WithLandWindow(time.Millisecond)), Prefix: "t"})
	}
	return stores
}

// The recorder and checker on the in-memory backend, with faults: calls
// fail before they apply, or apply and lose their reply, at random (the
// seed's). The history must be linearizable, with maybe-operations in it.
func TestRecorderOnMemory(t *testing.T) {
	const seed = 35
	rng := rand.New(rand.NewPCG(seed, 1))
	var mu sync.Mutex
	var faults atomic.Int64
	hook := func(_ context.Context, c cqltest.Call) error {
		mu.Lock()
		r := rng.IntN(100)
		mu.Unlock()
		switch {
		case c.Op == cqltest.OpCAS && r < 4:
			faults.Add(1)
			return cqltest.LostReply(&gocql.RequestErrWriteTimeout{WriteType: "CAS"})
		case r < 6:
			faults.Add(1)
			return &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}
		}
		return nil
	}
	for _, resend := range []int{0, 5} {
		t.Run(fmt.Sprint("resend ", resend), func(t *testing.T) {
			cfg := Config{Seed: seed, Clients: 4, Keys: 3, Ops: 600, OpTimeout: 5 * time.Second, Resend: resend}
			h, err := Run(context.Background(), cfg, memStores(t, cfg.Clients, hook, nil), func(context.Context, Fault) {})
			if err != nil {
				t.Fatal(err)
			}
			v := Check(h, time.Minute, t.TempDir(), "memory")
			t.Logf("%s; %d faults injected; %s", h.Summary(), faults.Load(), v)
			if !v.OK() {
				for _, k := range v.Keys {
					for _, op := range Reduce(h, k, time.Minute) {
						t.Log(Describe(op))
					}
				}
				t.Fatalf("an in-memory history with faults: %s", v)
			}
			if resend == 0 && h.Maybe == 0 {
				t.Errorf("no maybe-operation in %d calls with faults: the faults did not reach the recorder", h.Calls)
			}
			if resend > 0 && h.Settled == 0 {
				t.Errorf("%d writes resent with their key, none settled", h.Resent)
			}
		})
	}
}

// liar is a broken session: one conditional write in every n it does not
// send, and says it applied. The write protocol then believes its change
// made it, fans it out and acknowledges it, and the entity never holds it.
type liar struct {
	s       cqlgen.Session
	n, seen atomic.Int64
	dropped atomic.Int64
}

func (l *liar) drop() bool {
	if l.seen.Add(1)%l.n.Load() == 0 {
		l.dropped.Add(1)
		return true
	}
	return false
}

func (l *liar) Exec(ctx context.Context, q cqldriver.Query) error { return l.s.Exec(ctx, q) }
func (l *liar) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	return l.s.Iter(ctx, q)
}
func (l *liar) Batch(ctx context.Context, k cqldriver.BatchKind, qs []cqldriver.Query) error {
	return l.s.Batch(ctx, k, qs)
}
func (l *liar) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	if l.drop() {
		return true, nil
	}
	return l.s.ExecCAS(ctx, q, dest...)
}
func (l *liar) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	if l.drop() {
		return true, nil
	}
	return l.s.(cqldriver.MapCASer).ExecCASMap(ctx, q, current)
}

// The checker catches a session that acknowledges writes it dropped, and
// saves porcupine's visualization.
func TestCheckerCatchesADroppedWrite(t *testing.T) {
	l := &liar{}
	l.n.Store(25)
	cfg := Config{Seed: 7, Clients: 4, Keys: 3, Ops: 400}
	stores := memStores(t, cfg.Clients, nil, func(s cqlgen.Session) cqlgen.Session { l.s = s; return l })
	h, err := Run(context.Background(), cfg, stores, func(context.Context, Fault) {})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	v := Check(h, time.Minute, dir, "liar")
	t.Logf("%s; %d conditional writes dropped and acknowledged; %s", h.Summary(), l.dropped.Load(), v)
	if l.dropped.Load() == 0 {
		t.Fatal("the broken session dropped nothing")
	}
	if v.Result != porcupine.Illegal {
		t.Fatalf("a history with %d acknowledged writes dropped: %s, want Illegal", l.dropped.Load(), v.Result)
	}
	if len(v.Keys) == 0 {
		t.Error("no entity named at fault")
	}
	if fi, err := os.Stat(filepath.Join(dir, "linearizability-liar.html")); err != nil || fi.Size() == 0 {
		t.Errorf("the visualization was not saved: %v", err)
	}
}

// MakePlan is a function of the seed.
func TestPlanIsSeeded(t *testing.T) {
	cfg := Config{Seed: 99, Clients: 3, Keys: 4, Ops: 300, Faults: 5}
	p, q := MakePlan(cfg), MakePlan(cfg)
	cfg.Seed++
	r := MakePlan(cfg)
	same := func(x, y Plan) bool {
		for c := range x.Scripts {
			for i := range x.Scripts[c] {
				if x.Scripts[c][i] != y.Scripts[c][i] {
					return false
				}
			}
		}
		for i := range x.Faults {
			if x.Faults[i] != y.Faults[i] {
				return false
			}
		}
		return true
	}
	if !same(p, q) {
		t.Error("one seed made two plans")
	}
	if same(p, r) {
		t.Error("two seeds made one plan")
	}
	kinds := map[Kind]int{}
	for _, s := range p.Scripts {
		for _, st := range s {
			kinds[st.Kind]++
		}
	}
	for k := Get; k <= Delete; k++ {
		if kinds[k] == 0 {
			t.Errorf("no %v in 300 calls", k)
		}
	}
}
