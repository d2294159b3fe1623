package otelcqlgen_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/cqlgen/cqlgen/observe/otelcqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

func setup(t *testing.T) (*otelcqlgen.Observer, *tracetest.SpanRecorder, *sdkmetric.ManualReader) {
	t.Helper()
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	obs, err := otelcqlgen.New(
		otelcqlgen.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))),
		otelcqlgen.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
	)
	if err != nil {
		t.Fatal(err)
	}
	return obs, spans, reader
}

func attr(kvs []attribute.KeyValue, key string) (attribute.Value, bool) {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// A call is a span; its attempts are client spans under it, started when
// they started, with the node, keyspace, rows and error; a retry is a
// sibling with its attempt number; values and error text never appear.
func TestSpans(t *testing.T) {
	obs, spans, _ := setup(t)
	ctx := obs.StartCall(context.Background(), cqlobserve.Call{Entity: "Track", Method: "Update"})
	obs.Observe(ctx, cqlobserve.Observation{Table: "tracks", Pattern: "Tracks", Kind: cqlgen.PreRead, Attempt: 1,
		Latency: 3 * time.Millisecond, Host: "10.0.0.7:9042", Keyspace: "music", Rows: 1})
	secret := errors.New("write timeout writing 'hunter2'")
	obs.Observe(ctx, cqlobserve.Observation{Table: "tracks", Pattern: "Tracks", Kind: cqlgen.Conditional, Attempt: 1,
		Latency: time.Millisecond, Host: "10.0.0.7:9042", Keyspace: "music", Err: secret})
	obs.Observe(ctx, cqlobserve.Observation{Table: "tracks", Pattern: "Tracks", Kind: cqlgen.Conditional, Attempt: 2,
		Latency: time.Millisecond, Host: "10.0.0.8:9042", Keyspace: "music", Rows: 1})
	obs.EndCall(ctx, cqlobserve.CallObservation{Call: cqlobserve.Call{Entity: "Track", Method: "Update"}, Latency: 9 * time.Millisecond, Attempts: 3, Retries: 1})

	ended := spans.Ended()
	if len(ended) != 4 {
		t.Fatalf("%d spans, want 4", len(ended))
	}
	call := ended[3]
	if call.Name() != "Track.Update" || call.Parent().IsValid() || call.Status().Code == codes.Error {
		t.Errorf("call span %q, parent %v, status %v", call.Name(), call.Parent(), call.Status())
	}
	if v, _ := attr(call.Attributes(), "cqlgen.attempts"); v.AsInt64() != 3 {
		t.Errorf("call span attempts %v", v)
	}
	for i, want := range []struct {
		name, host string
		attempt    int64
		failed     bool
	}{{"pre-read tracks", "10.0.0.7", 1, false}, {"conditional tracks", "10.0.0.7", 1, true}, {"conditional tracks", "10.0.0.8", 2, false}} {
		s := ended[i]
		if s.Name() != want.name || s.Parent().SpanID() != call.SpanContext().SpanID() || s.SpanKind().String() != "client" {
			t.Errorf("span %d: %q under %v, kind %v; want %q under the call's span", i, s.Name(), s.Parent().SpanID(), s.SpanKind(), want.name)
		}
		if d := s.EndTime().Sub(s.StartTime()); d < time.Millisecond || d > 10*time.Millisecond {
			t.Errorf("span %d lasts %v; the attempt took 1-3ms", i, d)
		}
		for key, v := range map[string]any{"server.address": want.host, "db.namespace": "music", "db.collection.name": "tracks",
			"cqlgen.attempt": want.attempt, "db.system.name": "cassandra", "server.port": int64(9042)} {
			if got, ok := attr(s.Attributes(), key); !ok || got.AsInterface() != v {
				t.Errorf("span %d: %s = %v, want %v", i, key, got.AsInterface(), v)
			}
		}
		if got := s.Status().Code == codes.Error; got != want.failed {
			t.Errorf("span %d: status %v", i, s.Status())
		}
		for _, kv := range s.Attributes() {
			if kv.Value.Type() == attribute.STRING && kv.Value.AsString() == secret.Error() {
				t.Errorf("span %d carries the error's text in %s", i, kv.Key)
			}
		}
		if s.Status().Description == secret.Error() {
			t.Errorf("span %d carries the error's text in its status", i)
		}
	}
}

// Calls, attempts, rows and retries become metrics with few attributes.
func TestMetrics(t *testing.T) {
	obs, _, reader := setup(t)
	for i := range 2 {
		ctx := obs.StartCall(context.Background(), cqlobserve.Call{Entity: "Track", Method: "TopTracksByArtist"})
		obs.Observe(ctx, cqlobserve.Observation{Table: "top_tracks_by_artist", Pattern: "TopTracksByArtist", Kind: cqlgen.Read, Attempt: 1 + i, Latency: time.Millisecond, Rows: 10})
		obs.EndCall(ctx, cqlobserve.CallObservation{Call: cqlobserve.Call{Entity: "Track", Method: "TopTracksByArtist"}, Latency: 2 * time.Millisecond, Rows: 10})
	}
	obs.EndCall(context.Background(), cqlobserve.CallObservation{Call: cqlobserve.Call{Entity: "Track", Method: "Get"}, Err: cqlgen.ErrNotFound})

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != otelcqlgen.ScopeName {
			t.Errorf("scope %q", sm.Scope.Name)
		}
		for _, m := range sm.Metrics {
			got[m.Name] = m.Data
		}
	}
	calls, _ := got["cqlgen.call.duration"].(metricdata.Histogram[float64])
	var byMethod = map[string]uint64{}
	for _, dp := range calls.DataPoints {
		m, _ := dp.Attributes.Value("cqlgen.method")
		e, _ := dp.Attributes.Value("error.type")
		byMethod[m.AsString()+"/"+e.AsString()] += dp.Count
	}
	if byMethod["TopTracksByArtist/"] != 2 || byMethod["Get/not_found"] != 1 || len(byMethod) != 2 {
		t.Errorf("call durations by method/error: %v", byMethod)
	}
	attempts, _ := got["db.client.operation.duration"].(metricdata.Histogram[float64])
	if len(attempts.DataPoints) != 1 || attempts.DataPoints[0].Count != 2 {
		t.Errorf("attempt durations: %+v", attempts.DataPoints)
	}
	rows, _ := got["db.client.response.returned_rows"].(metricdata.Histogram[int64])
	if len(rows.DataPoints) != 1 || rows.DataPoints[0].Sum != 20 {
		t.Errorf("returned rows: %+v", rows.DataPoints)
	}
	retries, _ := got["cqlgen.retries"].(metricdata.Sum[int64])
	if len(retries.DataPoints) != 1 || retries.DataPoints[0].Value != 1 {
		t.Errorf("retries: %+v", retries.DataPoints)
	}
}
