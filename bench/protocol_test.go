package bench_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Workload 6: the write protocol of an entity in two tables (Tally: by id,
// the source of truth, and on a board by points), Insert, Update (which
// moves the board row) and Delete, against the same protocol written by
// hand in gocql, and against the plain logged batch that gives none of
// its guarantees.

// handTally is the write protocol as a careful developer writes it by
// hand with gocql: read the source of truth, carry out what its pending
// record says, a conditional write on the version that records the rows
// to delete, then one logged batch for the board. The statements are the
// ones cqlgen generates, so the schema is shared.
type handTally struct{ s *gocql.Session }

const (
	handState  = "SELECT board, points, cqlgen_version, cqlgen_deleted, cqlgen_pending FROM tallies WHERE tally_id = ?"
	handChange = "UPDATE tallies SET board = ?, points = ?, name = ?, cqlgen_version = ?, cqlgen_deleted = false, cqlgen_pending = ? WHERE tally_id = ? IF cqlgen_version = ?"
	handRemove = "UPDATE tallies USING TTL 864000 SET board = null, points = null, name = null, cqlgen_version = ?, cqlgen_deleted = true, cqlgen_pending = ? WHERE tally_id = ? IF cqlgen_version = ?"
	handIns    = "INSERT INTO tallies_by_board (board, points, tally_id, name) VALUES (?, ?, ?, ?) USING TIMESTAMP ?"
	handDel    = "DELETE FROM tallies_by_board USING TIMESTAMP ? WHERE board = ? AND points = ? AND tally_id = ?"
)

// pending records the board row to delete: its board and points, or
// nothing.
func handPending(board string, points int64, moved bool) []byte {
	b := []byte{1}
	if moved {
		b = binary.AppendUvarint(b, uint64(len(board)))
		b = append(b, board...)
		b = binary.AppendVarint(b, points)
	}
	return b
}

func handUnpending(b []byte) (board string, points int64, ok bool) {
	if len(b) < 2 {
		return "", 0, false
	}
	n, k := binary.Uvarint(b[1:])
	board = string(b[1+k : 1+k+int(n)])
	points, _ = binary.Varint(b[1+k+int(n):])
	return board, points, true
}

func (h handTally) write(t *model.Tally, del bool) error {
	for {
		var board string
		var points, version int64
		var deleted bool
		var pending []byte
		err := h.s.Query(handState, t.TallyID).Scan(&board, &points, &version, &deleted, &pending)
		found := err == nil
		if err != nil && !errors.Is(err, gocql.ErrNotFound) {
			return err
		}
		live := found && !deleted
		if ob, op, ok := handUnpending(pending); ok {
			if err := h.s.Query(handDel, version, ob, op, t.TallyID).Exec(); err != nil {
				return err
			}
		}
		ts := max(time.Now().UnixMicro(), version+2)
		moved := live && (del || board != t.Board || points != t.Points)
		var old any
		if found {
			old = version
		}
		var q *gocql.Query
		if del {
			q = h.s.Query(handRemove, ts, handPending(board, points, moved), t.TallyID, old)
		} else {
			q = h.s.Query(handChange, t.Board, t.Points, t.Name, ts, handPending(board, points, moved), t.TallyID, old)
		}
		var cur int64
		applied, err := q.ScanCAS(&cur)
		if err != nil {
			return err
		}
		if !applied {
			continue
		}
		batch := h.s.NewBatch(gocql.LoggedBatch)
		if moved {
			batch.Query(handDel, ts, board, points, t.TallyID)
		}
		if !del {
			batch.Query(handIns, t.Board, t.Points, t.TallyID, t.Name, ts+1)
		}
		if len(batch.Entries) == 0 {
			return nil
		}
		return h.s.ExecuteBatch(batch)
	}
}

// plainTally writes both tables in one logged batch: Insert as cqlgen did
// before the write protocol, with no turn-taking, no record of the rows
// to delete and client timestamps. An Update (old not nil) deletes the
// board row old had and inserts t's; a Delete deletes both rows. The
// writer is told the old row (no read): the floor the protocol is set
// against, the same rows in one batch.
func plainTally(s *gocql.Session, old, t *model.Tally, del bool) error {
	ts := time.Now().UnixMicro()
	batch := s.NewBatch(gocql.LoggedBatch)
	if del {
		batch.Query("DELETE FROM tallies USING TIMESTAMP ? WHERE tally_id = ?", ts, t.TallyID)
	} else {
		batch.Query("INSERT INTO tallies (tally_id, board, points, name) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", t.TallyID, t.Board, t.Points, t.Name, ts)
	}
	if old != nil {
		batch.Query(handDel, ts, old.Board, old.Points, old.TallyID)
	}
	if !del {
		batch.Query(handIns, t.Board, t.Points, t.TallyID, t.Name, ts)
	}
	return s.ExecuteBatch(batch)
}

// tallyPool is how many tallies an update or delete workload writes
// beforehand, for each impl: a run's rounds stay below it, so that every
// Delete deletes a live tally. (A variable: the cluster benchmarks, whose
// writes are slower, make it smaller.)
var tallyPool = 4096

func tally(prefix string, i int) model.Tally {
	return model.Tally{TallyID: fmt.Sprintf("%s%d", prefix, i), Board: fmt.Sprintf("board-%d", i%16), Points: int64(i % 1000), Name: "player"}
}

// protocolCase is an entity the write protocol's benchmarks write: how to
// make the i-th, move it (a new sort key, so that rows move), and write it
// by hand, in a plain batch and with cqlgen.
type protocolCase[T any] struct {
	make func(prefix string, i int) T
	move func(e *T, i int)
	hand func(e *T, del bool) error
	// plain writes the same rows in one logged batch, told the old
	// entity (nil for Insert).
	plain func(old, e *T, del bool) error
	// cqlgen's Insert, Update and Delete.
	insert, update, delete func(e *T) error
}

// impls are the peers of one op: the protocol written by hand, cqlgen,
// and the plain batch of the same rows. For Update and Delete each first
// writes its own entities with its own Insert (the hand-written pending
// record is not cqlgen's).
func (c protocolCase[T]) impls(b *testing.B, op string) []benchenv.Impl {
	run := fmt.Sprintf("%d-", time.Now().UnixNano())
	pool := tallyPool
	if benchenv.Small() {
		pool = 64
	}
	var impls []benchenv.Impl
	for _, name := range []string{"gocql-protocol", "cqlgen", "gocql-plain"} {
		prefix := op + "-" + name + "-" + run
		insert := func(e *T) error { return c.hand(e, false) }
		var do func(e *T) error
		switch name {
		case "gocql-protocol":
			do = func(e *T) error { return c.hand(e, op == "delete") }
		case "gocql-plain":
			insert = func(e *T) error { return c.plain(nil, e, false) }
		default:
			insert = c.insert
			do = map[string]func(*T) error{"insert": c.insert, "update": c.update, "delete": c.delete, "replace": c.insert}[op]
		}
		if op != "insert" {
			for i := range pool {
				e := c.make(prefix, i)
				if err := insert(&e); err != nil {
					b.Fatalf("preparing %s: %v", prefix, err)
				}
			}
		}
		impls = append(impls, benchenv.Impl{Name: name, Op: func(i int) error {
			e := c.make(prefix, i%pool)
			old := e
			switch op {
			case "insert":
				e = c.make(prefix, i)
			case "update", "replace":
				c.move(&e, i)
			}
			if name == "gocql-plain" {
				// Every entity is written once at most after its insert
				// (a run's rounds stay below the pool): old is its row.
				if op == "insert" {
					return c.plain(nil, &e, false)
				}
				return c.plain(&old, &e, op == "delete")
			}
			return do(&e)
		}})
	}
	return impls
}

func tallyCase(p peers) protocolCase[model.Tally] {
	repo := model.NewTallyRepo(p.cq)
	return protocolCase[model.Tally]{
		make:   tally,
		move:   func(t *model.Tally, i int) { t.Points = int64(i) }, // the board row moves
		hand:   handTally{p.s}.write,
		plain:  func(old, t *model.Tally, del bool) error { return plainTally(p.s, old, t, del) },
		insert: func(t *model.Tally) error { return repo.Insert(ctx, t) },
		update: func(t *model.Tally) error { return repo.Update(ctx, t) },
		delete: func(t *model.Tally) error { return repo.Delete(ctx, t) },
	}
}

// BenchmarkProtocolPaired runs Insert, Update and Delete of a Tally, and
// replace, an Insert over a live Tally (its board row moves: the direct
// create does not apply; the hand-written code and the plain batch do
// what they do for Update): cqlgen, the hand-written protocol and the
// plain batch of the same rows in turn, p50 and p99 of each, their ratios
// to the hand-written code, and each one's ratio to the plain batch.
func BenchmarkProtocolPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, op := range []string{"insert", "update", "delete", "replace"} {
			b.Run("op="+op, func(b *testing.B) {
				benchenv.Paired(b, warmCalls(), tallyCase(p).impls(b, op)...)
			})
		}
	})
}

// BenchmarkModifyPaired prices Modify (issue 27, goal 5): a Tally's
// points set from what was read (its board row moves), by the
// hand-written protocol (its write reads the row, as any careful read
// then conditional write does), by cqlgen's Modify, by cqlgen's
// GetVersioned then Update with IfVersion, and by the plain logged batch
// of the same rows (told the old row, no read: the floor).
func BenchmarkModifyPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		repo := model.NewTallyRepo(p.cq)
		run := fmt.Sprintf("%d-", time.Now().UnixNano())
		pool := tallyPool
		if benchenv.Small() {
			pool = 64
		}
		hand := handTally{p.s}
		ways := []struct {
			name   string
			insert func(t *model.Tally) error
			modify func(old *model.Tally, points int64) error
		}{
			{"gocql-protocol", func(t *model.Tally) error { return hand.write(t, false) }, func(old *model.Tally, points int64) error {
				t := *old
				t.Points = points
				return hand.write(&t, false)
			}},
			{"cqlgen", func(t *model.Tally) error { return repo.Insert(ctx, t) }, func(old *model.Tally, points int64) error {
				_, err := repo.Modify(ctx, old.TallyID, func(t *model.Tally) error { t.Points = points; return nil })
				return err
			}},
			{"cqlgen-get-update", func(t *model.Tally) error { return repo.Insert(ctx, t) }, func(old *model.Tally, points int64) error {
				t, v, err := repo.GetVersioned(ctx, old.TallyID)
				if err != nil {
					return err
				}
				t.Points = points
				return repo.Update(ctx, t, cqlgen.IfVersion(v))
			}},
			{benchenv.PlainImpl, func(t *model.Tally) error { return plainTally(p.s, nil, t, false) }, func(old *model.Tally, points int64) error {
				t := *old
				t.Points = points
				return plainTally(p.s, old, &t, false)
			}},
		}
		var impls []benchenv.Impl
		for _, w := range ways {
			prefix := "modify-" + w.name + "-" + run
			for i := range pool {
				t := tally(prefix, i)
				if err := w.insert(&t); err != nil {
					b.Fatalf("preparing %s: %v", prefix, err)
				}
			}
			impls = append(impls, benchenv.Impl{Name: w.name, Op: func(i int) error {
				old := tally(prefix, i%pool)
				return w.modify(&old, int64(i))
			}})
		}
		benchenv.Paired(b, warmCalls(), impls...)
	})
}
