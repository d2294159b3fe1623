package engine

import (
	"cmp"
	"context"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"

	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

func (g *session) levels(ctx context.Context, q cqldriver.Query) cqlgen.Levels {
	l := LevelsOf(ctx)
	if l.Serial == 0 {
		l.Serial = q.SerialConsistency
	}
	return over(l, cqlgen.Levels{Read: g.opts.ReadConsistency, Write: g.opts.WriteConsistency, Serial: g.opts.SerialConsistency})
}

// LevelsOf returns the levels WithLevels put on ctx, zero if none.
func LevelsOf(ctx context.Context) cqlgen.Levels {
	l, _ := ctx.Value(base.LevelsKey{}).(cqlgen.Levels)
	return l
}

// over returns l with the zero fields taken from outer.
func over(l, outer cqlgen.Levels) cqlgen.Levels {
	return cqlgen.Levels{Read: cmp.Or(l.Read, outer.Read), Write: cmp.Or(l.Write, outer.Write), Serial: cmp.Or(l.Serial, outer.Serial)}
}

// SessionLevels is cqlgen.SessionLevels of a session made by NewSession:
// a copy with l's non-zero levels instead of its own, which stays one, so
// its CallObserver still sees repository calls.
func (g *session) SessionLevels(l cqlgen.Levels) cqldriver.Session {
	c := *g
	own := cqlgen.Levels{Read: g.opts.ReadConsistency, Write: g.opts.WriteConsistency, Serial: g.opts.SerialConsistency}
	l = over(l, own)
	c.opts.ReadConsistency, c.opts.WriteConsistency, c.opts.SerialConsistency = l.Read, l.Write, l.Serial
	return &c
}
