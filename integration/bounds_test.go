package integration

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Range bounds on the live node, each end inclusive or exclusive
// (testmodel/bounds.go): the published query of the issue with its own
// values, on a descending timestamp, text and timeuuid, under a prefix,
// over hash and time buckets and through index ranges; then every choice
// of ends against a reference filtered and sorted in Go over the rows
// read with plain gocql.

// ordersSession is a keyspace with the orders tables and their indexes
// only: creating every table of testmodel takes seconds on a small node.
func ordersSession(t *testing.T, opts ...cqlgen.Option) (*gocql.Session, *testmodel.OrderRepo) {
	t.Helper()
	var stmts []string
	for _, st := range cqlscript.Split(testmodel.Schema) {
		if strings.Contains(st.Text, "CREATE TABLE IF NOT EXISTS orders") || strings.Contains(st.Text, " ON orders (") {
			stmts = append(stmts, st.Text+";")
		}
	}
	if len(stmts) != 8 {
		t.Fatalf("found %d of the 6 orders tables and 2 indexes", len(stmts))
	}
	raw, _ := repoSession(t, strings.Join(stmts, "\n"))
	return raw, testmodel.NewOrderRepo(gocqlv1.NewSession(raw, nil), opts...)
}

var (
	live2020 = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	live2021 = time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
)

// orderKeys names orders by user and id, in the order given.
func orderKeys(os []testmodel.Order) string {
	var b strings.Builder
	for _, o := range os {
		fmt.Fprintf(&b, "%s/%s ", o.UserID, o.OrderID)
	}
	return b.String()
}

// gocqlOrders reads with plain gocql, unpaged, the rows of a query that
// selects user_id and order_id, in the order the node gives them.
func gocqlOrders(t *testing.T, raw *gocql.Session, cql string, values ...any) string {
	t.Helper()
	it := raw.Query(cql, values...).PageSize(10000).Iter()
	var b strings.Builder
	var user, id string
	for it.Scan(&user, &id) {
		fmt.Fprintf(&b, "%s/%s ", user, id)
	}
	must(t, it.Close())
	return b.String()
}

// The case on the node: the published query placed_at >=
// '2020-01-01' AND placed_at < '2021-01-01' on a descending column, with
// its own dates, against the same query run with plain gocql. With the
// defaults alone the read returned the order placed at 2021-01-01 00:00
// and dropped the one at 2020-01-01 00:00 (seen before the options
// existed, forcing them off); the same for a text and a timeuuid range,
// under a prefix, over hash buckets (both scatter modes) and time
// buckets, and for index ranges published with <=.
func TestPublishedRangesLive(t *testing.T) {
	t.Parallel()
	raw, repo := ordersSession(t)
	ctx := context.Background()
	at := []time.Time{live2020.Add(-time.Millisecond), live2020, live2020.Add(time.Millisecond), live2020.AddDate(0, 6, 0),
		live2021.Add(-time.Millisecond), live2021, live2021.Add(time.Millisecond)}
	var rows []testmodel.Order
	for i, ts := range at {
		for _, user := range []string{"u", "v"} {
			o := testmodel.Order{UserID: user, PlacedAt: ts, OrderID: fmt.Sprintf("o%d", i), Ref: string(rune('a' + i)),
				Event: gocql.UUIDFromTime(ts), Status: "paid", Total: int64(50 * i), Items: int32(i)}
			must(t, repo.Insert(ctx, &o))
			rows = append(rows, o)
		}
	}
	const sel = "SELECT user_id, order_id FROM "
	want := gocqlOrders(t, raw, sel+"orders WHERE user_id = ? AND placed_at >= ? AND placed_at < ?", "u", live2020, live2021)
	if want != "u/o4 u/o3 u/o2 u/o1 " {
		t.Fatalf("the node's answer to the published query: %s", want)
	}
	paid := "paid"
	from, to := "f", "b" // ref >= 'b' AND ref < 'f', newest first
	type read func(limit int, cursor string) (cqlgen.Page[testmodel.Order], error)
	for _, mode := range scatterModes {
		repo := testmodel.NewOrderRepo(gocqlv1.NewSession(raw, nil), cqlgen.WithScatter(mode))
		for _, c := range []struct {
			name, want string
			read       read
		}{
			{"placed_at", want, func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.Orders(ctx, "u", &testmodel.OrdersOptions{Limit: limit, Cursor: c,
					PlacedAtFrom: &live2021, PlacedAtFromExclusive: true, PlacedAtTo: &live2020, PlacedAtToInclusive: true})
			}},
			{"placed_at under a prefix", gocqlOrders(t, raw, sel+"orders_by_status WHERE user_id = ? AND status = ? AND placed_at >= ? AND placed_at < ?", "u", paid, live2020, live2021),
				func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
					return repo.OrdersByStatus(ctx, "u", &testmodel.OrdersByStatusOptions{Limit: limit, Cursor: c, StatusEq: &paid,
						PlacedAtFrom: &live2021, PlacedAtFromExclusive: true, PlacedAtTo: &live2020, PlacedAtToInclusive: true})
				}},
			{"placed_at under a prefix, hash buckets", want, func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.Orders4(ctx, "u", &testmodel.Orders4Options{Limit: limit, Cursor: c, StatusEq: &paid,
					PlacedAtFrom: &live2021, PlacedAtFromExclusive: true, PlacedAtTo: &live2020, PlacedAtToInclusive: true})
			}},
			{"placed_at, time buckets", want, func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.OrdersByDay(ctx, "u", &testmodel.OrdersByDayOptions{Limit: limit, Cursor: c, Start: live2021, LookBack: 370,
					PlacedAtFrom: &live2021, PlacedAtFromExclusive: true, PlacedAtTo: &live2020, PlacedAtToInclusive: true})
			}},
			{"ref (text)", gocqlOrders(t, raw, sel+"orders_by_ref WHERE user_id = ? AND ref >= ? AND ref < ?", "u", to, from),
				func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
					return repo.OrdersByRef(ctx, "u", &testmodel.OrdersByRefOptions{Limit: limit, Cursor: c,
						RefFrom: &from, RefFromExclusive: true, RefTo: &to, RefToInclusive: true})
				}},
			{"event (timeuuid)", gocqlOrders(t, raw, sel+"orders_by_event WHERE user_id = ? AND event >= ? AND event < ?", "u", rows[2].Event, rows[10].Event),
				func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
					return repo.OrdersByEvent(ctx, "u", &testmodel.OrdersByEventOptions{Limit: limit, Cursor: c,
						EventFrom: &rows[10].Event, EventFromExclusive: true, EventTo: &rows[2].Event, EventToInclusive: true})
				}},
			{"total (an index range, <=)", gocqlOrders(t, raw, sel+"orders WHERE user_id = ? AND total >= ? AND total <= ?", "u", int64(50), int64(200)),
				func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
					return repo.OrdersByTotal(ctx, "u", 50, 200, &testmodel.OrdersByTotalOptions{Limit: limit, Cursor: c, TotalToInclusive: true})
				}},
			{"items (an index range over every partition, > and <=)", gocqlOrders(t, raw, sel+"orders WHERE items > ? AND items <= ?", int32(1), int32(4)),
				func(limit int, c string) (cqlgen.Page[testmodel.Order], error) {
					return repo.OrdersByItems(ctx, 1, 4, &testmodel.OrdersByItemsOptions{Limit: limit, Cursor: c, ItemsFromExclusive: true, ItemsToInclusive: true})
				}},
		} {
			if strings.Count(c.want, " ") < 4 {
				t.Fatalf("%s: the reference holds too few rows: %s", c.name, c.want)
			}
			for _, limit := range []int{1, 3, 100} {
				got := pageAll(t, func(cursor string) (cqlgen.Page[testmodel.Order], error) { return c.read(limit, cursor) }, limit)
				if got := orderKeys(got); got != c.want {
					t.Errorf("%s, %s, limit %d:\n got %s\nwant %s", c.name, scatterName[mode], limit, got, c.want)
				}
			}
		}
	}
}

// liveBounds are the options of one range read: two ends, each nil
// (open) or a value, inclusive or exclusive.
type liveBounds[V any] struct {
	from, to         *V
	fromExcl, toIncl bool
}

func (b liveBounds[V]) String() string {
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

// holds is the reference: v within b, values compared by c, which orders
// them as rows come back (or by value, for an index range).
func (b liveBounds[V]) holds(v V, c func(a, b V) int) bool {
	if b.from != nil {
		if d := c(v, *b.from); d < 0 || d == 0 && b.fromExcl {
			return false
		}
	}
	if b.to != nil {
		if d := c(v, *b.to); d > 0 || d == 0 && !b.toIncl {
			return false
		}
	}
	return true
}

// liveBoundChoices are the bounds of every pair of ends from values and
// open, with each of the four choices of inclusive and exclusive.
func liveBoundChoices[V any](values []V, open bool) []liveBounds[V] {
	var ends []*V
	if open {
		ends = append(ends, nil)
	}
	for i := range values {
		ends = append(ends, &values[i])
	}
	var out []liveBounds[V]
	for _, f := range ends {
		for _, t := range ends {
			for _, fx := range []bool{false, true} {
				for _, ti := range []bool{false, true} {
					out = append(out, liveBounds[V]{f, t, fx, ti})
				}
			}
		}
	}
	return out
}

// checkLiveBounds pages through read with every choice of bounds and
// limits 2 and 5, and compares with the rows of all whose column holds,
// in all's order.
func checkLiveBounds[V any](t *testing.T, name string, all []testmodel.Order, col func(testmodel.Order) V, c func(a, b V) int,
	choices []liveBounds[V], read func(b liveBounds[V], limit int, cursor string) (cqlgen.Page[testmodel.Order], error)) {
	t.Helper()
	held := 0
	for _, b := range choices {
		var want []testmodel.Order
		for _, o := range all {
			if b.holds(col(o), c) {
				want = append(want, o)
			}
		}
		if len(want) > 0 {
			held++
		}
		for _, limit := range []int{2, 5} {
			got := pageAll(t, func(cursor string) (cqlgen.Page[testmodel.Order], error) { return read(b, limit, cursor) }, limit)
			if orderKeys(got) != orderKeys(want) {
				t.Errorf("%s %v, limit %d:\n got %s\nwant %s", name, b, limit, orderKeys(got), orderKeys(want))
			}
		}
	}
	if held < len(choices)/3 {
		t.Fatalf("%s: %d of %d bounds hold rows: the test proves little", name, held, len(choices))
	}
}

// Every choice of ends, paged, gives the rows of a reference: the rows
// read with plain gocql, filtered and sorted in Go. Bounds fall on values
// several rows share, so each choice of ends differs.
func TestEveryBoundChoiceLive(t *testing.T) {
	t.Parallel()
	raw, repo := ordersSession(t)
	ctx := context.Background()
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	instants := []time.Time{base, base.Add(time.Hour), base.AddDate(0, 0, 1), base.AddDate(0, 0, 1).Add(time.Hour), base.AddDate(0, 0, 2)}
	events := make([]gocql.UUID, len(instants))
	for i, at := range instants {
		events[i] = gocql.UUIDFromTime(at)
	}
	statuses := []string{"new", "paid"}
	for i := range 24 {
		k := (i * 7) % len(instants)
		user := []string{"u", "v"}[i%2]
		if i%5 == 4 {
			user = "u" // more of u's
		}
		o := testmodel.Order{UserID: user, PlacedAt: instants[k], OrderID: fmt.Sprintf("o%02d", i), Ref: string(rune('a' + i%3)),
			Event: events[k], Status: statuses[(i/2)%2], Total: int64(10 * (i % 4)), Items: int32(i % 3)}
		must(t, repo.Insert(ctx, &o))
	}
	// The reference rows, read with plain gocql: every column the
	// references need, from the source of truth.
	var all []testmodel.Order
	it := raw.Query(`SELECT user_id, placed_at, order_id, ref, event, status, total, items FROM orders`).PageSize(10000).Iter()
	for {
		var o testmodel.Order
		if !it.Scan(&o.UserID, &o.PlacedAt, &o.OrderID, &o.Ref, &o.Event, &o.Status, &o.Total, &o.Items) {
			break
		}
		all = append(all, o)
	}
	must(t, it.Close())
	if len(all) != 24 {
		t.Fatalf("%d orders read back, 24 written", len(all))
	}
	// all is in the node's scan order: token order, then clustering
	// order, the order of a scatter through an index.
	scatterOrder := slices.Clone(all)
	of := func(user string, order func(a, b testmodel.Order) int) []testmodel.Order {
		var out []testmodel.Order
		for _, o := range all {
			if o.UserID == user {
				out = append(out, o)
			}
		}
		slices.SortFunc(out, order)
		return out
	}
	placedDesc := func(a, b testmodel.Order) int {
		return cmp.Or(b.PlacedAt.Compare(a.PlacedAt), strings.Compare(a.OrderID, b.OrderID))
	}
	desc := func(a, b time.Time) int { return b.Compare(a) }
	placed := func(o testmodel.Order) time.Time { return o.PlacedAt }
	times := liveBoundChoices([]time.Time{instants[1], instants[3]}, true)

	for _, mode := range scatterModes {
		repo := testmodel.NewOrderRepo(gocqlv1.NewSession(raw, nil), cqlgen.WithScatter(mode))
		m := scatterName[mode]
		checkLiveBounds(t, "orders (placed_at desc), "+m, of("u", placedDesc), placed, desc, times,
			func(b liveBounds[time.Time], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.Orders(ctx, "u", &testmodel.OrdersOptions{Limit: limit, Cursor: c, PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
			})
		checkLiveBounds(t, "orders_by_day (time buckets), "+m, of("u", placedDesc), placed, desc, times,
			func(b liveBounds[time.Time], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.OrdersByDay(ctx, "u", &testmodel.OrdersByDayOptions{Limit: limit, Cursor: c, Start: base.AddDate(0, 0, 2), LookBack: 3,
					PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
			})
		for _, st := range statuses {
			ofStatus := func(user string) []testmodel.Order {
				var out []testmodel.Order
				for _, o := range of(user, placedDesc) {
					if o.Status == st {
						out = append(out, o)
					}
				}
				return out
			}
			checkLiveBounds(t, "orders_by_status = "+st+" (a prefix), "+m, ofStatus("u"), placed, desc, times,
				func(b liveBounds[time.Time], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
					return repo.OrdersByStatus(ctx, "u", &testmodel.OrdersByStatusOptions{Limit: limit, Cursor: c, StatusEq: &st,
						PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
				})
			checkLiveBounds(t, "orders_4 status = "+st+" (a prefix over hash buckets), "+m, ofStatus("u"), placed, desc, times,
				func(b liveBounds[time.Time], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
					return repo.Orders4(ctx, "u", &testmodel.Orders4Options{Limit: limit, Cursor: c, StatusEq: &st,
						PlacedAtFrom: b.from, PlacedAtTo: b.to, PlacedAtFromExclusive: b.fromExcl, PlacedAtToInclusive: b.toIncl})
				})
		}
		byStatus := func(a, b testmodel.Order) int { return cmp.Or(strings.Compare(a.Status, b.Status), placedDesc(a, b)) }
		checkLiveBounds(t, "orders_4 (status, hash buckets), "+m, of("u", byStatus), func(o testmodel.Order) string { return o.Status }, strings.Compare,
			liveBoundChoices([]string{"new", "paid"}, true),
			func(b liveBounds[string], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.Orders4(ctx, "u", &testmodel.Orders4Options{Limit: limit, Cursor: c, StatusFrom: b.from, StatusTo: b.to, StatusFromExclusive: b.fromExcl, StatusToInclusive: b.toIncl})
			})
		if mode == cqlgen.ScatterClient {
			continue // the reads below reach no bucket
		}
		byRef := func(a, b testmodel.Order) int {
			return cmp.Or(strings.Compare(b.Ref, a.Ref), a.PlacedAt.Compare(b.PlacedAt), strings.Compare(a.OrderID, b.OrderID))
		}
		checkLiveBounds(t, "orders_by_ref (text desc)", of("u", byRef), func(o testmodel.Order) string { return o.Ref }, func(a, b string) int { return strings.Compare(b, a) },
			liveBoundChoices([]string{"b", "a"}, true),
			func(b liveBounds[string], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.OrdersByRef(ctx, "u", &testmodel.OrdersByRefOptions{Limit: limit, Cursor: c, RefFrom: b.from, RefTo: b.to, RefFromExclusive: b.fromExcl, RefToInclusive: b.toIncl})
			})
		byEvent := func(a, b testmodel.Order) int {
			return cmp.Or(b.Event.Time().Compare(a.Event.Time()), a.PlacedAt.Compare(b.PlacedAt), strings.Compare(a.OrderID, b.OrderID))
		}
		checkLiveBounds(t, "orders_by_event (timeuuid desc)", of("u", byEvent), func(o testmodel.Order) gocql.UUID { return o.Event },
			func(a, b gocql.UUID) int { return b.Time().Compare(a.Time()) }, liveBoundChoices([]gocql.UUID{events[3], events[1]}, true),
			func(b liveBounds[gocql.UUID], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.OrdersByEvent(ctx, "u", &testmodel.OrdersByEventOptions{Limit: limit, Cursor: c, EventFrom: b.from, EventTo: b.to, EventFromExclusive: b.fromExcl, EventToInclusive: b.toIncl})
			})
		// Index ranges have both ends (the read's parameters), by value.
		checkLiveBounds(t, "orders_by_total (an index range)", of("u", placedDesc), func(o testmodel.Order) int64 { return o.Total }, cmp.Compare[int64],
			liveBoundChoices([]int64{10, 20}, false),
			func(b liveBounds[int64], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.OrdersByTotal(ctx, "u", *b.from, *b.to, &testmodel.OrdersByTotalOptions{Limit: limit, Cursor: c, TotalFromExclusive: b.fromExcl, TotalToInclusive: b.toIncl})
			})
		checkLiveBounds(t, "orders_by_items (an index range over every partition)", scatterOrder, func(o testmodel.Order) int32 { return o.Items }, cmp.Compare[int32],
			liveBoundChoices([]int32{0, 1, 2}, false),
			func(b liveBounds[int32], limit int, c string) (cqlgen.Page[testmodel.Order], error) {
				return repo.OrdersByItems(ctx, *b.from, *b.to, &testmodel.OrdersByItemsOptions{Limit: limit, Cursor: c, ItemsFromExclusive: b.fromExcl, ItemsToInclusive: b.toIncl})
			})
	}
}

// scatterModes are the two ways a read reaches hash buckets, one request
// for all or one each.
var scatterModes = []cqlgen.Scatter{cqlgen.ScatterCoordinator, cqlgen.ScatterClient}

var scatterName = map[cqlgen.Scatter]string{cqlgen.ScatterCoordinator: "coordinator", cqlgen.ScatterClient: "client"}
