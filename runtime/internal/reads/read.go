package reads

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/base"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// ReadSpecOf is what a generated read hands the runtime (impl.ReadSpec,
// whose type is this one with P = *T): the query, and how to scan, key and
// order rows of the pattern. The read paths are generic over P alone, so
// that they compile once for every entity; see Entity.
type ReadSpecOf[P any] struct {
	Entity    string // the entity's name, for observers ("": Of's)
	Table     *desc.Table
	Partition []any // partition key values, the bucket excluded
	// Prefix fixes the first len(Prefix) clustering columns to these
	// values (a pattern's prefix key); From and To then bound the next.
	Prefix   []any
	From, To any // bounds on the first clustering column not fixed, in clustering order: From inclusive, To exclusive; nil for none
	// FromExclusive leaves the rows at From out, ToInclusive takes the
	// rows at To in; each is ignored without its bound.
	FromExclusive, ToInclusive bool

	Limit    int
	MaxLimit int // the largest Limit allowed; 0 means cqlgen.DefaultMaxLimit
	// CursorKey, when set, seals cursors (cqlgen.WithCursorKey).
	CursorKey []byte
	Sealer    *Sealer
	Cursor    string

	// Scan reads one row.
	Scan func(cqldriver.Iter, P) bool
	// Key returns a row's clustering values, in order.
	Key func(P) []any
	// Of, in place of Scan and Key, is the entity whose Fields and Values
	// the runtime derives them from (a table of the entity's own rows,
	// each column a field of its source of truth).
	Of *desc.EntityOf[P]
	// Compare orders rows as the table's clustering order does.
	Compare func(a, b P) int

	// HashBuckets is N for a pattern sharded by hash(col) % N.
	HashBuckets int
	// Concurrency bounds the buckets read at once, hash or time; 0 means
	// 16.
	Concurrency int
	// Scatter is how a read over hash buckets, or a walk's round over
	// time buckets, reaches them: one request for all (the default, where
	// the table has the statements), or one per bucket.
	Scatter cqlgen.Scatter

	// TimeBuckets is set for a pattern bucketed by time; Start is the
	// bucket to start at (zero: now) and LookBack how many buckets, the
	// first included, a read may reach (0: cqlgen.DefaultLookBack).
	TimeBuckets *desc.TimeBuckets
	Start       time.Time
	LookBack    int

	NewRow func() P // set by ReadPage: a new zero row (RowArena)
}

// Page is cqlgen.Page of the read paths, whose rows are pointers.
type Page[P any] struct {
	Rows   []P
	Cursor string
	// pos is the cursor after a row of the page, given its index and the
	// row (the caller's copy: pos holds none of Rows); nil for a page
	// with no rows.
	pos func(i int, row P) (string, error)
}

// PageOf copies pg's rows into a cqlgen.Page, and records in ctx's
// base.Positions, when it carries one (a cqlgen.Stream's read), the
// cursor after each of them.
func PageOf[T any](ctx context.Context, pg Page[*T]) cqlgen.Page[T] {
	out := cqlgen.Page[T]{Cursor: pg.Cursor}
	if pg.Rows != nil {
		out.Rows = make([]T, len(pg.Rows))
		for i, p := range pg.Rows {
			out.Rows[i] = *p
		}
	}
	if pos := pg.pos; pos != nil {
		// The closure holds the copy alone: pg's own rows, and the
		// arena they came from, go.
		rows := out.Rows
		base.RecordPositions(ctx, len(rows), func(i int) (string, error) { return pos(i, &rows[i]) })
	}
	return out
}

// RowArena returns a func that hands out new zero rows, taken from
// arrays it allocates as they fill, each twice the last: a read's rows
// cost a few allocations, not one each. A read's buckets are read by
// goroutines at once, all from the read's one arena, so it takes a lock.
// It is generic over P = *T alone, the arrays made by reflection, so that
// the user's package compiles it once, not once per row type.
func RowArena[P any]() func() P {
	elem := reflect.TypeFor[P]().Elem()
	var (
		mu         sync.Mutex
		chunk      reflect.Value
		used, size int
	)
	return func() P {
		mu.Lock()
		defer mu.Unlock()
		if used == size {
			size = min(max(8, 2*size), 1024)
			chunk, used = reflect.New(reflect.ArrayOf(size, elem)).Elem(), 0
		}
		used++
		return chunk.Index(used - 1).Addr().Interface().(P)
	}
}

// ReadPageOf runs a read of one access pattern: one partition, every hash bucket
// merged, or time buckets walked back from the newest.
func ReadPageOf[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P]) (Page[P], error) {
	var err error
	if r.Limit, err = pageLimit(r.Limit, r.MaxLimit); err != nil {
		return Page[P]{}, err
	}
	if r.Scatter > cqlgen.ScatterClient {
		return Page[P]{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidOption, Name: "Scatter", Reason: fmt.Sprintf("%d is neither ScatterCoordinator nor ScatterClient", r.Scatter)}
	}
	r.Sealer = sealerFor(r.CursorKey)
	if r.Table, err = r.Table.WithBounds(r.From != nil && r.FromExclusive, r.To != nil && r.ToInclusive); err != nil {
		return Page[P]{}, err
	}
	if len(r.Prefix) >= len(r.Table.Pages) {
		return Page[P]{}, fmt.Errorf("cqlgen: %s: a read that fixes %d clustering columns, and statements for %d: regenerate the package", r.Table.Spec.Name, len(r.Prefix), len(r.Table.Pages)-1)
	}
	fp, err := fingerprint(r.Table, r.Partition, r.Prefix...)
	if err != nil {
		return Page[P]{}, err
	}
	switch {
	case r.HashBuckets > 0 && r.Compare == nil:
		return Page[P]{}, fmt.Errorf("cqlgen: %s: a read over hash buckets without the order of its rows: regenerate the package", r.Table.Spec.Name)
	case r.HashBuckets > 0:
		return readHash(ctx, s, r, fp)
	case r.TimeBuckets != nil:
		return readTime(ctx, s, r, fp)
	}
	var c cursor
	if r.Cursor != "" {
		if c, err = decodeCursor(r.Table.Spec.Pattern, fp, plainCursor, r.Cursor, r.Sealer); err != nil {
			return Page[P]{}, err
		}
	}
	rows, err := readPartition(ctx, s, r, r.Partition, c.key, false, r.Limit+1)
	if err != nil {
		return Page[P]{}, err
	}
	return finish(r, fp, rows, func(int) cursor { return cursor{kind: plainCursor} })
}

// pageLimit is the number of rows a read asks for: limit, or
// cqlgen.DefaultLimit for 0, within max (cqlgen.DefaultMaxLimit for 0);
// an *cqlgen.InputError (ErrInvalidLimit) when limit is out of range.
func pageLimit(limit, max int) (int, error) {
	if max <= 0 {
		max = cqlgen.DefaultMaxLimit
	}
	if limit < 0 || limit > max {
		return 0, &cqlgen.InputError{Err: cqlgen.ErrInvalidLimit, Name: "Limit", Reason: fmt.Sprintf("%d is outside 0..%d (0 means %d; raise the bound with WithMaxLimit)", limit, max, cqlgen.DefaultLimit)}
	}
	if limit == 0 {
		limit = min(cqlgen.DefaultLimit, max)
	}
	return limit, nil
}

// finish trims a read to its limit and makes the cursor of the last row;
// the page's pos makes that of any row, as a stream asks.
func finish[P any](r ReadSpecOf[P], fp uint64, rows []P, at func(i int) cursor) (Page[P], error) {
	// pos holds what it needs of r, not r, whose NewRow holds the
	// read's arena.
	table, rowKey, sealer := r.Table, r.Key, r.Sealer
	pos := func(i int, row P) (string, error) {
		c := at(i)
		key, err := marshalKey(table, rowKey(row))
		if err != nil {
			return "", err
		}
		c.key = key
		return encodeCursor(fp, c, sealer), nil
	}
	if len(rows) == 0 {
		return Page[P]{Rows: rows}, nil
	}
	if len(rows) <= r.Limit {
		return Page[P]{Rows: rows, pos: pos}, nil
	}
	rows = rows[:r.Limit]
	cur, err := pos(r.Limit-1, rows[r.Limit-1])
	if err != nil {
		return Page[P]{}, err
	}
	return Page[P]{Rows: rows, Cursor: cur, pos: pos}, nil
}

// readPartition reads up to limit rows of one partition in clustering
// order: from the start (within the bounds) when pos is nil, else after
// the row at pos (at or after it when incl). A position is continued by
// one query per run of clustering columns of one direction, deepest
// first: rows equal on every column before the last run and after pos on
// the run's columns, then equal on the columns before the run before,
// and so on, which together are exactly the rows after pos in clustering
// order. A table ordered one way throughout continues in one query.
func readPartition[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], part []any, pos [][]byte, incl bool, limit int) ([]P, error) {
	t := r.Table
	var rows []P
	run := func(stmt *cqldriver.Statement, values []any) error {
		var err error
		rows, err = fetch(ctx, s, cqldriver.Query{Stmt: stmt, Values: values}, r.Scan, r.NewRow, rows, limit)
		return err
	}
	n := len(t.Spec.Clustering)
	if n == 0 {
		if pos != nil {
			return nil, nil
		}
		return rows, run(t.Pages[0].First[0], part)
	}
	pg := &t.Pages[len(r.Prefix)]
	if pos == nil {
		return rows, run(firstPage(pg, part, r.Prefix, r.From, r.To))
	}
	if err := checkPosition(r, pg, pos); err != nil {
		return nil, err
	}
	key := value.Encoded(pos)
	last := len(pg.Runs) - 1
	for k := last; k >= 0 && len(rows) < limit; k-- {
		end := n
		if k < last {
			end = pg.Runs[k+1]
		}
		values := append(append([]any(nil), part...), key[:end]...)
		stmt := pg.After[k]
		if k == last && incl {
			stmt = pg.AtOrAfter
		}
		if k == 0 && r.To != nil {
			stmt = pg.AfterTo
			if last == 0 && incl {
				stmt = pg.AtOrAfterTo
			}
			values = append(values, r.To)
		}
		if err := run(stmt, values); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// checkPosition checks the clustering key a read continues after, which
// comes from a cursor, the client's to forge: each value must decode as
// its column's type before it is sent, and hold the values the read
// fixes. It also checks pg has a continuation for every run.
func checkPosition[P any](r ReadSpecOf[P], pg *desc.Pages, pos [][]byte) error {
	t := r.Table
	if len(pos) != len(t.Spec.Clustering) {
		return &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "corrupted"}
	}
	for i, k := range pos {
		typ, err := cqldriver.ParseType(t.Spec.Clustering[i].Type)
		if err != nil {
			return err
		}
		if !cqldriver.Valid(typ, k) {
			return &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "its key does not decode as " + t.Spec.Clustering[i].Type}
		}
		if i < len(r.Prefix) {
			b, err := cqldriver.Marshal(typ, r.Prefix[i])
			if err != nil {
				return err
			}
			if cqldriver.Compare(typ, b, k) != 0 {
				return &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: t.Spec.Pattern, Reason: "its row lies outside the values the read fixes"}
			}
		}
	}
	if len(pg.After) != len(pg.Runs) {
		return fmt.Errorf("cqlgen: %s: %d continuation statements for %d runs of clustering order: regenerate the package", t.Spec.Name, len(pg.After), len(pg.Runs))
	}
	return nil
}

// fetch appends to rows those q reads, page after page, until rows holds
// limit or q has no more, each page asking for no more than is missing.
func fetch[P any](ctx context.Context, s cqlgen.Session, q cqldriver.Query, scan func(cqldriver.Iter, P) bool, newRow func() P, rows []P, limit int) ([]P, error) {
	for len(rows) < limit {
		q.PageSize = limit - len(rows)
		it := s.Iter(ctx, q)
		for len(rows) < limit {
			// Each row is scanned into its slot of rows: no copy of it
			// escapes to the heap on its own.
			rows = append(rows, newRow())
			if !scan(it, rows[len(rows)-1]) {
				rows = rows[:len(rows)-1]
				break
			}
		}
		state := it.PageState()
		if err := it.Close(); err != nil {
			return rows, err
		}
		if len(state) == 0 {
			break
		}
		q.PageState = state
	}
	return rows, nil
}

// within reports whether oldest is at most n buckets back from at, the
// first included.
func within(tb desc.TimeBuckets, at, oldest time.Time, n int) bool {
	for range n {
		if !at.After(oldest) {
			return true
		}
		at = tb.Prev(at)
	}
	return false
}

func withBucket(part []any, bucket any) []any {
	return append(append(make([]any, 0, len(part)+1), part...), bucket)
}

// readTime walks time buckets from the newest (or Start) back, until the
// limit is met or the look-back is reached, prefetching older buckets in
// parallel. The cursor records the bucket
// of the last row and the oldest bucket allowed, so later pages walk on to
// the same bound.
func readTime[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], fp uint64) (Page[P], error) {
	tb := *r.TimeBuckets
	back := r.LookBack
	if back <= 0 {
		back = cqlgen.DefaultLookBack
	}
	var c cursor
	if r.Cursor != "" {
		var err error
		if c, err = decodeCursor(r.Table.Spec.Pattern, fp, timeCursor, r.Cursor, r.Sealer); err != nil {
			return Page[P]{}, err
		}
		// A cursor is the client's to forge: whatever it says, the walk
		// stays within the caller's own look-back, between bucket starts.
		if !tb.Of(c.at).Equal(c.at) || !tb.Of(c.oldest).Equal(c.oldest) || c.oldest.After(c.at) || !within(tb, c.at, c.oldest, back) {
			return Page[P]{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: r.Table.Spec.Pattern, Reason: "its buckets lie outside the read's look-back"}
		}
	} else {
		start := r.Start
		if start.IsZero() {
			start = time.Now()
		}
		c.at = tb.Of(start)
		c.oldest = c.at
		for range back - 1 {
			c.oldest = tb.Prev(c.oldest)
		}
	}
	var rows []P
	var from []time.Time // the bucket of each row
	need := r.Limit + 1
	// Buckets are read in rounds of 1, 2, 4... at once (up to
	// Concurrency), newest first, each asking for what the page still
	// needs; rows are taken in bucket order, and a round that fills the
	// page ends the walk. Dense data costs what a bucket-by-bucket walk
	// does; sparse data crosses 30 empty buckets in 5 rounds, not 30.
	width, most := 1, r.Concurrency
	if most <= 0 {
		most = 16
	}
	at, first := c.at, true
	for !at.Before(c.oldest) && len(rows) < need {
		var round []time.Time
		for range width {
			if at.Before(c.oldest) {
				break
			}
			round = append(round, at)
			at = tb.Prev(at)
		}
		got := make([][]P, len(round))
		remaining := need - len(rows)
		if len(round) > 1 && !first && r.Scatter == cqlgen.ScatterCoordinator && len(r.Table.Scatter) > len(r.Prefix) {
			// Several buckets from their first rows: one request names
			// them all (see CQL.Scatter).
			var err error
			if got, err = scatterRound(ctx, s, r, round, remaining); err != nil {
				return Page[P]{}, err
			}
		} else {
			errs := make([]error, len(round))
			var wg sync.WaitGroup
			for i, b := range round {
				var pos [][]byte
				if first {
					pos = c.key // the cursor's bucket (the first round's one) continues after its row
				}
				wg.Go(func() { got[i], errs[i] = readPartition(ctx, s, r, withBucket(r.Partition, b), pos, false, remaining) })
			}
			wg.Wait()
			if err := desc.FirstError(errs); err != nil {
				return Page[P]{}, err
			}
		}
		for i, b := range round {
			for _, row := range got[i] {
				if len(rows) == need {
					break
				}
				rows = append(rows, row)
				from = append(from, b)
			}
		}
		first = false
		width = min(2*width, most)
	}
	return finish(r, fp, rows, func(i int) cursor { return cursor{kind: timeCursor, at: from[i], oldest: c.oldest} })
}

// readHash reads every hash bucket, at most Concurrency at once, and
// merges them in clustering order. Rows that tie on the whole clustering
// key come in bucket order, so the cursor (the last row's key and bucket)
// tells exactly where each bucket stands: buckets up to the last row's
// continue after its key, later ones at it.
func readHash[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], fp uint64) (Page[P], error) {
	var c cursor
	if r.Cursor != "" {
		var err error
		if c, err = decodeCursor(r.Table.Spec.Pattern, fp, hashCursor, r.Cursor, r.Sealer); err != nil {
			return Page[P]{}, err
		}
		if c.bucket >= r.HashBuckets {
			return Page[P]{}, &cqlgen.InputError{Err: cqlgen.ErrInvalidCursor, Name: r.Table.Spec.Pattern, Reason: "bucket out of range"}
		}
	}
	n := r.HashBuckets
	want := r.Limit + 1
	// Hashing spreads rows evenly over the buckets, so each bucket is
	// asked for about its share of the best want rows (see bucketShare),
	// and a bucket the merge drains while it may have more is asked
	// again (see mergeRefill). The rows are the same as asking each
	// bucket for want rows; far fewer are fetched.
	per := bucketShare(want, n)
	var lists [][]P
	var err error
	if r.Scatter == cqlgen.ScatterCoordinator && len(r.Table.Scatter) > len(r.Prefix) {
		lists, err = scatterBuckets(ctx, s, r, c.key, c.bucket, per)
	} else {
		lists, err = eachBucket(ctx, s, r, c.key, c.bucket, per)
	}
	if err != nil {
		return Page[P]{}, err
	}
	more := make([]bool, n)
	for b := range lists {
		more[b] = len(lists[b]) == per
	}
	rows, buckets, err := mergeRefill(lists, more, r.Compare, want, func(ds []drained[P]) ([][]P, error) {
		return refillBuckets(ctx, s, r, ds)
	})
	if err != nil {
		return Page[P]{}, err
	}
	return finish(r, fp, rows, func(i int) cursor { return cursor{kind: hashCursor, bucket: buckets[i]} })
}

// refillBuckets reads, for each bucket the merge drained, the rows after
// its last one, up to the number it may still need: one request a
// bucket, each from its own row, all at once up to Concurrency.
func refillBuckets[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], ds []drained[P]) ([][]P, error) {
	got := make([][]P, len(ds))
	errs := make([]error, len(ds))
	read := func(k int) {
		d := ds[k]
		pos, err := marshalKey(r.Table, r.Key(d.last))
		if err != nil {
			errs[k] = err
			return
		}
		got[k], errs[k] = readPartition(ctx, s, r, withBucket(r.Partition, int32(d.list)), pos, false, d.need)
	}
	if len(ds) == 1 {
		read(0)
		return got, errs[0]
	}
	sem := make(chan struct{}, readConcurrency(r))
	var wg sync.WaitGroup
	for k := range ds {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			read(k)
		})
	}
	wg.Wait()
	return got, desc.FirstError(errs)
}

// readConcurrency is how many buckets a read queries at once.
func readConcurrency[P any](r ReadSpecOf[P]) int {
	if r.Concurrency <= 0 {
		return 16
	}
	return r.Concurrency
}

// bucketShare is how many rows a read over n hash buckets first asks
// each bucket for, of the want best rows its page needs: the fewest that
// leave a page needing a bucket's second request at most once in a
// hundred, were those rows spread over the buckets at random, as hashing
// spreads them. A bucket then holds Binomial(want, 1/n) of them; the
// buckets are taken as independent, which errs on the side of more rows.
// For a page of 100 over 16 buckets that is 15 rows a bucket, over 4
// buckets 38, over 100 buckets 6.
func bucketShare(want, n int) int {
	if n <= 1 || want <= 1 {
		return max(want, 1)
	}
	// The binomial's terms in logs: exp of the first underflows for a
	// large want over few buckets.
	lp, lq := math.Log(1/float64(n)), math.Log1p(-1/float64(n))
	lpmf := float64(want) * lq // P(X = 0)
	cdf := 0.0
	for k := 0; k < want; k++ {
		cdf += math.Exp(lpmf)
		if math.Pow(min(cdf, 1), float64(n)) >= 0.99 {
			return max(k, 1)
		}
		lpmf += math.Log(float64(want-k)) - math.Log(float64(k+1)) + lp - lq
	}
	return want
}

// eachBucket reads the first per rows of every hash bucket, one request
// per bucket, at most Concurrency at once. With a position, buckets up
// to last continue after it, later ones at it (see readHash).
func eachBucket[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], pos [][]byte, last, per int) ([][]P, error) {
	n := r.HashBuckets
	lists := make([][]P, n)
	errs := make([]error, n)
	limit := r.Concurrency
	if limit <= 0 {
		limit = 16
	}
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for b := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			lists[b], errs[b] = readPartition(bctx, s, r, withBucket(r.Partition, int32(b)), pos, pos != nil && b > last, per)
			if errs[b] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return lists, desc.FirstError(errs)
}

// scatterBuckets reads the first per rows of every hash bucket with the
// scatter form of the page statements (see CQL.Scatter): one request
// that names every bucket, and the coordinator gathers them. A position
// is continued as readPartition continues it in one bucket, one request
// per run of clustering order for every bucket at once, and two for the
// deepest run: buckets up to last continue after the row, later ones at
// it (see readHash). A request names at most scatterGroup buckets, so
// more buckets take several requests of each kind. The requests go at
// once, up to Concurrency; each bucket's rows are those of the deepest
// run first, as in readPartition, up to per.
func scatterBuckets[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], pos [][]byte, last, per int) ([][]P, error) {
	n := r.HashBuckets
	pg := &r.Table.Scatter[len(r.Prefix)]
	// The buckets from..to-1, in groups of at most scatterGroup, each
	// group one request.
	groups := func(from, to int) [][]int32 {
		if to <= from {
			return nil
		}
		k := (to - from + scatterGroup - 1) / scatterGroup
		all := make([]int32, 0, to-from)
		for b := from; b < to; b++ {
			all = append(all, int32(b))
		}
		gs := make([][]int32, 0, k)
		for i := range k {
			gs = append(gs, all[i*len(all)/k:(i+1)*len(all)/k])
		}
		return gs
	}
	var qs []cqldriver.Query
	var sizes []int // the buckets each request names
	if pos == nil {
		for _, g := range groups(0, n) {
			qs = append(qs, scatterFirst(r, pg, g, per))
			sizes = append(sizes, len(g))
		}
	} else {
		if err := checkPosition(r, pg, pos); err != nil {
			return nil, err
		}
		key := value.Encoded(pos)
		deepest := len(pg.Runs) - 1
		for k := deepest; k >= 0; k-- {
			end := len(pos)
			if k < deepest {
				end = pg.Runs[k+1]
			}
			add := func(gs [][]int32, incl bool) {
				for _, bs := range gs {
					values := append(append(append(make([]any, 0, len(r.Partition)+end+3), r.Partition...), bs), key[:end]...)
					stmt := pg.After[k]
					if incl {
						stmt = pg.AtOrAfter
					}
					if k == 0 && r.To != nil {
						stmt = pg.AfterTo
						if incl {
							stmt = pg.AtOrAfterTo
						}
						values = append(values, r.To)
					}
					qs = append(qs, cqldriver.Query{Stmt: stmt, Values: append(values, per)})
					sizes = append(sizes, len(bs))
				}
			}
			if k == deepest {
				add(groups(0, last+1), false)
				add(groups(last+1, n), true)
			} else {
				add(groups(0, n), false)
			}
		}
	}
	got := make([]bucketRows[P], len(qs))
	if len(qs) == 1 {
		got[0] = fetchBuckets(ctx, s, qs[0], r.Scan, r.NewRow, n, sizes[0]*per)
	} else {
		sem := make(chan struct{}, readConcurrency(r))
		var wg sync.WaitGroup
		for i, q := range qs {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				got[i] = fetchBuckets(ctx, s, q, r.Scan, r.NewRow, n, sizes[i]*per)
			})
		}
		wg.Wait()
	}
	grouped := pos == nil // from the start, each bucket is named by one request
	for _, g := range got {
		if g.err != nil {
			return nil, g.err
		}
		grouped = grouped && g.grouped
	}
	if grouped {
		// Each bucket's rows together, as a coordinator returns them:
		// the lists are slices of the replies' rows.
		lists := make([][]P, n)
		for _, g := range got {
			for i := 0; i < len(g.rows) && grouped; {
				j := i + 1
				for j < len(g.rows) && g.bucket[j] == g.bucket[i] {
					j++
				}
				// A bucket in two replies is not as asked: the rows are
				// gathered below, in request order, as for a position.
				grouped = lists[g.bucket[i]] == nil
				lists[g.bucket[i]] = g.rows[i:min(j, i+per):min(j, i+per)]
				i = j
			}
		}
		if grouped {
			return lists, nil
		}
	}
	// Each bucket's rows, in request order, as many as per: counted,
	// then placed in one array.
	counts := make([]int, n)
	total := 0
	for _, g := range got {
		for _, b := range g.bucket {
			if counts[b] < per {
				counts[b]++
				total++
			}
		}
	}
	all := make([]P, total)
	lists := make([][]P, n)
	at := 0
	for b, c := range counts {
		lists[b] = all[at : at : at+c]
		at += c
	}
	for _, g := range got {
		for i, b := range g.bucket {
			if len(lists[b]) < per {
				lists[b] = append(lists[b], g.rows[i])
			}
		}
	}
	return lists, nil
}

// scatterGroup is the most buckets one scatter request names: a read
// over more sends several requests at once, each naming a share of the
// buckets, which the node reads side by side. Measured on one node of
// two cores (bench/README.md, issue 27 goal 4): over 100 buckets, two
// requests of 50 took 0.77-0.94× the time of one of 100 for the same
// rows, four or eight no less than two; 16 buckets split in two took
// longer.
const scatterGroup = 50

// scatterFirst is the scatter request for the first per rows of each of
// the buckets (a list of their values), within the read's bounds.
func scatterFirst[P any](r ReadSpecOf[P], pg *desc.Pages, buckets any, per int) cqldriver.Query {
	stmt, values := firstPage(pg, withBucket(r.Partition, buckets), r.Prefix, r.From, r.To, per)
	return cqldriver.Query{Stmt: stmt, Values: values}
}

// firstPage is the statement that reads from the first row within the
// bounds (from and to, nil for none), and its values: the partition key
// values, the prefix, the bounds set, then more.
func firstPage(pg *desc.Pages, part, prefix []any, from, to any, more ...any) (*cqldriver.Statement, []any) {
	mask := 0
	values := append(append(make([]any, 0, len(part)+len(prefix)+2+len(more)), part...), prefix...)
	if from != nil {
		mask |= 1
		values = append(values, from)
	}
	if to != nil {
		mask |= 2
		values = append(values, to)
	}
	return pg.First[mask], append(values, more...)
}

// scatterRound reads the first limit rows of each time bucket of a
// walk's round in one request, the scatter form of the first page
// statement; got[i] are round[i]'s rows. Should a driver page the reply
// all the same, the pages are read to the end; a row of a bucket outside
// the round is an error.
func scatterRound[P any](ctx context.Context, s cqlgen.Session, r ReadSpecOf[P], round []time.Time, limit int) ([][]P, error) {
	q := scatterFirst(r, &r.Table.Scatter[len(r.Prefix)], round, limit)
	q.PageSize = cqldriver.Unpaged
	got := make([][]P, len(round))
	row := r.NewRow()
	for {
		it := &bucketIter[time.Time]{Iter: s.Iter(ctx, q)}
		for r.Scan(it, row) {
			i := slices.IndexFunc(round, it.bucket.Equal)
			if i < 0 {
				it.Close()
				return nil, fmt.Errorf("cqlgen: %s: a row of bucket %s, outside the %d buckets read", q.Stmt.Table, it.bucket.UTC().Format(time.RFC3339), len(round))
			}
			got[i] = append(got[i], row)
			row = r.NewRow()
		}
		state := it.PageState()
		if err := it.Close(); err != nil {
			return nil, err
		}
		if len(state) == 0 {
			return got, nil
		}
		q.PageState = state
	}
}

// bucketRows are the rows of a scatter request, each with its bucket;
// grouped when the rows of each bucket came together.
type bucketRows[P any] struct {
	rows    []P
	bucket  []int32
	grouped bool
	err     error
}

// fetchBuckets runs a scatter request, unpaged: its rows are bounded by
// the buckets and PER PARTITION LIMIT. Should a driver page it all the
// same, the pages are read to the end. A row of a bucket outside the
// n is an error, not a row put aside. room is the rows to make room for
// at first.
func fetchBuckets[P any](ctx context.Context, s cqlgen.Session, q cqldriver.Query, scan func(cqldriver.Iter, P) bool, newRow func() P, n, room int) (out bucketRows[P]) {
	q.PageSize = cqldriver.Unpaged
	room = min(room, 4096)
	out.rows, out.bucket = make([]P, 0, room), make([]int32, 0, room)
	seen := make([]bool, n)
	out.grouped = true
	for {
		it := &bucketIter[int32]{Iter: s.Iter(ctx, q)}
		for {
			out.rows = append(out.rows, newRow())
			if !scan(it, out.rows[len(out.rows)-1]) {
				out.rows = out.rows[:len(out.rows)-1]
				break
			}
			if it.bucket < 0 || int(it.bucket) >= n {
				it.Close()
				out.err = fmt.Errorf("cqlgen: %s: a row of bucket %d, outside the %d buckets read", q.Stmt.Table, it.bucket, n)
				return out
			}
			if k := len(out.bucket); k == 0 || out.bucket[k-1] != it.bucket {
				out.grouped = out.grouped && !seen[it.bucket]
				seen[it.bucket] = true
			}
			out.bucket = append(out.bucket, it.bucket)
		}
		state := it.PageState()
		if out.err = it.Close(); out.err != nil || len(state) == 0 {
			return out
		}
		q.PageState = state
	}
}

// bucketIter scans each row of a scatter request as the pattern's Scan
// does, and its bucket (a hash bucket's int, a time bucket's time),
// selected last, into bucket.
type bucketIter[B any] struct {
	cqldriver.Iter
	bucket B
	dest   []any
}

func (it *bucketIter[B]) Scan(dest ...any) bool {
	it.dest = append(append(it.dest[:0], dest...), &it.bucket)
	return it.Iter.Scan(it.dest...)
}

// drained is a list the merge drained while it may hold more: the rows
// after its last one, up to need of them, may still belong in the merge.
type drained[P any] struct {
	list int
	last P
	need int
}

// mergeRefill merges lists, each sorted by cmp, into one sorted list of at
// most limit rows, as Merge does (rows that compare equal come in list
// order), where each list is the first part of a longer one (more[i]: it
// may have more). The merge runs on what it has, and notes each list it
// drains while it may have more before the limit is met, and how many of
// the rows after its last could still belong: the limit less the rows
// merged by then, which is no fewer than the rows that could follow it,
// since rows of other drained lists only come before. refill is asked
// for all of them at once, and the merge runs again. A list refilled
// with all it was asked for cannot be drained again before the limit
// (its rows alone fill it), nor can a list that was not drained, whose
// rows only move later: so there is at most one refill, and the rows are
// those of merging the whole lists.
func mergeRefill[P any](lists [][]P, more []bool, cmp func(a, b P) int, limit int, refill func([]drained[P]) ([][]P, error)) ([]P, []int, error) {
	h := &ptrHeap{items: make([]mergeItem, 0, len(lists)), less: func(a, b mergeItem) int { return cmp(lists[a.list][a.next], lists[b.list][b.next]) }}
	out := make([]P, 0, limit)
	from := make([]int, 0, limit)
	for {
		out, from = out[:0], from[:0]
		h.items = h.items[:0]
		for i, l := range lists {
			if len(l) > 0 {
				h.items = append(h.items, mergeItem{list: i})
			}
		}
		heap.Init(h)
		var waiting []drained[P]
		for h.Len() > 0 && len(out) < limit {
			top := &h.items[0]
			l := lists[top.list]
			out = append(out, l[top.next])
			from = append(from, top.list)
			top.next++
			if top.next < len(l) {
				heap.Fix(h, 0)
				continue
			}
			if more[top.list] && len(out) < limit {
				waiting = append(waiting, drained[P]{list: top.list, last: l[top.next-1], need: limit - len(out)})
			}
			heap.Pop(h)
		}
		if len(waiting) == 0 {
			return out, from, nil
		}
		got, err := refill(waiting)
		if err != nil {
			return nil, nil, err
		}
		for k, d := range waiting {
			// A list may be a slice of one array shared with others:
			// the appended rows go to an array of its own.
			l := lists[d.list]
			lists[d.list] = append(l[:len(l):len(l)], got[k]...)
			more[d.list] = len(got[k]) == d.need
		}
	}
}

// Merge merges lists, each sorted by cmp, into one sorted list of at most
// limit rows; rows that compare equal come in list order. It also returns
// the list each row came from.
func Merge[T any](lists [][]T, cmp func(a, b *T) int, limit int) ([]T, []int) {
	h := &mergeHeap[T]{cmp: cmp}
	for i, l := range lists {
		if len(l) > 0 {
			h.items = append(h.items, mergeItem{list: i})
		}
	}
	h.lists = lists
	heap.Init(h)
	var out []T
	var from []int
	for h.Len() > 0 && len(out) < limit {
		top := &h.items[0]
		out = append(out, lists[top.list][top.next])
		from = append(from, top.list)
		top.next++
		if top.next == len(lists[top.list]) {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return out, from
}

type mergeItem struct{ list, next int }

type mergeHeap[T any] struct {
	items []mergeItem
	lists [][]T
	cmp   func(a, b *T) int
}

func (h *mergeHeap[T]) Len() int { return len(h.items) }
func (h *mergeHeap[T]) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if c := h.cmp(&h.lists[a.list][a.next], &h.lists[b.list][b.next]); c != 0 {
		return c < 0
	}
	return a.list < b.list
}
func (h *mergeHeap[T]) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap[T]) Push(x any)    { h.items = append(h.items, x.(mergeItem)) }
func (h *mergeHeap[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// ptrHeap is mergeHeap for the read paths, whose lists hold pointers; it
// is not generic (a generic type's methods are compiled for every type
// argument): less compares two items, closing over the lists.
type ptrHeap struct {
	items []mergeItem
	less  func(a, b mergeItem) int
}

func (h *ptrHeap) Len() int { return len(h.items) }
func (h *ptrHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	if c := h.less(a, b); c != 0 {
		return c < 0
	}
	return a.list < b.list
}
func (h *ptrHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *ptrHeap) Push(x any)    { h.items = append(h.items, x.(mergeItem)) }
func (h *ptrHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// WithCall is r, a read's static description that generated code declares
// once, for one call: the partition key values, the page's limit and
// cursor, and the repository's options (the largest limit, the cursor
// key and, on a table split over buckets, its concurrency and scatter).
func WithCall[P any](r ReadSpecOf[P], partition []any, limit int, cursor string, o cqlgen.Options) ReadSpecOf[P] {
	r.Partition, r.Limit, r.Cursor = partition, limit, cursor
	r.MaxLimit, r.CursorKey = o.MaxLimit, o.CursorKey
	if r.Table.Spec.Bucket != cqlspec.BucketNone {
		r.Concurrency, r.Scatter = o.Concurrency, o.Scatter
	}
	return r
}
