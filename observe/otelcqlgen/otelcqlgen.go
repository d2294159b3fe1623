// Package otelcqlgen reports what cqlgen's runtime observes to
// OpenTelemetry: a span per repository call, a child span per attempt of
// each of its statements, and metrics.
//
//	obs, err := otelcqlgen.New() // the global tracer and meter providers
//	s := gocqlv1.NewSession(gs, &cqlgen.SessionOptions{Observer: obs})
//
// Spans. A call of a generated repository method is a span named after it
// (Track.Insert), of kind internal; each attempt of a statement it runs is
// a client span named after the statement's kind and table (write tracks),
// started when the attempt started, with the attempt's node, keyspace,
// rows and error. Retries are sibling spans with cqlgen.attempt above 1. A
// statement run outside a repository method is a span of its own, under
// whatever span its context carries.
//
// Metrics, with low-cardinality attributes (never a bound value, never an
// error's text, see cqlobserve.ErrorType):
//
//   - cqlgen.call.duration (s): one per repository call, by entity, method
//     and error.type.
//   - db.client.operation.duration (s): one per attempt, by table, pattern,
//     kind and error.type: OpenTelemetry's semantic convention for database
//     clients.
//   - db.client.response.returned_rows: rows per read attempt.
//   - cqlgen.retries: attempts that were not a statement's first.
//
// Attributes follow the semantic conventions for database clients where
// they apply (db.system.name is cassandra, db.namespace the keyspace,
// db.collection.name the table, db.operation.name the kind, server.address
// and server.port the coordinator); the rest are cqlgen.*.
package otelcqlgen

import (
	"cmp"
	"context"
	"net"
	"strconv"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/cqlgen/cqlgen/observe/otelcqlgen"

// Observer is a cqlobserve.CallObserver that reports to OpenTelemetry. It is
// safe for concurrent use.
type Observer struct {
	tracer   trace.Tracer
	calls    metric.Float64Histogram
	attempts metric.Float64Histogram
	rows     metric.Int64Histogram
	retries  metric.Int64Counter
}

// Option configures New.
type Option func(*config)

type config struct {
	tp trace.TracerProvider
	mp metric.MeterProvider
}

// WithTracerProvider sets where spans go; default otel.GetTracerProvider().
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider sets where metrics go; default otel.GetMeterProvider().
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// New makes an Observer; it fails only when an instrument cannot be made.
func New(opts ...Option) (*Observer, error) {
	c := config{tp: otel.GetTracerProvider(), mp: otel.GetMeterProvider()}
	for _, f := range opts {
		f(&c)
	}
	m := c.mp.Meter(ScopeName)
	o := &Observer{tracer: c.tp.Tracer(ScopeName)}
	var errs [4]error
	o.calls, errs[0] = m.Float64Histogram("cqlgen.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of repository calls, every statement and retry included."))
	o.attempts, errs[1] = m.Float64Histogram("db.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of each attempt of a statement."))
	o.rows, errs[2] = m.Int64Histogram("db.client.response.returned_rows", metric.WithUnit("{row}"),
		metric.WithDescription("Rows returned by each read attempt."))
	o.retries, errs[3] = m.Int64Counter("cqlgen.retries", metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts of statements that were retries."))
	if err := cmp.Or(errs[:]...); err != nil { // the first instrument that failed
		return nil, err
	}
	return o, nil
}

// StartCall opens the call's span; its statements' spans are its children.
func (o *Observer) StartCall(ctx context.Context, c cqlobserve.Call) context.Context {
	ctx, _ = o.tracer.Start(ctx, c.String(), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("cqlgen.entity", c.Entity), attribute.String("cqlgen.method", c.Method)))
	return ctx
}

// EndCall ends the call's span and records its duration.
func (o *Observer) EndCall(ctx context.Context, c cqlobserve.CallObservation) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(
		attribute.Int("cqlgen.attempts", c.Attempts),
		attribute.Int("cqlgen.retries", c.Retries),
		attribute.Int("cqlgen.rows", c.Rows),
	)
	failed(span, c.Err)
	span.End()
	attrs := []attribute.KeyValue{attribute.String("cqlgen.entity", c.Entity), attribute.String("cqlgen.method", c.Method)}
	if t := cqlobserve.ErrorType(c.Err); t != "" {
		attrs = append(attrs, attribute.String("error.type", t))
	}
	o.calls.Record(ctx, c.Latency.Seconds(), metric.WithAttributes(attrs...))
}

// Observe records one attempt: a span, started when the attempt started,
// and its metrics.
func (o *Observer) Observe(ctx context.Context, a cqlobserve.Observation) {
	end := time.Now()
	kind := a.Kind.String()
	common := []attribute.KeyValue{
		attribute.String("db.system.name", "cassandra"),
		attribute.String("db.collection.name", a.Table),
		attribute.String("db.operation.name", kind),
		attribute.String("cqlgen.pattern", a.Pattern),
	}
	errType := cqlobserve.ErrorType(a.Err)
	metricAttrs := common
	if errType != "" {
		metricAttrs = append(metricAttrs[:len(metricAttrs):len(metricAttrs)], attribute.String("error.type", errType))
	}
	set := metric.WithAttributes(metricAttrs...)
	if a.Attempt > 0 {
		o.attempts.Record(ctx, a.Latency.Seconds(), set)
	}
	if a.Attempt > 1 {
		o.retries.Add(ctx, 1, set)
	}
	if (a.Kind == cqlgen.Read || a.Kind == cqlgen.PreRead || a.Kind == cqlgen.SerialRead) && a.Err == nil && a.Attempt > 0 {
		o.rows.Record(ctx, int64(a.Rows), set)
	}

	spanAttrs := append(common[:len(common):len(common)],
		attribute.Int("cqlgen.attempt", a.Attempt),
		attribute.Int("db.response.returned_rows", a.Rows),
	)
	if a.Keyspace != "" {
		spanAttrs = append(spanAttrs, attribute.String("db.namespace", a.Keyspace))
	}
	if host, port, err := net.SplitHostPort(a.Host); err == nil {
		p, _ := strconv.Atoi(port)
		spanAttrs = append(spanAttrs, attribute.String("server.address", host), attribute.Int("server.port", p))
	}
	if a.Batch > 0 {
		spanAttrs = append(spanAttrs, attribute.Int("db.operation.batch.size", a.Batch),
			attribute.Int("cqlgen.batch.bytes", a.BatchBytes), attribute.Bool("cqlgen.batch.warn", a.BatchWarn))
	}
	if errType != "" {
		spanAttrs = append(spanAttrs, attribute.String("error.type", errType))
	}
	_, span := o.tracer.Start(ctx, kind+" "+a.Table, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(end.Add(-a.Latency)), trace.WithAttributes(spanAttrs...))
	failed(span, a.Err)
	span.End(trace.WithTimestamp(end))
}

// failed marks a span as failed. ErrNotFound is an answer, not a failure.
// The span gets the error's type, not its text, which may quote values.
func failed(span trace.Span, err error) {
	if err == nil {
		return
	}
	t := cqlobserve.ErrorType(err)
	if t == "not_found" {
		return
	}
	span.SetStatus(codes.Error, t)
}

var _ cqlobserve.CallObserver = (*Observer)(nil)
