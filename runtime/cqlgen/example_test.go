package cqlgen_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
)

// slogObserver adapts cqlgen's Observer to log/slog: successful attempts at
// debug level, failed ones (which the session may still retry) as
// warnings.
type slogObserver struct{ log *slog.Logger }

func (s slogObserver) Observe(ctx context.Context, o cqlobserve.Observation) {
	level := slog.LevelDebug
	if o.Err != nil || o.BatchWarn {
		level = slog.LevelWarn
	}
	if !s.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("table", o.Table),
		slog.String("pattern", o.Pattern),
		slog.Int("attempt", o.Attempt),
		slog.Duration("latency", o.Latency),
	}
	if o.Batch > 0 {
		attrs = append(attrs, slog.Int("batch", o.Batch), slog.Int("batch_bytes", o.BatchBytes))
	}
	if o.Err != nil {
		attrs = append(attrs, slog.String("err", o.Err.Error()))
	}
	s.log.LogAttrs(ctx, level, "cql", attrs...)
}

func ExampleObserver_slog() {
	// Times are dropped so the output is stable.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	opts := &cqlgen.SessionOptions{Observer: slogObserver{logger}}
	// session := gocqlv1.NewSession(gocqlSession, opts)

	// What the session reports for a write retried once after a timeout:
	ctx := context.Background()
	o := cqlobserve.Observation{Table: "listening_history", Pattern: "Play.Insert", Kind: cqlgen.Write, Attempt: 1,
		Latency: 12 * time.Millisecond, Err: errors.New("gocql: no response received from cassandra within timeout period")}
	opts.Observer.Observe(ctx, o)
	o.Attempt, o.Latency, o.Err = 2, 3*time.Millisecond, nil
	opts.Observer.Observe(ctx, o)
	// Output:
	// level=WARN msg=cql table=listening_history pattern=Play.Insert attempt=1 latency=12ms err="gocql: no response received from cassandra within timeout period"
	// level=DEBUG msg=cql table=listening_history pattern=Play.Insert attempt=2 latency=3ms
}
