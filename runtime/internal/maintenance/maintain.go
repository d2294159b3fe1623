package maintenance

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/engine"

	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
	"github.com/cqlgen/cqlgen/runtime/internal/value"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Verify, repair and backfill. The source of truth is scanned over token
// ranges; every row of another table it implies is derived with the
// generated Row function, exactly as the write protocol writes it. Rows
// are compared by digests first: each table's rows, expected and
// present, are hashed and summed into buckets (by primary key); only the
// buckets whose sums differ are compared row by row, in a second scan.
// A table in step is read once and no row is held in memory; a table
// with drift holds at most Options.Hold rows, its mismatched buckets
// narrowed to the sub-buckets that differ first (narrow.go).
//
// Repair rewrites the entity of a missing or stale row through the write
// protocol: one conditional write sets a new version (at least now), and
// every table gets the entity's rows at that version + 1µs. They win over
// a write made outside the protocol before (a row deleted by hand), and a
// later change, at a higher version still, wins over them. It deletes an orphan
// at the orphan's own write timestamp, after reading the entity's
// canonical row again and finding it implies another row or none: a
// later legitimate write of that key, at a higher version, wins.

func (o *maintain) defaults() {
	if o.Ranges <= 0 {
		o.Ranges = 64
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.Buckets <= 0 {
		o.Buckets = 4096
	}
	if o.Samples <= 0 {
		o.Samples = 10
	}
	if o.Hold <= 0 {
		o.Hold = 4096
	}
}

type maintain struct {
	cqlmaintain.Options
	start    time.Time
	mu       sync.Mutex
	progress cqlmaintain.Progress
	last     time.Time
	limiter  *limiter
}

func newMaintain(o *cqlmaintain.Options) *maintain {
	m := &maintain{start: time.Now()}
	if o != nil {
		m.Options = *o
	}
	m.defaults()
	if m.Rate > 0 {
		// The job's rate, split among its workers.
		m.limiter = &limiter{per: time.Second * time.Duration(max(m.Shards, 1)) / time.Duration(m.Rate)}
	}
	return m
}

// sharded reports whether the run is a worker of a job given its share
// (of one worker, or of several): the job, not the worker, is verified
// once every share is done.
func (m *maintain) sharded() bool { return m.Shards >= 1 }

// mine reports whether token range i is this worker's: every range
// unsharded, else every Shards-th from Shard, so that each worker's
// ranges spread over the ring.
func (m *maintain) mine(i int) bool { return m.Shards <= 1 || i%m.Shards == m.Shard }

// ranges is how many token ranges are this worker's.
func (m *maintain) ranges() int {
	if !m.sharded() {
		return m.Ranges
	}
	n := m.Ranges / m.Shards
	if m.Shard < m.Ranges%m.Shards {
		n++
	}
	return n
}

// checkShard refuses a shard that names no worker of the run, or more
// workers than ranges.
func (m *maintain) checkShard() error {
	switch {
	case m.Shards < 0 || m.Shard < 0 || (m.Shards > 0 && m.Shard >= m.Shards):
		return fmt.Errorf("cqlgen: shard %d of %d: want 0 <= shard < shards", m.Shard, m.Shards)
	case m.Shards > m.Ranges:
		return fmt.Errorf("cqlgen: %d shards of %d token ranges: some workers would have none; give more ranges", m.Shards, m.Ranges)
	case m.sharded() && m.Job == "":
		return errors.New("cqlgen: a sharded run needs a job, under which each worker records the ranges it finished")
	}
	return nil
}

// report advances the progress and calls the callback at most once a
// second (always when final). ranges is the ranges in all; 0 keeps the
// count the phase before set, as a repair does after the scans.
func (m *maintain) report(phase string, ranges, done int, rows int64, final bool) {
	if m.Progress == nil {
		return
	}
	m.mu.Lock()
	m.progress.Phase = phase
	if ranges > 0 {
		m.progress.Ranges = ranges
	}
	m.progress.Done += done
	m.progress.Rows += rows
	m.progress.Elapsed = time.Since(m.start)
	p := m.progress
	now := time.Now()
	due := final || now.Sub(m.last) >= time.Second
	if due {
		m.last = now
	}
	m.mu.Unlock()
	if due {
		m.Progress(p)
	}
}

// limiter spaces out writes to a rate, across goroutines.
type limiter struct {
	mu   sync.Mutex
	next time.Time
	per  time.Duration
}

func (l *limiter) wait(ctx context.Context) error {
	if l == nil {
		return ctx.Err()
	}
	l.mu.Lock()
	now := time.Now()
	if l.next.Before(now) {
		l.next = now
	}
	at := l.next
	l.next = l.next.Add(l.per)
	l.mu.Unlock()
	if d := time.Until(at); d > 0 {
		return engine.Sleep(ctx, d)
	}
	return ctx.Err()
}

// scanRange runs a token-range scan to the end, paging, handing each row
// to scan (which reads it from the iterator) until scan returns false.
func scanRange(ctx context.Context, s cqlgen.Session, stmt *cqldriver.Statement, lo, hi int64, scan func(cqldriver.Iter) bool) error {
	q := cqldriver.Query{Stmt: stmt, Values: []any{lo, hi}, PageSize: 1000}
	for {
		it := s.Iter(ctx, q)
		for scan(it) {
		}
		state := it.PageState()
		if err := it.Close(); err != nil {
			return err
		}
		if len(state) == 0 {
			return nil
		}
		q.PageState = state
	}
}

// eachRange runs f on every token range, Concurrency at once, and returns
// the first error.
func (m *maintain) eachRange(ctx context.Context, skip func(int) bool, f func(ctx context.Context, i int, lo, hi int64) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, m.Concurrency)
	var wg sync.WaitGroup
	errs := make([]error, m.Ranges)
	for i := range m.Ranges {
		if !m.mine(i) || (skip != nil && skip(i)) {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			lo, hi := desc.TokenRange(i, m.Ranges)
			if errs[i] = f(ctx, i, lo, hi); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	if err := desc.FirstError(errs); err != nil {
		return err
	}
	return ctx.Err()
}

// row is one row of a table other than the source of truth, by its
// encoded columns.
type row struct {
	cols      [][]byte // every column of the Insert, in order
	nkey      int      // the primary key columns, first
	writetime int64    // the row's last write; 0: none read
}

// key is the row's primary key, its columns length-prefixed.
func (r *row) key() string {
	var b []byte
	for _, c := range r.cols[:r.nkey] {
		b = binary.AppendUvarint(b, uint64(len(c)))
		b = append(b, c...)
	}
	return string(b)
}

// hash is FNV-1a over the row's columns, each length-prefixed (null:
// 0xff), computed in place: no allocation a row.
func (r *row) hash() uint64 {
	h := fnvOffset
	var n [binary.MaxVarintLen64]byte
	for _, c := range r.cols {
		if c == nil {
			h = fnvAdd(h, []byte{0xff})
			continue
		}
		h = fnvAdd(h, n[:binary.PutUvarint(n[:], uint64(len(c)))])
		h = fnvAdd(h, c)
	}
	return h
}

// bucket is FNV-1a of the row's key (as key encodes it) modulo n,
// without building the key.
func (r *row) bucket(n int) int {
	return int(r.keyHash() % uint64(n))
}

const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime         = 1099511628211
)

// fnvAdd is hash/fnv's New64a written b, on h.
func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

func (r *row) keyWords(t *desc.Table, show bool) string {
	var parts []string
	for i, c := range r.cols[:r.nkey] {
		col := t.KeyColumn(i)
		v := redactValue(c)
		if show {
			v = value.RenderEncoded(col.Type, c)
		}
		parts = append(parts, col.Name+"="+v)
	}
	return strings.Join(parts, " ")
}

// redactValue stands for an encoded key value in a report that must not
// show it: "#" and the first 8 hex digits of the SHA-256 of its bytes as
// Cassandra stores them. It is stable, so that one value reads the same
// in two reports, in two tables and in a report shown with
// cqlmaintain.Options.ShowKeys, whose values a person can hash to match;
// it hides a value from a reader who does not already guess it, not
// from one who can try every candidate (a small integer, a known email).
func redactValue(b []byte) string {
	sum := sha256.Sum256(b)
	return "#" + hex.EncodeToString(sum[:4])
}

// encodeRow encodes the values an Insert binds (its timestamp left off),
// as Cassandra stores them: an empty collection is no value, and sets and
// maps are in Cassandra's order (see marshalSorted).
func encodeRow(t *desc.Table, values []any) (*row, error) {
	return new(rowEncoder).encode(t, values)
}

// sortedCell is cqldriver.Canonical for a column's value as read; a type that
// does not parse leaves it as it is.
func sortedCell(cqlType string, c []byte) []byte {
	t, err := cqldriver.ParseType(cqlType)
	if err != nil {
		return c
	}
	return cqldriver.Canonical(t, c)
}

func isCollection(cqlType string) bool {
	t := strings.TrimPrefix(cqlType, "frozen<")
	return !strings.HasPrefix(cqlType, "frozen<") &&
		(strings.HasPrefix(t, "list<") || strings.HasPrefix(t, "set<") || strings.HasPrefix(t, "map<"))
}

// digests are one table's bucket sums: of hashes, and of rows.
type digests struct {
	sum   []uint64
	count []int64
}

func newDigests(n int) *digests { return &digests{sum: make([]uint64, n), count: make([]int64, n)} }

func (d *digests) add(o *digests) {
	for i := range d.sum {
		d.sum[i] += o.sum[i]
		d.count[i] += o.count[i]
	}
}

// The maintenance path is compiled once for all entity types. Every
// entity struct is a GC shape of its own, so a generic body is stenciled
// again for each entity: a generated package of fifty entities carried
// fifty copies of Verify, Repair and Backfill, a megabyte of machine code
// its every build compiled. Maintain and Backfill, which generated code
// calls, are thin generic wrappers instead: they take a type-erased view
// of the entity (entityView), built once per call, and run the
// non-generic code below on it. An entity there is an any holding a P,
// which the view's closures convert back; the conversions cost a type
// assertion per call and an allocation per canonical row scanned, which a
// batch job reading whole tables over the network does not notice.

// entityView is an *desc.EntityOf[P] with P erased, as the maintenance path uses
// it. Its closures take an entity as an any holding a P, and a
// projection by its index in Entity.Projections.
type entityView struct {
	canonical   *desc.Table
	immutable   bool
	projections []projectionView
	// scanState reads a canonical row, as Entity.ScanState does.
	scanState func(cqldriver.Iter) (stateView, bool)
	// holds, key and row are Projection's holds, Key and Row (never
	// unset).
	holds func(p int, e any) bool
	key   func(p int, e any) []any
	row   func(p int, e any, ts int64) []any
	// touch writes a live entity again, unchanged, through the write
	// protocol (opTouch), under default options.
	touch func(ctx context.Context, s cqlgen.Session, e any) error
	// claim claims e's key in unique projection p for its change at
	// version, under default options, as the protocol does.
	claim func(ctx context.Context, s cqlgen.Session, p int, e any, version int64) error
	// adopt gives a live entity written outside the protocol, as read
	// by scanState, a version: the protocol's touch, starting from the
	// state read (a row changed since is read again).
	adopt func(ctx context.Context, s cqlgen.Session, st *stateView) error
	// fence is Entity.fence on a state read by scanState.
	fence func(ctx context.Context, s cqlgen.Session, o cqlgen.Options, owner []any, st *stateView, found bool) (bool, error)
}

// projectionView is what the maintenance path reads of a Projection
// without calling it.
type projectionView struct {
	table      *desc.Table
	unique     bool
	writetimes int
	owner      []int
}

// stateView is a State[P] with T erased: state holds the *State[P] read
// (nil for none), row its P, for the closures, and the fields the
// maintenance path reads are copied out.
type stateView struct {
	state   any
	row     any
	version int64
	deleted bool
}

// view builds ent's type-erased view, once per Maintain or Backfill.
func view[P any](ent *desc.EntityOf[P]) *entityView {
	v := &entityView{canonical: ent.Canonical, immutable: ent.Immutable}
	for _, p := range ent.Projections {
		v.projections = append(v.projections, projectionView{table: p.Table, unique: p.Unique, writetimes: p.Writetimes, owner: p.Owner})
	}
	v.scanState = func(it cqldriver.Iter) (stateView, bool) {
		st, ok := ent.ScanCanonical(it)
		if !ok {
			return stateView{}, false
		}
		return stateView{state: &st, row: st.Row, version: st.Version, deleted: st.Deleted}, true
	}
	v.holds = func(p int, e any) bool { return desc.Holds(&ent.Projections[p], e.(P)) }
	v.key = func(p int, e any) []any { return ent.Projections[p].Key(e.(P)) }
	v.row = func(p int, e any, ts int64) []any { return ent.Projections[p].Row(e.(P), ts, false) }
	v.touch = func(ctx context.Context, s cqlgen.Session, e any) error {
		return protocol.Public(protocol.WriteOp(ctx, s, desc.NewOptions(), ent, desc.OpTouch, e.(P)))
	}
	v.adopt = func(ctx context.Context, s cqlgen.Session, sv *stateView) error {
		st := sv.state.(*desc.State[P])
		return protocol.Public(protocol.WriteFrom(ctx, s, desc.NewOptions(), ent, desc.OpTouch, st.Row, st))
	}
	v.claim = func(ctx context.Context, s cqlgen.Session, p int, e any, version int64) error {
		return protocol.Claim(ent, ctx, s, desc.NewOptions(), &ent.Projections[p], e.(P), version)
	}
	v.fence = func(ctx context.Context, s cqlgen.Session, o cqlgen.Options, owner []any, sv *stateView, found bool) (bool, error) {
		st, _ := sv.state.(*desc.State[P])
		if st == nil {
			// None read: the zero State, as GetRow returns it.
			st = new(desc.State[P])
		}
		return protocol.Fence(ent, ctx, s, o, owner, st, found)
	}
	return v
}

// verification is the state of one Verify or Repair.
type verification struct {
	ent    *entityView
	s      cqlgen.Session
	m      *maintain
	tables []int // the projections under check
	rep    *cqlmaintain.Report
	mu     sync.Mutex
}

// Maintain runs Verify (repair false) or Repair (repair true).
func Maintain[P any](ctx context.Context, s cqlgen.Session, ent *desc.EntityOf[P], entity string, repair bool, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return maintainView(ctx, s, view(ent), entity, repair, o)
}

func maintainView(ctx context.Context, s cqlgen.Session, ent *entityView, entity string, repair bool, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	if o != nil && o.Status {
		return jobStatus(ctx, s, ent, entity, o)
	}
	if repair && o != nil && o.Adopt {
		return adopt(ctx, s, ent, entity, o)
	}
	v := &verification{ent: ent, s: s, m: newMaintain(o), rep: &cqlmaintain.Report{Entity: entity, Source: ent.canonical.Spec.Name}}
	var err error
	if v.tables, err = ent.selectTables(v.m.Tables); err != nil {
		return nil, err
	}
	if err := v.m.checkShard(); err != nil {
		return nil, err
	}
	for _, i := range v.tables {
		v.rep.Tables = append(v.rep.Tables, cqlmaintain.TableReport{Table: ent.projections[i].table.Spec.Name})
	}
	if v.m.Job != "" {
		return v.byRange(ctx, repair)
	}
	err = v.run(ctx, repair)
	if err == nil && v.rep.Rows == 0 {
		err = v.unread(ctx)
	}
	if err == nil && repair && wrote(v.rep) {
		// What the repair left: a row a writer changed meanwhile is
		// in step by that writer's change; anything else is reported.
		after := quiet(o)
		v.rep.After, err = verifyAfter(ctx, s, ent, entity, &after)
	}
	v.rep.Elapsed = time.Since(v.m.start)
	v.m.done(err)
	return v.rep, err
}

// afterPause is how long verifyAfter waits before it checks drift again.
var afterPause = time.Second

// verifyAfter is the Verify that follows a repair, backfill or adopt.
// While the application writes, a change whose fan-out is in flight
// shows as drift for a moment: drift found is checked once more, after a
// pause, and only what is still there is reported.
func verifyAfter(ctx context.Context, s cqlgen.Session, ent *entityView, entity string, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	rep, err := maintainView(ctx, s, ent, entity, false, o)
	if err != nil || rep.Drift() == 0 {
		return rep, err
	}
	if err := engine.Sleep(ctx, afterPause); err != nil {
		return rep, err
	}
	return maintainView(ctx, s, ent, entity, false, o)
}

// quiet is o (or the defaults) for the Verify that follows a run, which
// reports no progress of its own.
func quiet(o *cqlmaintain.Options) cqlmaintain.Options {
	var c cqlmaintain.Options
	if o != nil {
		c = *o
	}
	c.Progress = nil
	return c
}

// wrote reports whether a repair wrote anything.
func wrote(r *cqlmaintain.Report) bool {
	for _, t := range r.Tables {
		if t.Inserted+t.Deleted > 0 {
			return true
		}
	}
	return r.Adopted > 0
}

// done reports the end of a run: "done" only when it succeeded.
func (m *maintain) done(err error) {
	phase := "done"
	if err != nil {
		phase = "stopped"
	}
	m.report(phase, 0, 0, 0, true)
}

// unread checks a run that read no entity against the source of truth
// itself: if a scan of the whole of it finds one, the run skipped rows
// (cqlmaintain.ErrUnread), and must not pass for one over an empty table.
func (v *verification) unread(ctx context.Context) error {
	var n scanned
	errFound := errors.New("found")
	err := v.scanCanonical(ctx, math.MinInt64, math.MaxInt64, &n, func(*stateView) error { return errFound })
	switch {
	case errors.Is(err, errFound):
		return fmt.Errorf("%w: %s holds entities, and the run read none of them", cqlmaintain.ErrUnread, v.ent.canonical.Spec.Name)
	case err != nil:
		return err
	}
	return nil
}

func (ent *entityView) selectTables(names []string) ([]int, error) {
	var out []int
	for i, p := range ent.projections {
		if len(names) == 0 || slices.Contains(names, p.table.Spec.Name) {
			out = append(out, i)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(ent.projections, func(p projectionView) bool { return p.table.Spec.Name == n }) {
			return nil, fmt.Errorf("cqlgen: %s is not a table %s writes besides its source of truth", n, ent.canonical.Spec.Name)
		}
	}
	return out, nil
}

// expected derives the row of projection p that a canonical row implies;
// callers first ask whether p holds the entity at all.
func (ent *entityView) expected(p int, st *stateView) (*row, []any, error) {
	values := ent.row(p, st.row, st.version+1)
	r, err := encodeRow(ent.projections[p].table, values)
	return r, values, err
}

// eachExpected hands f, range by range (ranges at once), each live
// entity of the source of truth that projection i holds and the row of i
// it implies, encoded into memory the range reuses: r is valid during
// the call only.
func (v *verification) eachExpected(ctx context.Context, i int, f func(ctx context.Context, st *stateView, r *row) error) error {
	ent, t := v.ent, v.ent.projections[i].table
	return v.m.eachRange(ctx, nil, func(ctx context.Context, _ int, lo, hi int64) error {
		var n scanned
		enc := new(rowEncoder)
		return v.scanCanonical(ctx, lo, hi, &n, func(st *stateView) error {
			if !ent.holds(i, st.row) {
				return nil
			}
			r, err := enc.encode(t, ent.row(i, st.row, st.version+1))
			if err != nil {
				return err
			}
			return f(ctx, st, r)
		})
	})
}

// scanned counts the rows a scan of the source of truth read, by what
// they were: every row is counted once, so that none is skipped unseen.
type scanned struct {
	live        int64 // entities, handed on
	unversioned int64 // of them, rows written outside the protocol
	graves      int64 // deleted entities, skipped
	statics     int64 // partitions' statics alone (no row), skipped
}

// into records the counts in a report.
func (c *scanned) into(r *cqlmaintain.Report) {
	r.Rows, r.Unversioned, r.Graves, r.StaticsOnly = c.live, c.unversioned, c.graves, c.statics
}

func (c *scanned) add(o scanned) {
	c.live += o.live
	c.unversioned += o.unversioned
	c.graves += o.graves
	c.statics += o.statics
}

// scanCanonical reads the live rows of the source of truth in a range,
// those written outside the protocol (cqlgen_version null) included, and
// counts into n what it read.
func (v *verification) scanCanonical(ctx context.Context, lo, hi int64, n *scanned, f func(*stateView) error) error {
	var ferr error
	first := v.ent.firstClustering()
	err := scanRange(ctx, v.s, v.ent.canonical.Scan, lo, hi, func(it cqldriver.Iter) bool {
		var probe *nullProbe
		if first >= 0 {
			probe = &nullProbe{Iter: it, at: first}
			it = probe
		}
		st, ok := v.ent.scanState(it)
		if !ok {
			return false
		}
		switch {
		case st.deleted:
			n.graves++
			return true
		case probe != nil && probe.null:
			// No row, only a partition's statics, which a scan returns
			// as a row with null clustering columns once its rows are
			// gone.
			n.statics++
			return true
		case !v.ent.immutable && st.version == 0:
			n.unversioned++
		}
		n.live++
		if ferr = f(&st); ferr != nil {
			return false
		}
		return true
	})
	if ferr != nil {
		return ferr
	}
	return err
}

// firstClustering is the position, among the columns the source of
// truth's Scan reads, of its first clustering column, where the table has
// static columns (and so rows of statics alone); -1 otherwise.
func (ent *entityView) firstClustering() int {
	spec := &ent.canonical.Spec
	if len(spec.Clustering) == 0 || !slices.ContainsFunc(spec.Columns, func(c desc.Column) bool { return c.Static }) {
		return -1
	}
	return slices.IndexFunc(ent.canonical.Data, func(c desc.Column) bool { return c.Name == spec.Clustering[0].Name })
}

// nullProbe is an Iter whose Scan also tells whether column at was null.
type nullProbe struct {
	cqldriver.Iter
	at   int
	null bool
}

func (p *nullProbe) Scan(dest ...any) bool {
	if p.at >= len(dest) {
		return p.Iter.Scan(dest...)
	}
	d := append([]any(nil), dest...)
	n := &nullable{dst: dest[p.at]}
	d[p.at] = n
	ok := p.Iter.Scan(d...)
	p.null = n.null
	return ok
}

// nullable decodes a value into dst, and records a null.
type nullable struct {
	dst  any
	null bool
}

func (n *nullable) UnmarshalCQLValue(t *cqldriver.Type, data []byte) error {
	n.null = data == nil
	if n.null {
		return nil
	}
	return cqldriver.Unmarshal(t, data, n.dst)
}

// scanProjection reads the rows of a projection in a range.
func scanProjection(ctx context.Context, s cqlgen.Session, p *desc.Table, writetimes int, lo, hi int64, f func(*row)) error {
	return scanRange(ctx, s, p.Scan, lo, hi, func(it cqldriver.Iter) bool {
		r, ok := readProjection(it, p, writetimes)
		if !ok {
			return false
		}
		if r != nil {
			f(r)
		}
		return true
	})
}

// readProjection reads one row of a projection, as its Scan (or keyRead)
// selects it: false at the end, a nil row for a partition's statics with
// no row.
func readProjection(it cqldriver.Iter, p *desc.Table, writetimes int) (*row, bool) {
	return newProjectionReader(p, writetimes).read(it)
}

func (v *verification) run(ctx context.Context, repair bool) error {
	m, ent := v.m, v.ent
	// Pass 1: digests of what the source of truth implies, and of what
	// every table holds.
	want := make([]*digests, len(ent.projections))
	have := make([]*digests, len(ent.projections))
	for _, i := range v.tables {
		want[i], have[i] = newDigests(m.Buckets), newDigests(m.Buckets)
	}
	var read scanned
	err := m.eachRange(ctx, nil, func(ctx context.Context, _ int, lo, hi int64) error {
		local := make([]*digests, len(ent.projections))
		for _, i := range v.tables {
			local[i] = newDigests(m.Buckets)
		}
		var n scanned
		// Each row is hashed and let go: one encoder's memory serves
		// the whole range.
		enc := new(rowEncoder)
		err := v.scanCanonical(ctx, lo, hi, &n, func(st *stateView) error {
			for _, i := range v.tables {
				if !ent.holds(i, st.row) {
					continue
				}
				r, err := enc.encode(ent.projections[i].table, ent.row(i, st.row, st.version+1))
				if err != nil {
					return err
				}
				b := r.bucket(m.Buckets)
				local[i].sum[b] += r.hash()
				local[i].count[b]++
			}
			return nil
		})
		v.mu.Lock()
		read.add(n)
		for _, i := range v.tables {
			want[i].add(local[i])
		}
		v.mu.Unlock()
		m.report("scan", m.Ranges*(1+len(v.tables)), 1, n.live, false)
		return err
	})
	if err != nil {
		return err
	}
	read.into(v.rep)
	for k, i := range v.tables {
		p := ent.projections[i]
		err := m.eachRange(ctx, nil, func(ctx context.Context, _ int, lo, hi int64) error {
			local := newDigests(m.Buckets)
			var n int64
			rd := newProjectionReader(p.table, p.writetimes)
			err := scanRange(ctx, v.s, p.table.Scan, lo, hi, func(it cqldriver.Iter) bool {
				r, ok := rd.read(it)
				if !ok || r == nil {
					return ok
				}
				// Hashed and let go: the reader's next row reuses
				// its memory.
				b := r.bucket(m.Buckets)
				local.sum[b] += r.hash()
				local.count[b]++
				n++
				return true
			})
			v.mu.Lock()
			have[i].add(local)
			v.mu.Unlock()
			m.report("scan", m.Ranges*(1+len(v.tables)), 1, n, false)
			return err
		})
		if err != nil {
			return err
		}
		tr := &v.rep.Tables[k]
		for b := range m.Buckets {
			tr.Expected += want[i].count[b]
			tr.Present += have[i].count[b]
			if want[i].sum[b] != have[i].sum[b] || want[i].count[b] != have[i].count[b] {
				tr.Mismatched++
			}
		}
	}
	// Pass 2: row by row, in the mismatched buckets only.
	for k, i := range v.tables {
		if v.rep.Tables[k].Mismatched == 0 {
			continue
		}
		if err := v.compare(ctx, k, i, want[i], have[i], repair); err != nil {
			return err
		}
	}
	return nil
}

// compare finds the drift of projection i in its mismatched buckets and,
// with repair, writes it away: narrowed to the sub-buckets that differ,
// and in batches of at most Hold rows held (narrow.go).
func (v *verification) compare(ctx context.Context, k, i int, want, have *digests, repair bool) error {
	return v.narrow(ctx, k, i, mismatchedBuckets(want, have), func(s *nodes) error {
		return v.compareNodes(ctx, k, i, s, repair)
	})
}

// compareNodes compares the rows of the nodes s, in batches of at most
// Hold rows held.
func (v *verification) compareNodes(ctx context.Context, k, i int, s *nodes, repair bool) error {
	from := 0
	for _, to := range s.batches(int64(v.m.Hold)) {
		in := func(r *row) bool {
			j, ok := s.of(r.keyHash())
			return ok && j >= from && j < to
		}
		var held int64
		for _, n := range s.list[from:to] {
			held += n.present
		}
		// Room for the rows the digests counted, made once (a node of
		// more than Hold rows, alone in its batch, grows it).
		if err := v.compareBatch(ctx, k, i, in, int(min(held, int64(v.m.Hold))), repair); err != nil {
			return err
		}
		v.rep.Tables[k].Rounds++
		from = to
	}
	return nil
}

// compareBatch compares, row by row, the rows of projection i that in
// takes (the digests counted size), holding the table's (by key, hash and
// last write: held) while it reads the source of truth.
func (v *verification) compareBatch(ctx context.Context, k, i int, in func(*row) bool, size int, repair bool) error {
	m, p := v.m, v.ent.projections[i]
	tr := &v.rep.Tables[k]
	present := make(map[string]held, size)
	err := m.eachRange(ctx, nil, func(ctx context.Context, _ int, lo, hi int64) error {
		return scanProjection(ctx, v.s, p.table, p.writetimes, lo, hi, func(r *row) {
			if in(r) {
				v.mu.Lock()
				present[r.key()] = held{hash: r.hash(), writetime: r.writetime}
				v.mu.Unlock()
			}
		})
	})
	if err != nil {
		return err
	}
	tr.Held = max(tr.Held, int64(len(present)))
	sample := func(keys *[]string, r *row) {
		if len(*keys) < m.Samples {
			*keys = append(*keys, r.keyWords(p.table, m.ShowKeys))
		}
	}
	err = v.eachExpected(ctx, i, func(ctx context.Context, st *stateView, r *row) error {
		if !in(r) {
			return nil
		}
		key := r.key()
		v.mu.Lock()
		got, ok := present[key]
		delete(present, key)
		tr.Compared++
		stale := ok && got.hash != r.hash()
		switch {
		case !ok:
			tr.Missing++
			sample(&tr.MissingKeys, r)
		case stale:
			tr.Stale++
			sample(&tr.StaleKeys, r)
		}
		v.mu.Unlock()
		if (!ok || stale) && repair {
			var was *row // missing
			if ok {
				was = &row{writetime: got.writetime}
			}
			if err := v.repairRow(ctx, i, st, was); err != nil {
				return err
			}
			v.mu.Lock()
			tr.Inserted++
			v.mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for key := range present {
		tr.Compared++
		tr.Orphans++
		if len(tr.OrphanKeys) < m.Samples {
			sample(&tr.OrphanKeys, keyRow(key, p.table))
		}
	}
	if !repair {
		return nil
	}
	read := keyRead(p)
	for key := range present {
		// The orphan as it is now, by its key: gone since, it is left.
		r, err := protocol.GetValue(ctx, v.s, cqldriver.Query{Stmt: read, Values: keyRow(key, p.table).keyValues()}, func(it cqldriver.Iter) (*row, bool) {
			return readProjection(it, p.table, p.writetimes)
		})
		if errors.Is(err, cqlgen.ErrNotFound) || (err == nil && r == nil) {
			continue
		}
		if err != nil {
			return err
		}
		deleted, err := v.deleteOrphan(ctx, i, r)
		if err != nil {
			return err
		}
		if deleted {
			tr.Deleted++
		}
	}
	return nil
}

// held is a row of a table held to compare it: what tells a stale row,
// and what its repair needs. An orphan is read again by its key to be
// deleted.
type held struct {
	hash      uint64
	writetime int64
}

// keyRow is the row of table t whose key key (as row.key encodes it)
// holds: its key columns only.
func keyRow(key string, t *desc.Table) *row {
	r := &row{nkey: len(t.Spec.PartitionKey) + len(t.Spec.Clustering)}
	b := []byte(key)
	for range r.nkey {
		n, w := binary.Uvarint(b)
		r.cols = append(r.cols, b[w:w+int(n)])
		b = b[w+int(n):]
	}
	return r
}

// keyValues are the row's key columns, to bind.
func (r *row) keyValues() []any {
	key := make([]any, r.nkey)
	for j, c := range r.cols[:r.nkey] {
		key[j] = cqldriver.Encoded(c)
	}
	return key
}

// repairRow writes the row of projection i that the entity st implies,
// missing (got nil) or stale (got, as read).
func (v *verification) repairRow(ctx context.Context, i int, st *stateView, got *row) error {
	ent, p := v.ent, v.ent.projections[i]
	if err := v.m.limiter.wait(ctx); err != nil {
		return err
	}
	if ent.immutable {
		// The row as the entity's Insert wrote it, at its timestamp, or
		// just after a stale row's, which the entity's Delete, later
		// still, wins over.
		ts := st.version + 1
		if got != nil && got.writetime >= ts {
			ts = got.writetime + 1
		}
		if err := v.s.Exec(ctx, cqldriver.Query{Stmt: p.table.Insert, Values: ent.row(i, st.row, ts)}); err != nil {
			return err
		}
	} else if err := ent.touch(ctx, v.s, st.row); err != nil {
		// Through the write protocol: the entity, unchanged, at a new
		// version, which every table then gets.
		return err
	}
	v.m.report("repair", 0, 0, 1, false)
	return nil
}

// deleteOrphan deletes a row no entity implied when it was compared,
// after reading its entity's canonical row again: if that row now implies
// it (a change since), it stays. The delete goes at the orphan's own
// write timestamp, which any later write of the key wins over.
func (v *verification) deleteOrphan(ctx context.Context, i int, r *row) (bool, error) {
	p := v.ent.projections[i]
	if err := v.m.limiter.wait(ctx); err != nil {
		return false, err
	}
	if p.unique {
		return v.deleteClaim(ctx, i, r)
	}
	if p.owner != nil {
		owner := make([]any, len(p.owner))
		for j, c := range p.owner {
			owner[j] = cqldriver.Encoded(r.cols[c])
		}
		st, err := protocol.GetValue(ctx, v.s, cqldriver.Query{Stmt: v.ent.canonical.State, Values: owner}, v.ent.scanState)
		switch {
		case errors.Is(err, cqlgen.ErrNotFound):
		case err != nil:
			return false, err
		case !st.deleted && v.ent.holds(i, st.row):
			want, _, err := v.ent.expected(i, &st)
			if err != nil {
				return false, err
			}
			if want.key() == r.key() && want.hash() == r.hash() {
				return false, nil
			}
		}
	}
	ts := r.writetime
	if ts == 0 {
		ts = time.Now().UnixMicro()
	}
	key := make([]any, 0, r.nkey+1)
	key = append(key, ts)
	for _, c := range r.cols[:r.nkey] {
		key = append(key, cqldriver.Encoded(c))
	}
	if err := v.s.Exec(ctx, cqldriver.Query{Stmt: p.table.Delete, Values: key}); err != nil {
		return false, err
	}
	v.m.report("repair", 0, 0, 1, false)
	return true, nil
}

// deleteClaim deletes a claim no entity holds, unless its owner now holds
// it: after fencing an owner whose change may be in flight, by the same
// conditional delete as a release, on the owner and version read.
func (v *verification) deleteClaim(ctx context.Context, i int, r *row) (bool, error) {
	p := v.ent.projections[i]
	t := p.table
	key := make([]any, r.nkey)
	for i, c := range r.cols[:r.nkey] {
		key[i] = cqldriver.Encoded(c)
	}
	cur, err := protocol.ReadClaim(ctx, v.s, t, key)
	if errors.Is(err, cqlgen.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	owner := make([]any, len(p.owner))
	for j, c := range p.owner {
		owner[j] = cqldriver.Encoded(cur.Cols[c])
	}
	o := desc.NewOptions()
	st, err := protocol.GetValue(ctx, v.s, cqldriver.Query{Stmt: v.ent.canonical.State, Values: owner}, v.ent.scanState)
	found := err == nil
	if err != nil && !errors.Is(err, cqlgen.ErrNotFound) {
		return false, err
	}
	if found && !st.deleted && v.ent.holds(i, st.row) && desc.SameKey(t, v.ent.key(i, st.row), key) {
		return false, nil
	}
	if !found || st.version < cur.Version {
		if ok, err := v.ent.fence(ctx, v.s, o, owner, &st, found); !ok || err != nil {
			return false, err
		}
	}
	if cur.Version == 0 {
		// Written outside the protocol: no cqlgen_claim, which the
		// release's "cqlgen_claim < ?" never matches. Give it one first.
		if ok, err := protocol.Take(ctx, v.s, o, t, key, value.Encoded(cur.Cols[r.nkey:len(t.Row)]), 1, cur); !ok || err != nil {
			return false, err
		}
		cur.Version = 1
	}
	values := append(append([]any(nil), key...), value.Encoded(cur.Cols[r.nkey:len(t.Row)])...)
	values = append(values, cur.Version+1)
	applied, err := v.s.ExecCAS(ctx, cqldriver.Query{Stmt: t.Release, Values: values}, protocol.Sinks(len(t.Row)-r.nkey+1)...)
	if err == nil && applied {
		v.m.report("repair", 0, 0, 1, false)
	}
	return applied, err
}

// BackfillEntity writes every row the source of truth implies into one table,
// range by range. With o.Job, each finished range is recorded in
// cqlgen.ProgressTable, and a backfill run again with the same job skips
// it: a backfill stopped (its context cancelled, its process killed)
// resumes where it was.
func BackfillEntity[P any](ctx context.Context, s cqlgen.Session, ent *desc.EntityOf[P], entity, table string, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	return backfill(ctx, s, view(ent), entity, table, o)
}

func backfill(ctx context.Context, s cqlgen.Session, ent *entityView, entity, table string, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	m := newMaintain(o)
	idx, err := ent.selectTables([]string{table})
	if err != nil {
		return nil, err
	}
	pi := idx[0]
	p := ent.projections[pi]
	rep := &cqlmaintain.Report{Entity: entity, Source: ent.canonical.Spec.Name, Tables: []cqlmaintain.TableReport{{Table: table}}}
	job := ""
	if m.Job != "" {
		job = backfillKey(m.Job, table, m.Ranges)
	}
	holds := func(st *stateView) bool { return ent.holds(pi, st.row) }
	n, err := m.rangeJob(ctx, s, ent, job, "backfill", rep, holds, func(ctx context.Context, st *stateView) error {
		if p.unique {
			// A claim, at the version of the entity's last change: a
			// key two entities hold stops the backfill with a
			// *cqlgen.UniqueConflictError, for a person to settle.
			return ent.claim(ctx, s, pi, st.row, st.version)
		}
		return s.Exec(ctx, cqldriver.Query{Stmt: p.table.Insert, Values: ent.row(pi, st.row, st.version+1)})
	})
	rep.Tables[0].Inserted = n
	if m.Status {
		return rep, err
	}
	// A shard's verify after would find the other shards' ranges not
	// done yet: the job is verified once every shard is.
	if err == nil && !m.sharded() {
		// Check what it wrote: a row shadowed by a later delete (made
		// by hand, at a timestamp past the entity's version) is missing
		// still, and only a repair, at a new version, writes it.
		after := quiet(o)
		after.Tables, after.Job = []string{table}, ""
		rep.After, err = verifyAfter(ctx, s, ent, entity, &after)
	}
	rep.Elapsed = time.Since(m.start)
	m.done(err)
	return rep, err
}

// rangeJob is what Backfill and Adopt share: it hands every live row of
// the source of truth that wants takes to write, range by range, at most
// m.Rate rows a second, and returns how many it wrote; a range is
// recorded as done under job (none: no record) once each of its rows is
// written, and one recorded is skipped. The counts of what was read go into rep. A run that
// read no entity is checked against the table (unread). With m.Status
// it only reports, in rep.Resumed, the ranges done.
func (m *maintain) rangeJob(ctx context.Context, s cqlgen.Session, ent *entityView, job, phase string, rep *cqlmaintain.Report, wants func(*stateView) bool, write func(context.Context, *stateView) error) (int64, error) {
	if err := m.checkShard(); err != nil {
		return 0, err
	}
	rep.Shard, rep.Shards = m.Shard, m.Shards
	done, err := rangeRecords(ctx, s, job)
	if err != nil {
		return 0, err
	}
	for i := range done {
		if m.mine(i) {
			rep.Resumed++
		}
	}
	m.progress.Done = rep.Resumed
	if m.Status {
		return 0, nil
	}
	v := &verification{ent: ent, s: s, m: m}
	var mu sync.Mutex
	var all scanned
	var written int64
	// The writes run beside the scans, as many at once as the bound
	// allows across all ranges (Writes, or adapting to the cluster).
	slots := newAdaptive(adaptiveStart, adaptiveMax)
	if m.Writes > 0 {
		slots = newAdaptive(m.Writes, m.Writes)
	}
	err = m.eachRange(ctx, func(i int) bool { _, ok := done[i]; return ok }, func(ctx context.Context, i int, lo, hi int64) error {
		var read scanned
		var n atomic.Int64
		l, lctx := newLookups(ctx)
		err := v.scanCanonical(lctx, lo, hi, &read, func(st *stateView) error {
			if !wants(st) {
				return nil
			}
			if err := l.failed(); err != nil {
				return err
			}
			if err := m.limiter.wait(lctx); err != nil {
				return err
			}
			if err := slots.acquire(lctx); err != nil {
				return err
			}
			l.wg.Go(func() {
				t := time.Now()
				err := write(lctx, st)
				slots.release(time.Since(t), err)
				if err != nil {
					l.fail(err)
					return
				}
				n.Add(1)
				m.report(phase, m.ranges(), 0, 1, false)
			})
			return nil
		})
		if werr := l.wait(); werr != nil {
			// A write's error, the cause of the scan's cancellation.
			err = werr
		}
		mu.Lock()
		all.add(read)
		written += n.Load()
		mu.Unlock()
		if err != nil {
			return err
		}
		if job != "" {
			if err := s.Exec(ctx, cqldriver.Query{Stmt: progressWrite, Values: []any{job, i, n.Load()}}); err != nil {
				return err
			}
		}
		m.report(phase, m.ranges(), 1, 0, false)
		return nil
	})
	all.into(rep)
	// One worker's ranges may hold no row of a small table: the check
	// of a run that read none is the unsharded run's.
	if err == nil && rep.Rows == 0 && rep.Resumed == 0 && !m.sharded() {
		err = v.unread(ctx)
	}
	return written, err
}

// adopt gives every entity written outside the protocol a version (see
// cqlmaintain.Options.Adopt), range by range, resumable by job; then
// verifies every table. With Status, it reports how far the job has
// come.
func adopt(ctx context.Context, s cqlgen.Session, ent *entityView, entity string, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	m := newMaintain(o)
	rep := &cqlmaintain.Report{Entity: entity, Source: ent.canonical.Spec.Name}
	if ent.immutable {
		// An immutable entity has no version to give.
		return rep, nil
	}
	job := ""
	if m.Job != "" {
		job = adoptKey(m.Job, ent.canonical.Spec.Name, m.Ranges)
	}
	unversioned := func(st *stateView) bool { return st.version == 0 }
	n, err := m.rangeJob(ctx, s, ent, job, "adopt", rep, unversioned, func(ctx context.Context, st *stateView) error {
		if err := ent.adopt(ctx, s, st); !errors.Is(err, cqlgen.ErrNotFound) {
			return err
		}
		return nil // deleted since it was read
	})
	rep.Adopted = n
	if m.Status {
		return rep, err
	}
	if err == nil && !m.sharded() {
		after := quiet(o)
		after.Job, after.Adopt = "", false
		rep.After, err = verifyAfter(ctx, s, ent, entity, &after)
	}
	rep.Elapsed = time.Since(m.start)
	m.done(err)
	return rep, err
}

var (
	progressRead = &cqldriver.Statement{
		CQL:   "SELECT range_index, rows FROM " + cqlgen.ProgressTable + " WHERE job = ?",
		Table: cqlgen.ProgressTable, Pattern: "backfill.progress", Kind: cqlgen.Read, Idempotent: true,
	}
	progressWrite = &cqldriver.Statement{
		CQL:   "INSERT INTO " + cqlgen.ProgressTable + " (job, range_index, rows) VALUES (?, ?, ?)",
		Table: cqlgen.ProgressTable, Pattern: "backfill.progress", Kind: cqlgen.Write, Idempotent: true,
	}
)
