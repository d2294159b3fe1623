package robust

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// Store is one client's view of the repository under test, for entities
// numbered from 0. An absent entity is found == false with a nil error.
type Store interface {
	// Get reads the entity, at the serial level when serial is set.
	Get(ctx context.Context, key int, serial bool) (v Value, found bool, err error)
	// GetVersioned reads the entity and its version.
	GetVersioned(ctx context.Context, key int) (v Value, version int64, found bool, err error)
	// The writes take an idempotency key (cqlgen.WithIdempotencyKey),
	// none when empty.
	Insert(ctx context.Context, key int, v Value, idem string) error
	Update(ctx context.Context, key int, v Value, idem string) error
	// UpdateIfVersion is Update with cqlgen.IfVersion(version).
	UpdateIfVersion(ctx context.Context, key int, v Value, version int64, idem string) error
	// Modify adds 1 to Count and returns the entity as written (as it
	// is now, when a resend with idem finds the change applied).
	Modify(ctx context.Context, key int, idem string) (Value, error)
	Delete(ctx context.Context, key int, idem string) error
}

// Config is one history to record.
type Config struct {
	Seed    uint64
	Clients int // concurrent clients, each with its own Store
	Keys    int // entities
	Ops     int // calls, over every client (an IfVersion counts its Get)
	Faults  int // faults to inject, at op counts drawn from the seed
	// OpTimeout bounds each call (default 10 s).
	OpTimeout time.Duration
	// Groups is how many values Value.Group takes (default 3).
	Groups int
	// Final, if set, makes the serial reads that end the history
	// (default: the first client's store).
	Final Store
	// Resend, when positive, gives every write an idempotency key and
	// sends a write whose outcome is unknown again with it, up to Resend
	// more times, 50 ms apart: it is recorded as one call, from its first
	// call to its last return, with the last outcome. docs/repositories.md
	// promises that a resend with the key settles the earlier send.
	Resend int
}

// Fault is one fault of a history's schedule: Inject is called with it
// once AtOp calls have started, after Delay.
type Fault struct {
	N     int // its number in the schedule, from 0
	AtOp  int
	Delay time.Duration
	Arg   uint64 // drawn from the seed, for the injector's own choices
}

// Plan is what a seed decides: every client's calls and the faults.
type Plan struct {
	Scripts [][]Step
	Faults  []Fault
}

// Step is one planned call of a client.
type Step struct {
	Kind Kind
	Key  int
	V    Value
}

// MakePlan draws a history's calls and faults from cfg.Seed: the same
// seed gives the same calls, keys, values and fault points (the
// interleaving is the machine's).
func MakePlan(cfg Config) Plan {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	groups := cfg.Groups
	if groups <= 0 {
		groups = 3
	}
	p := Plan{Scripts: make([][]Step, cfg.Clients)}
	per := (cfg.Ops + cfg.Clients - 1) / cfg.Clients
	for c := range cfg.Clients {
		for i := range per {
			st := Step{Key: rng.IntN(cfg.Keys)}
			switch r := rng.IntN(100); {
			case r < 25:
				st.Kind = Get
			case r < 37:
				st.Kind = Insert
			case r < 52:
				st.Kind = Update
			case r < 72:
				st.Kind = Modify
			case r < 90:
				st.Kind = IfVersion
			default:
				st.Kind = Delete
			}
			st.V = Value{Name: fmt.Sprintf("c%d.%d", c, i), Count: int64(rng.IntN(1000)), Group: rng.IntN(groups)}
			p.Scripts[c] = append(p.Scripts[c], st)
		}
	}
	for n := range cfg.Faults {
		p.Faults = append(p.Faults, Fault{N: n, AtOp: 1 + rng.IntN(max(1, cfg.Ops*9/10)), Delay: time.Duration(rng.IntN(20)) * time.Millisecond, Arg: rng.Uint64()})
	}
	sort.Slice(p.Faults, func(i, j int) bool { return p.Faults[i].AtOp < p.Faults[j].AtOp })
	for i := range p.Faults {
		p.Faults[i].N = i
	}
	return p
}

// History is a recorded history.
type History struct {
	Seed    uint64
	Ops     []porcupine.Operation
	Calls   int // calls recorded (failed reads left out: they changed nothing)
	Maybe   int // maybe-operations: writes whose outcome is unknown
	Dropped int // reads that failed, left out
	Faults  int // faults injected
	Resent  int // writes sent again with their key (Config.Resend)
	Settled int // of those, the ones whose outcome a resend made known
	Took    time.Duration
	Errors  map[string]int // the errors of maybe-operations, by call kind and text (numbers masked)
}

// Run records one history: cfg.Clients clients run their planned calls
// on stores[c] at once, inject(ctx, f) runs each fault of the plan (it
// may block: the clients go on meanwhile), and once the clients and the
// faults are done, it reads every entity at the serial level through
// cfg.Final or stores[0] (retried until they answer, within ctx). A maybe-operation's
// return is set after every other call's.
func Run(ctx context.Context, cfg Config, stores []Store, inject func(context.Context, Fault)) (*History, error) {
	if len(stores) != cfg.Clients {
		return nil, fmt.Errorf("robust: %d stores for %d clients", len(stores), cfg.Clients)
	}
	if cfg.OpTimeout == 0 {
		cfg.OpTimeout = 10 * time.Second
	}
	plan := MakePlan(cfg)
	h := &History{Seed: cfg.Seed, Errors: map[string]int{}}
	begin := time.Now()
	now := func() int64 { return int64(time.Since(begin)) }
	var mu sync.Mutex
	record := func(client int, in Input, call int64, out Output, ret int64) {
		mu.Lock()
		defer mu.Unlock()
		if in.Kind == Get && out.R != OK {
			h.Dropped++
			return
		}
		if out.R == Unknown {
			h.Maybe++
			h.Errors[in.Kind.String()+": "+errShape(out.Err)]++
			ret = -1 // set after every other return, below
		}
		h.Ops = append(h.Ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	}
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}

	var started, resent, settled atomic.Int64
	faultAt := map[int][]Fault{}
	for _, f := range plan.Faults {
		faultAt[f.AtOp] = append(faultAt[f.AtOp], f)
	}
	var faults sync.WaitGroup
	var faultMu sync.Mutex // one fault at a time, in the plan's order
	var injected atomic.Int64
	tick := func() {
		n := int(started.Add(1))
		for _, f := range faultAt[n] {
			faults.Go(func() {
				time.Sleep(f.Delay)
				faultMu.Lock()
				defer faultMu.Unlock()
				inject(ctx, f)
				injected.Add(1)
			})
		}
	}

	var clients sync.WaitGroup
	for c := range cfg.Clients {
		s := stores[c]
		clients.Go(func() {
			for i, st := range plan.Scripts[c] {
				if ctx.Err() != nil {
					return
				}
				opCtx, cancel := context.WithTimeout(ctx, cfg.OpTimeout)
				in := Input{Key: st.Key, Kind: st.Kind, V: st.V}
				tick()
				call := now()
				var out Output
				idem := ""
				if cfg.Resend > 0 {
					idem = fmt.Sprintf("robust-%d-%d-%d", cfg.Seed, c, i)
				}
				write := func() Output {
					switch st.Kind {
					case Insert:
						err := s.Insert(opCtx, st.Key, st.V, idem)
						return Output{R: Classify(err), Err: errText(err)}
					case Update:
						err := s.Update(opCtx, st.Key, st.V, idem)
						return Output{R: Classify(err), Err: errText(err)}
					case Modify:
						v, err := s.Modify(opCtx, st.Key, idem)
						return Output{R: Classify(err), V: v, Err: errText(err)}
					case Delete:
						err := s.Delete(opCtx, st.Key, idem)
						return Output{R: Classify(err), Err: errText(err)}
					}
					err := s.UpdateIfVersion(opCtx, st.Key, st.V, in.Version, idem)
					return Output{R: Classify(err), Err: errText(err)}
				}
				switch st.Kind {
				case Get:
					v, found, err := s.Get(opCtx, st.Key, false)
					out = Output{R: Classify(err), Found: found, V: v, Err: errText(err)}
				case IfVersion:
					v, ver, found, err := s.GetVersioned(opCtx, st.Key)
					ret := now()
					record(c, Input{Key: st.Key, Kind: Get}, call, Output{R: Classify(err), Found: found, V: v, Version: ver, Err: errText(err)}, ret)
					if err != nil || !found {
						cancel()
						continue
					}
					in.Expect, in.Version = v, ver
					tick()
					call = now()
					out = write()
				default:
					out = write()
				}
				if st.Kind != Get && out.R == Unknown && cfg.Resend > 0 {
					cancel()
					resent.Add(1)
					first := out.Err
					for try := 0; try < cfg.Resend && out.R == Unknown && ctx.Err() == nil; try++ {
						time.Sleep(50 * time.Millisecond)
						opCtx, cancel = context.WithTimeout(ctx, cfg.OpTimeout)
						out = write()
						if try < cfg.Resend-1 && out.R == Unknown {
							cancel()
						}
					}
					in.Resent = true
					out.Err = "first: " + first + "; last: " + out.Err
					if out.R != Unknown {
						settled.Add(1)
					}
				}
				ret := now()
				cancel()
				record(c, in, call, out, ret)
			}
		})
	}
	clients.Wait()
	faults.Wait()
	h.Faults = int(injected.Load())
	h.Resent, h.Settled = int(resent.Load()), int(settled.Load())

	// The faults are over: read every entity at the serial level, which
	// completes any Paxos round left in flight.
	for k := range cfg.Keys {
		for try := 0; ; try++ {
			if ctx.Err() != nil {
				return h, fmt.Errorf("robust: the final serial read of entity %d: %w", k, ctx.Err())
			}
			opCtx, cancel := context.WithTimeout(ctx, cfg.OpTimeout)
			call := now()
			final := cfg.Final
			if final == nil {
				final = stores[0]
			}
			v, found, err := final.Get(opCtx, k, true)
			ret := now()
			cancel()
			if err == nil {
				record(cfg.Clients, Input{Key: k, Kind: Get, Serial: true}, call, Output{R: OK, Found: found, V: v}, ret)
				break
			}
			if try >= 20 {
				return h, fmt.Errorf("robust: the final serial read of entity %d failed %d times: %w", k, try+1, err)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	h.Took = time.Since(begin)
	var last int64
	for _, op := range h.Ops {
		last = max(last, op.Return)
	}
	for i := range h.Ops {
		if h.Ops[i].Return < 0 {
			h.Ops[i].Return = last + 1
		}
	}
	h.Calls = len(h.Ops)
	return h, nil
}

// errShape is an error's text with its numbers masked (addresses,
// ports, versions) and cut to 100 characters, to count errors by kind.
func errShape(e string) string {
	var b strings.Builder
	digit := false
	for _, r := range e {
		if r >= '0' && r <= '9' {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(r)
	}
	s := b.String()
	if len(s) > 100 {
		s = s[:100]
	}
	return s
}
