package maintenance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/internal/protocol"
)

// Verify and repair by job, range by range. The digests of run compare
// whole tables at once: a table is partitioned by other columns than its
// source of truth, so the rows a token range of the source implies lie
// anywhere on the table's ring, and no range can be settled alone. A
// verify with a job settles each range on its own, by key:
//
//   - each live entity of the source of truth's range i is derived into
//     the rows it implies, and each is read by its key: none is missing,
//     one with other values is stale;
//   - each row of a table's range i is read back to its entity, by the
//     entity's key the row holds (Projection.Owner): no entity, a deleted
//     one, or one that implies a row of another key, is an orphan; one
//     that implies the same key is checked from the other side.
//
// Every row of the source and of every table lies in exactly one range,
// so that the ranges together check what run checks, each row once. A
// range holds one row at a time (memory does not grow with the table),
// is recorded in ProgressTable when all its rows are checked (with the
// drift it found), and is the unit workers share (Options.Shard). The
// cost: two reads by key for each row of a table, where the digests read
// each table once.

// checkKey is a verify's or repair's job key in ProgressTable: the kind,
// the job, the source of truth, the tables given with -table, and the
// ranges, so that another split or other tables start afresh.
func checkKey(kind, job, canonical string, tables []string, ranges int) string {
	t := ""
	if len(tables) > 0 {
		t = "[" + strings.Join(tables, ",") + "]"
	}
	return fmt.Sprintf("%s:%s/%s%s/%d", kind, job, canonical, t, ranges)
}

// backfillKey and adoptKey are the job keys of a backfill of table and of
// an adopt of the source of truth canonical.
func backfillKey(job, table string, ranges int) string {
	return fmt.Sprintf("%s/%s/%d", job, table, ranges)
}

func adoptKey(job, canonical string, ranges int) string {
	return fmt.Sprintf("adopt:%s/%s/%d", job, canonical, ranges)
}

// driftKey holds, under a job's key, the drift each range found, where
// it found any.
func driftKey(job string) string { return "drift:" + job }

// keyRead is the read of one row of projection p by its primary key: the
// columns of its Scan, with the key's columns equal to the values bound.
func keyRead(p projectionView) *cqldriver.Statement {
	scan := p.table.Scan.CQL
	var where []string
	for _, c := range append(append([]cqlspec.Column(nil), p.table.Spec.PartitionKey...), p.table.Spec.Clustering...) {
		where = append(where, cqlspec.Quote(c.Name)+" = ?")
	}
	// The Scan's clauses, its WHERE last (on a line of its own, or not).
	cql := scan[:strings.LastIndex(scan, "WHERE token(")] + "WHERE " + strings.Join(where, " AND ")
	return &cqldriver.Statement{CQL: cql, Table: p.table.Spec.Name, Pattern: "maintain.key", Kind: cqlgen.Read, Idempotent: true}
}

// byRange is Verify (repair false) or Repair by job, range by range (see
// above), the ranges of its shard only, skipping those an earlier run of
// the job recorded.
func (v *verification) byRange(ctx context.Context, repair bool) (*cqlmaintain.Report, error) {
	m, ent := v.m, v.ent
	kind := "verify"
	if repair {
		kind = "repair"
	}
	reads := make([]*cqldriver.Statement, len(ent.projections))
	for _, i := range v.tables {
		p := ent.projections[i]
		if p.owner == nil {
			return nil, fmt.Errorf("cqlgen: %s does not hold every column of its entity's key, so a %s by job cannot read its rows' entities: %s it without -job (by digests)", p.table.Spec.Name, kind, kind)
		}
		reads[i] = keyRead(p)
	}
	job := checkKey(kind, m.Job, ent.canonical.Spec.Name, m.Tables, m.Ranges)
	done, err := rangeRecords(ctx, v.s, job)
	if err != nil {
		return nil, err
	}
	drift, err := rangeRecords(ctx, v.s, driftKey(job))
	if err != nil {
		return nil, err
	}
	v.rep.Shard, v.rep.Shards = m.Shard, m.Shards
	for i := range done {
		if m.mine(i) {
			v.rep.Resumed++
			v.rep.ResumedDrift += drift[i]
		}
	}
	m.progress.Done = v.rep.Resumed
	var read scanned
	err = m.eachRange(ctx, func(i int) bool { _, ok := done[i]; return ok }, func(ctx context.Context, i int, lo, hi int64) error {
		c := rangeCheck{v: v, reads: reads, repair: repair, found: make([]cqlmaintain.TableReport, len(v.tables))}
		var n scanned
		err := c.source(ctx, lo, hi, &n)
		for k := range v.tables {
			if err != nil {
				break
			}
			err = c.table(ctx, k, lo, hi)
		}
		v.merge(c.found, n, &read)
		if err != nil {
			return err
		}
		var d int64
		for _, t := range c.found {
			d += t.Drift()
		}
		// The drift first: a range recorded done has its drift
		// recorded (and a run killed after recording it, before the
		// range, does not leave its count behind).
		if _, before := drift[i]; d > 0 || before {
			if err := v.s.Exec(ctx, cqldriver.Query{Stmt: progressWrite, Values: []any{driftKey(job), i, d}}); err != nil {
				return err
			}
		}
		if err := v.s.Exec(ctx, cqldriver.Query{Stmt: progressWrite, Values: []any{job, i, n.live}}); err != nil {
			return err
		}
		m.report("check", m.ranges(), 1, n.live, false)
		return nil
	})
	read.into(v.rep)
	if err == nil && v.rep.Rows == 0 && v.rep.Resumed == 0 && !m.sharded() {
		err = v.unread(ctx)
	}
	if err == nil && repair && wrote(v.rep) && !m.sharded() {
		// The verify after, by digests: the job's ranges are done.
		after := quiet(&m.Options)
		after.Job, after.Shards, after.Shard = "", 0, 0
		v.rep.After, err = verifyAfter(ctx, v.s, ent, v.rep.Entity, &after)
	}
	v.rep.Elapsed = time.Since(m.start)
	m.done(err)
	return v.rep, err
}

// merge adds one range's findings to the report.
func (v *verification) merge(found []cqlmaintain.TableReport, n scanned, read *scanned) {
	v.mu.Lock()
	defer v.mu.Unlock()
	read.add(n)
	keep := func(to *[]string, from []string) {
		for _, k := range from {
			if len(*to) < v.m.Samples {
				*to = append(*to, k)
			}
		}
	}
	for k, f := range found {
		t := &v.rep.Tables[k]
		t.Expected += f.Expected
		t.Present += f.Present
		t.Compared += f.Compared
		t.Missing += f.Missing
		t.Stale += f.Stale
		t.Orphans += f.Orphans
		t.Inserted += f.Inserted
		t.Deleted += f.Deleted
		keep(&t.MissingKeys, f.MissingKeys)
		keep(&t.StaleKeys, f.StaleKeys)
		keep(&t.OrphanKeys, f.OrphanKeys)
	}
}

// rangeCheck is the check of one token range: what it found, by table
// (in the order of verification.tables).
type rangeCheck struct {
	v      *verification
	reads  []*cqldriver.Statement
	repair bool
	found  []cqlmaintain.TableReport
}

func (c *rangeCheck) sample(keys *[]string, t int, r *row) {
	if len(*keys) < c.v.m.Samples {
		*keys = append(*keys, r.keyWords(c.v.ent.projections[t].table, c.v.m.ShowKeys))
	}
}

// lookupsPerRange is how many reads by key a range runs at once: a read
// by key waits a round trip, and a range's rows are independent.
const lookupsPerRange = 8

// lookups runs a range's checks of single rows, lookupsPerRange at once,
// and keeps the first error; what they find goes into the rangeCheck
// under mu.
type lookups struct {
	sem  chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
	stop context.CancelFunc
}

func newLookups(ctx context.Context) (*lookups, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &lookups{sem: make(chan struct{}, lookupsPerRange), stop: cancel}, ctx
}

// run runs f once a slot is free; false once one failed (or ctx ended).
func (l *lookups) run(ctx context.Context, f func() error) bool {
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		l.fail(ctx.Err())
		return false
	}
	l.wg.Go(func() {
		defer func() { <-l.sem }()
		if err := f(); err != nil {
			l.fail(err)
		}
	})
	return l.failed() == nil
}

func (l *lookups) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
		l.stop()
	}
	l.mu.Unlock()
}

func (l *lookups) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// wait waits for every check and returns the first error.
func (l *lookups) wait() error {
	l.wg.Wait()
	l.stop()
	return l.err
}

// source reads the source of truth's range and every row each entity
// implies, by key: missing or stale.
func (c *rangeCheck) source(ctx context.Context, lo, hi int64, n *scanned) error {
	v := c.v
	l, lctx := newLookups(ctx)
	errStop := errors.New("stopped")
	// The scan on lctx too: a failed check ends it.
	err := v.scanCanonical(lctx, lo, hi, n, func(st *stateView) error {
		if !l.run(lctx, func() error { return c.entity(lctx, l, st) }) {
			return errStop
		}
		return nil
	})
	if lerr := l.wait(); lerr != nil {
		return lerr
	}
	return err
}

// entity checks the rows one entity implies.
func (c *rangeCheck) entity(ctx context.Context, l *lookups, st *stateView) error {
	v := c.v
	for k, i := range v.tables {
		if !v.ent.holds(i, st.row) {
			continue
		}
		want, _, err := v.ent.expected(i, st)
		if err != nil {
			return err
		}
		if err := v.m.limiter.wait(ctx); err != nil {
			return err
		}
		got, err := c.readKey(ctx, i, want)
		if err != nil {
			return err
		}
		l.mu.Lock()
		f := &c.found[k]
		f.Expected++
		f.Compared++
		drift := true
		switch {
		case got == nil:
			f.Missing++
			c.sample(&f.MissingKeys, i, want)
		case got.hash() != want.hash():
			f.Stale++
			c.sample(&f.StaleKeys, i, want)
		default:
			drift = false
		}
		l.mu.Unlock()
		if drift && c.repair {
			if err := v.repairRow(ctx, i, st, got); err != nil {
				return err
			}
			l.mu.Lock()
			f.Inserted++
			l.mu.Unlock()
		}
	}
	return nil
}

// readKey reads the row of projection i with want's key; nil if none.
func (c *rangeCheck) readKey(ctx context.Context, i int, want *row) (*row, error) {
	p := c.v.ent.projections[i]
	key := make([]any, want.nkey)
	for j, col := range want.cols[:want.nkey] {
		key[j] = cqldriver.Encoded(col)
	}
	got, err := protocol.GetValue(ctx, c.v.s, cqldriver.Query{Stmt: c.reads[i], Values: key}, func(it cqldriver.Iter) (*row, bool) {
		return readProjection(it, p.table, p.writetimes)
	})
	if errors.Is(err, cqlgen.ErrNotFound) {
		return nil, nil
	}
	return got, err
}

// table reads the k-th table's range and each row's entity, by key:
// orphans.
func (c *rangeCheck) table(ctx context.Context, k int, lo, hi int64) error {
	v := c.v
	i := v.tables[k]
	p := v.ent.projections[i]
	l, lctx := newLookups(ctx)
	err := scanRange(lctx, v.s, p.table.Scan, lo, hi, func(it cqldriver.Iter) bool {
		r, ok := readProjection(it, p.table, p.writetimes)
		if !ok {
			return false
		}
		if r == nil {
			return true
		}
		return l.run(lctx, func() error { return c.row(lctx, l, k, r) })
	})
	if lerr := l.wait(); lerr != nil {
		return lerr
	}
	return err
}

// row checks one row of the k-th table against its entity.
func (c *rangeCheck) row(ctx context.Context, l *lookups, k int, r *row) error {
	v := c.v
	i := v.tables[k]
	f := &c.found[k]
	if err := v.m.limiter.wait(ctx); err != nil {
		return err
	}
	orphan, err := c.orphan(ctx, i, r)
	l.mu.Lock()
	f.Present++
	if err == nil && orphan {
		f.Compared++
		f.Orphans++
		c.sample(&f.OrphanKeys, i, r)
	}
	l.mu.Unlock()
	if err != nil || !orphan || !c.repair {
		return err
	}
	deleted, err := v.deleteOrphan(ctx, i, r)
	if deleted {
		l.mu.Lock()
		f.Deleted++
		l.mu.Unlock()
	}
	return err
}

// orphan reports whether no entity implies row r of projection i: its
// entity, read by the key r holds, is gone, or does not hold the row, or
// implies a row of another key. A row whose entity implies its key with
// other values is stale, which source counts.
func (c *rangeCheck) orphan(ctx context.Context, i int, r *row) (bool, error) {
	ent := c.v.ent
	p := ent.projections[i]
	owner := make([]any, len(p.owner))
	for j, col := range p.owner {
		owner[j] = cqldriver.Encoded(r.cols[col])
	}
	st, err := protocol.GetValue(ctx, c.v.s, cqldriver.Query{Stmt: ent.canonical.State, Values: owner}, ent.scanState)
	switch {
	case errors.Is(err, cqlgen.ErrNotFound):
		return true, nil
	case err != nil:
		return false, err
	case st.deleted || !ent.holds(i, st.row):
		return true, nil
	}
	want, _, err := ent.expected(i, &st)
	if err != nil {
		return false, err
	}
	return want.key() != r.key(), nil
}

// rangeRecords reads the ranges a job recorded, and the rows each
// recorded; none without a job.
func rangeRecords(ctx context.Context, s cqlgen.Session, job string) (map[int]int64, error) {
	done := map[int]int64{}
	if job == "" {
		return done, nil
	}
	it := s.Iter(ctx, cqldriver.Query{Stmt: progressRead, Values: []any{job}})
	var i int
	var n int64
	for it.Scan(&i, &n) {
		done[i] = n
	}
	return done, it.Close()
}

// jobStatus reports, writing nothing, what every worker of the job o.Job
// recorded: for a verify, a repair and an adopt of the entity, and a
// backfill of each of its tables (o.Tables, or all), those that recorded
// a range, with o.Ranges.
func jobStatus(ctx context.Context, s cqlgen.Session, ent *entityView, entity string, o *cqlmaintain.Options) (*cqlmaintain.Report, error) {
	m := newMaintain(o)
	rep := &cqlmaintain.Report{Entity: entity, Source: ent.canonical.Spec.Name}
	idx, err := ent.selectTables(m.Tables)
	if err != nil {
		return nil, err
	}
	type key struct{ kind, table, key string }
	keys := []key{
		{"verify", "", checkKey("verify", m.Job, ent.canonical.Spec.Name, m.Tables, m.Ranges)},
		{"repair", "", checkKey("repair", m.Job, ent.canonical.Spec.Name, m.Tables, m.Ranges)},
		{"adopt", "", adoptKey(m.Job, ent.canonical.Spec.Name, m.Ranges)},
	}
	for _, i := range idx {
		t := ent.projections[i].table.Spec.Name
		keys = append(keys, key{"backfill", t, backfillKey(m.Job, t, m.Ranges)})
	}
	for _, k := range keys {
		j := cqlmaintain.JobStatus{Kind: k.kind, Table: k.table, Key: k.key, Ranges: m.Ranges}
		it := s.Iter(ctx, cqldriver.Query{Stmt: progressStatus, Values: []any{k.key}})
		var i int
		var n, wt int64
		for it.Scan(&i, &n, &wt) {
			at := time.UnixMicro(wt)
			if j.Done == 0 || at.Before(j.First) {
				j.First = at
			}
			if at.After(j.Last) {
				j.Last = at
			}
			j.Done++
			j.Rows += n
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
		if j.Done == 0 {
			continue
		}
		drift, err := rangeRecords(ctx, s, driftKey(k.key))
		if err != nil {
			return nil, err
		}
		for _, d := range drift {
			j.Drift += d
		}
		rep.Jobs = append(rep.Jobs, j)
		rep.Resumed += j.Done
	}
	return rep, nil
}

var progressStatus = &cqldriver.Statement{
	CQL:   "SELECT range_index, rows, WRITETIME(rows) FROM " + cqlgen.ProgressTable + " WHERE job = ?",
	Table: cqlgen.ProgressTable, Pattern: "maintain.status", Kind: cqlgen.Read, Idempotent: true,
}
