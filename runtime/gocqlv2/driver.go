// Package gocqlv2 runs cqlgen's runtime on the ASF's Cassandra driver,
// github.com/apache/cassandra-gocql-driver/v2 (checked against v2.1.2):
//
//	cluster := gocqlv2.NewCluster("10.0.0.1", "10.0.0.2")
//	cluster.Keyspace = "music"
//	gs, err := gocqlv2.CreateSession(cluster)
//	...
//	s := gocqlv2.NewSession(gs, &cqlgen.SessionOptions{Observer: obs})
//	tracks := music.NewTrackRepo(s)
//
// Importing it also registers the driver's marshaller as a cqldriver.Codec,
// named "gocql-v2", with which the runtime encodes the keys it keeps
// itself. It is a module of its own so that a program on github.com/gocql/gocql
// (github.com/cqlgen/cqlgen/runtime/gocqlv1) never downloads this driver,
// and the other way round; the generated code and the rest of the runtime
// are the same for both. Generate the methods of user-defined types for
// this driver (cqlgen detects it, or pass -driver gocqlv2).
package gocqlv2

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/runtime/cqladapter"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// NewSession makes the Session generated repositories run on, over s: the
// runtime's session (consistency per statement kind, retries, batch
// limits, observers; see cqlgen.SessionOptions) on the Driver New(s).
func NewSession(s *gocql.Session, opts *cqlgen.SessionOptions) cqlgen.Session {
	return cqladapter.NewSession(New(s), opts)
}

// New adapts a driver session to cqldriver.Driver.
//
// The QueryObserver and BatchObserver of the session's cluster
// configuration keep seeing every attempt of observed requests: setting a
// query's own observer replaces the cluster's in this driver too, so the
// adapter chains them.
func New(s *gocql.Session) cqldriver.Driver {
	d := &driver{s: s}
	d.chainQuery, d.chainBatch = clusterObservers(s)
	return d
}

type driver struct {
	s          *gocql.Session
	chainQuery gocql.QueryObserver
	chainBatch gocql.BatchObserver
}

// query builds the driver's query of r. The context is given when the
// query runs (IterContext and the like): v2 deprecates WithContext.
func (d *driver) query(r *cqldriver.Request) *gocql.Query {
	// PreparedCQL: a transaction is prepared too, so its values are bound.
	q := d.s.Query(cqldriver.PreparedCQL(r.CQL), values(r.Values)...)
	q.Idempotent(r.Idempotent).Consistency(gocql.Consistency(r.Consistency))
	if r.SerialConsistency != 0 {
		// v2 has one Consistency type for both phases; it panics on a
		// level that is not serial, which the session never asks for.
		q.SerialConsistency(gocql.Consistency(r.SerialConsistency))
	}
	if r.Paged {
		if r.PageSize > 0 || r.PageSize == cqldriver.Unpaged {
			q.PageSize(max(r.PageSize, 0)) // 0 turns paging off
		}
		// Also turns the driver's automatic paging off: the page is all
		// the iterator returns.
		q.PageState(r.PageState)
	}
	p, o, observed := d.hooks(r.Hooks)
	q.RetryPolicy(p)
	if observed {
		q.Observer(o)
	}
	return q
}

// hooks are what a request with hooks h runs with: its retry policy
// (nil without hooks, for one attempt) and, when h observes the
// attempts, its observer (observed false: none).
func (d *driver) hooks(h cqldriver.AttemptHooks) (p gocql.RetryPolicy, o observer, observed bool) {
	if h == nil {
		return nil, observer{}, false
	}
	return &retryPolicy{h: h}, observer{h, d}, h.Observed()
}

// Queries are not pooled in v2 (there is no Query.Release): each request
// builds its own and leaves it to the garbage collector.

func (d *driver) Exec(ctx context.Context, r *cqldriver.Request) error {
	return classify(d.query(r).ExecContext(ctx))
}

func (d *driver) Iter(ctx context.Context, r *cqldriver.Request) cqldriver.DriverIter {
	return iter{it: d.query(r).IterContext(ctx)}
}

// iter is a value of one pointer, which an interface holds without an
// allocation.
type iter struct{ it *gocql.Iter }

func (i iter) Columns() int          { return len(i.it.Columns()) }
func (i iter) Scan(dest ...any) bool { return i.it.Scan(dests(dest)...) }
func (i iter) PageState() []byte     { return i.it.PageState() }
func (i iter) Close() error          { return classify(i.it.Close()) }

func (d *driver) ScanCAS(ctx context.Context, r *cqldriver.Request, dest ...any) (bool, error) {
	applied, err := d.query(r).ScanCASContext(ctx, dests(dest)...)
	return applied, classify(err)
}

func (d *driver) MapScanCAS(ctx context.Context, r *cqldriver.Request, current map[string]any) error {
	// The result's columns depend on the row found, not on the prepared
	// statement: its metadata must come with it. MapScan, unlike the
	// driver's MapScanCAS, leaves [applied] in the map, where the session
	// looks for it.
	it := d.query(r).NoSkipMetadata().IterContext(ctx)
	it.MapScan(current)
	return classify(it.Close())
}

func (d *driver) Batch(ctx context.Context, r *cqldriver.BatchRequest) error {
	typ := gocql.UnloggedBatch
	if r.Logged {
		typ = gocql.LoggedBatch
	}
	b := d.s.Batch(typ)
	b.Entries = make([]gocql.BatchEntry, len(r.Queries))
	for i, q := range r.Queries {
		b.Entries[i] = gocql.BatchEntry{Stmt: q.Stmt.CQL, Args: values(q.Values), Idempotent: q.Stmt.Idempotent}
	}
	b.Consistency(gocql.Consistency(r.Consistency))
	if r.SerialConsistency != 0 {
		b.SerialConsistency(gocql.Consistency(r.SerialConsistency))
	}
	p, o, observed := d.hooks(r.Hooks)
	b.RetryPolicy(p)
	if observed {
		b.Observer(o)
	}
	return classify(b.ExecContext(ctx))
}

// RoutingKey computes the routing key as the driver does for token-aware
// routing, from the prepared statement's partition key columns, which
// Session.StatementMetadata reports: v2 no longer offers a query's
// routing key (Query.GetRoutingKey is gone), only the metadata it is made
// from. The statement is prepared once per host and then served from the
// driver's cache of prepared statements.
func (d *driver) RoutingKey(ctx context.Context, cql string, vs []any) (string, []byte, error) {
	meta, err := d.s.StatementMetadata(ctx, cql, "")
	if err != nil {
		return "", nil, classify(err)
	}
	key, err := routingKey(meta, vs)
	return meta.Keyspace, key, err
}

// routingKey encodes the partition key of a statement with its values: a
// key of one column is that column's value as the protocol encodes it;
// a composite key is, for each column, its length (two bytes, big
// endian), the value and a zero byte, as Cassandra's CompositeType
// serialises it for the partitioner. nil when the statement does not bind
// every partition key column.
func routingKey(meta gocql.StatementMetadata, vs []any) ([]byte, error) {
	idx := meta.PKBindColumnIndexes
	if len(idx) == 0 {
		return nil, nil
	}
	if len(vs) != len(meta.BindColumns) {
		return nil, fmt.Errorf("cqlgen/gocqlv2: %d values for a statement with %d bind markers", len(vs), len(meta.BindColumns))
	}
	encode := func(i int) ([]byte, error) {
		b, err := gocql.Marshal(meta.BindColumns[i].TypeInfo, Value(vs[i]))
		if err != nil {
			return nil, fmt.Errorf("cqlgen/gocqlv2: routing key column %s: %w", meta.BindColumns[i].Name, err)
		}
		return b, nil
	}
	if len(idx) == 1 {
		return encode(idx[0])
	}
	var key []byte
	for _, i := range idx {
		b, err := encode(i)
		if err != nil {
			return nil, err
		}
		if len(b) > 0xFFFF {
			return nil, fmt.Errorf("cqlgen/gocqlv2: routing key column %s: %d bytes, more than a composite key component holds", meta.BindColumns[i].Name, len(b))
		}
		key = binary.BigEndian.AppendUint16(key, uint16(len(b)))
		key = append(key, b...)
		key = append(key, 0)
	}
	return key, nil
}

// retryPolicy is a request's hooks as the driver's RetryPolicy. It is
// made for one request and asked by one goroutine at a time: the session
// never runs speculative executions.
type retryPolicy struct {
	h cqldriver.AttemptHooks
	// allowed is Attempt's last answer. v2's executor asks GetRetryType
	// after Attempt whatever Attempt said; the hooks must not be asked
	// then, since RetryType waits out the backoff of an attempt that will
	// not be made.
	allowed bool
}

// Attempt is asked only after a failed attempt of an idempotent request:
// v2's executor returns the error of any other request without asking.
func (p *retryPolicy) Attempt(q gocql.RetryableQuery) bool {
	iq, ok := q.(interface{ IsIdempotent() bool })
	p.allowed = p.h.Attempt(q.Attempts(), ok && iq.IsIdempotent())
	return p.allowed
}

func (p *retryPolicy) GetRetryType(err error) gocql.RetryType {
	if !p.allowed {
		return gocql.Rethrow
	}
	switch p.h.RetryType(classify(err)) {
	case cqldriver.Retry:
		return gocql.Retry
	case cqldriver.RetryNextHost:
		return gocql.RetryNextHost
	}
	return gocql.Rethrow
}

// observer is a request's hooks as the driver's QueryObserver and
// BatchObserver; the cluster's own observers (the driver's chainQuery and
// chainBatch) see each attempt first.
type observer struct {
	h cqldriver.AttemptHooks
	d *driver
}

func (o observer) ObserveQuery(ctx context.Context, q gocql.ObservedQuery) {
	if o.d.chainQuery != nil {
		o.d.chainQuery.ObserveQuery(ctx, q)
	}
	o.observe(ctx, cqldriver.Attempt{N: q.Attempt, Start: q.Start, End: q.End, Err: q.Err, Keyspace: q.Keyspace, Rows: q.Rows}, q.Host)
}

func (o observer) ObserveBatch(ctx context.Context, b gocql.ObservedBatch) {
	if o.d.chainBatch != nil {
		o.d.chainBatch.ObserveBatch(ctx, b)
	}
	o.observe(ctx, cqldriver.Attempt{N: b.Attempt, Start: b.Start, End: b.End, Err: b.Err, Keyspace: b.Keyspace}, b.Host)
}

// observe reports an attempt to the hooks, its error classified and its
// host as host:port.
func (o observer) observe(ctx context.Context, a cqldriver.Attempt, host *gocql.HostInfo) {
	a.Err, a.Host = classify(a.Err), hostPort(host)
	o.h.Observe(ctx, a)
}

// hostPort is the address a host was reached at, as host:port.
func hostPort(h *gocql.HostInfo) string {
	if h == nil {
		return ""
	}
	return h.ConnectAddressAndPort()
}

// classify wraps a driver error in a *cqldriver.DriverError that says what
// kind it is; nil stays nil, and so do errors already classified and the
// context's.
func classify(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var d *cqldriver.DriverError
	if errors.As(err, &d) {
		return err
	}
	e := &cqldriver.DriverError{Err: err}
	if code, writeType, ok := serverError(err); ok {
		e.Kind, e.Code, e.WriteType = cqldriver.ErrorServer, code, writeType
		return e
	}
	switch {
	// v1's ErrUnavailable and ErrTooManyTimeouts are left out: v2 still
	// declares them but never returns them.
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrNoConnectionsStarted):
		e.Kind = cqldriver.ErrorNoConnections
	case errors.As(err, new(gocql.MarshalError)):
		// A value gocql cannot encode for its column: refused before
		// anything was sent.
		e.Kind = cqldriver.ErrorNotSent
	case errors.Is(err, gocql.ErrTimeoutNoResponse):
		e.Kind = cqldriver.ErrorNoResponse
	case errors.Is(err, gocql.ErrConnectionClosed), errors.Is(err, gocql.ErrNoStreams):
		e.Kind = cqldriver.ErrorConnection
	case errors.Is(err, gocql.ErrSessionClosed):
		e.Kind = cqldriver.ErrorSessionClosed
	}
	return e
}

// serverError finds an error Cassandra replied with in err's chain: its
// protocol code and, for a write timeout or failure, its write type. The
// typed errors come first, by their type: their Code() is 0 when they are
// built by hand (as tests do), and the type says it all.
func serverError(err error) (code int, writeType string, ok bool) {
	var (
		writeTimeout *gocql.RequestErrWriteTimeout
		writeFailure *gocql.RequestErrWriteFailure
		reqErr       gocql.RequestError
	)
	switch {
	case errors.As(err, &writeTimeout):
		return cqldriver.CodeWriteTimeout, writeTimeout.WriteType, true
	case errors.As(err, &writeFailure):
		return cqldriver.CodeWriteFailure, writeFailure.WriteType, true
	}
	for _, t := range typedCodes {
		if t.is(err) {
			return t.code, "", true
		}
	}
	if errors.As(err, &reqErr) {
		return reqErr.Code(), "", true
	}
	return 0, "", false
}

// typedCodes are the driver's other typed server errors, by code.
var typedCodes = []struct {
	is   func(error) bool
	code int
}{
	{isType[*gocql.RequestErrUnavailable], cqldriver.CodeUnavailable},
	{isType[*gocql.RequestErrOverloaded], cqldriver.CodeOverloaded},
	{isType[*gocql.RequestErrBootstrapping], cqldriver.CodeBootstrapping},
	{isType[*gocql.RequestErrReadTimeout], cqldriver.CodeReadTimeout},
	{isType[*gocql.RequestErrReadFailure], cqldriver.CodeReadFailure},
	{isType[*gocql.RequestErrCASWriteUnknown], cqldriver.CodeCASWriteUnknown},
	{isType[*gocql.RequestErrCDCWriteFailure], cqldriver.CodeCDCWriteFailure},
	{isType[*gocql.RequestErrFunctionFailure], cqldriver.CodeFunctionFailure},
	{isType[*gocql.RequestErrTruncate], cqldriver.CodeTruncate},
	{isType[*gocql.RequestErrSyntax], cqldriver.CodeSyntax},
	{isType[*gocql.RequestErrUnauthorized], cqldriver.CodeUnauthorized},
	{isType[*gocql.RequestErrInvalid], cqldriver.CodeInvalid},
	{isType[*gocql.RequestErrConfig], cqldriver.CodeConfig},
	{isType[*gocql.RequestErrCredentials], cqldriver.CodeCredentials},
	{isType[*gocql.RequestErrAlreadyExists], cqldriver.CodeAlreadyExists},
	{isType[*gocql.RequestErrUnprepared], cqldriver.CodeUnprepared},
}

func isType[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// clusterObservers returns the QueryObserver and BatchObserver that the
// session was created with (ClusterConfig.QueryObserver and
// BatchObserver), or nil.
//
// Every observed request gets its own observer, which the driver sets in
// place of the cluster's; to chain rather than replace them the adapter
// needs the cluster's, which v2, like v1, keeps in unexported fields of
// the session (queryObserver and batchObserver in v2.1.2) and offers no
// way to read: neither the session nor a query has a getter, and the
// cluster configuration is not kept where it can be reached. Unlike v1,
// v2 is still released, so the fields may move; should they, nothing is
// chained and TestClusterObserverFields fails, which is how an upgrade of
// the driver finds out.
func clusterObservers(s *gocql.Session) (q gocql.QueryObserver, b gocql.BatchObserver) {
	if s == nil {
		return nil, nil
	}
	v := reflect.ValueOf(s).Elem()
	if f := v.FieldByName("queryObserver"); f.IsValid() && f.Type() == reflect.TypeFor[gocql.QueryObserver]() {
		q = *(*gocql.QueryObserver)(unsafe.Pointer(f.UnsafeAddr()))
	}
	if f := v.FieldByName("batchObserver"); f.IsValid() && f.Type() == reflect.TypeFor[gocql.BatchObserver]() {
		b = *(*gocql.BatchObserver)(unsafe.Pointer(f.UnsafeAddr()))
	}
	return q, b
}
