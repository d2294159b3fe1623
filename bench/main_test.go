// Package bench_test sets cqlgen's generated repositories side by side
// with the same work done by hand with raw gocql and with gocqlx, on the
// same data, the same session and a real Cassandra; gocassa's side is in
// bench/gocassa, which needs an older gocql. See README.md for how to run
// them and what they showed.
package bench_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/gocql/gocql"
	"github.com/scylladb/gocqlx/v2"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

func TestMain(m *testing.M) {
	code := m.Run()
	shared.Close()
	if synthDir != "" {
		os.RemoveAll(synthDir)
	}
	os.Exit(code)
}

// shared is the keyspace of this process, made on first use by a
// benchmark that needs Cassandra.
var shared = &benchenv.Shared{Prefix: "cqlgen_bench", Schema: model.Schema, Load: load}

// Sizes of the loaded data, set by load.
var (
	nUsers   int
	nPlayers int
)

// Boards holds the players the scatter-gather reads merge: 200 rows in
// each of the 100 buckets, so every bucket of either table has more than
// a page to give, as the buckets of a real chart do.
const (
	Board        = "board-1"
	Players      = 20000
	SmallPlayers = 400
)

func load(e *benchenv.Env, small bool) error {
	s := e.Session(benchenv.Coalescing[0])
	nUsers, nPlayers = benchenv.Users, Players
	events := benchenv.Events
	if small {
		nUsers, nPlayers, events = benchenv.SmallUsers, SmallPlayers, benchenv.SmallEvents
	}
	if err := benchenv.LoadUsers(s, nUsers); err != nil {
		return fmt.Errorf("loading users: %w", err)
	}
	if err := benchenv.LoadEvents(s, benchenv.Stream, events); err != nil {
		return fmt.Errorf("loading events: %w", err)
	}
	if err := loadBoards(s, nPlayers); err != nil {
		return fmt.Errorf("loading boards: %w", err)
	}
	return nil
}

// player is the i-th player of Board; points are spread so that the best
// rows are scattered over every bucket.
func player(i int) model.Score {
	return model.Score{
		Board:    Board,
		PlayerID: fmt.Sprintf("p-%06d", i),
		Points:   int64(i*7919%100003) * 10,
		Name:     fmt.Sprintf("Player %d", i),
	}
}

// loadBoards writes n players into board (one partition), board_16 and
// board_100, in unlogged batches of one partition each.
func loadBoards(s *gocql.Session, n int) error {
	type part struct {
		table string
		shard int32 // -1: no bucket column
	}
	rows := map[part][]model.Score{}
	for i := range n {
		p := player(i)
		rows[part{"board", -1}] = append(rows[part{"board", -1}], p)
		for _, m := range []int{16, 100} {
			k := part{fmt.Sprintf("board_%d", m), cqlgenimpl.HashText(p.PlayerID, m)}
			rows[k] = append(rows[k], p)
		}
	}
	type batch struct {
		part
		rows []model.Score
	}
	var batches []batch
	for k, rs := range rows {
		for len(rs) > 0 {
			m := min(50, len(rs))
			batches = append(batches, batch{k, rs[:m]})
			rs = rs[m:]
		}
	}
	return benchenv.Parallel(len(batches), 8, func(i int) error {
		bt := batches[i]
		b := s.NewBatch(gocql.UnloggedBatch)
		for _, p := range bt.rows {
			if bt.shard < 0 {
				b.Query("INSERT INTO board (board, points, player_id, name) VALUES (?, ?, ?, ?)", p.Board, p.Points, p.PlayerID, p.Name)
			} else {
				b.Query("INSERT INTO "+bt.table+" (board, shard, points, player_id, name) VALUES (?, ?, ?, ?, ?)", p.Board, bt.shard, p.Points, p.PlayerID, p.Name)
			}
		}
		return s.ExecuteBatch(b)
	})
}

// peers are one coalescing setting's ways in: the gocql session itself,
// gocqlx's wrapper of it, and cqlgen's.
type peers struct {
	s  *gocql.Session
	sx gocqlx.Session
	cq cqlgen.Session
}

// eachCoalescing runs f under every write-coalescing setting, each with
// its own session.
func eachCoalescing(b *testing.B, f func(b *testing.B, p peers)) {
	env := shared.Get(b)
	for _, c := range benchenv.Coalescing {
		b.Run(c.Name, func(b *testing.B) {
			s := env.Session(c)
			f(b, peers{s: s, sx: gocqlx.NewSession(s), cq: gocqlv1.NewSession(s, sessionOptions())})
		})
	}
}

// run measures each impl alone, for its own time, bytes and allocations.
func run(b *testing.B, warm int, impls ...benchenv.Impl) {
	for _, im := range impls {
		b.Run("impl="+im.Name, func(b *testing.B) { benchenv.Measure(b, warm, im.Op) })
	}
}

// warmCalls is how many calls precede each measurement: enough to
// prepare its statements and for the node's JIT to settle on the path.
func warmCalls() int {
	if benchenv.Small() {
		return 2
	}
	return 200
}

var ctx = context.Background()
