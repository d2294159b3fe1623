package bench_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/bench/internal/benchenv"
	"github.com/cqlgen/cqlgen/bench/model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// Workload 5: the best 100 rows of a board split over 16 or 100 hash
// buckets: every bucket read and the results merged. For scale, the same
// 100 rows from the board kept whole in one partition.

const (
	selectBoard  = "SELECT board, points, player_id, name FROM board WHERE board = ? LIMIT ?"
	selectBucket = "SELECT board, points, player_id, name FROM board_%d WHERE board = ? AND shard = ? LIMIT ?"
	// inBuckets is the server-side alternative: one request naming every
	// bucket with IN, ordered by the coordinator. Cassandra refuses to page
	// it (ORDER BY with IN on the partition key), so it runs unpaged.
	inBuckets = "SELECT board, points, player_id, name FROM board_%d WHERE board = ? AND shard IN ? ORDER BY points DESC, player_id ASC LIMIT ?"
	// floorBuckets reads the first row of every bucket in one request.
	floorBuckets = "SELECT board, points, player_id, name, shard FROM board_%d WHERE board = ? AND shard IN ? PER PARTITION LIMIT 1"
	// rowsBuckets reads the first rows of every bucket in one request.
	rowsBuckets = "SELECT board, points, player_id, name, shard FROM board_%d WHERE board = ? AND shard IN ? PER PARTITION LIMIT ?"
	// pageBucket pages through a bucket, for adaptiveRead.
	pageBucket = "SELECT board, points, player_id, name FROM board_%d WHERE board = ? AND shard = ?"
	// scatterConcurrency is cqlgen's default bound on buckets read at once;
	// the hand-written reads get the same.
	scatterConcurrency = 16
	// scatterGroup is the most buckets one of cqlgen's scatter requests
	// names.
	scatterGroup = 50
)

// scanBoard reads up to limit rows of one partition.
func scanBoard(q *gocql.Query, limit int) ([]model.Score, error) {
	it := q.Iter()
	rows := make([]model.Score, 0, limit)
	var s model.Score
	for it.Scan(&s.Board, &s.Points, &s.PlayerID, &s.Name) {
		rows = append(rows, s)
	}
	return rows, it.Close()
}

// best sorts rows in the board's order and keeps the first limit.
func best(rows []model.Score, limit int) []model.Score {
	slices.SortFunc(rows, func(a, b model.Score) int { return model.CompareBoard(&a, &b) })
	return rows[:min(limit, len(rows))]
}

// topPage checks a read of the board's best rows.
func topPage(rows []model.Score, err error) error {
	if err != nil {
		return err
	}
	if want := min(benchenv.PageRows, nPlayers); len(rows) != want {
		return fmt.Errorf("%d rows, want %d", len(rows), want)
	}
	return nil
}

func scatterImpls(b *testing.B, p peers, buckets int) []benchenv.Impl {
	repo := model.NewScoreRepo(p.cq)
	stmt := fmt.Sprintf(selectBucket, buckets)
	limit := benchenv.PageRows
	reader := func(repo *model.ScoreRepo) func() (cqlgen.Page[model.Score], error) {
		return map[int]func() (cqlgen.Page[model.Score], error){
			16: func() (cqlgen.Page[model.Score], error) {
				return repo.Board16(ctx, Board, &model.Board16Options{Limit: limit})
			},
			100: func() (cqlgen.Page[model.Score], error) {
				return repo.Board100(ctx, Board, &model.Board100Options{Limit: limit})
			},
		}[buckets]
	}
	// read is the default, one request naming every bucket for the
	// coordinator to gather; readEach sends one request per bucket.
	read := reader(repo)
	readEach := reader(model.NewScoreRepo(p.cq, cqlgen.WithScatter(cqlgen.ScatterClient)))
	if each, err := readEach(); err != nil {
		b.Fatal(err)
	} else if got, err := read(); err != nil || !slices.Equal(got.Rows, each.Rows) {
		b.Fatalf("over %d buckets, one request for all and one a bucket read other rows (%v)", buckets, err)
	}
	// The prototype must return what the generated read returns.
	want, err := read()
	if err != nil {
		b.Fatal(err)
	}
	got, err := adaptiveRead(p.s, fmt.Sprintf(pageBucket, buckets), buckets, limit)
	if err != nil {
		b.Fatal(err)
	}
	if !slices.Equal(got, want.Rows) {
		b.Fatalf("adaptiveRead over %d buckets returned other rows than the generated read", buckets)
	}
	shards := make([]int32, buckets)
	for i := range shards {
		shards[i] = int32(i)
	}
	inStmt := fmt.Sprintf(inBuckets, buckets)
	floorIn := fmt.Sprintf(floorBuckets, buckets)
	// The buckets that hold a player: all of them, but for -short's few
	// players over 100 buckets.
	seen := map[int32]bool{}
	for i := range nPlayers {
		seen[cqlgenimpl.HashText(player(i).PlayerID, buckets)] = true
	}
	filled := len(seen)
	serverIn := func() ([]model.Score, error) {
		return scanBoard(p.s.Query(inStmt, Board, shards, limit).PageSize(0), limit)
	}
	if got, err := serverIn(); err != nil || !slices.Equal(got, want.Rows) {
		b.Fatalf("IN with ORDER BY over %d buckets: %v, or other rows than the generated read", buckets, err)
	}
	return []benchenv.Impl{
		{Name: "gocql-concurrent", Op: func(int) error {
			var (
				wg   sync.WaitGroup
				mu   sync.Mutex
				all  []model.Score
				errs = make([]error, buckets)
				sem  = make(chan struct{}, scatterConcurrency)
			)
			for shard := range buckets {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					rows, err := scanBoard(p.s.Query(stmt, Board, int32(shard), limit), limit)
					errs[shard] = err
					mu.Lock()
					all = append(all, rows...)
					mu.Unlock()
				}()
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					return err
				}
			}
			return topPage(best(all, limit), nil)
		}},
		{Name: "gocql-sequential", Op: func(int) error {
			var all []model.Score
			for shard := range buckets {
				rows, err := scanBoard(p.s.Query(stmt, Board, int32(shard), limit), limit)
				if err != nil {
					return err
				}
				all = append(all, rows...)
			}
			return topPage(best(all, limit), nil)
		}},
		{Name: "cqlgen", Op: func(int) error {
			page, err := read()
			return topPage(page.Rows, err)
		}},
		{Name: "cqlgen-client", Op: func(int) error {
			page, err := readEach()
			return topPage(page.Rows, err)
		}},
		{Name: "proto-adaptive", Op: func(int) error {
			return topPage(adaptiveRead(p.s, fmt.Sprintf(pageBucket, buckets), buckets, limit))
		}},
		{Name: "server-in", Op: func(int) error { return topPage(serverIn()) }},
		// floor is not a read of the page: one row from every bucket, at
		// once, the fixed cost of N requests that any scatter pays.
		{Name: "floor", Op: func(int) error {
			var wg sync.WaitGroup
			errs := make([]error, buckets)
			sem := make(chan struct{}, scatterConcurrency)
			for shard := range buckets {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					_, errs[shard] = scanBoard(p.s.Query(stmt, Board, int32(shard), 1), 1)
				}()
			}
			wg.Wait()
			return errors.Join(errs...)
		}},
		// floor-in is the floor of the default read: one row from every
		// bucket, in one request naming them all.
		{Name: "floor-in", Op: func(int) error {
			it := p.s.Query(floorIn, Board, shards).PageSize(0).Iter()
			var rows int
			for it.Scan(nil, nil, nil, nil, nil) {
				rows++
			}
			if err := it.Close(); err != nil {
				return err
			}
			if rows != filled {
				return fmt.Errorf("%d rows from %d buckets, %d of them filled", rows, buckets, filled)
			}
			return nil
		}},
		// floor-in-groups is floor-in as the default read sends it: over
		// more than 50 buckets, requests of at most 50 at once.
		{Name: "floor-in-groups", Op: func(int) error {
			groups := (buckets + scatterGroup - 1) / scatterGroup
			var wg sync.WaitGroup
			rows := make([]int, groups)
			errs := make([]error, groups)
			for g := range groups {
				wg.Go(func() {
					it := p.s.Query(floorIn, Board, shards[g*buckets/groups:(g+1)*buckets/groups]).PageSize(0).Iter()
					for it.Scan(nil, nil, nil, nil, nil) {
						rows[g]++
					}
					errs[g] = it.Close()
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return err
			}
			n := 0
			for _, r := range rows {
				n += r
			}
			if n != filled {
				return fmt.Errorf("%d rows from %d buckets, %d of them filled", n, buckets, filled)
			}
			return nil
		}},
		{Name: "gocql-1partition", Op: func(int) error {
			return topPage(scanBoard(p.s.Query(selectBoard, Board, limit), limit))
		}},
		{Name: "cqlgen-1partition", Op: func(int) error {
			page, err := repo.Board(ctx, Board, &model.BoardOptions{Limit: limit})
			return topPage(page.Rows, err)
		}},
	}
}

var bucketCounts = []int{16, 100}

func BenchmarkScatter(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, n := range bucketCounts {
			b.Run(fmt.Sprintf("buckets=%d", n), func(b *testing.B) { run(b, warmScatter(), scatterImpls(b, p, n)...) })
		}
	})
}

func BenchmarkScatterPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, n := range bucketCounts {
			// The sequential loop is left out: up to 6× slower than the
			// rest, it would take most rounds' time and leave too few
			// rounds for their percentiles.
			impls := slices.DeleteFunc(scatterImpls(b, p, n), func(im benchenv.Impl) bool { return im.Name == "gocql-sequential" })
			b.Run(fmt.Sprintf("buckets=%d", n), func(b *testing.B) { benchenv.Paired(b, warmScatter(), impls...) })
		}
	})
}

// warmScatter is fewer calls than warmCalls: each reads up to 100
// partitions.
func warmScatter() int {
	if benchenv.Small() {
		return 1
	}
	return 20
}

// BenchmarkMerge times the merge alone, on pages already fetched: each
// bucket's best 101 rows (what the generated read asks each bucket for),
// merged by cqlgenimpl.Merge, against appending them all and sorting.
func BenchmarkMerge(b *testing.B) {
	for _, n := range bucketCounts {
		lists := make([][]model.Score, n)
		for i := range Players {
			p := player(i)
			shard := cqlgenimpl.HashText(p.PlayerID, n)
			lists[shard] = append(lists[shard], p)
		}
		for k := range lists {
			lists[k] = best(lists[k], benchenv.PageRows+1)
		}
		b.Run(fmt.Sprintf("buckets=%d/impl=sort", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var all []model.Score
				for _, l := range lists {
					all = append(all, l...)
				}
				if got := best(all, benchenv.PageRows+1); len(got) != benchenv.PageRows+1 {
					b.Fatal(len(got))
				}
			}
		})
		b.Run(fmt.Sprintf("buckets=%d/impl=cqlgen", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, _ := cqlgenimpl.Merge(lists, model.CompareBoard, benchenv.PageRows+1); len(got) != benchenv.PageRows+1 {
					b.Fatal(len(got))
				}
			}
		})
	}
}

// BenchmarkScatterRowsPaired prices what a scatter read fetches: raw
// gocql, one request naming every bucket with PER PARTITION LIMIT k, for
// k rows a bucket (k = 1 is floor-in), and the same in requests of at
// most scatterGroup buckets sent at once (the default read's form over
// more than 50). Rows are scanned as the reads scan them.
func BenchmarkScatterRowsPaired(b *testing.B) {
	eachCoalescing(b, func(b *testing.B, p peers) {
		for _, n := range bucketCounts {
			shards := make([]int32, n)
			for i := range shards {
				shards[i] = int32(i)
			}
			stmt := fmt.Sprintf(rowsBuckets, n)
			read := func(bs []int32, k int) error {
				it := p.s.Query(stmt, Board, bs, k).PageSize(0).Iter()
				var s model.Score
				var shard int32
				for it.Scan(&s.Board, &s.Points, &s.PlayerID, &s.Name, &shard) {
				}
				return it.Close()
			}
			var impls []benchenv.Impl
			for _, k := range []int{1, 2, 3, 4, 6, 15} {
				impls = append(impls, benchenv.Impl{Name: fmt.Sprintf("rows=%d", k), Op: func(int) error { return read(shards, k) }})
				if n <= scatterGroup {
					continue
				}
				impls = append(impls, benchenv.Impl{Name: fmt.Sprintf("rows=%d-groups", k), Op: func(int) error {
					groups := (n + scatterGroup - 1) / scatterGroup
					errs := make([]error, groups)
					var wg sync.WaitGroup
					for g := range groups {
						wg.Go(func() { errs[g] = read(shards[g*n/groups:(g+1)*n/groups], k) })
					}
					wg.Wait()
					return errors.Join(errs...)
				}})
			}
			// The default read, for the same rows as rows=6 (over 100
			// buckets) or rows=15 (over 16), with its merge and cursor.
			repo := model.NewScoreRepo(p.cq)
			impls = append(impls, benchenv.Impl{Name: "cqlgen", Op: func(int) error {
				var err error
				if n == 16 {
					_, err = repo.Board16(ctx, Board, &model.Board16Options{Limit: benchenv.PageRows})
				} else {
					_, err = repo.Board100(ctx, Board, &model.Board100Options{Limit: benchenv.PageRows})
				}
				return err
			}})
			b.Run(fmt.Sprintf("buckets=%d", n), func(b *testing.B) { benchenv.Paired(b, warmScatter(), impls...) })
		}
	})
}
