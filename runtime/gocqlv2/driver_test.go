package gocqlv2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// codeErr is a server error of a type the adapter does not know, as a
// future driver might add: its code is all there is.
type codeErr int

func (c codeErr) Code() int       { return int(c) }
func (c codeErr) Message() string { return "some server error" }
func (c codeErr) Error() string   { return c.Message() }

func TestClassify(t *testing.T) {
	cases := []struct {
		name      string
		err       error
		kind      cqldriver.ErrorKind
		code      int
		writeType string
	}{
		{"write timeout", &gocql.RequestErrWriteTimeout{WriteType: "CAS"}, cqldriver.ErrorServer, cqldriver.CodeWriteTimeout, "CAS"},
		{"wrapped write timeout", fmt.Errorf("batch: %w", &gocql.RequestErrWriteTimeout{WriteType: "BATCH_LOG"}), cqldriver.ErrorServer, cqldriver.CodeWriteTimeout, "BATCH_LOG"},
		{"write failure", &gocql.RequestErrWriteFailure{WriteType: "SIMPLE"}, cqldriver.ErrorServer, cqldriver.CodeWriteFailure, "SIMPLE"},
		{"unavailable", &gocql.RequestErrUnavailable{Required: 2, Alive: 1}, cqldriver.ErrorServer, cqldriver.CodeUnavailable, ""},
		{"overloaded", &gocql.RequestErrOverloaded{}, cqldriver.ErrorServer, cqldriver.CodeOverloaded, ""},
		{"bootstrapping", &gocql.RequestErrBootstrapping{}, cqldriver.ErrorServer, cqldriver.CodeBootstrapping, ""},
		{"read timeout", &gocql.RequestErrReadTimeout{}, cqldriver.ErrorServer, cqldriver.CodeReadTimeout, ""},
		{"read failure", &gocql.RequestErrReadFailure{}, cqldriver.ErrorServer, cqldriver.CodeReadFailure, ""},
		{"cas unknown", &gocql.RequestErrCASWriteUnknown{}, cqldriver.ErrorServer, cqldriver.CodeCASWriteUnknown, ""},
		{"cdc", &gocql.RequestErrCDCWriteFailure{}, cqldriver.ErrorServer, cqldriver.CodeCDCWriteFailure, ""},
		{"function", &gocql.RequestErrFunctionFailure{}, cqldriver.ErrorServer, cqldriver.CodeFunctionFailure, ""},
		{"truncate", &gocql.RequestErrTruncate{}, cqldriver.ErrorServer, cqldriver.CodeTruncate, ""},
		{"syntax", &gocql.RequestErrSyntax{}, cqldriver.ErrorServer, cqldriver.CodeSyntax, ""},
		{"unauthorized", &gocql.RequestErrUnauthorized{}, cqldriver.ErrorServer, cqldriver.CodeUnauthorized, ""},
		{"invalid", &gocql.RequestErrInvalid{}, cqldriver.ErrorServer, cqldriver.CodeInvalid, ""},
		{"config", &gocql.RequestErrConfig{}, cqldriver.ErrorServer, cqldriver.CodeConfig, ""},
		{"credentials", &gocql.RequestErrCredentials{}, cqldriver.ErrorServer, cqldriver.CodeCredentials, ""},
		{"already exists", &gocql.RequestErrAlreadyExists{Keyspace: "ks"}, cqldriver.ErrorServer, cqldriver.CodeAlreadyExists, ""},
		{"unprepared", &gocql.RequestErrUnprepared{}, cqldriver.ErrorServer, cqldriver.CodeUnprepared, ""},
		{"other server error", codeErr(0x2300), cqldriver.ErrorServer, 0x2300, ""},
		{"no connections", gocql.ErrNoConnections, cqldriver.ErrorNoConnections, 0, ""},
		{"no connections started", fmt.Errorf("x: %w", gocql.ErrNoConnectionsStarted), cqldriver.ErrorNoConnections, 0, ""},
		{"no response", gocql.ErrTimeoutNoResponse, cqldriver.ErrorNoResponse, 0, ""},
		{"marshal", gocql.MarshalError("marshal int: value out of range"), cqldriver.ErrorNotSent, 0, ""},
		{"connection closed", gocql.ErrConnectionClosed, cqldriver.ErrorConnection, 0, ""},
		{"no streams", gocql.ErrNoStreams, cqldriver.ErrorConnection, 0, ""},
		{"session closed", gocql.ErrSessionClosed, cqldriver.ErrorSessionClosed, 0, ""},
		{"unknown", errors.New("something else"), cqldriver.ErrorOther, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := classify(c.err)
			var d *cqldriver.DriverError
			if !errors.As(err, &d) {
				t.Fatalf("classify(%v) = %T, not a *cqldriver.DriverError", c.err, err)
			}
			if d.Kind != c.kind || d.Code != c.code || d.WriteType != c.writeType {
				t.Errorf("kind %v code %#x write type %q; want %v %#x %q", d.Kind, d.Code, d.WriteType, c.kind, c.code, c.writeType)
			}
			if !errors.Is(err, c.err) {
				t.Error("the driver's error is no longer in the chain")
			}
			if code, ok := cqldriver.ServerCode(err); ok != (c.kind == cqldriver.ErrorServer) || code != c.code {
				t.Errorf("ServerCode = %#x, %v", code, ok)
			}
		})
	}
	// The driver's typed error stays reachable.
	var wt *gocql.RequestErrWriteTimeout
	if !errors.As(classify(&gocql.RequestErrWriteTimeout{Received: 1}), &wt) || wt.Received != 1 {
		t.Error("errors.As lost the driver's write timeout")
	}
	if !errors.Is(classify(gocql.ErrSessionClosed), cqlgen.ErrSessionClosed) || !errors.Is(classify(gocql.ErrNoConnections), cqlgen.ErrNoConnections) {
		t.Error("classified errors do not match the runtime's sentinels")
	}
	// Left alone: nil, the context's errors, and what is classified.
	if classify(nil) != nil {
		t.Error("classify(nil) != nil")
	}
	for _, err := range []error{context.Canceled, context.DeadlineExceeded, fmt.Errorf("x: %w", context.Canceled)} {
		if classify(err) != err {
			t.Errorf("classify(%v) changed it", err)
		}
	}
	once := classify(&gocql.RequestErrOverloaded{})
	if classify(once) != once {
		t.Error("classify wrapped an error twice")
	}
}

// The runtime's retry decisions follow from the classification, as they
// do for gocql v1: the adapter's part is to classify right.
func TestClassifiedErrorsDriveRetries(t *testing.T) {
	cases := []struct {
		err         error
		kind        cqldriver.StatementKind
		retry, next bool
	}{
		{&gocql.RequestErrWriteTimeout{WriteType: "SIMPLE"}, cqlgen.Write, true, false},
		{&gocql.RequestErrWriteTimeout{WriteType: "CAS"}, cqlgen.Write, false, false},
		{&gocql.RequestErrUnavailable{}, cqlgen.Read, true, true},
		{&gocql.RequestErrUnavailable{}, cqlgen.Conditional, false, false},
		{&gocql.RequestErrBootstrapping{}, cqlgen.Conditional, true, true},
		{&gocql.RequestErrReadTimeout{}, cqlgen.Read, true, false},
		{&gocql.RequestErrSyntax{}, cqlgen.Read, false, false},
		{gocql.ErrNoConnections, cqlgen.Conditional, true, true},
		{gocql.ErrTimeoutNoResponse, cqlgen.Write, true, true},
	}
	for _, c := range cases {
		retry, next := cqlgenimpl.Retryable(classify(c.err), c.kind)
		if retry != c.retry || next != c.next {
			t.Errorf("%T (%v) for a %v: retry %v next %v, want %v %v", c.err, c.err, c.kind, retry, next, c.retry, c.next)
		}
	}
}

// hooks records what the retry policy asks.
type hooks struct {
	allow     bool
	rt        cqldriver.RetryType
	attempts  []int
	idem      []bool
	retryErrs []error
	observed  []cqldriver.Attempt
}

func (h *hooks) Attempt(n int, idempotent bool) bool {
	h.attempts, h.idem = append(h.attempts, n), append(h.idem, idempotent)
	return h.allow
}
func (h *hooks) RetryType(err error) cqldriver.RetryType {
	h.retryErrs = append(h.retryErrs, err)
	return h.rt
}
func (h *hooks) Observe(_ context.Context, a cqldriver.Attempt) { h.observed = append(h.observed, a) }
func (h *hooks) Observed() bool                                 { return true }

// retryable is a query as the executor hands it to a retry policy.
type retryable struct {
	n          int
	idempotent bool
}

func (q retryable) Attempts() int                     { return q.n }
func (q retryable) SetConsistency(gocql.Consistency)  {}
func (q retryable) GetConsistency() gocql.Consistency { return gocql.One }
func (q retryable) Context() context.Context          { return context.Background() }
func (q retryable) IsIdempotent() bool                { return q.idempotent }

func TestRetryPolicy(t *testing.T) {
	h := &hooks{allow: true, rt: cqldriver.RetryNextHost}
	p := &retryPolicy{h: h}
	if !p.Attempt(retryable{n: 2, idempotent: true}) {
		t.Fatal("Attempt refused what the hooks allowed")
	}
	if got := p.GetRetryType(&gocql.RequestErrUnavailable{}); got != gocql.RetryNextHost {
		t.Errorf("GetRetryType = %v", got)
	}
	if len(h.attempts) != 1 || h.attempts[0] != 2 || !h.idem[0] {
		t.Errorf("the hooks were asked Attempt(%v, %v)", h.attempts, h.idem)
	}
	var d *cqldriver.DriverError
	if len(h.retryErrs) != 1 || !errors.As(h.retryErrs[0], &d) || d.Code != cqldriver.CodeUnavailable {
		t.Errorf("RetryType was given %v, not the classified error", h.retryErrs)
	}
	for rt, want := range map[cqldriver.RetryType]gocql.RetryType{cqldriver.Retry: gocql.Retry, cqldriver.Rethrow: gocql.Rethrow, cqldriver.RetryNextHost: gocql.RetryNextHost} {
		h.rt = rt
		p.Attempt(retryable{n: 1, idempotent: true})
		if got := p.GetRetryType(errors.New("x")); got != want {
			t.Errorf("%v became %v, want %v", rt, got, want)
		}
	}

	// v2's executor asks GetRetryType even after Attempt said no: the
	// hooks, whose RetryType waits out a backoff, must not be asked then.
	h = &hooks{allow: false, rt: cqldriver.Retry}
	p = &retryPolicy{h: h}
	if p.Attempt(retryable{n: 4, idempotent: false}) {
		t.Error("Attempt allowed what the hooks refused")
	}
	if got := p.GetRetryType(&gocql.RequestErrReadTimeout{}); got != gocql.Rethrow {
		t.Errorf("GetRetryType after a refusal = %v, want Rethrow", got)
	}
	if len(h.retryErrs) != 0 {
		t.Errorf("RetryType was asked after Attempt refused: %v", h.retryErrs)
	}
	if h.idem[0] {
		t.Error("a query not marked idempotent was reported idempotent")
	}
}

func TestObserversReportAndChain(t *testing.T) {
	h := &hooks{}
	chained := &recordingObserver{}
	start := time.Now()
	o := observer{h, &driver{chainQuery: chained, chainBatch: chained}}
	o.ObserveQuery(context.Background(), gocql.ObservedQuery{
		Keyspace: "ks", Start: start, End: start.Add(time.Millisecond), Rows: 3, Attempt: 1,
		Err: &gocql.RequestErrReadTimeout{},
	})
	o.ObserveBatch(context.Background(), gocql.ObservedBatch{Keyspace: "ks", Attempt: 0})
	if chained.queries != 1 || chained.batches != 1 {
		t.Errorf("the chained observer saw %d queries, %d batches", chained.queries, chained.batches)
	}
	if len(h.observed) != 2 {
		t.Fatalf("the hooks saw %d attempts", len(h.observed))
	}
	a := h.observed[0]
	if a.N != 1 || a.Rows != 3 || a.Keyspace != "ks" || a.End.Sub(a.Start) != time.Millisecond || a.Host != "" {
		t.Errorf("query attempt %+v", a)
	}
	if code, ok := cqldriver.ServerCode(a.Err); !ok || code != cqldriver.CodeReadTimeout {
		t.Errorf("the attempt's error is not classified: %v", a.Err)
	}
	// Without a cluster observer, nothing is chained.
	observer{h, &driver{}}.ObserveQuery(context.Background(), gocql.ObservedQuery{})
	observer{h, &driver{}}.ObserveBatch(context.Background(), gocql.ObservedBatch{})
}

type recordingObserver struct{ queries, batches int }

func (o *recordingObserver) ObserveQuery(context.Context, gocql.ObservedQuery) { o.queries++ }
func (o *recordingObserver) ObserveBatch(context.Context, gocql.ObservedBatch) { o.batches++ }

// The cluster's observers are read from the session's unexported fields:
// this fails when a release of the driver moves them, and chaining would
// silently stop.
func TestClusterObserverFields(t *testing.T) {
	st := reflect.TypeFor[gocql.Session]()
	for name, typ := range map[string]reflect.Type{
		"queryObserver": reflect.TypeFor[gocql.QueryObserver](),
		"batchObserver": reflect.TypeFor[gocql.BatchObserver](),
	} {
		f, ok := st.FieldByName(name)
		if !ok || f.Type != typ {
			t.Errorf("gocql.Session has no field %s of type %v (found %v): update clusterObservers", name, typ, f.Type)
		}
	}
	// What clusterObservers reads is what the fields hold.
	s := new(gocql.Session)
	obs := &recordingObserver{}
	v := reflect.ValueOf(s).Elem()
	*(*gocql.QueryObserver)(unsafe.Pointer(v.FieldByName("queryObserver").UnsafeAddr())) = obs
	*(*gocql.BatchObserver)(unsafe.Pointer(v.FieldByName("batchObserver").UnsafeAddr())) = obs
	q, b := clusterObservers(s)
	if q != gocql.QueryObserver(obs) || b != gocql.BatchObserver(obs) {
		t.Errorf("clusterObservers = %v, %v", q, b)
	}
	if q, b := clusterObservers(new(gocql.Session)); q != nil || b != nil {
		t.Errorf("a session without observers: %v, %v", q, b)
	}
	if q, b := clusterObservers(nil); q != nil || b != nil {
		t.Error("a nil session has observers")
	}
}

func TestRoutingKey(t *testing.T) {
	col := func(name, typ string) gocql.ColumnInfo {
		return gocql.ColumnInfo{Name: name, TypeInfo: driverInfo(t, typ)}
	}
	one := gocql.StatementMetadata{
		Keyspace:            "ks",
		BindColumns:         []gocql.ColumnInfo{col("v", "text"), col("id", "int")},
		PKBindColumnIndexes: []int{1},
	}
	key, err := routingKey(one, []any{"x", 7})
	if err != nil || !bytes.Equal(key, []byte{0, 0, 0, 7}) {
		t.Errorf("one column: %x, %v", key, err)
	}
	// Values the runtime encodes itself are bound as the driver would.
	key, err = routingKey(one, []any{"x", cqldriver.Encoded{0, 0, 0, 7}})
	if err != nil || !bytes.Equal(key, []byte{0, 0, 0, 7}) {
		t.Errorf("an Encoded value: %x, %v", key, err)
	}
	composite := gocql.StatementMetadata{
		BindColumns:         []gocql.ColumnInfo{col("b", "text"), col("v", "int"), col("a", "int")},
		PKBindColumnIndexes: []int{2, 0}, // the partition key is (a, b)
	}
	key, err = routingKey(composite, []any{"hi", 1, 5})
	want := []byte{0, 4, 0, 0, 0, 5, 0, 0, 2, 'h', 'i', 0}
	if err != nil || !bytes.Equal(key, want) {
		t.Errorf("composite: %x, %v; want %x", key, err, want)
	}
	if other, _ := routingKey(composite, []any{"ho", 1, 5}); bytes.Equal(other, key) {
		t.Error("two partitions have one routing key")
	}
	if _, err := routingKey(composite, []any{"hi", 1}); err == nil {
		t.Error("too few values gave a key")
	}
	if _, err := routingKey(one, []any{"x", "not an int"}); err == nil {
		t.Error("a value of the wrong type gave a key")
	}
	// A statement that does not bind the whole partition key has none.
	if key, err := routingKey(gocql.StatementMetadata{BindColumns: []gocql.ColumnInfo{col("v", "int")}}, []any{1}); key != nil || err != nil {
		t.Errorf("no partition key columns: %x, %v", key, err)
	}
}

func TestClusterDefaults(t *testing.T) {
	for name, c := range map[string]*gocql.ClusterConfig{"NewCluster": NewCluster("h1", "h2:9043"), "NewClusterDC": NewClusterDC("dc1", "h1")} {
		if c.ProtoVersion != 5 || c.WriteCoalesceWaitTime != 0 || c.Timeout != 11*time.Second ||
			c.ConnectTimeout != 5*time.Second || c.Consistency != gocql.LocalQuorum || c.PoolConfig.HostSelectionPolicy == nil {
			t.Errorf("%s: %+v", name, c)
		}
		m, ok := made.Load(c)
		if !ok {
			t.Fatalf("%s: no policy factory remembered", name)
		}
		mp := m.(madePolicy)
		if mp.first != c.PoolConfig.HostSelectionPolicy || mp.make() == mp.first {
			t.Errorf("%s: the factory does not make fresh policies", name)
		}
	}
	if c := NewCluster("h"); c.HostFilter != nil {
		t.Error("NewCluster filters hosts")
	}
	if c := NewClusterDC("dc1", "h"); c.HostFilter == nil {
		t.Error("NewClusterDC does not keep the session in its datacenter")
	}
}
