package cqlgen

import (
	"context"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
)

// Options configure a generated repository, and each of its calls: pass
// them to its constructor (New<Entity>Repo) and, to override them for one
// call, to a write method.
type Options struct {
	// Strategy writes the statements of one logical write; default
	// LoggedBatch.
	Strategy Strategy
	// Clock gives write timestamps and "now" for time buckets; default
	// time.Now.
	Clock func() time.Time
	// Concurrency bounds the hash buckets a read queries at once; default
	// DefaultReadConcurrency.
	Concurrency int
	// Scatter is how a read of a pattern split over hash buckets, or a
	// walk back over time buckets, reaches several buckets at once;
	// default ScatterCoordinator.
	Scatter Scatter
	// MaxLimit bounds the page size a read may ask for; default
	// DefaultMaxLimit. A larger Limit gets an *InputError (ErrInvalidLimit).
	MaxLimit int
	// MaxKeys bounds the keys a multi-get may ask for; default
	// DefaultMaxKeys. More get an *InputError (ErrInvalidLimit).
	MaxKeys int
	// CursorKey, when set, seals the cursors of reads: encrypted and
	// authenticated, so a cursor can be neither read (its clustering
	// values, an email say, never show in a URL) nor forged. Without it,
	// a cursor carries the values in clear with a checksum; either way a
	// read checks what a cursor says against its own bounds.
	CursorKey []byte
	// SerialConsistency is the Paxos consistency of the conditional
	// writes of the write protocol and of idempotency keys: 0 keeps the
	// session's, LocalSerial by default. LocalSerial rounds in two
	// datacenters do not see each other, so two writers in two
	// datacenters could both win: an entity written from several
	// datacenters needs Serial, at the price of a round trip
	// between them.
	SerialConsistency cqldriver.Consistency
	// Attempts bounds how often Update and Delete retry a conditional write
	// that lost a race with another writer; default 8.
	Attempts int
	// LandWindow is how long after a conditional write of the write
	// protocol was sent its coordinator may still apply it; default
	// DefaultLandWindow. A write whose reply was lost is settled "not
	// applied" only once the window has passed (docs/repositories.md).
	LandWindow time.Duration
	// Idempotency, when it has a key, makes Insert apply at most once
	// within its TTL however often it is sent (see WithIdempotencyKey).
	Idempotency base.Idempotency
	// Expect is the version a write of an entity stored in several tables
	// expects to find (see IfVersion and IfAbsent); 0 expects nothing.
	Expect int64
	// TTL is the time to live of the rows one call writes (see WithTTL);
	// 0 leaves each table's default_time_to_live to apply.
	TTL time.Duration
	// ScanRate bounds the rows per second the repository's scans read
	// together (see WithScanRate); 0: no bound.
	ScanRate int
	// ScanLimiter, when set, is asked before each request of a scan for
	// the rows it asks for: WaitN(ctx, n) returns once they may be read
	// (a *rate.Limiter of golang.org/x/time/rate does, with a burst of at
	// least the largest page). The repository makes one from ScanRate
	// when it is nil.
	ScanLimiter interface {
		WaitN(ctx context.Context, n int) error
	}
}

// MaxTTL is the longest time to live Cassandra takes: 20 years.
const MaxTTL = 20 * 365 * 24 * time.Hour

// WithTTL makes the rows an Insert or Update writes expire after d, a whole
// number of seconds from 1s to MaxTTL, instead of after their table's default
// (ttl:"..."), if any: USING TTL on the write. Pass it per call. Only an entity
// stored in one table takes it; the repositories of other entities, a Delete
// and a counter Add refuse it with an *InputError (ErrInvalidOption), because
// the rows they write could not all expire together (see docs/repositories.md,
// "Time to live").
func WithTTL(d time.Duration) Option { return func(o *Options) { o.TTL = d } }

// Absent is the version IfAbsent expects: no entity at all.
const Absent int64 = -1

// IfVersion makes an Update, Delete or Insert of an entity kept by the
// write protocol apply only if the entity is still at version v, the one
// GetVersioned returned: a compare-and-set on the whole entity. Anything
// else gets a *VersionConflictError, and nothing is written. A row
// written outside cqlgen (before it, or by another program) has no
// version of its own: GetVersioned gives it 1, which IfVersion holds to
// until the row's first change. Other repositories refuse the option
// with an *InputError (ErrInvalidOption).
func IfVersion(v int64) Option { return func(o *Options) { o.Expect = v } }

// IfAbsent makes an Insert apply only if the entity does not exist (for
// an entity kept by the write protocol, a deleted one does not): create,
// never replace. Otherwise it gets a *VersionConflictError. An entity
// stored in one table honours it with INSERT ... IF NOT EXISTS; its
// InsertIfAbsent says the same with the row found.
func IfAbsent() Option { return func(o *Options) { o.Expect = Absent } }

// Option sets an option.
type Option func(*Options)

// WithStrategy selects the fan-out strategy.
func WithStrategy(s Strategy) Option { return func(o *Options) { o.Strategy = s } }

// WithClock sets the clock of write timestamps and time buckets.
func WithClock(now func() time.Time) Option { return func(o *Options) { o.Clock = now } }

// DefaultReadConcurrency is how many hash buckets a read queries at once
// by default. (DefaultConcurrency is the Concurrent strategy's bound.)
const DefaultReadConcurrency = 16

// WithCursorKey seals cursors with key (any length; keep it secret, and
// the same on every instance that serves the same reads). Changing it
// invalidates the cursors handed out before.
func WithCursorKey(key []byte) Option { return func(o *Options) { o.CursorKey = key } }

// WithSerialConsistency sets the Paxos consistency of a repository's
// conditional writes (see Options.SerialConsistency).
func WithSerialConsistency(c cqldriver.Consistency) Option {
	return func(o *Options) { o.SerialConsistency = c }
}

// WithMaxLimit bounds the page size a read may ask for.
func WithMaxLimit(n int) Option { return func(o *Options) { o.MaxLimit = n } }

// Scatter is how a read of a pattern split over hash buckets asks every
// bucket for its first rows, before it merges them, and how a walk back
// over time buckets reads the older buckets of a round (1, 2, 4 ... up to
// Concurrency buckets at once).
type Scatter uint8

const (
	// ScatterCoordinator sends one request that names every bucket
	// (bucket IN ?, PER PARTITION LIMIT ?, unpaged), and the coordinator
	// gathers them: one round trip from the client, however many
	// buckets. A bucket the merge drains while it may hold more is read
	// again on its own, as is a cursor's time bucket. This is the
	// default: on one node it reads a page over 16 buckets in two thirds
	// of the time of 16 requests, over 100 in a third (bench/README.md).
	ScatterCoordinator Scatter = iota
	// ScatterClient sends one request per bucket, each to a replica of
	// its bucket (token-aware), at most Concurrency at once. It spares
	// the coordinator holding every bucket's rows at once and reading
	// partitions it does not own, which matters on a large cluster
	// under load, and a cluster whose guardrail
	// partition_keys_in_select_fail_threshold refuses an IN over as many
	// partitions as there are buckets.
	ScatterClient
)

// WithScatter sets how reads over hash buckets reach them.
func WithScatter(s Scatter) Option { return func(o *Options) { o.Scatter = s } }

// WithConcurrency bounds the hash buckets read at once.
func WithConcurrency(n int) Option { return func(o *Options) { o.Concurrency = n } }

// WithAttempts bounds the retries of a conditional write that lost a race.
func WithAttempts(n int) Option { return func(o *Options) { o.Attempts = n } }

// DefaultLandWindow is Cassandra's default cas_contention_timeout (1 s),
// how long a coordinator starts new Paxos rounds of one conditional
// write, plus its default write_request_timeout (2 s), how long the last
// round's messages may take.
const DefaultLandWindow = 3 * time.Second

// WithLandWindow sets how long after a conditional write was sent its
// coordinator may still apply it: cas_contention_timeout plus
// write_request_timeout of the cluster, when they are not Cassandra's
// defaults (DefaultLandWindow).
func WithLandWindow(d time.Duration) Option { return func(o *Options) { o.LandWindow = d } }

// WithIdempotencyKey makes one call apply at most once within the default
// TTL, however often it is retried with the same key (see WithIdempotencyKey): pass it
// per call, with a key the caller derives from the command (a request id).
func WithIdempotencyKey(key string) Option { return func(o *Options) { o.Idempotency.Key = key } }
