package bench_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
)

// BenchmarkProtocolFloor takes an Update of a Tally that moves its board
// row (BenchmarkProtocolPaired's op=update) apart, request by request, to
// price the design rather than its code (issue 27, goal 1): the plain
// logged batch of the same rows (the base), then each request the
// protocol cannot do without, alone, with plain gocql: the read of the
// canonical row (its old key columns name the board row to delete), the
// conditional write of the canonical row on the version read, and the
// logged batch of the board's delete-then-insert; then cqlgen's Update.
// The sum of the three steps' p50 over the plain batch's p50 is the
// floor of the ratio any implementation of the protocol's guarantees
// pays on this node, whatever its code.
func BenchmarkProtocolFloor(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		run := fmt.Sprintf("floor-%d-", time.Now().UnixNano())
		pool := 512 // rows are rewritten: the steps do not depend on it
		if benchenv.Small() {
			pool = 64
		}
		repo := model.NewTallyRepo(p.cq)
		hand := handTally{p.s}
		// Each step's rows are its own, written by the hand-written
		// protocol, whose versions the conditional write then tracks.
		versions := make([]int64, pool)
		prepare := func(prefix string) {
			for i := range pool {
				t := tally(prefix, i)
				if err := hand.write(&t, false); err != nil {
					b.Fatalf("preparing %s: %v", prefix, err)
				}
			}
		}
		plainP, readP, casP, batchP, cqP := run+"plain-", run+"read-", run+"cas-", run+"batch-", run+"cqlgen-"
		for _, prefix := range []string{plainP, readP, casP, batchP} {
			prepare(prefix)
		}
		for i := range pool {
			t := tally(casP, i)
			if err := p.s.Query(handState, t.TallyID).Scan(new(string), new(int64), &versions[i], new(bool), new([]byte)); err != nil {
				b.Fatal(err)
			}
		}
		for i := range pool {
			t := tally(cqP, i)
			if err := repo.Insert(ctx, &t); err != nil {
				b.Fatal(err)
			}
		}
		impls := []benchenv.Impl{
			{Name: benchenv.PlainImpl, Op: func(i int) error {
				old := tally(plainP, i%pool)
				t := old
				t.Points = int64(i)
				return plainTally(p.s, &old, &t, false)
			}},
			{Name: "step-read", Op: func(i int) error {
				t := tally(readP, i%pool)
				var board string
				var points, version int64
				var deleted bool
				var pending []byte
				return p.s.Query(handState, t.TallyID).Scan(&board, &points, &version, &deleted, &pending)
			}},
			{Name: "step-conditional", Op: func(i int) error {
				t := tally(casP, i%pool)
				t.Points = int64(i)
				old := versions[i%pool]
				ts := max(time.Now().UnixMicro(), old+2)
				var cur int64
				applied, err := p.s.Query(handChange, t.Board, t.Points, t.Name, ts, handPending(t.Board, 0, true), t.TallyID, old).ScanCAS(&cur)
				if err != nil {
					return err
				}
				if !applied {
					return fmt.Errorf("the conditional write did not apply: version %d, not %d", cur, old)
				}
				versions[i%pool] = ts
				return nil
			}},
			{Name: "step-batch", Op: func(i int) error {
				t := tally(batchP, i%pool)
				ts := time.Now().UnixMicro()
				batch := p.s.NewBatch(gocql.LoggedBatch)
				batch.Query(handDel, ts, t.Board, int64(i-1), t.TallyID)
				batch.Query(handIns, t.Board, int64(i), t.TallyID, t.Name, ts+1)
				return p.s.ExecuteBatch(batch)
			}},
			{Name: "cqlgen", Op: func(i int) error {
				t := tally(cqP, i%pool)
				t.Points = int64(i)
				return repo.Update(ctx, &t)
			}},
		}
		benchenv.Paired(b, warmCalls(), impls...)
	})
}
