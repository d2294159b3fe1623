// Package gocqlv1 runs cqlgen's runtime on github.com/gocql/gocql (v1.7.0,
// the last release on that import path):
//
//	cluster := gocqlv1.NewCluster("10.0.0.1", "10.0.0.2")
//	cluster.Keyspace = "music"
//	gs, err := gocqlv1.CreateSession(cluster)
//	...
//	s := gocqlv1.NewSession(gs, &cqlgen.SessionOptions{Observer: obs})
//	tracks := music.NewTrackRepo(s)
//
// Importing it also registers gocql's marshaller as a cqldriver.Codec, with
// which the runtime encodes the keys it keeps itself. For the ASF's
// github.com/apache/cassandra-gocql-driver/v2, use the module
// github.com/cqlgen/cqlgen/runtime/gocqlv2 instead; the generated code
// and the rest of the runtime are the same.
package gocqlv1

import (
	"context"
	"errors"
	"net"
	"reflect"
	"strconv"
	"sync"
	"unsafe"

	"github.com/gocql/gocql"

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

// New adapts a gocql session to cqldriver.Driver.
//
// The QueryObserver and BatchObserver of the session's cluster
// configuration keep seeing every attempt of observed requests: setting a
// query's own observer replaces the cluster's in gocql, so the driver
// chains them.
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

// query builds the gocql query of r, and the retry policy it runs with.
// Give both back with release once gocql is done with them.
func (d *driver) query(ctx context.Context, r *cqldriver.Request) (*gocql.Query, *retryPolicy) {
	// PreparedCQL: a transaction is prepared too, so its values are bound.
	q := d.s.Query(cqldriver.PreparedCQL(r.CQL), values(r.Values)...).WithContext(ctx)
	q.Idempotent(r.Idempotent).Consistency(gocql.Consistency(r.Consistency))
	if r.SerialConsistency != 0 {
		q.SerialConsistency(gocql.SerialConsistency(r.SerialConsistency))
	}
	if r.Paged {
		if r.PageSize > 0 || r.PageSize == cqldriver.Unpaged {
			q.PageSize(max(r.PageSize, 0)) // 0 turns paging off
		}
		// Also turns gocql's automatic paging off.
		q.PageState(r.PageState)
	}
	p, o, observed := d.hooks(r.Hooks)
	q.RetryPolicy(p.policy())
	if observed {
		q.Observer(o)
	}
	return q, p
}

// hooks are what a request with hooks h runs with: its retry policy,
// pooled (give it back with release; nil without hooks, for one attempt),
// and, when h observes the attempts, its observer (observed false: none).
func (d *driver) hooks(h cqldriver.AttemptHooks) (p *retryPolicy, o observer, observed bool) {
	if h == nil {
		return nil, observer{}, false
	}
	return newRetryPolicy(h), observer{h, d}, h.Observed()
}

// release returns q, and its retry policy, to their pools.
func release(q *gocql.Query, p *retryPolicy) {
	p.release()
	q.Release()
}

func (d *driver) Exec(ctx context.Context, r *cqldriver.Request) error {
	q, p := d.query(ctx, r)
	err := q.Exec()
	release(q, p)
	return classify(err)
}

func (d *driver) Iter(ctx context.Context, r *cqldriver.Request) cqldriver.DriverIter {
	q, p := d.query(ctx, r)
	it := q.Iter()
	release(q, p) // the page is fetched; the Iter no longer needs it
	return iter{it: it}
}

// iter is a value of one pointer, which an interface holds without an
// allocation.
type iter struct{ it *gocql.Iter }

func (i iter) Columns() int          { return len(i.it.Columns()) }
func (i iter) Scan(dest ...any) bool { return i.it.Scan(dests(dest)...) }
func (i iter) PageState() []byte     { return i.it.PageState() }
func (i iter) Close() error          { return classify(i.it.Close()) }

func (d *driver) ScanCAS(ctx context.Context, r *cqldriver.Request, dest ...any) (bool, error) {
	q, p := d.query(ctx, r)
	applied, err := q.ScanCAS(dests(dest)...)
	release(q, p)
	return applied, classify(err)
}

func (d *driver) MapScanCAS(ctx context.Context, r *cqldriver.Request, current map[string]any) error {
	q, p := d.query(ctx, r)
	// The result's columns depend on the row found, not on the prepared
	// statement: its metadata must come with it.
	it := q.NoSkipMetadata().Iter()
	mapScan(it, current)
	err := it.Close()
	release(q, p)
	return classify(err)
}

// mapScan is it.MapScan(m), save that a column of a type gocql v1 cannot
// make a value for (a vector<float, n>, a custom type to it) comes as its
// raw bytes: gocql's MapScan then scans into no column at all and fails
// with "not enough columns to scan into", as a conditional insert into a
// table with a vector column did whenever the row was there.
func mapScan(it *gocql.Iter, m map[string]any) bool {
	cols := it.Columns()
	dest := make([]any, len(cols))
	for i, c := range cols {
		v, err := c.TypeInfo.NewWithError()
		if err != nil {
			v = new(rawCell)
		}
		dest[i] = v
	}
	if !it.Scan(dest...) {
		return false
	}
	for i, c := range cols {
		if r, ok := dest[i].(*rawCell); ok {
			m[c.Name] = []byte(*r)
			continue
		}
		m[c.Name] = reflect.ValueOf(dest[i]).Elem().Interface()
	}
	return true
}

// rawCell holds a value's bytes as the server sent them (nil for null).
type rawCell []byte

func (r *rawCell) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	*r = append(rawCell(nil), data...)
	if data == nil {
		*r = nil
	}
	return nil
}

func (d *driver) Batch(ctx context.Context, r *cqldriver.BatchRequest) error {
	typ := gocql.UnloggedBatch
	if r.Logged {
		typ = gocql.LoggedBatch
	}
	b := d.s.NewBatch(typ).WithContext(ctx)
	b.Entries = make([]gocql.BatchEntry, len(r.Queries))
	for i, q := range r.Queries {
		b.Entries[i] = gocql.BatchEntry{Stmt: q.Stmt.CQL, Args: values(q.Values), Idempotent: q.Stmt.Idempotent}
	}
	b.SetConsistency(gocql.Consistency(r.Consistency))
	if r.SerialConsistency != 0 {
		b.SerialConsistency(gocql.SerialConsistency(r.SerialConsistency))
	}
	p, o, observed := d.hooks(r.Hooks)
	b.RetryPolicy(p.policy())
	if observed {
		b.Observer(o)
	}
	err := d.s.ExecuteBatch(b)
	p.release()
	return classify(err)
}

func (d *driver) RoutingKey(ctx context.Context, cql string, vs []any) (string, []byte, error) {
	q := d.s.Query(cqldriver.PreparedCQL(cql), values(vs)...).WithContext(ctx)
	defer q.Release()
	key, err := q.GetRoutingKey()
	return q.Keyspace(), key, classify(err)
}

// retryPolicy is a request's hooks as gocql's RetryPolicy. They are
// pooled: a struct of one interface would be allocated each time it
// became gocql's RetryPolicy interface, on every statement.
type retryPolicy struct{ h cqldriver.AttemptHooks }

var retryPolicies = sync.Pool{New: func() any { return new(retryPolicy) }}

func newRetryPolicy(h cqldriver.AttemptHooks) *retryPolicy {
	p := retryPolicies.Get().(*retryPolicy)
	p.h = h
	return p
}

// release returns p to the pool; a nil p is none.
func (p *retryPolicy) release() {
	if p != nil {
		p.h = nil
		retryPolicies.Put(p)
	}
}

// policy is p as gocql's RetryPolicy: none for a nil p.
func (p *retryPolicy) policy() gocql.RetryPolicy {
	if p == nil {
		return nil
	}
	return p
}

func (p *retryPolicy) Attempt(q gocql.RetryableQuery) bool {
	iq, ok := q.(interface{ IsIdempotent() bool })
	return p.h.Attempt(q.Attempts(), ok && iq.IsIdempotent())
}

func (p *retryPolicy) GetRetryType(err error) gocql.RetryType {
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
	return net.JoinHostPort(h.ConnectAddress().String(), strconv.Itoa(h.Port()))
}

// classify wraps a gocql error in a *cqldriver.DriverError that says what
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
	var (
		unavailable  *gocql.RequestErrUnavailable
		writeTimeout *gocql.RequestErrWriteTimeout
		writeFailure *gocql.RequestErrWriteFailure
		readTimeout  *gocql.RequestErrReadTimeout
		casUnknown   *gocql.RequestErrCASWriteUnknown
		reqErr       gocql.RequestError
	)
	// Typed request errors first: their Code() is 0 when they are built
	// by hand (as tests do), and the type says it all.
	switch {
	case errors.As(err, &unavailable):
		e.Kind, e.Code = cqldriver.ErrorServer, cqldriver.CodeUnavailable
	case errors.As(err, &writeTimeout):
		e.Kind, e.Code, e.WriteType = cqldriver.ErrorServer, cqldriver.CodeWriteTimeout, writeTimeout.WriteType
	case errors.As(err, &writeFailure):
		e.Kind, e.Code, e.WriteType = cqldriver.ErrorServer, cqldriver.CodeWriteFailure, writeFailure.WriteType
	case errors.As(err, &readTimeout):
		e.Kind, e.Code = cqldriver.ErrorServer, cqldriver.CodeReadTimeout
	case errors.As(err, &casUnknown):
		e.Kind, e.Code = cqldriver.ErrorServer, cqldriver.CodeCASWriteUnknown
	case errors.As(err, &reqErr):
		e.Kind, e.Code = cqldriver.ErrorServer, reqErr.Code()
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrNoConnectionsStarted),
		errors.Is(err, gocql.ErrUnavailable):
		e.Kind = cqldriver.ErrorNoConnections
	case errors.As(err, new(gocql.MarshalError)):
		// A value gocql cannot encode for its column: refused before
		// anything was sent.
		e.Kind = cqldriver.ErrorNotSent
	case errors.Is(err, gocql.ErrTimeoutNoResponse):
		e.Kind = cqldriver.ErrorNoResponse
	case errors.Is(err, gocql.ErrConnectionClosed), errors.Is(err, gocql.ErrNoStreams),
		errors.Is(err, gocql.ErrTooManyTimeouts):
		e.Kind = cqldriver.ErrorConnection
	case errors.Is(err, gocql.ErrSessionClosed):
		e.Kind = cqldriver.ErrorSessionClosed
	}
	return e
}

// clusterObservers returns the QueryObserver and BatchObserver that the
// gocql session was created with (ClusterConfig.QueryObserver and
// BatchObserver), or nil.
//
// Every observed request gets its own observer, which gocql sets in place
// of the cluster's; to chain rather than replace them the driver needs
// the cluster's, which gocql keeps in unexported fields of the session
// and offers no way to read. gocql v1.7.0 is the last release of its
// import path, so those fields will not move under us; should they be
// missing (a fork), nothing is chained, and TestClusterObserversAreChained
// says so.
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
