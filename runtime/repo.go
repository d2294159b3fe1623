package cqlgen

import (
	"context"
	"errors"
	"time"

	"github.com/gocql/gocql"
)

// Options configure a generated repository, and each of its calls.
type Options struct {
	// Strategy writes the statements of one logical write; default
	// LoggedBatch.
	Strategy Strategy
	// Clock gives write timestamps and "now" for time buckets; default
	// time.Now.
	Clock func() time.Time
	// Concurrency bounds the hash buckets a read queries at once; default 16.
	Concurrency int
	// Attempts bounds how often Update and Delete retry a conditional write
	// that lost a race with another writer; default 8.
	Attempts int
	// Idempotency, when it has a key, makes Insert apply at most once
	// within its TTL however often it is sent (see Apply).
	Idempotency Idempotency
}

// Option sets an option.
type Option func(*Options)

// WithStrategy selects the fan-out strategy.
func WithStrategy(s Strategy) Option { return func(o *Options) { o.Strategy = s } }

// WithClock sets the clock of write timestamps and time buckets.
func WithClock(now func() time.Time) Option { return func(o *Options) { o.Clock = now } }

// WithConcurrency bounds the hash buckets read at once.
func WithConcurrency(n int) Option { return func(o *Options) { o.Concurrency = n } }

// WithAttempts bounds the retries of a conditional write that lost a race.
func WithAttempts(n int) Option { return func(o *Options) { o.Attempts = n } }

// WithIdempotencyKey makes one call apply at most once within the default
// TTL, however often it is retried with the same key (see Apply): pass it
// per call, with a key the caller derives from the command (a request id).
func WithIdempotencyKey(key string) Option { return func(o *Options) { o.Idempotency.Key = key } }

// NewOptions applies opts over the defaults.
func NewOptions(opts ...Option) Options {
	o := Options{Strategy: LoggedBatch, Clock: time.Now, Concurrency: 16, Attempts: 8}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// With returns o with per-call options applied.
func (o Options) With(opts []Option) Options {
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Now is the clock's time, as a write timestamp in microseconds.
func (o Options) Now() int64 { return o.Clock().UnixMicro() }

// NextVersion returns the write timestamp for a change of an entity whose
// last write had timestamp old: now, but always at least old+2, so that
// the change (whose inserts go at +1, see DeleteThenInsert) wins over every
// statement of the last write even when clocks disagree.
func NextVersion(old int64, now int64) int64 { return max(now, old+2) }

// casBackoff spaces out writers that lost a conditional write to each other.
var casBackoff = RetryOptions{BaseDelay: 2 * time.Millisecond, MaxDelay: 500 * time.Millisecond}

// Backoff waits before attempt n (from 1) of a conditional write that lost
// a race, with exponential backoff and full jitter, so that writers spread
// out. It returns early with the context's error.
func Backoff(ctx context.Context, n int) error { return sleepCtx(ctx, casBackoff.backoff(n)) }

// Unset leaves a column as it is: bound in place of a nil pointer or an
// empty collection, it writes nothing, where null would write a tombstone.
var Unset any = gocql.UnsetValue

// OrUnset binds a pointer field: its value, or Unset when nil.
func OrUnset[T any](p *T) any {
	if p == nil {
		return Unset
	}
	return *p
}

// SliceOrUnset binds a list or set field: the slice, or Unset when empty.
func SliceOrUnset[S ~[]E, E any](s S) any {
	if len(s) == 0 {
		return Unset
	}
	return s
}

// MapOrUnset binds a map or set field: the map, or Unset when empty.
func MapOrUnset[M ~map[K]V, K comparable, V any](m M) any {
	if len(m) == 0 {
		return Unset
	}
	return m
}

// GetRow reads at most one row; ErrNotFound when there is none.
func GetRow[T any](ctx context.Context, s Session, q Query, scan func(Iter) (T, bool)) (T, error) {
	it := s.Iter(ctx, q)
	row, ok := scan(it)
	if err := it.Close(); err != nil {
		var zero T
		return zero, err
	}
	if !ok {
		var zero T
		return zero, ErrNotFound
	}
	return row, nil
}

// ChangeVersioned runs a change of an entity whose canonical table has a
// version column: it reads the canonical row and its version with read,
// applies the conditional write cas builds for the current row and a new
// version (max(now, version+2)), and once that applied, runs the writes
// after builds (the other tables) under o.Strategy. A conditional write
// that lost a race with another writer is retried from the read, with
// jittered backoff, up to o.Attempts times; then the change gives up with
// a *NotAppliedError. When the row is missing it returns ErrNotFound, or
// nil when missingOK (deleting what is gone).
func ChangeVersioned[T any](ctx context.Context, s Session, o Options, read Query, scan func(Iter) (Versioned[T], bool),
	cas func(cur *Versioned[T], ts int64) Query, after func(cur *Versioned[T], ts int64) []Query, missingOK bool,
) error {
	for attempt := 1; ; attempt++ {
		cur, err := GetRow(ctx, s, read, scan)
		if err != nil {
			if missingOK && errors.Is(err, ErrNotFound) {
				return nil
			}
			return err
		}
		ts := NextVersion(cur.Version, o.Now())
		q := cas(&cur, ts)
		var now int64
		applied, err := s.ExecCAS(ctx, q, &now)
		if err != nil {
			return err
		}
		if applied {
			return o.Strategy.Apply(ctx, s, after(&cur, ts))
		}
		if attempt >= o.Attempts {
			return &NotAppliedError{Table: q.Stmt.Table, Current: map[string]any{"cqlgen_version": now}}
		}
		if err := Backoff(ctx, attempt); err != nil {
			return err
		}
	}
}
