package engine

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

var counterUpdate = &cqldriver.Statement{CQL: "UPDATE hits SET n = n + ? WHERE k = ?", Table: "hits", Kind: cqldriver.Write}

// TestExecCounterSendsOnceAndSaysWhatIsKnown: every failure of a counter
// update is sent once and comes back as an error that says whether
// it may have applied.
func TestExecCounterSendsOnceAndSaysWhatIsKnown(t *testing.T) {
	for _, c := range []struct {
		name    string
		err     error
		unknown bool
	}{
		{"write timeout", writeTimeout("COUNTER"), true},
		{"client timeout", errNoResponse, true},
		{"connection closed", clientErr(cqldriver.ErrorConnection), true},
		{"broken pipe", io.ErrUnexpectedEOF, true},
		{"write failure", srvErr(cqldriver.CodeWriteFailure), true},
		{"deadline", context.DeadlineExceeded, true},
		{"server error", srvErr(cqldriver.CodeServer), true},
		{"not recognised", errors.New("boom"), true},
		{"no connections", errNoConnections, false},
		{"unavailable", srvErr(cqldriver.CodeUnavailable), false},
		{"overloaded", srvErr(cqldriver.CodeOverloaded), false},
		{"invalid", srvErr(cqldriver.CodeInvalid), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeSession{exec: func(context.Context, cqldriver.Query) error { return c.err }}
			err := ExecCounter(context.Background(), f, cqldriver.Query{Stmt: counterUpdate, Values: []any{int64(1), "a"}})
			if err == nil || !strings.Contains(err.Error(), "counter update of hits") || !errors.Is(err, c.err) {
				t.Fatalf("err = %v, want an error of hits wrapping %v", err, c.err)
			}
			if errors.Is(err, cqlgen.ErrOutcomeUnknown) != c.unknown || errors.Is(err, cqlgen.ErrCounterNotApplied) == c.unknown {
				t.Errorf("errors.Is: outcome unknown %v, not applied %v; want unknown %v", errors.Is(err, cqlgen.ErrOutcomeUnknown), errors.Is(err, cqlgen.ErrCounterNotApplied), c.unknown)
			}
			if len(f.execs) != 1 {
				t.Errorf("sent %d times, want once", len(f.execs))
			}
		})
	}
	f := &fakeSession{}
	if err := ExecCounter(context.Background(), f, cqldriver.Query{Stmt: counterUpdate}); err != nil || len(f.execs) != 1 {
		t.Errorf("success: err %v, %d sends", err, len(f.execs))
	}
}

// TestExecCounterRefusesARetryableStatement: a counter update marked
// idempotent, which the session would retry, is refused unsent.
func TestExecCounterRefusesARetryableStatement(t *testing.T) {
	for _, st := range []*cqldriver.Statement{
		{CQL: counterUpdate.CQL, Table: "hits", Kind: cqldriver.Write, Idempotent: true},
		{CQL: counterUpdate.CQL, Table: "hits", Kind: cqldriver.Conditional},
		nil,
	} {
		f := &fakeSession{}
		err := ExecCounter(context.Background(), f, cqldriver.Query{Stmt: st})
		if !errors.Is(err, cqlgen.ErrInvalidOption) || len(f.execs) != 0 {
			t.Errorf("%+v: err %v after %d sends; want an *InputError (ErrInvalidOption) and nothing sent", st, err, len(f.execs))
		}
	}
}

// TestCounterUpdateIsNeverRetriedBySession: the session's policy, asked by
// gocql after a timeout of a counter update, refuses another attempt, and
// the session does not start another pass of its own.
func TestCounterUpdateIsNeverRetriedBySession(t *testing.T) {
	withJitter(t, noJitter)
	g := testSession(RetryOptions{MaxAttempts: 10}, nil)
	ctx := context.Background()
	for _, err := range []error{errNoResponse, writeTimeout("SIMPLE"), errNoConnections, srvErr(cqldriver.CodeUnavailable)} {
		e := g.start(ctx, counterUpdate, nil)
		e.pass()
		if e.Attempt(1, counterUpdate.Idempotent) {
			t.Errorf("%v: the policy allowed a second attempt of a counter update", err)
		}
		if e.again(err) {
			t.Errorf("%v: the session re-issued a counter update", err)
		}
		e.end(nil)
	}
}
