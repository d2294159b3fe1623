package cqlgenimpl_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// bounds are a read's range options on one column, of every choice.
type bounds[V any] struct {
	from, to         *V
	fromExcl, toIncl bool
}

func (b bounds[V]) String() string {
	s := func(v *V) string {
		if v == nil {
			return "open"
		}
		return fmt.Sprint(*v)
	}
	l, r := "[", ")"
	if b.fromExcl {
		l = "("
	}
	if b.toIncl {
		r = "]"
	}
	return l + s(b.from) + ", " + s(b.to) + r
}

// holds reports whether v lies within b, cmp ordering values as rows come
// back: the reference every read is checked against.
func (b bounds[V]) holds(v V, cmp func(a, b V) int) bool {
	if b.from != nil {
		if c := cmp(v, *b.from); c < 0 || c == 0 && b.fromExcl {
			return false
		}
	}
	if b.to != nil {
		if c := cmp(v, *b.to); c > 0 || c == 0 && !b.toIncl {
			return false
		}
	}
	return true
}

// everyBound is every choice of bounds from values (and open ends), with
// each of the four choices of inclusive and exclusive ends.
func everyBound[V any](values []V) []bounds[V] {
	var out []bounds[V]
	ptrs := []*V{nil}
	for i := range values {
		ptrs = append(ptrs, &values[i])
	}
	for _, f := range ptrs {
		for _, t := range ptrs {
			for _, fx := range []bool{false, true} {
				for _, ti := range []bool{false, true} {
					out = append(out, bounds[V]{from: f, to: t, fromExcl: fx, toIncl: ti})
				}
			}
		}
	}
	return out
}

// checkBounds reads rows through read with every bound and limit, page
// by page, and compares the ids with a reference: the rows whose value
// of the bounded column lies within the bounds, sorted in the table's
// order.
func checkBounds[T any, V any](t *testing.T, name string, rows []T, order func(a, b T) int, col func(T) V, colCmp func(a, b V) int,
	id func(T) string, values []V, limits []int, read func(b bounds[V], limit int, cursor string) (cqlgen.Page[T], error), keep ...func(bounds[V]) bool) {
	t.Helper()
	sorted := slices.Clone(rows)
	slices.SortStableFunc(sorted, order)
	ids := func(rs []T) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = id(r)
		}
		return out
	}
	nonEmpty, total := 0, 0
	for _, b := range everyBound(values) {
		if len(keep) > 0 && !keep[0](b) {
			continue
		}
		total++
		var want []T
		for _, r := range sorted {
			if b.holds(col(r), colCmp) {
				want = append(want, r)
			}
		}
		if len(want) > 0 {
			nonEmpty++
		}
		for _, limit := range limits {
			got := pages(t, func(c string) (cqlgen.Page[T], error) { return read(b, limit, c) })
			if !slices.Equal(ids(got), ids(want)) {
				t.Errorf("%s %v, limit %d:\n got %v\nwant %v", name, b, limit, ids(got), ids(want))
			}
		}
	}
	if nonEmpty < total/4 {
		t.Fatalf("%s: only %d of %d bounds hold rows: the test proves little", name, nonEmpty, total)
	}
}

// bothEnds keeps the bounds with both ends set: an index range's read
// takes both.
func bothEnds[V any](b bounds[V]) bool { return b.from != nil && b.to != nil }

var (
	y2020 = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	y2021 = time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
)

// theIssuesOrders are orders placed exactly at both ends of 2020, inside
// it and outside it, with a reference, an event and a status each.
func theIssuesOrders() []fixture.Order {
	at := []time.Time{y2020.Add(-time.Millisecond), y2020, y2020.Add(time.Millisecond), y2020.AddDate(0, 6, 0), y2021.Add(-time.Millisecond), y2021, y2021.Add(time.Millisecond)}
	var out []fixture.Order
	for i, t := range at {
		out = append(out, fixture.Order{UserID: "u", PlacedAt: t, OrderID: fmt.Sprintf("o%d", i), Ref: string(rune('a' + i)), Event: gocql.UUIDFromTime(t), Status: "paid",
			Total: int64(50 * i), Items: int32(i)})
	}
	return out
}

func orderIDs(os []fixture.Order) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.OrderID
	}
	return out
}

// The issue's case: the published query placed_at >= '2020-01-01' AND
// placed_at < '2021-01-01', on a descending column, with its own dates.
// Rows come back newest first, so From is 2021-01-01, exclusive, and To
// 2020-01-01, inclusive. With the defaults alone (From inclusive, To
// exclusive) the read returned the order placed at 2021-01-01 00:00 and
// dropped the one at 2020-01-01 00:00, and no shift of a text or a
// timeuuid fixes that: the same holds here for ref >= 'b' AND ref < 'f'
// and for a timeuuid range, through one partition, a prefix, a prefix
// over hash buckets (both scatter modes) and time buckets; and for index
// ranges published with <=, within a partition and over every one.
func TestPublishedRangeOnADescendingColumn(t *testing.T) {
	for _, mode := range scatterModes {
		s := session(t)
		repo := fixture.NewOrderRepo(s, cqlgen.WithScatter(mode))
		rows := theIssuesOrders()
		insertAll(t, repo.Insert, rows)
		ctx := context.Background()
		var want []string
		for i := len(rows) - 1; i >= 0; i-- {
			if r := rows[i]; !r.PlacedAt.Before(y2020) && r.PlacedAt.Before(y2021) {
				want = append(want, r.OrderID)
			}
		}
		if !slices.Equal(want, []string{"o4", "o3", "o2", "o1"}) {
			t.Fatalf("the reference: %v", want)
		}
		paid := "paid"
		for name, read := range map[string]func(limit int, c string) (cqlgen.Page[fixture.Order], error){
			"placed_at": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return repo.Orders(ctx, "u", &fixture.OrdersOptions{Limit: limit, Cursor: c,
					PlacedAtFrom: &y2021, PlacedAtFromExclusive: true, PlacedAtTo: &y2020, PlacedAtToInclusive: true})
			},
			"placed_at under a prefix": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return repo.OrdersByStatus(ctx, "u", &fixture.OrdersByStatusOptions{Limit: limit, Cursor: c, StatusEq: &paid,
					PlacedAtFrom: &y2021, PlacedAtFromExclusive: true, PlacedAtTo: &y2020, PlacedAtToInclusive: true})
			},
			"placed_at under a prefix, hash buckets": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return repo.Orders4(ctx, "u", &fixture.Orders4Options{Limit: limit, Cursor: c, StatusEq: &paid,
					PlacedAtFrom: &y2021, PlacedAtFromExclusive: true, PlacedAtTo: &y2020, PlacedAtToInclusive: true})
			},
			"placed_at, time buckets": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return repo.OrdersByDay(ctx, "u", &fixture.OrdersByDayOptions{Limit: limit, Cursor: c, Start: y2021, LookBack: 370,
					PlacedAtFrom: &y2021, PlacedAtFromExclusive: true, PlacedAtTo: &y2020, PlacedAtToInclusive: true})
			},
			"ref (text)": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				from, to := "f", "b" // ref >= 'b' AND ref < 'f'
				return repo.OrdersByRef(ctx, "u", &fixture.OrdersByRefOptions{Limit: limit, Cursor: c,
					RefFrom: &from, RefFromExclusive: true, RefTo: &to, RefToInclusive: true})
			},
			"total (an index range, published total >= 50 AND total <= 200)": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return repo.OrdersByTotal(ctx, "u", 50, 200, &fixture.OrdersByTotalOptions{Limit: limit, Cursor: c, TotalToInclusive: true})
			},
			"items (an index range over every partition, items > 0 AND items <= 4)": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return repo.OrdersByItems(ctx, 0, 4, &fixture.OrdersByItemsOptions{Limit: limit, Cursor: c, ItemsFromExclusive: true, ItemsToInclusive: true})
			},
			"event (timeuuid)": func(limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return repo.OrdersByEvent(ctx, "u", &fixture.OrdersByEventOptions{Limit: limit, Cursor: c,
					EventFrom: &rows[5].Event, EventFromExclusive: true, EventTo: &rows[1].Event, EventToInclusive: true})
			},
		} {
			for _, limit := range []int{1, 2, 100} {
				got := pages(t, func(c string) (cqlgen.Page[fixture.Order], error) { return read(limit, c) })
				if !slices.Equal(orderIDs(got), want) {
					t.Errorf("%s, %s, limit %d: got %v, want %v", name, scatterName[mode], limit, orderIDs(got), want)
				}
			}
		}
	}
}

// Every choice of inclusive and exclusive ends, paged with small limits,
// returns exactly the rows of a reference filter and sort, each once:
// ascending, descending and mixed clustering orders, on timestamps,
// text, timeuuids and ints, under a prefix, over hash buckets in both
// scatter modes and over time buckets. The bounds are values the rows
// hold, several rows each, so every choice of ends differs, and values
// they do not hold.
func TestEveryBoundChoiceMatchesAReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	instants := []time.Time{day0, day0.Add(time.Hour), day0.AddDate(0, 0, 1), day0.AddDate(0, 0, 1).Add(2 * time.Hour), day0.AddDate(0, 0, 2)}
	events := make([]gocql.UUID, len(instants))
	for i, at := range instants {
		events[i] = gocql.UUIDFromTime(at)
	}
	statuses := []string{"new", "paid", "sent"}
	var orders []fixture.Order
	for i := range 36 {
		k := rng.IntN(len(instants))
		orders = append(orders, fixture.Order{UserID: "u", PlacedAt: instants[k], OrderID: fmt.Sprintf("o%02d", i),
			Ref: string(rune('a' + rng.IntN(4))), Event: events[k], Status: statuses[rng.IntN(3)], Total: int64(10 * rng.IntN(4)), Items: int32(rng.IntN(3))})
	}
	// Other users' orders, which a read through an index over every
	// partition finds too.
	var others []fixture.Order
	for i := range 30 {
		others = append(others, fixture.Order{UserID: fmt.Sprint("w", i%5), PlacedAt: instants[i%len(instants)], OrderID: fmt.Sprintf("p%02d", i),
			Ref: "a", Event: events[i%len(events)], Status: "new", Items: int32(rng.IntN(3))})
	}
	readings := readings(40, 3, 11)
	ticks := make([]fixture.Tick, 40)
	for i := range ticks {
		ticks[i] = fixture.Tick{Stream: "x", Seq: int64(rng.IntN(12))*10 + int64(i%10)}
	}
	atValues := []time.Time{day0.Add(time.Hour), day0.AddDate(0, 0, 1).Add(2 * time.Hour), day0.Add(90 * time.Minute)}
	placedValues := []time.Time{instants[1], instants[3], day0.Add(90 * time.Minute)}
	desc := func(a, b time.Time) int { return b.Compare(a) }
	limits := []int{1, 3}

	for _, mode := range scatterModes {
		ctx := context.Background()
		s := session(t)
		rr := fixture.NewReadingRepo(s, cqlgen.WithScatter(mode))
		insertAll(t, rr.Insert, readings)
		or := fixture.NewOrderRepo(s, cqlgen.WithScatter(mode))
		insertAll(t, or.Insert, orders)
		insertAll(t, or.Insert, others)
		tr := fixture.NewTickRepo(s, cqlgen.WithScatter(mode))
		insertAll(t, tr.Insert, ticks)
		m := scatterName[mode]
		readingID := func(r fixture.Reading) string { return fmt.Sprint(r.Seq) }
		readingAt := func(r fixture.Reading) time.Time { return r.At }
		readingKind := func(r fixture.Reading) string { return r.Kind }

		checkBounds(t, "readings_16 (at desc, hash buckets), "+m, readings, byTimeDesc, readingAt, desc, readingID, atValues, limits,
			func(b bounds[time.Time], limit int, c string) (cqlgen.Page[fixture.Reading], error) {
				return rr.Readings16(ctx, "s1", &fixture.Readings16Options{Limit: limit, Cursor: c, AtFrom: b.from, AtTo: b.to, AtFromExclusive: b.fromExcl, AtToInclusive: b.toIncl})
			})
		checkBounds(t, "readings_by_day (at desc, time buckets), "+m, readings, byTimeDesc, readingAt, desc, readingID, atValues, limits,
			func(b bounds[time.Time], limit int, c string) (cqlgen.Page[fixture.Reading], error) {
				return rr.ReadingsByDay(ctx, "s1", &fixture.ReadingsByDayOptions{Limit: limit, Cursor: c, Start: day0.AddDate(0, 0, 2), LookBack: 3,
					AtFrom: b.from, AtTo: b.to, AtFromExclusive: b.fromExcl, AtToInclusive: b.toIncl})
			})
		checkBounds(t, "readings_by_kind (kind, at desc, seq), "+m, readings, byKind, readingKind, strings.Compare, readingID, []string{"a", "b", "bb"}, limits,
			func(b bounds[string], limit int, c string) (cqlgen.Page[fixture.Reading], error) {
				return rr.ReadingsByKind(ctx, "s1", &fixture.ReadingsByKindOptions{Limit: limit, Cursor: c, KindFrom: b.from, KindTo: b.to, KindFromExclusive: b.fromExcl, KindToInclusive: b.toIncl})
			})
		byKindOldest := func(a, b fixture.Reading) int {
			return cmp.Or(cmp.Compare(a.Kind, b.Kind), a.At.Compare(b.At), cmp.Compare(a.Seq, b.Seq))
		}
		checkBounds(t, "readings_by_kind_oldest (kind, at, seq), "+m, readings, byKindOldest, readingKind, strings.Compare, readingID, []string{"a", "b", "bb"}, limits,
			func(b bounds[string], limit int, c string) (cqlgen.Page[fixture.Reading], error) {
				return rr.ReadingsByKindOldest(ctx, "s1", &fixture.ReadingsByKindOldestOptions{Limit: limit, Cursor: c, KindFrom: b.from, KindTo: b.to, KindFromExclusive: b.fromExcl, KindToInclusive: b.toIncl})
			})

		tickOrder := func(a, b fixture.Tick) int { return cmp.Compare(a.Seq, b.Seq) }
		tickSeq := func(k fixture.Tick) int64 { return k.Seq }
		tickID := func(k fixture.Tick) string { return fmt.Sprint(k.Seq) }
		// A seq is a whole key: the bounds fall on a row or between two.
		uniq := slices.Compact(slices.Sorted(slices.Values(func() []int64 {
			var v []int64
			for _, k := range ticks {
				v = append(v, k.Seq)
			}
			return v
		}())))
		ticksHeld := uniqueTicks(ticks)
		tickValues := []int64{uniq[len(uniq)/4], uniq[len(uniq)*3/4], uniq[len(uniq)/2] + 1}
		checkBounds(t, "ticks (seq), "+m, ticksHeld, tickOrder, tickSeq, cmp.Compare[int64], tickID, tickValues, limits,
			func(b bounds[int64], limit int, c string) (cqlgen.Page[fixture.Tick], error) {
				return tr.Ticks(ctx, "x", &fixture.TicksOptions{Limit: limit, Cursor: c, SeqFrom: b.from, SeqTo: b.to, SeqFromExclusive: b.fromExcl, SeqToInclusive: b.toIncl})
			})
		checkBounds(t, "ticks_4 (seq, hash buckets), "+m, ticksHeld, tickOrder, tickSeq, cmp.Compare[int64], tickID, tickValues, limits,
			func(b bounds[int64], limit int, c string) (cqlgen.Page[fixture.Tick], error) {
				return tr.Ticks4(ctx, "x", &fixture.Ticks4Options{Limit: limit, Cursor: c, SeqFrom: b.from, SeqTo: b.to, SeqFromExclusive: b.fromExcl, SeqToInclusive: b.toIncl})
			})

		orderID := func(o fixture.Order) string { return o.OrderID }
		placedDesc := func(a, b fixture.Order) int {
			return cmp.Or(b.PlacedAt.Compare(a.PlacedAt), strings.Compare(a.OrderID, b.OrderID))
		}
		placed := func(o fixture.Order) time.Time { return o.PlacedAt }
		checkBounds(t, "orders (placed_at desc), "+m, orders, placedDesc, placed, desc, orderID, placedValues, limits,
			func(b bounds[time.Time], limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return or.Orders(ctx, "u", &fixture.OrdersOptions{Limit: limit, Cursor: c, PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
			})
		checkBounds(t, "orders_by_day (placed_at desc, time buckets), "+m, orders, placedDesc, placed, desc, orderID, placedValues, limits,
			func(b bounds[time.Time], limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return or.OrdersByDay(ctx, "u", &fixture.OrdersByDayOptions{Limit: limit, Cursor: c, Start: day0.AddDate(0, 0, 2), LookBack: 3,
					PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
			})
		byRef := func(a, b fixture.Order) int {
			return cmp.Or(strings.Compare(b.Ref, a.Ref), a.PlacedAt.Compare(b.PlacedAt), strings.Compare(a.OrderID, b.OrderID))
		}
		checkBounds(t, "orders_by_ref (ref desc, text), "+m, orders, byRef, func(o fixture.Order) string { return o.Ref }, func(a, b string) int { return strings.Compare(b, a) },
			orderID, []string{"b", "c", "bb"}, limits,
			func(b bounds[string], limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return or.OrdersByRef(ctx, "u", &fixture.OrdersByRefOptions{Limit: limit, Cursor: c, RefFrom: b.from, RefTo: b.to, RefFromExclusive: b.fromExcl, RefToInclusive: b.toIncl})
			})
		byEvent := func(a, b fixture.Order) int {
			return cmp.Or(b.Event.Time().Compare(a.Event.Time()), a.PlacedAt.Compare(b.PlacedAt), strings.Compare(a.OrderID, b.OrderID))
		}
		eventValues := []gocql.UUID{events[1], events[3], gocql.UUIDFromTime(day0.Add(90 * time.Minute))}
		checkBounds(t, "orders_by_event (event desc, timeuuid), "+m, orders, byEvent, func(o fixture.Order) gocql.UUID { return o.Event },
			func(a, b gocql.UUID) int { return b.Time().Compare(a.Time()) }, orderID, eventValues, limits,
			func(b bounds[gocql.UUID], limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return or.OrdersByEvent(ctx, "u", &fixture.OrdersByEventOptions{Limit: limit, Cursor: c, EventFrom: b.from, EventTo: b.to, EventFromExclusive: b.fromExcl, EventToInclusive: b.toIncl})
			})
		// Under a prefix: status fixed, placed_at bounded; and the prefix
		// column itself bounded. The same over 4 hash buckets.
		byStatus := func(a, b fixture.Order) int { return cmp.Or(strings.Compare(a.Status, b.Status), placedDesc(a, b)) }
		for _, st := range statuses {
			var of []fixture.Order
			for _, o := range orders {
				if o.Status == st {
					of = append(of, o)
				}
			}
			checkBounds(t, "orders_by_status = "+st+" (placed_at desc), "+m, of, placedDesc, placed, desc, orderID, placedValues[:2], limits,
				func(b bounds[time.Time], limit int, c string) (cqlgen.Page[fixture.Order], error) {
					return or.OrdersByStatus(ctx, "u", &fixture.OrdersByStatusOptions{Limit: limit, Cursor: c, StatusEq: &st,
						PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
				})
			checkBounds(t, "orders_4 status = "+st+" (placed_at desc, hash buckets), "+m, of, placedDesc, placed, desc, orderID, placedValues[:2], limits,
				func(b bounds[time.Time], limit int, c string) (cqlgen.Page[fixture.Order], error) {
					return or.Orders4(ctx, "u", &fixture.Orders4Options{Limit: limit, Cursor: c, StatusEq: &st,
						PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
				})
		}
		// Index ranges have both ends, the read's parameters, compared by
		// value whatever the clustering order.
		checkBounds(t, "orders_by_total (an index range), "+m, orders, placedDesc, func(o fixture.Order) int64 { return o.Total }, cmp.Compare[int64], orderID,
			[]int64{10, 20, 15}, limits, func(b bounds[int64], limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return or.OrdersByTotal(ctx, "u", *b.from, *b.to, &fixture.OrdersByTotalOptions{Limit: limit, Cursor: c, TotalFromExclusive: b.fromExcl, TotalToInclusive: b.toIncl})
			}, bothEnds)
		// Over every partition: the reference order is the scatter's own
		// (token order, then clustering order) of every row.
		everyRow := pages(t, func(c string) (cqlgen.Page[fixture.Order], error) {
			return or.OrdersByItems(ctx, math.MinInt32, math.MaxInt32, &fixture.OrdersByItemsOptions{Limit: 50, Cursor: c})
		})
		if len(everyRow) != len(orders)+len(others) {
			t.Fatalf("a read of every row through orders_by_items: %d rows of %d", len(everyRow), len(orders)+len(others))
		}
		position := map[string]int{}
		for i, o := range everyRow {
			position[o.UserID+"/"+o.OrderID] = i
		}
		byScatter := func(a, b fixture.Order) int {
			return cmp.Compare(position[a.UserID+"/"+a.OrderID], position[b.UserID+"/"+b.OrderID])
		}
		checkBounds(t, "orders_by_items (an index range over every partition), "+m, everyRow, byScatter, func(o fixture.Order) int32 { return o.Items }, cmp.Compare[int32],
			func(o fixture.Order) string { return o.UserID + "/" + o.OrderID }, []int32{0, 1, 2}, limits,
			func(b bounds[int32], limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return or.OrdersByItems(ctx, *b.from, *b.to, &fixture.OrdersByItemsOptions{Limit: limit, Cursor: c, ItemsFromExclusive: b.fromExcl, ItemsToInclusive: b.toIncl})
			}, bothEnds)
		status := func(o fixture.Order) string { return o.Status }
		checkBounds(t, "orders_4 (status, placed_at desc, hash buckets), "+m, orders, byStatus, status, strings.Compare, orderID, []string{"new", "paid", "p"}, limits,
			func(b bounds[string], limit int, c string) (cqlgen.Page[fixture.Order], error) {
				return or.Orders4(ctx, "u", &fixture.Orders4Options{Limit: limit, Cursor: c, StatusFrom: b.from, StatusTo: b.to, StatusFromExclusive: b.fromExcl, StatusToInclusive: b.toIncl})
			})
	}
}

// uniqueTicks keeps the last tick of each seq, as the table does.
func uniqueTicks(ticks []fixture.Tick) []fixture.Tick {
	last := map[int64]fixture.Tick{}
	for _, k := range ticks {
		last[k.Seq] = k
	}
	var out []fixture.Tick
	for _, k := range last {
		out = append(out, k)
	}
	return out
}
