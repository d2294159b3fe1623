package reads

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"

	// cqltest marshals with the linked driver's codecs.
	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// The shares of a split scan cover the ring exactly once: the first
// starts at the ring's start (the minimum token, excluded, which no key
// has), each starts where the one before ends, and the last ends at the
// maximum token, included.
func TestSharesCoverTheRing(t *testing.T) {
	for _, n := range append([]int{1, 2, 3, 7, 10, 64, 1000, 12345, 1 << 20}, 999_983) {
		prev := int64(math.MinInt64)
		for i := range n {
			lo, hi, err := share(i, n)
			if err != nil {
				t.Fatal(err)
			}
			if lo != prev || hi <= lo {
				t.Fatalf("share %d of %d is (%d, %d], after a share ending at %d", i, n, lo, hi, prev)
			}
			prev = hi
		}
		if prev != math.MaxInt64 {
			t.Fatalf("the %d shares end at %d, not the maximum token", n, prev)
		}
	}
	if lo, hi, err := share(0, 0); err != nil || lo != math.MinInt64 || hi != math.MaxInt64 {
		t.Errorf("share 0 of 0: (%d, %d], %v; want the whole ring", lo, hi, err)
	}
}

type kv struct {
	k string
	c int32
	v string
}

func kvTable(t *testing.T) (*cqltest.Session, *desc.Table) {
	t.Helper()
	s, err := cqltest.New("CREATE TABLE kv (k text, c int, v text, PRIMARY KEY (k, c));")
	if err != nil {
		t.Fatal(err)
	}
	return s, desc.NewTable(desc.TableSpec{Name: "kv", Pattern: "KV", PartitionKey: desc.Cols("k text"), Clustering: desc.Cols("c int"), Columns: desc.Cols("v text"), Scanned: true})
}

// readShare reads (lo, hi] to its end, limit rows a page.
func readShare(t *testing.T, s cqlgen.Session, tb *desc.Table, lo, hi int64, limit int) []kv {
	t.Helper()
	var rows []kv
	cur := ""
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("(%d, %d]: no end", lo, hi)
		}
		sc, err := scanPage(context.Background(), s, cqlgen.Options{}, cur, limit, tb, lo, hi, 1, func(it cqldriver.Iter) bool {
			var r kv
			if !it.Scan(&r.k, &r.c, &r.v) {
				return false
			}
			rows = append(rows, r)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if cur = sc.Cursor; cur == "" {
			return rows
		}
	}
}

// Shares whose bounds are the very tokens of rows: a partition whose
// token is a share's upper bound is read by that share and by no other,
// the first partition of the ring by the share from its start, the last
// by the share to its end; pages end inside partitions (two rows a page,
// three a partition) and resume there.
func TestScanSharesOnRowTokens(t *testing.T) {
	ctx := context.Background()
	s, tb := kvTable(t)
	const parts = 40
	for i := range parts {
		for c := range 3 {
			if err := s.Exec(ctx, cqldriver.Query{Stmt: tb.Insert, Values: []any{fmt.Sprint("k", i), int32(c), "v", int64(1)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The token of each partition, found by bisection with a statement of
	// the test's own: the least hi such that token(k) <= hi holds it.
	upTo := &cqldriver.Statement{CQL: "SELECT k FROM kv WHERE token(k) <= ?", Table: "kv", Kind: cqlgen.Read, Idempotent: true}
	holds := func(k string, hi int64) bool {
		it := s.Iter(ctx, cqldriver.Query{Stmt: upTo, Values: []any{hi}, PageSize: cqldriver.Unpaged})
		found := false
		var got string
		for it.Scan(&got) {
			found = found || got == k
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		return found
	}
	tokens := map[string]int64{}
	var sorted []int64
	for i := range parts {
		k := fmt.Sprint("k", i)
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		for lo < hi {
			mid := lo + int64((uint64(hi)-uint64(lo))/2)
			if holds(k, mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		tokens[k] = lo
		sorted = append(sorted, lo)
	}
	slices.Sort(sorted)
	first, last := sorted[0], sorted[len(sorted)-1]

	// Bounds on every third partition's token, the first and the last
	// included, and one just below a token.
	bounds := []int64{math.MinInt64, first}
	for i := 3; i < len(sorted)-1; i += 3 {
		bounds = append(bounds, sorted[i])
	}
	bounds = append(bounds, sorted[len(sorted)-2]-1, last, math.MaxInt64)
	seen := map[kv]int{}
	for i := 1; i < len(bounds); i++ {
		lo, hi := bounds[i-1], bounds[i]
		for _, r := range readShare(t, s, tb, lo, hi, 2) {
			seen[r]++
			if tok := tokens[r.k]; tok <= lo || tok > hi {
				t.Errorf("%s (token %d) read by share (%d, %d]", r.k, tok, lo, hi)
			}
		}
	}
	if len(seen) != parts*3 {
		t.Errorf("%d rows read, want %d", len(seen), parts*3)
	}
	for r, n := range seen {
		if n != 1 {
			t.Errorf("%v read %d times", r, n)
		}
	}
	if rows := readShare(t, s, tb, math.MinInt64, first, 2); len(rows) != 3 || tokens[rows[0].k] != first {
		t.Errorf("(min, first token]: %v, want the first partition's 3 rows", rows)
	}
	if rows := readShare(t, s, tb, last-1, math.MaxInt64, 2); len(rows) != 3 || tokens[rows[0].k] != last {
		t.Errorf("(last token - 1, max]: %v, want the last partition's 3 rows", rows)
	}
	if rows := readShare(t, s, tb, last, math.MaxInt64, 2); len(rows) != 0 {
		t.Errorf("(last token, max]: %v, want none", rows)
	}
}

// The limiter of WithScanRate, on a clock of the test's that moves only
// when the limiter sleeps: each request waits for the rows before it at
// the rate, an idle limiter saves no credit beyond the next request, and
// a cancelled wait returns the context's error.
func TestPacerKeepsTheRate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var slept []time.Duration
	p := desc.NewPacer(100)
	p.Now = func() time.Time { return now }
	p.Sleep = func(ctx context.Context, d time.Duration) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		slept = append(slept, d)
		now = now.Add(d)
		return nil
	}
	ctx := context.Background()
	for range 5 {
		if err := p.WaitN(ctx, 50); err != nil {
			t.Fatal(err)
		}
	}
	// 250 rows at 100 a second: the fifth request goes 2 s after the first.
	want := []time.Duration{500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond, 500 * time.Millisecond}
	if !slices.Equal(slept, want) {
		t.Errorf("slept %v, want %v", slept, want)
	}
	now = now.Add(time.Hour)
	slept = nil
	for range 2 {
		if err := p.WaitN(ctx, 100); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(slept, []time.Duration{time.Second}) {
		t.Errorf("after an idle hour: slept %v, want [1s] (no saved credit)", slept)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := p.WaitN(cancelled, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait: %v", err)
	}
	if o := desc.NewOptions(cqlgen.WithScanRate(10)); o.ScanLimiter == nil {
		t.Error("WithScanRate made no limiter")
	}
	if o := desc.NewOptions(); o.ScanLimiter != nil {
		t.Error("a limiter without WithScanRate")
	}
}

// The cursor after any row of a scan's page (Scanned.At: a request's
// paging state and the rows of it to skip) resumes after exactly that
// row, in a page read of requests of any size; a skip larger than any
// request holds is refused.
func TestScanCursorAfterAnyRow(t *testing.T) {
	ctx := context.Background()
	s, tb := kvTable(t)
	for i := range 30 {
		for c := range 4 {
			if err := s.Exec(ctx, cqldriver.Query{Stmt: tb.Insert, Values: []any{fmt.Sprint("k", i), int32(c), "v", int64(1)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	want := readShare(t, s, tb, lo, hi, 1000)
	page := func(cur string, limit int) ([]kv, Scanned) {
		var rows []kv
		sc, err := scanPage(ctx, s, cqlgen.Options{}, cur, limit, tb, lo, hi, 1, func(it cqldriver.Iter) bool {
			var r kv
			if !it.Scan(&r.k, &r.c, &r.v) {
				return false
			}
			rows = append(rows, r)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows[sc.Skip:], sc
	}
	// Pages of 7 from the start, then of 11: the cursor after each row
	// of the second page resumes there.
	first, sc := page("", 7)
	second, sc2 := page(sc.Cursor, 11)
	if !slices.Equal(append(first, second...), want[:18]) {
		t.Fatalf("pages of 7 and 11: %v", append(first, second...))
	}
	for i := range second {
		c := sc2.At(i)
		var rest []kv
		for cur, limit := c, 5; ; limit = 13 {
			rows, next := page(cur, limit)
			rest = append(rest, rows...)
			if cur = next.Cursor; cur == "" {
				break
			}
		}
		if !slices.Equal(rest, want[7+i+1:]) {
			t.Errorf("from the cursor after row %d of the second page: %d rows, want %d", i, len(rest), len(want)-(7+i+1))
		}
	}
	// At the first page's rows, the share's start and a skip.
	if rows, _ := page(sc.At(2), 3); !slices.Equal(rows, want[3:6]) {
		t.Errorf("after the third row of the share: %v, want %v", rows, want[3:6])
	}
	forged := encodeCursor(1, cursor{kind: scanCursor, key: [][]byte{nil, binary.AppendUvarint(nil, 1<<20)}}, nil)
	if _, err := scanPage(ctx, s, cqlgen.Options{}, forged, 10, tb, lo, hi, 1, func(cqldriver.Iter) bool { return false }); !errors.Is(err, cqlgen.ErrInvalidCursor) {
		t.Errorf("a skip of 2^20 rows: %v, want ErrInvalidCursor", err)
	}
}
