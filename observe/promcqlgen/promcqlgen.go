// Package promcqlgen reports what cqlgen's runtime observes as Prometheus
// metrics:
//
//	obs, err := promcqlgen.New(prometheus.DefaultRegisterer)
//	s := gocqlv1.NewSession(gs, &cqlgen.SessionOptions{Observer: obs})
//
// It registers, under the namespace cqlgen unless Options say otherwise:
//
//   - cqlgen_call_duration_seconds{entity,method,error}: a histogram of
//     repository calls (Track.Insert, every statement and retry included).
//   - cqlgen_attempt_duration_seconds{table,pattern,kind,error}: a
//     histogram of each attempt of each statement; kind is read, write,
//     conditional or pre-read (the read a write makes first).
//   - cqlgen_returned_rows{table,pattern,kind}: rows per read attempt.
//   - cqlgen_retries_total{table,pattern,kind}: attempts that were retries.
//   - cqlgen_refused_total{table,pattern,error}: statements refused before
//     sending (a batch over the size limit, say).
//   - cqlgen_batch_warnings_total{table,pattern}: statements sent in a batch
//     over SessionOptions.BatchWarnBytes.
//
// Labels stay few: error is cqlobserve.ErrorType's name ("" on success),
// never an error's text or a bound value.
package promcqlgen

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// Options configure New; zero fields take the defaults.
type Options struct {
	// Namespace prefixes every metric; default "cqlgen".
	Namespace string
	// ConstLabels are added to every metric (a service name, say).
	ConstLabels prometheus.Labels
	// Buckets are the latency histograms' buckets in seconds; default
	// 0.5ms to 10s.
	Buckets []float64
}

// DefaultBuckets span a fast read on a local node to a client timeout.
var DefaultBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10}

// Observer is a cqlobserve.CallObserver that keeps Prometheus metrics. It is
// safe for concurrent use.
type Observer struct {
	calls, attempts *prometheus.HistogramVec
	rows            *prometheus.HistogramVec
	retries         *prometheus.CounterVec
	refused         *prometheus.CounterVec
	batchWarnings   *prometheus.CounterVec
}

// New makes an Observer and registers its metrics on reg; it fails when
// they are registered already (two Observers on one registry need
// different namespaces or const labels). A nil opts takes the defaults.
func New(reg prometheus.Registerer, opts *Options) (*Observer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Namespace == "" {
		o.Namespace = "cqlgen"
	}
	if o.Buckets == nil {
		o.Buckets = DefaultBuckets
	}
	hist := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: o.Namespace, Name: name, Help: help, ConstLabels: o.ConstLabels, Buckets: buckets,
		}, labels)
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: o.Namespace, Name: name, Help: help, ConstLabels: o.ConstLabels,
		}, labels)
	}
	obs := &Observer{
		calls: hist("call_duration_seconds", "Duration of repository calls, every statement and retry included.",
			o.Buckets, "entity", "method", "error"),
		attempts: hist("attempt_duration_seconds", "Duration of each attempt of a statement.",
			o.Buckets, "table", "pattern", "kind", "error"),
		rows: hist("returned_rows", "Rows returned by each read attempt.",
			prometheus.ExponentialBuckets(1, 4, 8), "table", "pattern", "kind"),
		retries:       counter("retries_total", "Attempts of statements that were retries.", "table", "pattern", "kind"),
		refused:       counter("refused_total", "Statements refused before sending.", "table", "pattern", "error"),
		batchWarnings: counter("batch_warnings_total", "Statements sent in a batch over the warning size.", "table", "pattern"),
	}
	for _, c := range []prometheus.Collector{obs.calls, obs.attempts, obs.rows, obs.retries, obs.refused, obs.batchWarnings} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return obs, nil
}

// StartCall does nothing: a call is measured when it ends.
func (o *Observer) StartCall(ctx context.Context, _ cqlobserve.Call) context.Context { return ctx }

// EndCall records the call's duration.
func (o *Observer) EndCall(_ context.Context, c cqlobserve.CallObservation) {
	o.calls.WithLabelValues(c.Entity, c.Method, cqlobserve.ErrorType(c.Err)).Observe(c.Latency.Seconds())
}

// Observe records one attempt.
func (o *Observer) Observe(_ context.Context, a cqlobserve.Observation) {
	kind := a.Kind.String()
	errType := cqlobserve.ErrorType(a.Err)
	if a.Attempt == 0 {
		o.refused.WithLabelValues(a.Table, a.Pattern, errType).Inc()
		return
	}
	o.attempts.WithLabelValues(a.Table, a.Pattern, kind, errType).Observe(a.Latency.Seconds())
	if a.Attempt > 1 {
		o.retries.WithLabelValues(a.Table, a.Pattern, kind).Inc()
	}
	if (a.Kind == cqlgen.Read || a.Kind == cqlgen.PreRead || a.Kind == cqlgen.SerialRead) && a.Err == nil {
		o.rows.WithLabelValues(a.Table, a.Pattern, kind).Observe(float64(a.Rows))
	}
	if a.BatchWarn {
		o.batchWarnings.WithLabelValues(a.Table, a.Pattern).Inc()
	}
}

var _ cqlobserve.CallObserver = (*Observer)(nil)
