package cqlgenimpl_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// recorder is a session that records what it is asked to run.
type recorder struct{ execs []cqldriver.Query }

func (r *recorder) Exec(_ context.Context, q cqldriver.Query) error {
	r.execs = append(r.execs, q)
	return nil
}
func (r *recorder) Iter(context.Context, cqldriver.Query) cqldriver.Iter { return nil }
func (r *recorder) ExecCAS(context.Context, cqldriver.Query, ...any) (bool, error) {
	return false, errors.New("recorder: no conditional writes")
}
func (r *recorder) Batch(context.Context, cqldriver.BatchKind, []cqldriver.Query) error {
	return errors.New("recorder: no batches")
}

var hits = cqlgenimpl.NewTable(cqlgenimpl.TableSpec{
	Name:         "hits",
	PartitionKey: []cqlgenimpl.Column{{Name: "k", Type: "text"}},
	Columns:      []cqlgenimpl.Column{{Name: "n", Type: "counter"}},
	Canonical:    true,
})

// TestCounterAddIsNotIdempotent: the counter update a table declares is a
// write the session never retries; its delete, a tombstone, may be.
func TestCounterAddIsNotIdempotent(t *testing.T) {
	if hits.Add == nil || hits.Add.Idempotent || hits.Add.Kind != cqlgen.Write {
		t.Fatalf("Add = %+v, want a write not marked idempotent", hits.Add)
	}
	if !hits.Delete.Idempotent {
		t.Error("the delete of a counter row is a tombstone, safe to retry, but is not marked idempotent")
	}
}

// TestAddCountersRefusesAnIdempotencyKey: a key's command may run again
// after a failed run, which would count twice; nothing is sent.
func TestAddCountersRefusesAnIdempotencyKey(t *testing.T) {
	var s recorder
	o := cqlgenimpl.CallOptions(cqlgenimpl.NewOptions(), []cqlgen.Option{cqlgen.WithIdempotencyKey("req-1")})
	err := cqlgenimpl.AddCounters(context.Background(), &s, o, cqldriver.Query{Stmt: hits.Add, Values: []any{int64(1), "a"}})
	var oe *cqlgen.InputError
	if !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) || oe.Name != "IdempotencyKey" || len(s.execs) != 0 {
		t.Fatalf("err %v after %d sends; want an *InputError (ErrInvalidOption) on IdempotencyKey and nothing sent", err, len(s.execs))
	}
	if err := cqlgenimpl.AddCounters(context.Background(), &s, cqlgenimpl.NewOptions(), cqldriver.Query{Stmt: hits.Add, Values: []any{int64(1), "a"}}); err != nil || len(s.execs) != 1 {
		t.Fatalf("without a key: err %v, %d sends; want one", err, len(s.execs))
	}
}
