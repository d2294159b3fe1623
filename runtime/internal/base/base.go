// Package base holds what the user package (runtime/cqlgen) and the engine
// (runtime/internal/engine) share without either importing the other's
// implementation: the context keys of a repository call and of
// consistency levels.
package base

import (
	"context"
	"sync/atomic"
)

// CallState is the record of one repository call in progress: its name,
// and what its statements did so far.
type CallState struct {
	Entity, Method    string
	Attempts, Retries atomic.Int64
	Rows              atomic.Int64
}

type callKey struct{}

// WithCall returns ctx carrying st.
func WithCall(ctx context.Context, st *CallState) context.Context {
	return context.WithValue(ctx, callKey{}, st)
}

// CallOf is the call ctx carries; nil outside a call.
func CallOf(ctx context.Context) *CallState {
	st, _ := ctx.Value(callKey{}).(*CallState)
	return st
}

// LevelsKey is the context key of the consistency levels that
// cqlgen.WithLevels sets, a cqlgen.Levels.
type LevelsKey struct{}

// Own is the argument of the marker method OwnStrategy of the strategies
// cqlgen defines (LoggedBatch, UnloggedBatch, Concurrent): each sends a
// lone statement with Session.Exec, which lets the engine skip building a
// slice for a write of one statement. Outside the runtime no type can
// name Own, so no other strategy has the method.
type Own struct{}
