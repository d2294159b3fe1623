package cqlgen

import (
	"cmp"
	"context"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// Levels are the consistency levels of statements, by what they do. A zero
// field keeps the level set further out, so a Levels names only what it
// changes. (Any, whose value is 0, cannot be chosen: a write at ANY
// may live in a hint alone, readable nowhere, which no repository wants.)
//
// A statement's level is decided, most specific first, by
//
//  1. the call: WithLevels on the context of one repository call;
//  2. the repository: the session it was given, made by SessionLevels,
//     and, for the serial level of its conditional writes,
//     WithSerialConsistency among its Options (also per write call);
//  3. the session: SessionOptions, whose defaults are LocalQuorum for
//     reads and writes and LocalSerial for the Paxos phase.
//
// The defaults keep every statement in the client's datacenter and still
// read what was written: a LOCAL_QUORUM write and a LOCAL_QUORUM read of
// the same datacenter overlap in at least one replica, and one node down
// of three leaves a quorum. LocalSerial has the same reach for conditional
// writes; it is linearizable only among writers of one datacenter (see
// SerialConsistency for when that is not enough).
type Levels struct {
	// Read is the level of reads, and of the pre-reads of writes.
	Read cqldriver.Consistency
	// Write is the level of writes, batches, and the commit of
	// conditional writes.
	Write cqldriver.Consistency
	// Serial is the level of the Paxos phase of conditional writes.
	Serial cqldriver.Consistency
}

// over returns l with the zero fields taken from outer.
func (l Levels) over(outer Levels) Levels {
	return Levels{Read: cmp.Or(l.Read, outer.Read), Write: cmp.Or(l.Write, outer.Write), Serial: cmp.Or(l.Serial, outer.Serial)}
}

// WithLevels returns a context whose repository calls, and every statement
// they run, use l's non-zero levels, over anything the repository or
// session says; nested, the innermost wins field by field. For one call:
//
//	// A report that tolerates two nodes down, and stale rows.
//	rows, err := repo.TicketsByRequester(cqlgen.WithLevels(ctx, cqlgen.Levels{Read: One}), org, who, nil)
//	// A conditional write that must be linearizable across datacenters.
//	err = repo.Update(cqlgen.WithLevels(ctx, cqlgen.Levels{Serial: Serial}), t)
func WithLevels(ctx context.Context, l Levels) context.Context {
	if outer, ok := ctx.Value(base.LevelsKey{}).(Levels); ok {
		l = l.over(outer)
	}
	return context.WithValue(ctx, base.LevelsKey{}, l)
}

// SessionLevels returns a session that runs statements as s does, with
// l's non-zero levels instead of s's: give it to the repositories that
// need other levels than the rest (an audit log written at QUORUM across
// datacenters, say). It shares s's connections, retry policy and observer;
// a session a driver adapter made stays one, so its CallObserver still sees
// repository calls. Any other Session gets l through the context of each
// statement, as WithLevels gives it, under the levels of the call.
func SessionLevels(s Session, l Levels) Session {
	if w, ok := s.(interface {
		SessionLevels(Levels) Session
	}); ok {
		return w.SessionLevels(l)
	}
	return &levelSession{s: s, l: l}
}

// levelSession is SessionLevels of a Session no driver adapter made.
type levelSession struct {
	s Session
	l Levels
}

// ctx puts the session's levels under the call's.
func (ls *levelSession) ctx(ctx context.Context) context.Context {
	return context.WithValue(ctx, base.LevelsKey{}, levelsOf(ctx).over(ls.l))
}

func (ls *levelSession) Exec(ctx context.Context, q cqldriver.Query) error {
	return ls.s.Exec(ls.ctx(ctx), q)
}

func (ls *levelSession) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	return ls.s.Iter(ls.ctx(ctx), q)
}

func (ls *levelSession) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	return ls.s.ExecCAS(ls.ctx(ctx), q, dest...)
}

func (ls *levelSession) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	return ls.s.Batch(ls.ctx(ctx), kind, qs)
}

// levels decides the levels of a statement run with ctx: the call's, then
// the query's serial level (the repository's option), then the session's.

// levelsOf returns the levels WithLevels put on ctx, zero if none.
func levelsOf(ctx context.Context) Levels {
	l, _ := ctx.Value(base.LevelsKey{}).(Levels)
	return l
}
