package gocqlv1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// codeErr stands for the request errors gocql reports as an unexported
// type with only a code (syntax, invalid, unauthorized, overloaded...).
type codeErr int

func (c codeErr) Code() int       { return int(c) }
func (c codeErr) Message() string { return fmt.Sprintf("code %#x", int(c)) }
func (c codeErr) Error() string   { return c.Message() }

// gocql's errors, classified, get the retry decisions the runtime
// documents at cqlgenimpl.Retryable: the adapter's classification and the
// runtime's decision, end to end.
func TestGocqlErrorsClassifyAndRetry(t *testing.T) {
	type want struct{ retry, next bool }
	no := want{}
	same := want{true, false}
	next := want{true, true}
	for _, c := range []struct {
		name              string
		err               error
		write, cond, read want
	}{
		{"write timeout SIMPLE", &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}, same, no, same},
		{"write timeout BATCH_LOG", &gocql.RequestErrWriteTimeout{WriteType: "BATCH_LOG"}, same, no, same},
		{"write timeout CAS", &gocql.RequestErrWriteTimeout{WriteType: "CAS"}, no, no, no},
		{"write timeout COUNTER", &gocql.RequestErrWriteTimeout{WriteType: "COUNTER"}, no, no, no},
		{"read timeout", &gocql.RequestErrReadTimeout{}, same, no, same},
		{"unavailable", &gocql.RequestErrUnavailable{Required: 2, Alive: 1}, next, no, next},
		{"CAS write unknown", &gocql.RequestErrCASWriteUnknown{}, no, no, no},
		{"write failure", &gocql.RequestErrWriteFailure{}, no, no, no},
		{"read failure", &gocql.RequestErrReadFailure{}, no, no, no},
		{"already exists", &gocql.RequestErrAlreadyExists{}, no, no, no},
		{"function failure", &gocql.RequestErrFunctionFailure{}, no, no, no},
		{"syntax", codeErr(gocql.ErrCodeSyntax), no, no, no},
		{"invalid", codeErr(gocql.ErrCodeInvalid), no, no, no},
		{"unauthorized", codeErr(gocql.ErrCodeUnauthorized), no, no, no},
		{"server", codeErr(gocql.ErrCodeServer), no, no, no},
		{"overloaded", codeErr(gocql.ErrCodeOverloaded), next, no, next},
		{"bootstrapping", codeErr(gocql.ErrCodeBootstrapping), next, next, next},
		{"client timeout", gocql.ErrTimeoutNoResponse, next, no, next},
		{"marshal", gocql.MarshalError("marshal int: value 9223372036854775807 out of range"), no, no, no},
		{"connection closed", gocql.ErrConnectionClosed, next, no, next},
		{"no streams", gocql.ErrNoStreams, next, no, next},
		{"too many timeouts", gocql.ErrTooManyTimeouts, next, no, next},
		{"no connections", gocql.ErrNoConnections, next, next, next},
		{"session closed", gocql.ErrSessionClosed, no, no, no},
		{"not found", gocql.ErrNotFound, no, no, no},
		{"EOF", io.EOF, next, no, next},
		{"wrapped timeout", fmt.Errorf("insert: %w", &gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}), same, no, same},
		{"deadline", context.DeadlineExceeded, no, no, no},
	} {
		err := classify(c.err)
		for _, k := range []struct {
			kind cqldriver.StatementKind
			want want
		}{{cqlgen.Write, c.write}, {cqlgen.Conditional, c.cond}, {cqlgen.Read, c.read}} {
			retry, next := cqlgenimpl.Retryable(err, k.kind)
			if (want{retry, next}) != k.want {
				t.Errorf("%s, %v: retry, next = %v, %v; want %v, %v", c.name, k.kind, retry, next, k.want.retry, k.want.next)
			}
		}
		// The driver's own error stays reachable.
		if !errors.Is(err, c.err) {
			t.Errorf("%s: classified %v does not wrap the driver's error", c.name, err)
		}
	}
	if classify(nil) != nil {
		t.Error("classify(nil) is not nil")
	}
	if !errors.Is(classify(gocql.ErrSessionClosed), cqlgen.ErrSessionClosed) ||
		!errors.Is(classify(gocql.ErrNoConnections), cqlgen.ErrNoConnections) ||
		!errors.Is(classify(gocql.ErrTimeoutNoResponse), cqlgen.ErrNoResponse) {
		t.Error("classified errors do not match cqlgen's sentinels")
	}
	// A value gocql cannot encode: nothing was sent (TestDifferential
	// found the write protocol settling it as a lost reply, and failing
	// with "outcome unknown").
	if d := (*cqldriver.DriverError)(nil); !errors.As(classify(gocql.MarshalError("x")), &d) || d.Kind != cqldriver.ErrorNotSent {
		t.Errorf("a marshal error is classified %v, not as not sent", d)
	}
	var wt *gocql.RequestErrWriteTimeout
	if err := classify(&gocql.RequestErrWriteTimeout{WriteType: "SIMPLE", BlockFor: 2}); !errors.As(err, &wt) || wt.BlockFor != 2 {
		t.Errorf("errors.As to gocql's type fails on %v", err)
	}
}

// fakeQuery is what gocql hands a RetryPolicy: a *gocql.Query or Batch.
type fakeQuery struct {
	attempts   int
	idempotent bool
}

func (q *fakeQuery) Attempts() int                     { return q.attempts }
func (q *fakeQuery) SetConsistency(gocql.Consistency)  {}
func (q *fakeQuery) GetConsistency() gocql.Consistency { return gocql.LocalQuorum }
func (q *fakeQuery) Context() context.Context          { return context.Background() }
func (q *fakeQuery) IsIdempotent() bool                { return q.idempotent }

// bareQuery cannot say whether it is idempotent.
type bareQuery struct{ fakeQuery }

func (q *bareQuery) IsIdempotent() {}

// hooks records what the retry policy asks.
type hooks struct {
	attempts   int
	idempotent bool
	err        error
	rt         cqldriver.RetryType
}

func (h *hooks) Attempt(n int, idempotent bool) bool {
	h.attempts, h.idempotent = n, idempotent
	return idempotent
}
func (h *hooks) RetryType(err error) cqldriver.RetryType    { h.err = err; return h.rt }
func (h *hooks) Observe(context.Context, cqldriver.Attempt) {}
func (h *hooks) Observed() bool                             { return false }

func TestRetryPolicyBridgesHooks(t *testing.T) {
	h := &hooks{rt: cqldriver.RetryNextHost}
	p := newRetryPolicy(h)
	if !p.Attempt(&fakeQuery{attempts: 2, idempotent: true}) || h.attempts != 2 || !h.idempotent {
		t.Errorf("Attempt of an idempotent query: hooks saw %+v", h)
	}
	if p.Attempt(&bareQuery{fakeQuery{attempts: 1, idempotent: true}}) {
		t.Error("a query that cannot tell its idempotency may be retried")
	}
	if got := p.GetRetryType(gocql.ErrTimeoutNoResponse); got != gocql.RetryNextHost || !errors.Is(h.err, cqlgen.ErrNoResponse) {
		t.Errorf("retry type %v, hooks saw %v", got, h.err)
	}
	for rt, want := range map[cqldriver.RetryType]gocql.RetryType{cqldriver.Retry: gocql.Retry, cqldriver.Rethrow: gocql.Rethrow} {
		h.rt = rt
		if got := p.GetRetryType(gocql.ErrTimeoutNoResponse); got != want {
			t.Errorf("%v became %v", rt, got)
		}
	}
}

// NewClusterDC keeps a session in its datacenter with a host filter
// (gocql gives no way to make a HostInfo of another datacenter here; the
// cluster suite's TestLocalQuorumInTwoDatacenters checks what it admits).
func TestNewClusterDCFiltersOtherDatacenters(t *testing.T) {
	if NewClusterDC("dc1", "127.0.0.2").HostFilter == nil {
		t.Fatal("NewClusterDC: no host filter")
	}
	if NewCluster("127.0.0.2").HostFilter != nil {
		t.Error("NewCluster filters hosts")
	}
}

func TestNewCluster(t *testing.T) {
	c := NewCluster("127.0.0.1:9042")
	if c.WriteCoalesceWaitTime != 0 || c.Timeout != 11*time.Second || c.ConnectTimeout != 5*time.Second ||
		c.ProtoVersion != 4 || c.Consistency != gocql.LocalQuorum || c.PoolConfig.HostSelectionPolicy == nil {
		t.Errorf("cluster %+v", c)
	}
}

// The observers a gocql session was created with are found, so that the
// driver chains them; a fork that renamed the fields would fail here.
func TestClusterObserversAreFound(t *testing.T) {
	var s gocql.Session
	q, b := clusterObservers(&s)
	if q != nil || b != nil {
		t.Fatal("observers found in a session without any")
	}
}

func TestCodecTypesAreCachedOnce(t *testing.T) {
	info, err := typeInfo(mustType(t, "frozen<set<text>>"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := cqlType(info), cqlType(info); a != b || a.Kind != cqldriver.TypeSet || a.Elem.Kind != cqldriver.TypeVarchar {
		t.Errorf("cqlType gives %p %+v and %p: want one cached *Type of set<text>", a, a, b)
	}
	u := mustType(t, "udt<addr, city text, zip int>")
	ui, err := typeInfo(u)
	if err != nil {
		t.Fatal(err)
	}
	// Each type info maps to one *Type however often it is seen (scans
	// ask for every row), so that the codec's cache stays bounded.
	if a, b := cqlType(ui), cqlType(ui); a != b || a.Kind != cqldriver.TypeUDT || len(a.Fields) != 2 || a.Fields[1].Type.Kind != cqldriver.TypeInt {
		t.Errorf("a UDT's type info maps to %p %+v, then %p", a, a, b)
	}
}

func mustType(t *testing.T, s string) *cqldriver.Type {
	t.Helper()
	ty, err := cqldriver.ParseType(s)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// Each session of a NewCluster configuration gets a fresh policy of
// cqlgen's, and a policy the caller put in the configuration is kept.
func TestSessionPolicyKeepsTheCallersOwn(t *testing.T) {
	c := NewCluster("127.0.0.1:9042")
	first := c.PoolConfig.HostSelectionPolicy
	a, b := sessionPolicy(c), sessionPolicy(c)
	if a == nil || a == first || a == b {
		t.Errorf("sessions of a NewCluster configuration share a policy: %p %p %p", first, a, b)
	}
	mine := gocql.RoundRobinHostPolicy()
	c.PoolConfig.HostSelectionPolicy = mine
	if got := sessionPolicy(c); got != mine {
		t.Error("the caller's policy was replaced")
	}
	other := gocql.NewCluster("127.0.0.1:9042")
	other.PoolConfig.HostSelectionPolicy = mine
	if got := sessionPolicy(other); got != mine {
		t.Error("a configuration cqlgen did not make got another policy")
	}
}
