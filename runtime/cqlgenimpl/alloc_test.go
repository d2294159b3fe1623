package cqlgenimpl_test

import (
	"context"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// discard is a session that sends nothing: what is left of a write's
// allocations is the repository's own.
type discard struct{ values int }

func (d *discard) Exec(_ context.Context, q cqldriver.Query) error {
	d.values += len(q.Values)
	return nil
}
func (d *discard) Iter(context.Context, cqldriver.Query) cqldriver.Iter { return nil }
func (d *discard) ExecCAS(context.Context, cqldriver.Query, ...any) (bool, error) {
	return true, nil
}
func (d *discard) Batch(context.Context, cqldriver.BatchKind, []cqldriver.Query) error { return nil }

// sink keeps hand-bound values alive, as a session would.
var sink []any

// An Insert into one table allocates what binding its values by hand
// allocates, plus one: the boxed write timestamp. (Before, two more: the
// call's Options, moved to the heap even when there were none, and the
// statement list that cqlgenimpl.Apply's strategies take, which ApplyOne
// does without.)
func TestInsertAllocations(t *testing.T) {
	d := &discard{}
	repo := fixture.NewSettingRepo(d)
	v := "dark"
	e := &fixture.Setting{Owner: "owner-1234", Name: "theme-5678", Value: &v, Labels: map[string]string{"a": "b"}}
	ctx := context.Background()
	insert := testing.AllocsPerRun(200, func() {
		if err := repo.Insert(ctx, e); err != nil {
			t.Fatal(err)
		}
	})
	byHand := testing.AllocsPerRun(200, func() {
		sink = []any{e.Owner, e.Name, *e.Value, e.Labels}
	})
	if d.values == 0 {
		t.Fatal("the session saw no values")
	}
	if insert > byHand+1 {
		t.Errorf("Insert allocates %v times, binding by hand %v: more than 1 extra", insert, byHand)
	}
	withOption := testing.AllocsPerRun(200, func() {
		if err := repo.Insert(ctx, e, cqlgen.WithStrategy(cqlgen.LoggedBatch)); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations: Insert %v, with an option %v, binding by hand %v", insert, withOption, byHand)
}
