package integration

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// Prefix reads on the live node: a read that fixes the first k clustering
// columns by equality and bounds column k+1, paged with several limits,
// against a reference computed in Go over the rows read with plain gocql.
// The tables mix ascending and descending columns, and one spreads over
// hash buckets, one over time buckets (testmodel/prefix.go).

// tablesOf applies only the given tables of a generated schema: creating
// every table of testmodel takes seconds on a small node.
func tablesOf(t *testing.T, schema string, tables ...string) string {
	t.Helper()
	var out []string
	for _, st := range cqlscript.Split(schema) {
		for _, name := range tables {
			if strings.Contains(st.Text, "CREATE TABLE IF NOT EXISTS "+name+" ") {
				out = append(out, st.Text+";")
			}
		}
	}
	if len(out) != len(tables) {
		t.Fatalf("found %d of the tables %v", len(out), tables)
	}
	return strings.Join(out, "\n")
}

// keyCol is a clustering column of a reference: its value in a row, how
// values compare, and its direction.
type keyCol[T any] struct {
	get  func(*T) any
	cmp  func(a, b any) int
	desc bool
}

func cmpString(a, b any) int { return cmp.Compare(a.(string), b.(string)) }
func cmpInt64(a, b any) int  { return cmp.Compare(a.(int64), b.(int64)) }
func cmpTime(a, b any) int   { return a.(time.Time).Compare(b.(time.Time)) }

// inOrder compares a column's values in clustering order.
func (c keyCol[T]) inOrder(a, b any) int {
	if c.desc {
		return -c.cmp(a, b)
	}
	return c.cmp(a, b)
}

// prefixCase is one read: depth columns fixed to prefix, and bounds on
// the next column (nil for none).
type prefixCase struct {
	depth    int
	prefix   []any
	from, to any
	limit    int
}

func (c prefixCase) String() string {
	return fmt.Sprintf("depth=%d prefix=%v from=%v to=%v limit=%d", c.depth, c.prefix, c.from, c.to, c.limit)
}

// reference is what a read must return, in order: the rows of the
// prefix and within the bounds, in the order of group (the time bucket,
// newest first; 0 for all), then clustering order.
func reference[T any](rows []T, cols []keyCol[T], group func(*T) int64, c prefixCase) []T {
	var out []T
	for i := range rows {
		r := &rows[i]
		ok := true
		for k := 0; k < c.depth; k++ {
			ok = ok && cols[k].cmp(cols[k].get(r), c.prefix[k]) == 0
		}
		col := cols[c.depth]
		if c.from != nil {
			ok = ok && col.inOrder(col.get(r), c.from) >= 0
		}
		if c.to != nil {
			ok = ok && col.inOrder(col.get(r), c.to) < 0
		}
		if ok {
			out = append(out, *r)
		}
	}
	slices.SortStableFunc(out, func(a, b T) int {
		if c := cmp.Compare(group(&b), group(&a)); c != 0 {
			return c
		}
		for _, col := range cols {
			if c := col.inOrder(col.get(&a), col.get(&b)); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

// prefixCases draws reads at every depth: prefixes of stored rows (and
// one of no row), bounds from stored values or none, several limits.
func prefixCases[T any](rng *rand.Rand, rows []T, cols []keyCol[T], maxDepth int, none []any) []prefixCase {
	var out []prefixCase
	for depth := 0; depth <= maxDepth; depth++ {
		for trial := range 10 {
			r := &rows[rng.IntN(len(rows))]
			c := prefixCase{depth: depth, limit: []int{1, 3, 7, 100}[trial%4]}
			for k := 0; k < depth; k++ {
				c.prefix = append(c.prefix, cols[k].get(r))
			}
			if depth > 0 && trial == 9 {
				c.prefix[depth-1] = none[depth-1] // a prefix no row has
			}
			pick := func() any { return cols[depth].get(&rows[rng.IntN(len(rows))]) }
			switch trial % 3 {
			case 1:
				c.from = pick()
			case 2:
				c.from, c.to = pick(), pick()
				if cols[depth].inOrder(c.from, c.to) > 0 {
					c.from, c.to = c.to, c.from
				}
			}
			if trial == 5 {
				c.from, c.to = nil, pick()
			}
			out = append(out, c)
		}
	}
	return out
}

func ptrOf[T any](v any) *T {
	if v == nil {
		return nil
	}
	x := v.(T)
	return &x
}

// checkPrefixReads runs every case through read, page by page, and
// compares what came back with the reference.
func checkPrefixReads[T any](t *testing.T, name string, rows []T, cols []keyCol[T], group func(*T) int64, cases []prefixCase,
	read func(c prefixCase, cursor string) (cqlgen.Page[T], error), id func(*T) string) {
	t.Helper()
	nonEmpty := 0
	for _, c := range cases {
		want := reference(rows, cols, group, c)
		got := pageAll(t, func(cursor string) (cqlgen.Page[T], error) { return read(c, cursor) }, c.limit)
		var g, w []string
		for i := range got {
			g = append(g, id(&got[i]))
		}
		for i := range want {
			w = append(w, id(&want[i]))
		}
		if !slices.Equal(g, w) {
			t.Errorf("%s %v:\n got %v\nwant %v", name, c, g, w)
		}
		if len(want) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < len(cases)/2 {
		t.Errorf("%s: only %d of %d cases return rows; the test checks too little", name, nonEmpty, len(cases))
	}
}

func TestPrefixReads(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, tablesOf(t, testmodel.Schema, "trades_by_account", "trades_by_desk", "ticks_by_symbol"))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(18, 1))
	day0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	kinds := []string{"buy", "sell", "swap"}

	t.Run("one partition", func(t *testing.T) {
		repo := testmodel.NewTradeRepo(s)
		for i := range 150 {
			tr := testmodel.Trade{Account: "acc", Kind: kinds[rng.IntN(3)], Day: day0.AddDate(0, 0, rng.IntN(6)), Seq: int64(rng.IntN(40)), Shares: int32(i)}
			must(t, repo.Insert(ctx, &tr))
		}
		// The reference reads the partition with plain gocql.
		var rows []testmodel.Trade
		it := raw.Query("SELECT account, kind, day, seq, shares FROM trades_by_account WHERE account = ?", "acc").Iter()
		var r testmodel.Trade
		for it.Scan(&r.Account, &r.Kind, &r.Day, &r.Seq, &r.Shares) {
			rows = append(rows, r)
		}
		must(t, it.Close())
		cols := []keyCol[testmodel.Trade]{
			{get: func(r *testmodel.Trade) any { return r.Kind }, cmp: cmpString},
			{get: func(r *testmodel.Trade) any { return r.Day }, cmp: cmpTime, desc: true},
			{get: func(r *testmodel.Trade) any { return r.Seq }, cmp: cmpInt64},
		}
		cases := prefixCases(rng, rows, cols, 2, []any{"none", day0.AddDate(0, 0, 100)})
		checkPrefixReads(t, "trades_by_account", rows, cols, func(*testmodel.Trade) int64 { return 0 }, cases,
			func(c prefixCase, cursor string) (cqlgen.Page[testmodel.Trade], error) {
				o := &testmodel.TradesByAccountOptions{Limit: c.limit, Cursor: cursor}
				switch c.depth {
				case 0:
					o.KindFrom, o.KindTo = ptrOf[string](c.from), ptrOf[string](c.to)
				case 1:
					o.KindEq = ptrOf[string](c.prefix[0])
					o.DayFrom, o.DayTo = ptrOf[time.Time](c.from), ptrOf[time.Time](c.to)
				case 2:
					o.KindEq, o.DayEq = ptrOf[string](c.prefix[0]), ptrOf[time.Time](c.prefix[1])
					o.SeqFrom, o.SeqTo = ptrOf[int64](c.from), ptrOf[int64](c.to)
				}
				return repo.TradesByAccount(ctx, "acc", o)
			},
			func(r *testmodel.Trade) string { return fmt.Sprintf("%s/%s/%d", r.Kind, r.Day.Format("01-02"), r.Seq) })
	})

	t.Run("hash buckets", func(t *testing.T) {
		repo := testmodel.NewDeskTradeRepo(s)
		for i := range 150 {
			// seq is unique: rows never tie on the whole clustering key.
			tr := testmodel.DeskTrade{Desk: "d1", Kind: kinds[rng.IntN(3)], Day: day0.AddDate(0, 0, rng.IntN(5)), Seq: int64(i), Shares: int32(i)}
			must(t, repo.Insert(ctx, &tr))
		}
		var rows []testmodel.DeskTrade
		for b := range 4 {
			it := raw.Query("SELECT desk, kind, day, seq, shares FROM trades_by_desk WHERE desk = ? AND bucket = ?", "d1", b).Iter()
			var r testmodel.DeskTrade
			for it.Scan(&r.Desk, &r.Kind, &r.Day, &r.Seq, &r.Shares) {
				rows = append(rows, r)
			}
			must(t, it.Close())
		}
		if len(rows) != 150 {
			t.Fatalf("%d rows over the buckets, want 150", len(rows))
		}
		cols := []keyCol[testmodel.DeskTrade]{
			{get: func(r *testmodel.DeskTrade) any { return r.Kind }, cmp: cmpString, desc: true},
			{get: func(r *testmodel.DeskTrade) any { return r.Day }, cmp: cmpTime},
			{get: func(r *testmodel.DeskTrade) any { return r.Seq }, cmp: cmpInt64, desc: true},
		}
		cases := prefixCases(rng, rows, cols, 2, []any{"none", day0.AddDate(0, 0, 100)})
		// Both ways of reaching the buckets, one request for all or one
		// each, read the same rows.
		for _, mode := range []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient} {
			repo := testmodel.NewDeskTradeRepo(s, cqlgen.WithScatter(mode))
			checkPrefixReads(t, fmt.Sprintf("trades_by_desk, scatter mode %d", mode), rows, cols, func(*testmodel.DeskTrade) int64 { return 0 }, cases,
				func(c prefixCase, cursor string) (cqlgen.Page[testmodel.DeskTrade], error) {
					o := &testmodel.TradesByDeskOptions{Limit: c.limit, Cursor: cursor}
					switch c.depth {
					case 0:
						o.KindFrom, o.KindTo = ptrOf[string](c.from), ptrOf[string](c.to)
					case 1:
						o.KindEq = ptrOf[string](c.prefix[0])
						o.DayFrom, o.DayTo = ptrOf[time.Time](c.from), ptrOf[time.Time](c.to)
					case 2:
						o.KindEq, o.DayEq = ptrOf[string](c.prefix[0]), ptrOf[time.Time](c.prefix[1])
						o.SeqFrom, o.SeqTo = ptrOf[int64](c.from), ptrOf[int64](c.to)
					}
					return repo.TradesByDesk(ctx, "d1", o)
				},
				func(r *testmodel.DeskTrade) string {
					return fmt.Sprintf("%s/%s/%d", r.Kind, r.Day.Format("01-02"), r.Seq)
				})
		}
	})

	t.Run("time buckets", func(t *testing.T) {
		repo := testmodel.NewTickRepo(s)
		for i := range 150 {
			at := day0.Add(time.Duration(rng.IntN(5*24*60)) * time.Minute)
			tk := testmodel.Tick{Symbol: "XYZ", Kind: kinds[rng.IntN(3)], At: at, Seq: int64(rng.IntN(3)), Price: float64(i)}
			must(t, repo.Insert(ctx, &tk))
		}
		// The read starts on the fourth day and looks back three: the
		// first and the fifth day are outside it.
		start, back := day0.AddDate(0, 0, 3).Add(12*time.Hour), 3
		var rows []testmodel.Tick
		for d := 1; d <= 3; d++ {
			it := raw.Query("SELECT symbol, kind, at, seq, price FROM ticks_by_symbol WHERE symbol = ? AND bucket = ?", "XYZ", day0.AddDate(0, 0, d)).Iter()
			var r testmodel.Tick
			for it.Scan(&r.Symbol, &r.Kind, &r.At, &r.Seq, &r.Price) {
				rows = append(rows, r)
			}
			must(t, it.Close())
		}
		cols := []keyCol[testmodel.Tick]{
			{get: func(r *testmodel.Tick) any { return r.Kind }, cmp: cmpString},
			{get: func(r *testmodel.Tick) any { return r.At }, cmp: cmpTime, desc: true},
			{get: func(r *testmodel.Tick) any { return r.Seq }, cmp: cmpInt64},
		}
		day := func(r *testmodel.Tick) int64 { return r.At.Unix() / 86400 }
		cases := prefixCases(rng, rows, cols, 1, []any{"none"})
		for _, mode := range []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient} {
			repo := testmodel.NewTickRepo(s, cqlgen.WithScatter(mode))
			checkPrefixReads(t, fmt.Sprintf("ticks_by_symbol, scatter mode %d", mode), rows, cols, day, cases,
				func(c prefixCase, cursor string) (cqlgen.Page[testmodel.Tick], error) {
					o := &testmodel.TicksBySymbolOptions{Limit: c.limit, Cursor: cursor, Start: start, LookBack: back}
					switch c.depth {
					case 0:
						o.KindFrom, o.KindTo = ptrOf[string](c.from), ptrOf[string](c.to)
					case 1:
						o.KindEq = ptrOf[string](c.prefix[0])
						o.AtFrom, o.AtTo = ptrOf[time.Time](c.from), ptrOf[time.Time](c.to)
					}
					return repo.TicksBySymbol(ctx, "XYZ", o)
				},
				func(r *testmodel.Tick) string { return fmt.Sprintf("%s/%s/%d", r.Kind, r.At.Format("02T15:04"), r.Seq) })
		}
	})

	t.Run("misuse", func(t *testing.T) {
		repo := testmodel.NewDeskTradeRepo(s)
		buy, sell, d := "buy", "sell", day0
		// A cursor belongs to the values it was read with.
		page, err := repo.TradesByDesk(ctx, "d1", &testmodel.TradesByDeskOptions{Limit: 2, KindEq: &buy})
		must(t, err)
		if page.Cursor == "" {
			t.Fatal("no cursor")
		}
		_, err = repo.TradesByDesk(ctx, "d1", &testmodel.TradesByDeskOptions{Limit: 2, KindEq: &sell, Cursor: page.Cursor})
		if !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("a cursor of kind buy read with kind sell: %v, want an invalid cursor", err)
		}
		_, err = repo.TradesByDesk(ctx, "d1", &testmodel.TradesByDeskOptions{Limit: 2, Cursor: page.Cursor})
		if !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("a cursor of kind buy read with no kind: %v, want an invalid cursor", err)
		}
		// Options the statements cannot serve are refused before anything
		// is sent.
		for name, o := range map[string]*testmodel.TradesByDeskOptions{
			"DayEq without KindEq":   {DayEq: &d},
			"KindFrom with KindEq":   {KindEq: &buy, KindFrom: &buy},
			"SeqFrom with KindEq":    {KindEq: &buy, SeqFrom: new(int64)},
			"DayFrom without KindEq": {DayFrom: &d},
		} {
			var oe *cqlgen.InputError
			if _, err := repo.TradesByDesk(ctx, "d1", o); !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) {
				t.Errorf("%s: %v, want an *cqlgen.InputError (ErrInvalidOption)", name, err)
			}
		}
	})
}
