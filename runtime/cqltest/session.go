package cqltest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Session is an in-memory Cassandra for one keyspace. It implements
// cqlgen.Session and cqldriver.MapCASer and is safe for concurrent use.
// Every call runs atomically with respect to the others; it makes no
// retries and has no consistency levels (one replica always answers).
type Session struct {
	tables map[string]*table
	clock  func() time.Time
	hook   Hook

	prepared sync.Map // CQL text → *preparedEntry

	mu        sync.Mutex // guards the tables' data and what follows
	lastPaxos int64      // the last ballot's timestamp
	lastPath  uint64     // the last list element id

	logMu sync.Mutex
	calls []Call
}

var (
	_ cqlgen.Session     = (*Session)(nil)
	_ cqldriver.MapCASer = (*Session)(nil)
	_ cqldriver.Iter     = (*iter)(nil)
)

type preparedEntry struct {
	st  *prepared
	err error
}

// Option configures a Session.
type Option func(*Session)

// WithClock sets the server's clock (default time.Now). It gives the write
// timestamp of statements without USING TIMESTAMP (as the driver's
// client-side timestamps would, gocql's default) and of batches, the
// timestamps of lightweight transactions (whose Paxos ballots are also
// made unique and increasing), and the time against which TTLs expire.
// Advance it to expire rows.
func WithClock(now func() time.Time) Option { return func(s *Session) { s.clock = now } }

// WithHook sets a hook that runs before every call, which can fail it:
// see Hook.
func WithHook(h Hook) Option { return func(s *Session) { s.hook = h } }

// Hook runs before each call of the session (each Exec, Iter, ExecCAS,
// ExecCASMap and Batch), outside the session's lock, so it may block or
// read the session. Returning nil lets the call run. Any other error fails
// the call before it applies, and the caller receives it (a driver's error
// classified in a *cqldriver.DriverError, as the driver's adapter would
// return it); LostReply(err) lets the call apply and then fails it with
// err, as a write whose reply was lost. Tests use it to crash a
// multi-statement write at each step.
// Calls made concurrently run the hook concurrently.
type Hook func(ctx context.Context, c Call) error

// Op is the kind of a call.
type Op uint8

const (
	OpExec  Op = iota + 1 // Exec
	OpIter                // Iter
	OpCAS                 // ExecCAS or ExecCASMap
	OpBatch               // Batch
)

func (o Op) String() string {
	switch o {
	case OpExec:
		return "Exec"
	case OpIter:
		return "Iter"
	case OpCAS:
		return "CAS"
	case OpBatch:
		return "Batch"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Call is one call of the session, as a Hook sees it and Calls records it.
type Call struct {
	Op      Op
	Queries []cqldriver.Query   // the query; for a batch, its statements
	Batch   cqldriver.BatchKind // the kind of a batch
}

// New makes a session over the tables a schema script creates: CREATE
// TYPE and CREATE TABLE statements, with CREATE KEYSPACE and USE accepted
// and ignored, separated by semicolons, with -- // and /* */ comments.
// Columns may be of any native type, counter included (in a counter
// table), of list, set and map, of user-defined types, frozen or not, and
// of vector<float, n> (see the package doc). CLUSTERING ORDER BY and
// default_time_to_live are honoured; other table options, and column
// masks, are ignored. CREATE [CUSTOM] INDEX is checked against its table
// and makes its column restrictable as a storage-attached index allows.
// Anything else is an error that quotes the text.
// The session holds one keyspace: a name qualified by a keyspace, in the
// schema or in a statement, stands for the table of that name.
//
// Values are marshaled by the codec of the driver adapter the program
// links, which the test must import: github.com/cqlgen/cqlgen/runtime/gocqlv1
// for gocql v1, the module github.com/cqlgen/cqlgen/runtime/gocqlv2 for
// the ASF driver v2 (a blank import will do). Without one, New returns
// an error that wraps cqldriver.ErrNoCodec.
func New(schema string, opts ...Option) (*Session, error) {
	if _, err := cqldriver.Marshal(intType.info, 0); errors.Is(err, cqldriver.ErrNoCodec) {
		return nil, fmt.Errorf("cqltest: values are marshaled by the driver's codec, and none is linked: import _ \"github.com/cqlgen/cqlgen/runtime/gocqlv1\" (gocql v1) or _ \"github.com/cqlgen/cqlgen/runtime/gocqlv2\" (the ASF driver v2) in the test (%w)", err)
	}
	tables, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	s := &Session{tables: tables, clock: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Calls returns every call the session received, in order, including
// those that failed.
func (s *Session) Calls() []Call {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return append([]Call(nil), s.calls...)
}

// begin records a call and runs the hook. A non-nil lost is the error to
// return after applying the call.
func (s *Session) begin(ctx context.Context, c Call) (lost, err error) {
	s.logMu.Lock()
	s.calls = append(s.calls, c)
	s.logMu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.hook != nil {
		if err := s.hook(ctx, c); err != nil {
			var lr *lostReply
			if !errors.As(err, &lr) {
				return nil, classified(err)
			}
			lost = classified(lr.err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return lost, nil
}

// prepare parses and checks a query's statement, once per CQL text, and
// binds its values.
func (s *Session) prepare(q cqldriver.Query) (*prepared, []value, error) {
	if q.Stmt == nil {
		return nil, nil, errors.New("cqltest: a Query without a Statement")
	}
	e, ok := s.prepared.Load(q.Stmt.CQL)
	if !ok {
		st, err := prepare(q.Stmt.CQL, s.tables)
		e, _ = s.prepared.LoadOrStore(q.Stmt.CQL, &preparedEntry{st, err})
	}
	pe := e.(*preparedEntry)
	if pe.err != nil {
		return nil, nil, pe.err
	}
	vals, err := bind(pe.st, q.Values)
	if err != nil {
		return nil, nil, err
	}
	return pe.st, vals, nil
}

// now reads the clock: the default write timestamp in microseconds, and
// the time in seconds that TTLs are counted in.
func (s *Session) now() (micros, secs int64) {
	t := s.clock()
	return t.UnixMicro(), t.Unix()
}

// ballot is the timestamp of a lightweight transaction: the clock, made
// greater than every earlier ballot, as Paxos requires. The caller holds
// the lock.
func (s *Session) ballot(micros int64) int64 {
	s.lastPaxos = max(micros, s.lastPaxos+1)
	return s.lastPaxos
}

// nextPath numbers the elements of lists in the order they are written,
// as the time-based ids of Cassandra's list cells do. The caller holds
// the lock.
func (s *Session) nextPath() []byte {
	s.lastPath++
	return binary.BigEndian.AppendUint64(nil, s.lastPath)
}

// run executes one bound statement under the lock.
func (s *Session) run(st *prepared, vals []value, q cqldriver.Query) (*result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	micros, secs := s.now()
	if st.kind == selectStmt {
		size := q.PageSize
		if size == cqldriver.Unpaged {
			size = math.MaxInt // every row in one page, as paging off
		}
		return st.selectPage(vals, secs, size, q.PageState)
	}
	ts := micros
	if st.conditional() {
		ts = s.ballot(micros)
	}
	w, err := bindWrite(st, vals, ts)
	if err != nil {
		return nil, err
	}
	if st.conditional() {
		return w.cas(secs, s.nextPath)
	}
	w.apply(secs, s.nextPath)
	return &result{}, nil
}

// Exec runs a statement and discards its result, as gocql's Exec does: a
// SELECT is run and its rows dropped, a conditional write is run without
// telling whether it applied.
func (s *Session) Exec(ctx context.Context, q cqldriver.Query) error {
	lost, err := s.begin(ctx, Call{Op: OpExec, Queries: []cqldriver.Query{q}})
	if err != nil {
		return err
	}
	st, vals, err := s.prepare(q)
	if err != nil {
		return err
	}
	if _, err := s.run(st, vals, q); err != nil {
		return err
	}
	return lost
}

// Iter runs a statement and iterates over one page of its rows: at most
// q.PageSize (DefaultPageSize when 0), starting after q.PageState. A write
// returns no rows; a conditional write returns its [applied] row.
func (s *Session) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	lost, err := s.begin(ctx, Call{Op: OpIter, Queries: []cqldriver.Query{q}})
	if err != nil {
		return &iter{err: err}
	}
	st, vals, err := s.prepare(q)
	if err != nil {
		return &iter{err: err}
	}
	res, err := s.run(st, vals, q)
	if err == nil {
		err = lost
	}
	if err != nil {
		return &iter{err: err}
	}
	return &iter{res: res}
}

// ExecCAS runs a conditional write. When it did not apply and the row
// exists, dest receives the current values that Cassandra returns (see
// ExecCASMap), positionally, and must match them in number, as with gocql.
func (s *Session) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	res, err := s.execCAS(ctx, q)
	if err != nil {
		return false, err
	}
	it := &iter{res: res}
	var applied bool
	if len(res.cols) > 1 {
		it.Scan(append([]any{&applied}, dest...)...)
	} else {
		it.Scan(&applied)
	}
	return applied, it.Close()
}

// ExecCASMap runs a conditional write. When it did not apply, current
// receives the row's values by column name, decoded as Rows decodes them (to Go types of no driver; a
// UUID as [16]byte)
// decodes them: the columns of the IF condition, in the order of the
// clause, or, for IF EXISTS and IF NOT EXISTS, every column; nothing when
// the row does not exist. A conditional write gets its timestamp from
// the clock, made greater than any earlier one's (a Paxos ballot).
func (s *Session) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	res, err := s.execCAS(ctx, q)
	if err != nil {
		return false, err
	}
	row := res.rows[0]
	for i, c := range res.cols[1:] {
		v, err := decode(c.typ, row[i+1])
		if err != nil {
			return false, err
		}
		current[c.name] = v
	}
	return row[0][0] != 0, nil
}

func (s *Session) execCAS(ctx context.Context, q cqldriver.Query) (*result, error) {
	lost, err := s.begin(ctx, Call{Op: OpCAS, Queries: []cqldriver.Query{q}})
	if err != nil {
		return nil, err
	}
	st, vals, err := s.prepare(q)
	if err != nil {
		return nil, err
	}
	if !st.conditional() {
		return nil, fmt.Errorf("cqltest: %s is not a conditional statement: Cassandra returns no [applied] row ", q.Stmt.CQL)
	}
	res, err := s.run(st, vals, q)
	if err != nil {
		return nil, err
	}
	if lost != nil {
		return nil, lost
	}
	return res, nil
}

// Batch applies the statements at once, atomically and in isolation,
// whatever the kind: here an unlogged batch across partitions is atomic
// too, which it is not on a cluster (cqlgen's own session refuses one).
// Statements without USING TIMESTAMP share one timestamp from the clock.
// Only INSERT, UPDATE and DELETE are allowed, as in Cassandra;
// conditional statements in batches are not supported here.
func (s *Session) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	lost, err := s.begin(ctx, Call{Op: OpBatch, Queries: append([]cqldriver.Query(nil), qs...), Batch: kind})
	if err != nil {
		return err
	}
	type bound struct {
		st   *prepared
		vals []value
	}
	bs := make([]bound, len(qs))
	counters := 0
	for i, q := range qs {
		st, vals, err := s.prepare(q)
		if err != nil {
			return fmt.Errorf("batch statement %d: %w", i, err)
		}
		switch {
		case st.kind == selectStmt:
			return invalidf("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")
		case st.conditional():
			return unsupportedf("a conditional statement in a batch")
		}
		if st.table.counter {
			counters++
		}
		bs[i] = bound{st, vals}
	}
	switch {
	case counters > 0 && kind == cqldriver.Logged:
		return invalidf("Cannot include a counter statement in a logged batch")
	case counters > 0 && counters < len(bs):
		return invalidf("Counter and non-counter mutations cannot exist in the same batch")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	micros, secs := s.now()
	ws := make([]*write, len(bs))
	for i, b := range bs {
		if ws[i], err = bindWrite(b.st, b.vals, micros); err != nil {
			return fmt.Errorf("batch statement %d: %w", i, err)
		}
	}
	for _, w := range ws {
		w.apply(secs, s.nextPath)
	}
	return lost
}
