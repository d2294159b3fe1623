package promcqlgen_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cqlgen/cqlgen/observe/promcqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	obs, err := promcqlgen.New(reg, &promcqlgen.Options{ConstLabels: prometheus.Labels{"service": "music"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := obs.StartCall(context.Background(), cqlobserve.Call{Entity: "Track", Method: "Update"})
	obs.Observe(ctx, cqlobserve.Observation{Table: "tracks", Pattern: "Tracks", Kind: cqlgen.PreRead, Attempt: 1, Latency: 2 * time.Millisecond, Rows: 1})
	obs.Observe(ctx, cqlobserve.Observation{Table: "tracks", Pattern: "Tracks", Kind: cqlgen.Conditional, Attempt: 1, Latency: time.Millisecond,
		Err: errors.New("timed out writing 'hunter2'")})
	obs.Observe(ctx, cqlobserve.Observation{Table: "tracks", Pattern: "Tracks", Kind: cqlgen.Conditional, Attempt: 2, Latency: time.Millisecond})
	obs.Observe(ctx, cqlobserve.Observation{Table: "by_artist", Pattern: "ByArtist", Kind: cqlgen.Write, Attempt: 1, Latency: time.Millisecond, Batch: 2, BatchBytes: 9000, BatchWarn: true})
	obs.Observe(ctx, cqlobserve.Observation{Table: "by_artist", Pattern: "ByArtist", Kind: cqlgen.Write, Attempt: 0, Err: &cqlgen.InputError{Err: cqlgen.ErrBatchTooLarge}})
	obs.EndCall(ctx, cqlobserve.CallObservation{Call: cqlobserve.Call{Entity: "Track", Method: "Update"}, Latency: 5 * time.Millisecond, Attempts: 4, Retries: 1})
	obs.EndCall(ctx, cqlobserve.CallObservation{Call: cqlobserve.Call{Entity: "Track", Method: "Get"}, Err: cqlgen.ErrNotFound})

	want := `
# HELP cqlgen_retries_total Attempts of statements that were retries.
# TYPE cqlgen_retries_total counter
cqlgen_retries_total{kind="conditional",pattern="Tracks",service="music",table="tracks"} 1
# HELP cqlgen_refused_total Statements refused before sending.
# TYPE cqlgen_refused_total counter
cqlgen_refused_total{error="batch_too_large",pattern="ByArtist",service="music",table="by_artist"} 1
# HELP cqlgen_batch_warnings_total Statements sent in a batch over the warning size.
# TYPE cqlgen_batch_warnings_total counter
cqlgen_batch_warnings_total{pattern="ByArtist",service="music",table="by_artist"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cqlgen_retries_total", "cqlgen_refused_total", "cqlgen_batch_warnings_total"); err != nil {
		t.Error(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if h := m.GetHistogram(); h != nil {
				var labels []string
				for _, l := range m.GetLabel() {
					if l.GetName() != "service" {
						labels = append(labels, l.GetValue())
					}
				}
				counts[f.GetName()+"{"+strings.Join(labels, ",")+"}"] += h.GetSampleCount()
			}
			for _, l := range m.GetLabel() {
				if strings.Contains(l.GetValue(), "hunter2") {
					t.Errorf("%s carries the error's text", f.GetName())
				}
			}
		}
	}
	for key, n := range map[string]uint64{
		"cqlgen_call_duration_seconds{Track,,Update}":                      1,
		"cqlgen_call_duration_seconds{Track,not_found,Get}":                1,
		"cqlgen_attempt_duration_seconds{,pre-read,Tracks,tracks}":         1,
		"cqlgen_attempt_duration_seconds{other,conditional,Tracks,tracks}": 1,
		"cqlgen_attempt_duration_seconds{,conditional,Tracks,tracks}":      1,
		"cqlgen_attempt_duration_seconds{,write,ByArtist,by_artist}":       1,
		"cqlgen_returned_rows{pre-read,Tracks,tracks}":                     1,
	} {
		if counts[key] != n {
			t.Errorf("%s: %d samples, want %d", key, counts[key], n)
		}
	}
	if len(counts) != 7 {
		t.Errorf("histogram series: %v", counts)
	}

	if _, err := promcqlgen.New(reg, &promcqlgen.Options{ConstLabels: prometheus.Labels{"service": "music"}}); err == nil {
		t.Error("a second Observer registered the same metrics on one registry")
	}
}
