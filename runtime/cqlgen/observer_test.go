package cqlgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
)

type callRecorder struct {
	observerFunc
	started []Call
	ended   []CallObservation
}

func (r *callRecorder) StartCall(ctx context.Context, c Call) context.Context {
	r.started = append(r.started, c)
	return ctx
}

func (r *callRecorder) EndCall(_ context.Context, o CallObservation) { r.ended = append(r.ended, o) }

// A call on a session without a CallObserver costs nothing: the context
// comes back as it was, and End does nothing.
func TestStartCallWithoutCallObserver(t *testing.T) {
	ctx := context.Background()
	for _, s := range []Session{
		nil,
		testSession(RetryOptions{}, nil),
		testSession(RetryOptions{}, observerFunc(func(context.Context, Observation) {})),
	} {
		got, call := StartCall(ctx, s, "Track", "Insert")
		if got != ctx || call != (ActiveCall{}) {
			t.Errorf("%T: StartCall changed the context or returned %+v", s, call)
		}
		call.End(nil)
		if _, ok := CallOf(got); ok {
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
	rec := &callRecorder{observerFunc: func(context.Context, Observation) {}}
	g := testSession(RetryOptions{}, rec)
	ctx, call := StartCall(context.Background(), g, "Track", "Update")
	if c, ok := CallOf(ctx); !ok || c != (Call{"Track", "Update"}) {
		t.Fatalf("CallOf = %v, %v", c, ok)
	}
	pre := &Statement{Table: "tracks", Kind: PreRead}
	read := &Statement{Table: "tracks", Kind: Read}
	for _, a := range []struct {
		stmt *Statement
		n    int
		rows int
	}{{pre, 1, 1}, {read, 1, 5}, {read, 2, 4}} {
		e := g.start(ctx, a.stmt, nil)
		e.observe(attemptOf{n: a.n, rows: a.rows})
		e.end(nil)
	}
	call.End(ErrNotFound)
	call = ActiveCall{}
	call.End(nil)
	if len(rec.started) != 1 || len(rec.ended) != 1 {
		t.Fatalf("started %v, ended %v", rec.started, rec.ended)
	}
	got := rec.ended[0]
	if got.Call != (Call{"Track", "Update"}) || got.Err != ErrNotFound || got.Attempts != 3 || got.Retries != 1 || got.Rows != 9 {
		t.Errorf("call observation %+v; want 3 attempts, 1 retry, 9 rows (the pre-read's not counted)", got)
	}
}

func TestStatementKindString(t *testing.T) {
	for k, want := range map[StatementKind]string{Read: "read", Write: "write", Conditional: "conditional", PreRead: "pre-read", SerialRead: "serial-read", 9: "kind(9)"} {
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
		{ErrNotFound, "not_found"},
		{&EmptyKeyError{Table: "t", Column: "secret-ish"}, "empty_key"},
		{&RetriesExhaustedError{Attempts: 4, Last: writeTimeout("SIMPLE")}, "retries_exhausted"},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), "deadline_exceeded"},
		{srvErr(CodeReadTimeout), "read_timeout"},
		{srvErr(CodeUnavailable), "unavailable"},
		{errNoConnections, "no_connections"},
		{io.ErrUnexpectedEOF, "connection"},
		{errors.New("value 'hunter2' rejected"), "other"},
	} {
		if got := ErrorType(c.err); got != c.want {
			t.Errorf("ErrorType(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
