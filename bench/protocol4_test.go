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
)

// Workload 6b: the write protocol of an entity in four tables (Standing:
// by id, the source of truth, and on a board, a team and a region, each
// by points), so that an Update moves three rows. As workload 6, against
// the same protocol written by hand and, for Insert, a plain logged batch.

// standingTables are the tables other than the source of truth, each
// with the column that partitions it.
var standingTables = []struct{ name, part string }{
	{"standings_by_board", "board"},
	{"standings_by_team", "team"},
	{"standings_by_region", "region"},
}

const (
	hand4State  = "SELECT board, team, region, points, cqlgen_version, cqlgen_deleted, cqlgen_pending FROM standings WHERE standing_id = ?"
	hand4Change = "UPDATE standings SET board = ?, team = ?, region = ?, points = ?, name = ?, cqlgen_version = ?, cqlgen_deleted = false, cqlgen_pending = ? WHERE standing_id = ? IF cqlgen_version = ?"
	hand4Remove = "UPDATE standings USING TTL 864000 SET board = null, team = null, region = null, points = null, name = null, cqlgen_version = ?, cqlgen_deleted = true, cqlgen_pending = ? WHERE standing_id = ? IF cqlgen_version = ?"
)

func hand4Ins(table string) string {
	return "INSERT INTO " + table + " (standing_id, board, team, region, points, name) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?"
}

func hand4Del(table, part string) string {
	return "DELETE FROM " + table + " USING TIMESTAMP ? WHERE " + part + " = ? AND points = ? AND standing_id = ?"
}

// standingKeys are the partition values of a standing's three rows
// elsewhere, and its points.
type standingKeys struct {
	parts  [3]string
	points int64
}

func keysOf(s *model.Standing) standingKeys {
	return standingKeys{[3]string{s.Board, s.Team, s.Region}, s.Points}
}

// pending records the rows to delete: their keys, or nothing.
func hand4Pending(k standingKeys, moved bool) []byte {
	b := []byte{1}
	if moved {
		for _, p := range k.parts {
			b = binary.AppendUvarint(b, uint64(len(p)))
			b = append(b, p...)
		}
		b = binary.AppendVarint(b, k.points)
	}
	return b
}

func hand4Unpending(b []byte) (k standingKeys, ok bool) {
	if len(b) < 2 {
		return k, false
	}
	b = b[1:]
	for i := range k.parts {
		n, w := binary.Uvarint(b)
		k.parts[i] = string(b[w : w+int(n)])
		b = b[w+int(n):]
	}
	k.points, _ = binary.Varint(b)
	return k, true
}

// handStanding is workload 6's careful hand-written protocol, for four
// tables: read the source of truth, carry out its pending record, a
// conditional write on the version recording the rows to delete, then
// one logged batch of the moves.
type handStanding struct{ s *gocql.Session }

func (h handStanding) deletes(b *gocql.Batch, k standingKeys, ts int64, id string) {
	for i, t := range standingTables {
		b.Query(hand4Del(t.name, t.part), ts, k.parts[i], k.points, id)
	}
}

func (h handStanding) write(st *model.Standing, del bool) error {
	for {
		var cur standingKeys
		var version int64
		var deleted bool
		var pending []byte
		err := h.s.Query(hand4State, st.StandingID).Scan(&cur.parts[0], &cur.parts[1], &cur.parts[2], &cur.points, &version, &deleted, &pending)
		found := err == nil
		if err != nil && !errors.Is(err, gocql.ErrNotFound) {
			return err
		}
		live := found && !deleted
		if old, ok := hand4Unpending(pending); ok {
			b := h.s.NewBatch(gocql.LoggedBatch)
			h.deletes(b, old, version, st.StandingID)
			if err := h.s.ExecuteBatch(b); err != nil {
				return err
			}
		}
		ts := max(time.Now().UnixMicro(), version+2)
		moved := live && (del || cur != keysOf(st))
		var old any
		if found {
			old = version
		}
		var q *gocql.Query
		if del {
			q = h.s.Query(hand4Remove, ts, hand4Pending(cur, moved), st.StandingID, old)
		} else {
			q = h.s.Query(hand4Change, st.Board, st.Team, st.Region, st.Points, st.Name, ts, hand4Pending(cur, moved), st.StandingID, old)
		}
		var v int64
		applied, err := q.ScanCAS(&v)
		if err != nil {
			return err
		}
		if !applied {
			continue
		}
		b := h.s.NewBatch(gocql.LoggedBatch)
		if moved {
			h.deletes(b, cur, ts, st.StandingID)
		}
		if !del {
			for _, t := range standingTables {
				b.Query(hand4Ins(t.name), st.StandingID, st.Board, st.Team, st.Region, st.Points, st.Name, ts+1)
			}
		}
		if len(b.Entries) == 0 {
			return nil
		}
		return h.s.ExecuteBatch(b)
	}
}

// plainStanding writes the four tables in one logged batch, with none of
// the protocol's guarantees: for an Update (old not nil) the deletes of
// old's rows too, for a Delete the deletes alone (see plainTally).
func plainStanding(s *gocql.Session, old, st *model.Standing, del bool) error {
	ts := time.Now().UnixMicro()
	b := s.NewBatch(gocql.LoggedBatch)
	if del {
		b.Query("DELETE FROM standings USING TIMESTAMP ? WHERE standing_id = ?", ts, st.StandingID)
	} else {
		b.Query(hand4Ins("standings"), st.StandingID, st.Board, st.Team, st.Region, st.Points, st.Name, ts)
	}
	if old != nil {
		handStanding{s}.deletes(b, keysOf(old), ts, old.StandingID)
	}
	if !del {
		for _, t := range standingTables {
			b.Query(hand4Ins(t.name), st.StandingID, st.Board, st.Team, st.Region, st.Points, st.Name, ts)
		}
	}
	return s.ExecuteBatch(b)
}

func standing(prefix string, i int) model.Standing {
	return model.Standing{StandingID: fmt.Sprintf("%s%d", prefix, i), Board: fmt.Sprintf("board-%d", i%16), Team: fmt.Sprintf("team-%d", i%32), Region: fmt.Sprintf("region-%d", i%4), Points: int64(i % 1000), Name: "player"}
}

func standingCase(p peers) protocolCase[model.Standing] {
	repo := model.NewStandingRepo(p.cq)
	return protocolCase[model.Standing]{
		make:   standing,
		move:   func(st *model.Standing, i int) { st.Points = int64(i) }, // three rows move
		hand:   handStanding{p.s}.write,
		plain:  func(old, st *model.Standing, del bool) error { return plainStanding(p.s, old, st, del) },
		insert: func(st *model.Standing) error { return repo.Insert(ctx, st) },
		update: func(st *model.Standing) error { return repo.Update(ctx, st) },
		delete: func(st *model.Standing) error { return repo.Delete(ctx, st) },
	}
}

// BenchmarkProtocol4Paired is BenchmarkProtocolPaired for an entity in
// four tables.
func BenchmarkProtocol4Paired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, op := range []string{"insert", "update", "delete"} {
			b.Run("op="+op, func(b *testing.B) {
				benchenv.Paired(b, warmCalls(), standingCase(p).impls(b, op)...)
			})
		}
	})
}
