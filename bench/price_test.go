package bench_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
)

// Workload 10 (issue 27, goal 5): the price of each guarantee the
// repositories give beyond a plain write, each against the gocql a careful
// engineer writes by hand for the same guarantee, on the same session (so
// the same consistency, LocalQuorum, and serial consistency, LocalSerial),
// with the same conditional writes:
//
//   - a unique claim (Account's email), on Insert and on a change of the
//     email: claim the new email with INSERT ... IF NOT EXISTS before the
//     conditional write of the account, release the old one after it with
//     a conditional DELETE, and record the email to release in the
//     account's row, so that the next writer finishes a change a crash cut
//     short;
//   - a sparse table's enter and leave (Member's roster of active members):
//     the conditional write records the row to delete, and the roster row is
//     written or deleted after it;
//   - Modify against the repository's Get then Update (which can lose a
//     concurrent update: the price of not losing it) and against a
//     hand-written read-modify-conditional-write of the same protocol;
//
// GetMany against concurrent Gets and an IN query is BenchmarkMultiGetPaired.
// The hand-written code uses the schema cqlgen generates, so that both sides
// write the same rows; it leaves out what only a failure needs (fencing the
// holder of a claim that no account holds, settling a lost reply), which the
// measured path never takes.

const (
	accState   = "SELECT email, cqlgen_version, cqlgen_deleted, cqlgen_pending FROM accounts WHERE account_id = ?"
	accChange  = "UPDATE accounts SET email = ?, name = ?, cqlgen_version = ?, cqlgen_deleted = false, cqlgen_pending = ? WHERE account_id = ? IF cqlgen_version = ?"
	accClaim   = "INSERT INTO accounts_by_email (email, account_id, cqlgen_claim) VALUES (?, ?, ?) IF NOT EXISTS"
	accRelease = "DELETE FROM accounts_by_email WHERE email = ? IF account_id = ? AND cqlgen_claim < ?"
)

var errTaken = errors.New("bench: the email is another account's")

// handAccount is a unique email kept by hand.
type handAccount struct{ s *gocql.Session }

func (h handAccount) release(email, id string, before int64) error {
	_, err := h.s.Query(accRelease, email, id, before).MapScanCAS(map[string]any{})
	return err
}

func (h handAccount) write(a *model.Account) error {
	for {
		var email string
		var version int64
		var deleted bool
		var pending []byte
		err := h.s.Query(accState, a.AccountID).Scan(&email, &version, &deleted, &pending)
		found := err == nil
		if err != nil && !errors.Is(err, gocql.ErrNotFound) {
			return err
		}
		live := found && !deleted
		if len(pending) > 1 {
			// The last change gave an email up: make sure it is released.
			if err := h.release(string(pending[1:]), a.AccountID, version); err != nil {
				return err
			}
		}
		ts := max(time.Now().UnixMicro(), version+2)
		changed := !live || email != a.Email
		if changed {
			cur := map[string]any{}
			applied, err := h.s.Query(accClaim, a.Email, a.AccountID, ts).MapScanCAS(cur)
			if err != nil {
				return err
			}
			if !applied && cur["account_id"] != a.AccountID {
				return errTaken
			}
		}
		pend := []byte{1}
		if live && changed {
			pend = append(pend, email...)
		}
		var old any
		if found {
			old = version
		}
		var cur int64
		applied, err := h.s.Query(accChange, a.Email, a.Name, ts, pend, a.AccountID, old).ScanCAS(&cur)
		if err != nil {
			return err
		}
		if !applied {
			continue
		}
		if live && changed {
			return h.release(email, a.AccountID, ts)
		}
		return nil
	}
}

const (
	memState  = "SELECT team, active, cqlgen_version, cqlgen_deleted, cqlgen_pending FROM members WHERE member_id = ?"
	memChange = "UPDATE members SET team = ?, active = ?, name = ?, cqlgen_version = ?, cqlgen_deleted = false, cqlgen_pending = ? WHERE member_id = ? IF cqlgen_version = ?"
	memIns    = "INSERT INTO active_members_by_team (team, member_id, active, name) VALUES (?, ?, ?, ?) USING TIMESTAMP ?"
	memDel    = "DELETE FROM active_members_by_team USING TIMESTAMP ? WHERE team = ? AND member_id = ?"
)

// handMember is a roster of active members kept by hand.
type handMember struct{ s *gocql.Session }

func (h handMember) write(m *model.Member) error {
	for {
		var team string
		var active, deleted bool
		var version int64
		var pending []byte
		err := h.s.Query(memState, m.MemberID).Scan(&team, &active, &version, &deleted, &pending)
		found := err == nil
		if err != nil && !errors.Is(err, gocql.ErrNotFound) {
			return err
		}
		live := found && !deleted
		if len(pending) > 1 {
			// The last change took the member off a roster: make sure.
			if err := h.s.Query(memDel, version, string(pending[1:]), m.MemberID).Exec(); err != nil {
				return err
			}
		}
		ts := max(time.Now().UnixMicro(), version+2)
		leaves := live && active && (!m.Active || team != m.Team)
		pend := []byte{1}
		if leaves {
			pend = append(pend, team...)
		}
		var old any
		if found {
			old = version
		}
		var cur int64
		applied, err := h.s.Query(memChange, m.Team, m.Active, m.Name, ts, pend, m.MemberID, old).ScanCAS(&cur)
		if err != nil {
			return err
		}
		if !applied {
			continue
		}
		var qs []*gocql.Query
		if leaves {
			qs = append(qs, h.s.Query(memDel, ts, team, m.MemberID))
		}
		if m.Active {
			qs = append(qs, h.s.Query(memIns, m.Team, m.MemberID, m.Active, m.Name, ts+1))
		}
		switch len(qs) {
		case 0:
			return nil
		case 1:
			return qs[0].Exec()
		}
		batch := h.s.NewBatch(gocql.LoggedBatch)
		batch.Query(memDel, ts, team, m.MemberID)
		batch.Query(memIns, m.Team, m.MemberID, m.Active, m.Name, ts+1)
		return h.s.ExecuteBatch(batch)
	}
}

const handRead = "SELECT board, points, name, cqlgen_version, cqlgen_deleted, cqlgen_pending FROM tallies WHERE tally_id = ?"

// handModify is a read-modify-conditional-write of a Tally by hand, on
// the protocol handTally writes: read the row and its version, apply
// change, write on the condition that the version is still the one
// read; on a conflict, read and apply again.
func (h handTally) modify(id string, change func(*model.Tally)) error {
	for {
		t := model.Tally{TallyID: id}
		var version int64
		var deleted bool
		var pending []byte
		if err := h.s.Query(handRead, id).Scan(&t.Board, &t.Points, &t.Name, &version, &deleted, &pending); err != nil {
			return err
		}
		if deleted {
			return gocql.ErrNotFound
		}
		if ob, op, ok := handUnpending(pending); ok {
			if err := h.s.Query(handDel, version, ob, op, id).Exec(); err != nil {
				return err
			}
		}
		board, points := t.Board, t.Points
		change(&t)
		ts := max(time.Now().UnixMicro(), version+2)
		moved := board != t.Board || points != t.Points
		var cur int64
		applied, err := h.s.Query(handChange, t.Board, t.Points, t.Name, ts, handPending(board, points, moved), id, version).ScanCAS(&cur)
		if err != nil {
			return err
		}
		if !applied {
			continue
		}
		if !moved {
			return h.s.Query(handIns, t.Board, t.Points, id, t.Name, ts+1).Exec()
		}
		batch := h.s.NewBatch(gocql.LoggedBatch)
		batch.Query(handDel, ts, board, points, id)
		batch.Query(handIns, t.Board, t.Points, id, t.Name, ts+1)
		return h.s.ExecuteBatch(batch)
	}
}

// The plain writes keep none of the guarantees: the same rows, written
// in one logged batch, without a conditional write, a claim or a record
// of the rows to delete (what a write costs without its guarantee).

// plainAccount writes a's row and its email's, deleting old's.
func plainAccount(s *gocql.Session, a *model.Account, old string) error {
	batch := s.NewBatch(gocql.LoggedBatch)
	batch.Query("UPDATE accounts SET email = ?, name = ? WHERE account_id = ?", a.Email, a.Name, a.AccountID)
	if old != "" {
		batch.Query("DELETE FROM accounts_by_email WHERE email = ?", old)
	}
	batch.Query("INSERT INTO accounts_by_email (email, account_id) VALUES (?, ?)", a.Email, a.AccountID)
	return s.ExecuteBatch(batch)
}

// plainMember writes m's row, and puts it on its team's roster or takes
// it off.
func plainMember(s *gocql.Session, m *model.Member) error {
	batch := s.NewBatch(gocql.LoggedBatch)
	batch.Query("UPDATE members SET team = ?, active = ?, name = ? WHERE member_id = ?", m.Team, m.Active, m.Name, m.MemberID)
	if m.Active {
		batch.Query("INSERT INTO active_members_by_team (team, member_id, active, name) VALUES (?, ?, ?, ?)", m.Team, m.MemberID, m.Active, m.Name)
	} else {
		batch.Query("DELETE FROM active_members_by_team WHERE team = ? AND member_id = ?", m.Team, m.MemberID)
	}
	return s.ExecuteBatch(batch)
}

// plainModify reads a tally, applies change and writes it back with its
// board row moved, in one logged batch: a concurrent change is lost.
func plainModify(s *gocql.Session, id string, change func(*model.Tally)) error {
	t := model.Tally{TallyID: id}
	if err := s.Query("SELECT board, points, name FROM tallies WHERE tally_id = ?", id).Scan(&t.Board, &t.Points, &t.Name); err != nil {
		return err
	}
	board, points := t.Board, t.Points
	change(&t)
	batch := s.NewBatch(gocql.LoggedBatch)
	batch.Query("UPDATE tallies SET board = ?, points = ?, name = ? WHERE tally_id = ?", t.Board, t.Points, t.Name, id)
	batch.Query("DELETE FROM tallies_by_board WHERE board = ? AND points = ? AND tally_id = ?", board, points, id)
	batch.Query("INSERT INTO tallies_by_board (board, points, tally_id, name) VALUES (?, ?, ?, ?)", t.Board, t.Points, id, t.Name)
	return s.ExecuteBatch(batch)
}

// pricePool is how many entities a workload that changes them writes
// beforehand, for each impl: a run's rounds stay below it, so that each
// change is the first of its entity since the pool was written (every
// enter enters, every leave leaves).
func pricePool() int {
	if benchenv.Small() {
		return 64
	}
	return tallyPool
}

// priceImpl makes an impl of a workload over a pool: prepare writes the
// i-th entity beforehand (when the workload changes existing ones) and op
// is the call measured, on round i.
func priceImpl(b *testing.B, name string, n int, prepare func(i int) error, op func(i int) error) benchenv.Impl {
	if prepare != nil {
		if err := benchenv.Parallel(n, 8, prepare); err != nil {
			b.Fatalf("preparing %s: %v", name, err)
		}
	}
	return benchenv.Impl{Name: name, Op: op}
}

func priceImpls(b *testing.B, p peers, guarantee, run string) []benchenv.Impl {
	n := pricePool()
	accounts := model.NewAccountRepo(p.cq)
	members := model.NewMemberRepo(p.cq)
	tallies := model.NewTallyRepo(p.cq)
	hAcc, hMem, hTal := handAccount{p.s}, handMember{p.s}, handTally{p.s}
	account := func(prefix string, i, email int) *model.Account {
		return &model.Account{AccountID: fmt.Sprintf("%s-%d", prefix, i), Email: fmt.Sprintf("%s-%d-%d@example.com", prefix, i, email), Name: "Ada"}
	}
	member := func(prefix string, i int, active bool) *model.Member {
		return &model.Member{MemberID: fmt.Sprintf("%s-%d", prefix, i), Team: fmt.Sprintf("team-%d", i%16), Active: active, Name: "Ada"}
	}
	switch guarantee {
	case "claim-insert":
		return []benchenv.Impl{
			priceImpl(b, "gocql", n, nil, func(i int) error { return hAcc.write(account("ci-h-"+run, i, 0)) }),
			priceImpl(b, "cqlgen", n, nil, func(i int) error { return accounts.Insert(ctx, account("ci-c-"+run, i, 0)) }),
			priceImpl(b, "gocql-plain", n, nil, func(i int) error { return plainAccount(p.s, account("ci-p-"+run, i, 0), "") }),
		}
	case "claim-change":
		// Round i gives account i%n an email it never had.
		return []benchenv.Impl{
			priceImpl(b, "gocql", n, func(i int) error { return hAcc.write(account("cc-h-"+run, i, -1)) },
				func(i int) error { return hAcc.write(account("cc-h-"+run, i%n, i)) }),
			priceImpl(b, "cqlgen", n, func(i int) error { return accounts.Insert(ctx, account("cc-c-"+run, i, -1)) },
				func(i int) error { return accounts.Update(ctx, account("cc-c-"+run, i%n, i)) }),
			priceImpl(b, "gocql-plain", n, func(i int) error { return plainAccount(p.s, account("cc-p-"+run, i, -1), "") },
				func(i int) error {
					a := account("cc-p-"+run, i%n, i)
					var old string
					if err := p.s.Query("SELECT email FROM accounts WHERE account_id = ?", a.AccountID).Scan(&old); err != nil {
						return err
					}
					return plainAccount(p.s, a, old)
				}),
		}
	case "sparse-enter", "sparse-leave":
		before := guarantee == "sparse-leave"
		return []benchenv.Impl{
			priceImpl(b, "gocql", n, func(i int) error { return hMem.write(member("s-h-"+run, i, before)) },
				func(i int) error { return hMem.write(member("s-h-"+run, i%n, !before)) }),
			priceImpl(b, "cqlgen", n, func(i int) error { return members.Insert(ctx, member("s-c-"+run, i, before)) },
				func(i int) error { return members.Update(ctx, member("s-c-"+run, i%n, !before)) }),
			priceImpl(b, "gocql-plain", n, func(i int) error { return plainMember(p.s, member("s-p-"+run, i, before)) },
				func(i int) error { return plainMember(p.s, member("s-p-"+run, i%n, !before)) }),
		}
	case "modify":
		// One more point: the board row moves.
		inc := func(t *model.Tally) { t.Points++ }
		return []benchenv.Impl{
			priceImpl(b, "gocql-rmw", n, func(i int) error { t := tally("m-h-"+run, i); return hTal.write(&t, false) },
				func(i int) error { return hTal.modify(tally("m-h-"+run, i%n).TallyID, inc) }),
			priceImpl(b, "cqlgen-get-update", n, func(i int) error { t := tally("m-g-"+run, i); return tallies.Insert(ctx, &t) },
				func(i int) error {
					t, err := tallies.Get(ctx, tally("m-g-"+run, i%n).TallyID)
					if err != nil {
						return err
					}
					inc(t)
					return tallies.Update(ctx, t)
				}),
			priceImpl(b, "cqlgen", n, func(i int) error { t := tally("m-c-"+run, i); return tallies.Insert(ctx, &t) },
				func(i int) error {
					_, err := tallies.Modify(ctx, tally("m-c-"+run, i%n).TallyID, func(t *model.Tally) error { inc(t); return nil })
					return err
				}),
			priceImpl(b, "gocql-plain", n, func(i int) error { t := tally("m-p-"+run, i); return plainTally(p.s, nil, &t, false) },
				func(i int) error { return plainModify(p.s, tally("m-p-"+run, i%n).TallyID, inc) }),
		}
	}
	b.Fatalf("no guarantee %q", guarantee)
	return nil
}

// priceGuarantees are the workloads of BenchmarkPricePaired.
var priceGuarantees = []string{"claim-insert", "claim-change", "sparse-enter", "sparse-leave", "modify"}

// BenchmarkPricePaired runs each guarantee's write, cqlgen, the
// hand-written gocql and the plain write without the guarantee in turn:
// p50 and p99 of each, and their ratios to the hand-written code (for
// modify, the first is the hand-written read-modify-conditional-write).
func BenchmarkPricePaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, g := range priceGuarantees {
			b.Run("guarantee="+g, func(b *testing.B) {
				run := fmt.Sprintf("%d", time.Now().UnixNano())
				benchenv.Paired(b, warmCalls(), priceImpls(b, p, g, run)...)
				// Both sides did the same work: check what each left of
				// entity 0, which the first warm-up call changed.
				if err := priceCheck(p.s, g, run); err != nil {
					b.Fatal(err)
				}
			})
		}
	})
}

// priceCheck checks that the hand-written code and cqlgen left the same
// rows for entity 0 of guarantee's run: the claims held and released,
// the roster rows entered and left, the point Modify added.
func priceCheck(s *gocql.Session, guarantee, run string) error {
	count := func(stmt string, values ...any) (int, error) {
		var n int
		err := s.Query(stmt, values...).Scan(&n)
		return n, err
	}
	type want struct {
		stmt   string
		values []any
		n      int
	}
	var checks []want
	sides := []string{"h", "c"}
	if guarantee == "modify" {
		sides = append(sides, "g")
	}
	for _, side := range sides {
		switch guarantee {
		case "claim-insert":
			prefix := "ci-" + side + "-" + run
			checks = append(checks, want{"SELECT count(*) FROM accounts_by_email WHERE email = ? AND account_id = ? ALLOW FILTERING",
				[]any{prefix + "-0-0@example.com", prefix + "-0"}, 1})
		case "claim-change":
			prefix := "cc-" + side + "-" + run
			checks = append(checks,
				want{"SELECT count(*) FROM accounts_by_email WHERE email = ? AND account_id = ? ALLOW FILTERING", []any{prefix + "-0-0@example.com", prefix + "-0"}, 1},
				want{"SELECT count(*) FROM accounts_by_email WHERE email = ?", []any{prefix + "-0--1@example.com"}, 0})
		case "sparse-enter", "sparse-leave":
			n := 0
			if guarantee == "sparse-enter" {
				n = 1
			}
			checks = append(checks, want{"SELECT count(*) FROM active_members_by_team WHERE team = ? AND member_id = ?", []any{"team-0", "s-" + side + "-" + run + "-0"}, n})
		case "modify":
			prefix := "m-" + side + "-" + run
			t := tally(prefix, 0)
			checks = append(checks,
				want{"SELECT count(*) FROM tallies WHERE tally_id = ? AND points = ? ALLOW FILTERING", []any{t.TallyID, t.Points + 1}, 1},
				want{"SELECT count(*) FROM tallies_by_board WHERE board = ? AND points = ? AND tally_id = ?", []any{t.Board, t.Points + 1, t.TallyID}, 1},
				want{"SELECT count(*) FROM tallies_by_board WHERE board = ? AND points = ? AND tally_id = ?", []any{t.Board, t.Points, t.TallyID}, 0})
		}
	}
	for _, c := range checks {
		n, err := count(c.stmt, c.values...)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", guarantee, c.stmt, err)
		}
		if n != c.n {
			return fmt.Errorf("%s: %s %v: %d rows, want %d", guarantee, c.stmt, c.values, n, c.n)
		}
	}
	return nil
}
