package engine

import (
	"context"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"

	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// ActiveCall is a repository call under way, as StartCall returns it. The
// zero value, returned when there is nothing to observe, ends at no cost.
type ActiveCall struct {
	obs   cqlobserve.CallObserver
	ctx   context.Context
	state *callState
	start time.Time
}

// callState counts a call's attempts; its statements may run concurrently.
// callState is the record of a call in progress.
type callState = base.CallState

// StartCall starts a call of a repository method on s. When s is a
// session made by NewSession whose Observer is a CallObserver, it tells
// the observer and returns the context the call's statements must run
// with; otherwise it returns ctx unchanged and a zero ActiveCall, without
// allocating. Generated repository methods begin with
//
//	ctx, call := cqlgen.StartCall(ctx, r.s, "Track", "Insert")
//	defer func() { call.End(err) }()
func StartCall(ctx context.Context, s cqldriver.Session, entity, method string) (context.Context, ActiveCall) {
	g, ok := s.(*session)
	if !ok || g.calls == nil {
		return ctx, ActiveCall{}
	}
	st := &callState{Entity: entity, Method: method}
	ctx = g.calls.StartCall(ctx, cqlobserve.Call{Entity: entity, Method: method})
	ctx = base.WithCall(ctx, st)
	return ctx, ActiveCall{obs: g.calls, ctx: ctx, state: st, start: time.Now()}
}

// End reports the call's outcome to the observer, once.
func (a ActiveCall) End(err error) {
	if a.obs == nil {
		return
	}
	a.obs.EndCall(a.ctx, cqlobserve.CallObservation{
		Call:     cqlobserve.Call{Entity: a.state.Entity, Method: a.state.Method},
		Latency:  time.Since(a.start),
		Err:      err,
		Attempts: int(a.state.Attempts.Load()),
		Retries:  int(a.state.Retries.Load()),
		Rows:     int(a.state.Rows.Load()),
	})
}

// callOf is the call ctx belongs to, as StartCall set it up; nil when
// there is none.
func callOf(ctx context.Context) *callState { return base.CallOf(ctx) }

// callName is the name of the call st records; zero outside a call.
func callName(st *callState) cqlobserve.Call {
	if st == nil {
		return cqlobserve.Call{}
	}
	return cqlobserve.Call{Entity: st.Entity, Method: st.Method}
}

func count(st *callState, attempt int, kind cqldriver.StatementKind, rows int, err error) {
	if st == nil {
		return
	}
	st.Attempts.Add(1)
	if attempt > 1 {
		st.Retries.Add(1)
	}
	if kind == cqldriver.Read && err == nil {
		st.Rows.Add(int64(rows))
	}
}

// name is the call's name, or the zero Call for no call.
