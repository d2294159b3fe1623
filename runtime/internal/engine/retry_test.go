package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

func TestBackoffCapDoublesUpToMaxDelay(t *testing.T) {
	r := retryOptions{BaseDelay: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}.withDefaults()
	want := []time.Duration{10, 20, 40, 80, 100, 100, 100}
	for i, w := range want {
		if got := r.backoffCap(i + 1); got != w*time.Millisecond {
			t.Errorf("cap after %d failures = %v, want %v", i+1, got, w*time.Millisecond)
		}
	}
	// No overflow however many attempts.
	if got := r.backoffCap(1 << 20); got != 100*time.Millisecond {
		t.Errorf("cap after 2^20 failures = %v", got)
	}
}

func TestBackoffIsFullJitter(t *testing.T) {
	r := retryOptions{BaseDelay: 8 * time.Millisecond, MaxDelay: time.Second}.withDefaults()
	for failed := 1; failed <= 4; failed++ {
		limit := r.backoffCap(failed)
		lo, hi := limit, time.Duration(0)
		for range 2000 {
			d := r.backoff(failed)
			if d < 0 || d >= limit {
				t.Fatalf("backoff after %d failures = %v, outside [0, %v)", failed, d, limit)
			}
			lo, hi = min(lo, d), max(hi, d)
		}
		// Full jitter spreads over the whole range, not around the cap:
		// in 2000 uniform draws, missing either tenth has odds of 1e-92.
		if lo > limit/10 || hi < limit*9/10 {
			t.Errorf("after %d failures, draws span [%v, %v] of [0, %v)", failed, lo, hi, limit)
		}
	}
}

func TestRetryOptionsDefaults(t *testing.T) {
	got := retryOptions{}.withDefaults()
	want := retryOptions{MaxAttempts: cqlgen.DefaultMaxAttempts, BaseDelay: cqlgen.DefaultBaseDelay, MaxDelay: cqlgen.DefaultMaxDelay}
	if got != want {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
	if got := (retryOptions{BaseDelay: 2 * time.Second, MaxDelay: time.Second}).withDefaults(); got.MaxDelay != 2*time.Second {
		t.Errorf("MaxDelay below BaseDelay is raised to it; got %v", got.MaxDelay)
	}
}

// The errors a driver adapter reports, classified as the runtime sees
// them (runtime/gocqlv1's tests check that gocql's errors classify so).
func srvErr(code int) error {
	return &cqldriver.DriverError{Kind: cqldriver.ErrorServer, Code: code, Err: fmt.Errorf("server error %#x", code)}
}

func writeTimeout(writeType string) *cqldriver.DriverError {
	return &cqldriver.DriverError{Kind: cqldriver.ErrorServer, Code: cqldriver.CodeWriteTimeout, WriteType: writeType, Err: fmt.Errorf("write timeout (%s)", writeType)}
}

func clientErr(k cqldriver.ErrorKind) error {
	return &cqldriver.DriverError{Kind: k, Err: fmt.Errorf("client: %v", k)}
}

var (
	errNoConnections = clientErr(cqldriver.ErrorNoConnections)
	errNoResponse    = clientErr(cqldriver.ErrorNoResponse)
)

func TestRetryableClassification(t *testing.T) {
	type want struct{ retry, next bool }
	no := want{}
	same := want{true, false}
	next := want{true, true}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	for _, c := range []struct {
		name              string
		err               error
		write, cond, read want
	}{
		{"write timeout SIMPLE", writeTimeout("SIMPLE"), same, no, same},
		{"write timeout BATCH", writeTimeout("BATCH"), same, no, same},
		{"write timeout BATCH_LOG", writeTimeout("BATCH_LOG"), same, no, same},
		{"write timeout CAS", writeTimeout("CAS"), no, no, no},
		{"write timeout COUNTER", writeTimeout("COUNTER"), no, no, no},
		{"read timeout", srvErr(cqldriver.CodeReadTimeout), same, no, same},
		// Cassandra 5.0's Paxos raises Unavailable and Overloaded after a
		// proposal may have been accepted: a conditional statement is not
		// retried, since the retry could report "not applied" for its
		// own write.
		{"unavailable", srvErr(cqldriver.CodeUnavailable), next, no, next},
		{"overloaded", srvErr(cqldriver.CodeOverloaded), next, no, next},
		{"bootstrapping", srvErr(cqldriver.CodeBootstrapping), next, next, next},
		{"CAS write unknown", srvErr(cqldriver.CodeCASWriteUnknown), no, no, no},
		{"write failure", srvErr(cqldriver.CodeWriteFailure), no, no, no},
		{"read failure", srvErr(cqldriver.CodeReadFailure), no, no, no},
		{"already exists", srvErr(cqldriver.CodeAlreadyExists), no, no, no},
		{"function failure", srvErr(cqldriver.CodeFunctionFailure), no, no, no},
		{"syntax", srvErr(cqldriver.CodeSyntax), no, no, no},
		{"invalid", srvErr(cqldriver.CodeInvalid), no, no, no},
		{"unauthorized", srvErr(cqldriver.CodeUnauthorized), no, no, no},
		{"credentials", srvErr(cqldriver.CodeCredentials), no, no, no},
		{"config", srvErr(cqldriver.CodeConfig), no, no, no},
		{"protocol", srvErr(cqldriver.CodeProtocol), no, no, no},
		{"server", srvErr(cqldriver.CodeServer), no, no, no},
		{"truncate", srvErr(cqldriver.CodeTruncate), no, no, no},
		{"client timeout", errNoResponse, next, no, next},
		{"connection", clientErr(cqldriver.ErrorConnection), next, no, next},
		{"no connections", errNoConnections, next, next, next},
		{"session closed", clientErr(cqldriver.ErrorSessionClosed), no, no, no},
		{"unclassified driver error", clientErr(cqldriver.ErrorOther), no, no, no},
		{"connection reset", reset, next, no, next},
		{"EOF", io.EOF, next, no, next},
		{"unexpected EOF", io.ErrUnexpectedEOF, next, no, next},
		{"wrapped timeout", fmt.Errorf("insert: %w", writeTimeout("SIMPLE")), same, no, same},
		{"deadline", context.DeadlineExceeded, no, no, no},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), no, no, no},
		{"unknown", errors.New("something else"), no, no, no},
		{"nil", nil, no, no, no},
	} {
		for _, k := range []struct {
			kind cqldriver.StatementKind
			want want
		}{{cqldriver.Write, c.write}, {cqldriver.Conditional, c.cond}, {cqldriver.Read, c.read}} {
			retry, next := Retryable(c.err, k.kind)
			if (want{retry, next}) != k.want {
				t.Errorf("%s, kind %d: retry, next = %v, %v; want %v, %v", c.name, k.kind, retry, next, k.want.retry, k.want.next)
			}
		}
	}
}

func testSession(r RetryOptions, obs cqlobserve.Observer) *session {
	return NewSession(nil, &cqlgen.SessionOptions{MaxAttempts: r.MaxAttempts, BaseDelay: r.BaseDelay, MaxDelay: r.MaxDelay, Observer: obs}).(*session)
}

// withJitter makes backoff draw f(limit) for the test's duration.
func withJitter(t *testing.T, f func(int64) int64) {
	old := jitter
	jitter = f
	t.Cleanup(func() { jitter = old })
}

func maxJitter(n int64) int64 { return n - 1 }
func noJitter(int64) int64    { return 0 }

var (
	idemWrite    = &cqldriver.Statement{CQL: "INSERT", Table: "t", Pattern: "p", Kind: cqldriver.Write, Idempotent: true}
	nonIdemWrite = &cqldriver.Statement{CQL: "UPDATE c", Table: "c", Pattern: "count", Kind: cqldriver.Write}
)

func TestPolicyChecksIdempotencyItself(t *testing.T) {
	g := testSession(RetryOptions{}, nil)
	e := g.start(context.Background(), idemWrite, nil)
	defer e.end(nil)
	// Drivers ask Attempt whatever the query's flag: the flag they will
	// send decides, not only the Statement's.
	if e.Attempt(1, false) {
		t.Error("Attempt allowed a retry of a query not marked idempotent")
	}
	if !e.Attempt(1, true) {
		t.Error("Attempt refused an idempotent query with attempts left")
	}
}

func TestPolicyRetryTypes(t *testing.T) {
	withJitter(t, noJitter)
	g := testSession(RetryOptions{MaxAttempts: 10}, nil)
	ctx := context.Background()
	e := g.start(ctx, idemWrite, nil)
	defer e.end(nil)
	for i, c := range []struct {
		err  error
		want cqldriver.RetryType
	}{
		{writeTimeout("SIMPLE"), cqldriver.Retry},
		{srvErr(cqldriver.CodeUnavailable), cqldriver.RetryNextHost},
		{errNoResponse, cqldriver.RetryNextHost},
		{srvErr(cqldriver.CodeSyntax), cqldriver.Rethrow},
		{writeTimeout("CAS"), cqldriver.Rethrow},
	} {
		e.Attempt(i+1, true)
		if got := e.RetryType(c.err); got != c.want {
			t.Errorf("%v: retry type %v, want %v", c.err, got, c.want)
		}
	}
}

func TestPolicyNeverWaitsForAPermanentError(t *testing.T) {
	withJitter(t, maxJitter)
	// An hour's backoff: any wait would hang the test.
	g := testSession(RetryOptions{BaseDelay: time.Hour, MaxDelay: time.Hour}, nil)
	ctx := context.Background()
	e := g.start(ctx, idemWrite, nil)
	e.Attempt(1, true)
	if got := e.RetryType(srvErr(cqldriver.CodeInvalid)); got != cqldriver.Rethrow {
		t.Fatalf("retry type %v, want Rethrow", got)
	}
	err := e.end(srvErr(cqldriver.CodeInvalid))
	if errors.Is(err, cqlgen.ErrRetriesExhausted) {
		t.Errorf("a permanent error is reported as exhausted retries: %v", err)
	}
}

func TestPolicyWaitsBetweenAttempts(t *testing.T) {
	withJitter(t, maxJitter)
	g := testSession(RetryOptions{BaseDelay: 20 * time.Millisecond, MaxDelay: time.Second}, nil)
	ctx := context.Background()
	e := g.start(ctx, idemWrite, nil)
	defer e.end(nil)
	for failed, want := range map[int]time.Duration{1: 20 * time.Millisecond, 2: 40 * time.Millisecond} {
		e.Attempt(failed, true)
		start := time.Now()
		if got := e.RetryType(srvErr(cqldriver.CodeReadTimeout)); got != cqldriver.Retry {
			t.Fatalf("retry type %v, want Retry", got)
		}
		if took := time.Since(start); took < want-time.Millisecond || took > want+200*time.Millisecond {
			t.Errorf("after %d failures waited %v, want about %v", failed, took, want)
		}
	}
}

func TestRetriesExhaustedWrapsTheLastCause(t *testing.T) {
	withJitter(t, noJitter)
	g := testSession(RetryOptions{MaxAttempts: 3}, nil)
	ctx := context.Background()
	e := g.start(ctx, idemWrite, nil)
	cause := writeTimeout("SIMPLE")
	for n := 1; n <= 3; n++ {
		e.Attempt(n, true)
		got := e.RetryType(cause)
		if (n < 3) != (got != cqldriver.Rethrow) {
			t.Fatalf("after %d of 3 attempts: retry type %v", n, got)
		}
	}
	err := e.end(cause)
	var re *cqlgen.RetriesExhaustedError
	var wt *cqldriver.DriverError
	switch {
	case !errors.As(err, &re):
		t.Fatalf("%T %v is no *RetriesExhaustedError", err, err)
	case re.Attempts != 3:
		t.Errorf("Attempts = %d, want 3", re.Attempts)
	case !errors.Is(err, cqlgen.ErrRetriesExhausted):
		t.Error("errors.Is(err, ErrRetriesExhausted) is false")
	case !errors.As(err, &wt) || wt.WriteType != "SIMPLE":
		t.Error("the cause is not reachable with errors.As")
	case !errors.Is(err, cause):
		t.Error("errors.Is(err, cause) is false")
	}
}

func TestBackoffNeverSleepsPastTheDeadline(t *testing.T) {
	withJitter(t, maxJitter)
	g := testSession(RetryOptions{BaseDelay: 10 * time.Second, MaxDelay: 10 * time.Second}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	e := g.start(ctx, idemWrite, nil)
	e.Attempt(1, true)
	start := time.Now()
	if got := e.RetryType(errNoResponse); got != cqldriver.Rethrow {
		t.Fatalf("retry type %v, want Rethrow", got)
	}
	// It gives up at once, rather than at the deadline or after 10 s.
	if took := time.Since(start); took > 20*time.Millisecond {
		t.Errorf("gave up after %v", took)
	}
	err := e.end(errNoResponse)
	if !errors.Is(err, cqlgen.ErrRetriesExhausted) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, errNoResponse) {
		t.Errorf("err = %v; want retries exhausted, deadline exceeded and the cause", err)
	}
}

func TestBackoffStopsWhenTheContextEnds(t *testing.T) {
	withJitter(t, maxJitter)
	g := testSession(RetryOptions{BaseDelay: 10 * time.Second, MaxDelay: 10 * time.Second}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	e := g.start(ctx, idemWrite, nil)
	e.Attempt(1, true)
	start := time.Now()
	if got := e.RetryType(errNoResponse); got != cqldriver.Rethrow {
		t.Fatalf("retry type %v, want Rethrow", got)
	}
	if took := time.Since(start); took < 25*time.Millisecond || took > 2*time.Second {
		t.Errorf("waited %v, want until the cancel at 30ms", took)
	}
	if err := e.end(errNoResponse); !errors.Is(err, context.Canceled) || !errors.Is(err, cqlgen.ErrRetriesExhausted) {
		t.Errorf("err = %v", err)
	}
}

func TestAgainReissuesWhenThePlanRanDry(t *testing.T) {
	withJitter(t, noJitter)
	g := testSession(RetryOptions{MaxAttempts: 4}, nil)
	ctx := context.Background()

	// The policy allowed another attempt on the next host, but there was
	// none: the session must re-issue, counting attempts across passes.
	e := g.start(ctx, idemWrite, nil)
	e.pass()
	e.Attempt(1, true)
	e.RetryType(srvErr(cqldriver.CodeUnavailable))
	if !e.again(srvErr(cqldriver.CodeUnavailable)) {
		t.Fatal("a granted retry was not honoured when the plan ran dry")
	}
	e.pass()
	e.Attempt(1, true)
	if e.attempts != 2 {
		t.Errorf("attempts = %d after the second pass's first attempt, want 2", e.attempts)
	}
	e.end(nil)

	// No host had a connection, so gocql never asked the policy: the
	// session decides. Nothing was sent, so even a statement that is not
	// idempotent is re-issued; one whose pass ended otherwise without
	// the policy (the v2 driver does not ask it for such a statement) is
	// not.
	e = g.start(ctx, idemWrite, nil)
	e.pass()
	if !e.again(errNoConnections) {
		t.Error("no connection: an idempotent statement was not re-issued")
	}
	e.end(nil)
	e = g.start(ctx, nonIdemWrite, nil)
	e.pass()
	if !e.again(errNoConnections) {
		t.Error("no connection: a statement not marked idempotent was not re-issued, though nothing was sent")
	}
	e.end(nil)
	e = g.start(ctx, nonIdemWrite, nil)
	e.pass()
	if e.again(errNoResponse) {
		t.Error("no response: a statement not marked idempotent was re-issued")
	}
	e.end(nil)

	// The policy saw the failure and refused: no new pass.
	e = g.start(ctx, idemWrite, nil)
	e.pass()
	e.Attempt(1, true)
	e.RetryType(srvErr(cqldriver.CodeSyntax))
	if e.again(srvErr(cqldriver.CodeSyntax)) {
		t.Error("a refused retry was re-issued")
	}
	e.end(nil)
}

func TestNoConnectionAttemptsAreBoundedAndObserved(t *testing.T) {
	withJitter(t, noJitter)
	var seen []cqlobserve.Observation
	g := testSession(RetryOptions{MaxAttempts: 3}, observerFunc(func(_ context.Context, o cqlobserve.Observation) { seen = append(seen, o) }))
	e := g.start(context.Background(), idemWrite, nil)
	passes := 1
	for e.pass(); e.again(errNoConnections); e.pass() {
		passes++
		if passes > 10 {
			t.Fatal("no bound on passes")
		}
	}
	err := e.end(errNoConnections)
	if passes != 3 || !errors.Is(err, cqlgen.ErrRetriesExhausted) || !errors.Is(err, errNoConnections) {
		t.Errorf("%d passes, err %v; want 3 passes and exhausted retries", passes, err)
	}
	if len(seen) != 3 || seen[0].Attempt != 1 || seen[2].Attempt != 3 || seen[2].Table != "t" || !errors.Is(seen[2].Err, errNoConnections) {
		t.Errorf("observations %+v", seen)
	}
}

type observerFunc func(context.Context, cqlobserve.Observation)

func (f observerFunc) Observe(ctx context.Context, o cqlobserve.Observation) { f(ctx, o) }
