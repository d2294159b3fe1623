package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

type callRecorder struct {
	observerFunc
	started []cqlobserve.Call
	ended   []cqlobserve.CallObservation
}

func (r *callRecorder) StartCall(ctx context.Context, c cqlobserve.Call) context.Context {
	r.started = append(r.started, c)
	return ctx
}

func (r *callRecorder) EndCall(_ context.Context, o cqlobserve.CallObservation) {
	r.ended = append(r.ended, o)
}

// A call on a session without a CallObserver costs nothing: the context
// comes back as it was, and End does nothing.
func TestStartCallWithoutCallObserver(t *testing.T) {
	ctx := context.Background()
	for _, s := range []cqldriver.Session{
		nil,
		testSession(RetryOptions{}, nil),
		testSession(RetryOptions{}, observerFunc(func(context.Context, cqlobserve.Observation) {})),
	} {
		got, call := StartCall(ctx, s, "Track", "Insert")
		if got != ctx || call != (ActiveCall{}) {
			t.Errorf("%T: StartCall changed the context or returned %+v", s, call)
		}
		call.End(nil)
		if _, ok := cqlobserve.CallOf(got); ok {
			t.Errorf("%T: the context names a call", s)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		_, call := StartCall(ctx, testSession(RetryOptions{}, nil), "Track", "Insert")
		call.End(nil)
	}); n > 1 { // the test session itself
		t.Errorf("StartCall and End without a CallObserver: %v allocations", n)
	}
}

// With a CallObserver, each call is started and ended once, and the
// attempts the session observes under its context are counted: retries
// apart, rows of reads only.
func TestCallCountsItsAttempts(t *testing.T) {
	rec := &callRecorder{observerFunc: func(context.Context, cqlobserve.Observation) {}}
	g := testSession(RetryOptions{}, rec)
	ctx, call := StartCall(context.Background(), g, "Track", "Update")
	if c, ok := cqlobserve.CallOf(ctx); !ok || c != (cqlobserve.Call{Entity: "Track", Method: "Update"}) {
		t.Fatalf("CallOf = %v, %v", c, ok)
	}
	pre := &cqldriver.Statement{Table: "tracks", Kind: cqldriver.PreRead}
	read := &cqldriver.Statement{Table: "tracks", Kind: cqldriver.Read}
	for _, a := range []struct {
		stmt *cqldriver.Statement
		n    int
		rows int
	}{{pre, 1, 1}, {read, 1, 5}, {read, 2, 4}} {
		e := g.start(ctx, a.stmt, nil)
		e.observe(attemptOf{n: a.n, rows: a.rows})
		e.end(nil)
	}
	call.End(cqlgen.ErrNotFound)
	call = ActiveCall{}
	call.End(nil)
	if len(rec.started) != 1 || len(rec.ended) != 1 {
		t.Fatalf("started %v, ended %v", rec.started, rec.ended)
	}
	got := rec.ended[0]
	if got.Call != (cqlobserve.Call{Entity: "Track", Method: "Update"}) || got.Err != cqlgen.ErrNotFound || got.Attempts != 3 || got.Retries != 1 || got.Rows != 9 {
		t.Errorf("call observation %+v; want 3 attempts, 1 retry, 9 rows (the pre-read's not counted)", got)
	}
}

func TestStatementKindString(t *testing.T) {
	for k, want := range map[cqldriver.StatementKind]string{cqldriver.Read: "read", cqldriver.Write: "write", cqldriver.Conditional: "conditional", cqldriver.PreRead: "pre-read", cqldriver.SerialRead: "serial-read", 9: "kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", k, got, want)
		}
	}
}

func TestErrorType(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{cqlgen.ErrNotFound, "not_found"},
		{&cqlgen.InputError{Err: cqlgen.ErrEmptyKey, Table: "t", Name: "secret-ish"}, "empty_key"},
		{&cqlgen.RetriesExhaustedError{Attempts: 4, Last: writeTimeout("SIMPLE")}, "retries_exhausted"},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), "deadline_exceeded"},
		{srvErr(cqldriver.CodeReadTimeout), "read_timeout"},
		{srvErr(cqldriver.CodeUnavailable), "unavailable"},
		{errNoConnections, "no_connections"},
		{io.ErrUnexpectedEOF, "connection"},
		{errors.New("value 'hunter2' rejected"), "other"},
	} {
		if got := cqlobserve.ErrorType(c.err); got != c.want {
			t.Errorf("ErrorType(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
