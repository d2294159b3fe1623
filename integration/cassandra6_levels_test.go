package integration

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cqlgen/cqlgen/integration/txnmodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// countingSession counts the statements a call sends, and passes them to
// next (nil: answers each with an error, as a node that is not there).
type countingSession struct {
	next cqlgen.Session
	sent atomic.Int64
	last atomic.Value // the CQL of the last statement sent
}

var errNoNode = errors.New("countingSession: no node")

func (c *countingSession) note(q cqldriver.Query) {
	c.sent.Add(1)
	if q.Stmt != nil {
		c.last.Store(q.Stmt.CQL)
	}
}

func (c *countingSession) Exec(ctx context.Context, q cqldriver.Query) error {
	c.note(q)
	if c.next == nil {
		return errNoNode
	}
	return c.next.Exec(ctx, q)
}

func (c *countingSession) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	c.note(q)
	if c.next == nil {
		return errIter{}
	}
	return c.next.Iter(ctx, q)
}

func (c *countingSession) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	c.note(q)
	if c.next == nil {
		return false, errNoNode
	}
	return c.next.ExecCAS(ctx, q, dest...)
}

func (c *countingSession) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	for _, q := range qs {
		c.note(q)
	}
	if c.next == nil {
		return errNoNode
	}
	return c.next.Batch(ctx, kind, qs)
}

type errIter struct{}

func (errIter) Scan(...any) bool     { return false }
func (errIter) PageState() []byte    { return nil }
func (errIter) Close() error         { return errNoNode }
func (errIter) Columns() []string    { return nil }
func (errIter) NumRows() int         { return 0 }
func (errIter) WillSwitchPage() bool { return false }

// levelCall is one repository call of the transactional Member, run with
// ctx and the options given.
type levelCall struct {
	name  string
	write bool
	table string // the table the call reads ("": members)
	run   func(ctx context.Context, repo *txnmodel.MemberRepo, opts ...cqlgen.Option) error
}

func levelCalls(m txnmodel.Member) []levelCall {
	get := func(f func(ctx context.Context, repo *txnmodel.MemberRepo) error) func(context.Context, *txnmodel.MemberRepo, ...cqlgen.Option) error {
		return func(ctx context.Context, repo *txnmodel.MemberRepo, _ ...cqlgen.Option) error { return f(ctx, repo) }
	}
	return []levelCall{
		{"Insert", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			n := m
			n.MemberID, n.Email = "new-"+m.MemberID, "new-"+m.Email
			return r.Insert(ctx, &n, o...)
		}},
		{"Insert IfAbsent", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			n := m
			n.MemberID, n.Email = "new-"+m.MemberID, "new-"+m.Email
			return r.Insert(ctx, &n, append(o, cqlgen.IfAbsent())...)
		}},
		{"Update", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			n := m
			n.Score++
			return r.Update(ctx, &n, o...)
		}},
		{"Update moving a key", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			n := m
			n.Team += "-moved"
			return r.Update(ctx, &n, o...)
		}},
		{"Update IfVersion", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			n := m
			n.Score++
			return r.Update(ctx, &n, append(o, cqlgen.IfVersion(1))...)
		}},
		{"Update with an idempotency key", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			n := m
			n.Score++
			return r.Update(ctx, &n, append(o, cqlgen.WithIdempotencyKey("k-"+m.MemberID))...)
		}},
		{"Modify", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			_, err := r.Modify(ctx, m.MemberID, func(x *txnmodel.Member) error { x.Score++; return nil }, o...)
			return err
		}},
		{"Delete", true, "", func(ctx context.Context, r *txnmodel.MemberRepo, o ...cqlgen.Option) error {
			return r.Delete(ctx, &txnmodel.Member{MemberID: m.MemberID}, o...)
		}},
		{"Get", false, "", get(func(ctx context.Context, r *txnmodel.MemberRepo) error { _, err := r.Get(ctx, m.MemberID); return err })},
		{"GetVersioned", false, "", get(func(ctx context.Context, r *txnmodel.MemberRepo) error {
			_, _, err := r.GetVersioned(ctx, m.MemberID)
			return err
		})},
		{"GetMany", false, "", get(func(ctx context.Context, r *txnmodel.MemberRepo) error {
			_, err := r.GetMany(ctx, []string{m.MemberID})
			return err
		})},
		{"MembersByTeam", false, "members_by_team", get(func(ctx context.Context, r *txnmodel.MemberRepo) error {
			_, err := r.MembersByTeam(ctx, m.Team, nil)
			return err
		})},
		{"FlaggedMembers", false, "flagged_members", get(func(ctx context.Context, r *txnmodel.MemberRepo) error {
			_, err := r.FlaggedMembers(ctx, m.Team, nil)
			return err
		})},
		{"MemberByEmail", false, "", get(func(ctx context.Context, r *txnmodel.MemberRepo) error {
			_, err := r.MemberByEmail(ctx, m.Email)
			return err
		})},
	}
}

// A refused level, and where it is named.
type levelCase struct {
	name   string
	levels cqlgen.Levels         // the call's (WithLevels)
	serial cqldriver.Consistency // WithSerialConsistency
	of     string
	level  cqldriver.Consistency
	from   string // where it came from, as the error says
}

func levelCases(write bool) []levelCase {
	var out []levelCase
	for _, l := range []cqldriver.Consistency{cqldriver.LocalQuorum, cqldriver.LocalOne, cqldriver.EachQuorum, cqldriver.Two, cqldriver.Three, cqldriver.LocalSerial} {
		out = append(out, levelCase{"WithLevels.Read", cqlgen.Levels{Read: l}, 0, "read", l, "the call's context (WithLevels)"})
		if write {
			out = append(out, levelCase{"WithLevels.Write", cqlgen.Levels{Write: l}, 0, "write", l, "the call's context (WithLevels)"})
		}
	}
	if write {
		for _, l := range []cqldriver.Consistency{cqldriver.LocalSerial, cqldriver.Quorum, cqldriver.LocalQuorum} {
			out = append(out, levelCase{"WithLevels.Serial", cqlgen.Levels{Serial: l}, 0, "serial", l, "the call's context (WithLevels)"})
			out = append(out, levelCase{"WithSerialConsistency", cqlgen.Levels{}, l, "serial", l, "the repository's or the call's options (WithSerialConsistency)"})
		}
	}
	return out
}

// checkLevelRefused runs every call of the transactional Member with
// every level Accord refuses, on a session at Quorum/Serial, and asserts
// that each is a *cqlgen.InputError naming the level, the table and the
// call as where it came from, with nothing sent through count.
func checkLevelRefused(t *testing.T, count *countingSession, m txnmodel.Member) int {
	repo := txnmodel.NewMemberRepo(count)
	n := 0
	for _, call := range levelCalls(m) {
		for _, c := range levelCases(call.write) {
			t.Run(call.name+"/"+c.name+"="+c.level.String(), func(t *testing.T) {
				ctx := context.Background()
				if c.levels != (cqlgen.Levels{}) {
					ctx = cqlgen.WithLevels(ctx, c.levels)
				}
				var opts []cqlgen.Option
				if c.serial != 0 {
					opts = append(opts, cqlgen.WithSerialConsistency(c.serial))
				}
				before := count.sent.Load()
				err := call.run(ctx, repo, opts...)
				if sent := count.sent.Load() - before; sent != 0 {
					t.Errorf("%d statements sent (the last: %v), want none", sent, count.last.Load())
				}
				var in *cqlgen.InputError
				if !errors.As(err, &in) || !errors.Is(err, cqlgen.ErrInvalidOption) {
					t.Fatalf("got %v, want an *cqlgen.InputError matching ErrInvalidOption", err)
				}
				table := call.table
				if table == "" {
					table = "members"
				}
				if in.Table != table || in.Name != c.name || !strings.HasPrefix(in.Reason, c.level.String()+", a "+c.of+" level from ") ||
					!strings.Contains(in.Reason, c.from) || !strings.HasSuffix(in.Reason, "nothing was sent") || strings.Contains(err.Error(), "session") {
					t.Errorf("got %q, want table %s, %s: %s for %s, from %s, nothing sent", err, table, c.name, c.level, c.of, c.from)
				}
			})
			n++
		}
	}
	return n
}

// Every call of an entity in the transactional mode refuses, before
// anything is sent, a level Accord does not take that the call names
// (issue 35, D3, D4). No node: a session that counts the statements.
func TestCassandra6LevelsRefusedBeforeSending(t *testing.T) {
	count := &countingSession{}
	m := txnmodel.Member{MemberID: "m1", Team: "red", Name: "ann", Email: "ann@x"}
	n := checkLevelRefused(t, count, m)
	t.Logf("%d calls and levels, %d statements sent", n, count.sent.Load())
	// And a level Accord takes goes through to the session.
	repo := txnmodel.NewMemberRepo(count)
	for _, l := range []cqlgen.Levels{{Read: cqldriver.One}, {Read: cqldriver.Quorum, Write: cqldriver.All, Serial: cqldriver.Serial}} {
		before := count.sent.Load()
		if _, err := repo.Get(cqlgen.WithLevels(context.Background(), l), "m1"); !errors.Is(err, errNoNode) {
			t.Errorf("Get at %+v: %v, want the session's error", l, err)
		}
		if count.sent.Load() == before {
			t.Errorf("Get at %+v sent nothing", l)
		}
	}
}

// On the 6.0 node (issue 35, D3, D4, D6): a level Accord refuses, named
// by the call, never reaches the server, for every call and level, and
// leaves every table as it was; on a session at LOCAL_QUORUM every call,
// reads included, returns the *cqlgen.InputError that names the session's
// level and the table, not the server's raw refusal; Modify reads the
// entity once.
func TestCassandra6TransactionalLevels(t *testing.T) {
	raw, s := txnSetup(t)
	ctx := context.Background()
	m := txnmodel.Member{MemberID: "m1", Team: "red", Name: "ann", Email: "ann@x", Flagged: true, Score: 1}
	must(t, txnmodel.NewMemberRepo(s).Insert(ctx, &m))
	before := readMemberRows(t, raw)
	count := &countingSession{next: s}
	t.Run("refused before sending", func(t *testing.T) {
		n := checkLevelRefused(t, count, m)
		t.Logf("%d calls and levels, %d statements sent", n, count.sent.Load())
	})
	if after := readMemberRows(t, raw); !reflect.DeepEqual(after, before) {
		t.Errorf("the refused calls changed the tables:\n%+v\nwas\n%+v", after, before)
	}

	t.Run("a session at LOCAL_QUORUM", func(t *testing.T) {
		local := txnmodel.NewMemberRepo(gocqlv1.NewSession(raw, nil))
		for _, call := range levelCalls(m) {
			err := call.run(ctx, local)
			table := call.table
			if table == "" {
				table = "members"
			}
			var in *cqlgen.InputError
			if !errors.As(err, &in) || in.Table != table || !strings.HasPrefix(in.Name, "SessionOptions.") ||
				!strings.HasPrefix(in.Reason, "LOCAL_") || !strings.Contains(in.Reason, "from the session") || !strings.Contains(in.Reason, "the server refused it: ") {
				t.Errorf("%s: %v, want an *InputError naming the session's LOCAL_* level and %s", call.name, err, table)
				continue
			}
			t.Logf("%s: %v", call.name, err)
		}
	})
	if after := readMemberRows(t, raw); !reflect.DeepEqual(after, before) {
		t.Errorf("the calls at LOCAL_QUORUM changed the tables:\n%+v\nwas\n%+v", after, before)
	}

	t.Run("Modify reads once", func(t *testing.T) {
		rec := &recordingSession{Session: s}
		if _, err := txnmodel.NewMemberRepo(rec).Modify(ctx, "m1", func(x *txnmodel.Member) error { x.Score++; return nil }); err != nil {
			t.Fatal(err)
		}
		if len(rec.cql) != 2 || !strings.HasPrefix(rec.cql[0], "SELECT") || !strings.HasPrefix(rec.cql[1], "BEGIN TRANSACTION") {
			t.Errorf("Modify sent %d statements, want one read and one transaction:\n%s", len(rec.cql), strings.Join(rec.cql, "\n---\n"))
		}
	})
}

// recordingSession records the CQL of each statement sent.
type recordingSession struct {
	cqlgen.Session
	mu  sync.Mutex
	cql []string
}

func (r *recordingSession) note(q cqldriver.Query) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cql = append(r.cql, strings.TrimSpace(q.Stmt.CQL))
}

func (r *recordingSession) Exec(ctx context.Context, q cqldriver.Query) error {
	r.note(q)
	return r.Session.Exec(ctx, q)
}

func (r *recordingSession) Iter(ctx context.Context, q cqldriver.Query) cqldriver.Iter {
	r.note(q)
	return r.Session.Iter(ctx, q)
}

func (r *recordingSession) ExecCAS(ctx context.Context, q cqldriver.Query, dest ...any) (bool, error) {
	r.note(q)
	return r.Session.ExecCAS(ctx, q, dest...)
}

func (r *recordingSession) Batch(ctx context.Context, kind cqldriver.BatchKind, qs []cqldriver.Query) error {
	for _, q := range qs {
		r.note(q)
	}
	return r.Session.Batch(ctx, kind, qs)
}
