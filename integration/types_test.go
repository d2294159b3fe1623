package integration

import (
	"context"
	"math/big"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"

	"github.com/cqlgen/cqlgen/integration/typemodel"
)

// everything holds a value of every Go type cqlgen maps, as Cassandra
// gives it back: times in UTC at millisecond precision, a date at
// midnight, an IPv4 address in 4 bytes.
func everything(s string, n int64) typemodel.Everything {
	id, _ := gocql.RandomUUID()
	maybe := "maybe"
	at := time.Date(2026, 11, 22, 10, 11, 12, 345_000_000, time.UTC)
	return typemodel.Everything{
		ID: id, Event: gocql.UUIDFromTime(at), Raw16: [16]byte{1, 2, 3},
		S: s, A: "ascii", G: "jazz", B: true,
		I: -7, I8: -8, I16: -16, I32: -32, I64: n, U8: 8, U16: 16, U32: 32, U64: 64, Narrow: 99,
		F32: 1.5, F64: -2.25, Blob: []byte{0, 1, 2},
		At: at, Day: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		Took: 1500 * time.Millisecond, OfDay: 13*time.Hour + 5*time.Minute,
		Span: gocql.Duration{Months: 1, Days: 2, Nanoseconds: 3},
		Big:  big.NewInt(-123456789012345), Dec: inf.NewDec(31415, 4),
		Addr: net.IPv4(10, 0, 0, 1).To4(),
		List: []string{"b", "a"}, Set: []string{"x", "y"}, SetAscii: []string{"p"},
		Members: map[string]struct{}{"ann": {}, "bob": {}},
		Counts:  map[string]int32{"a": 1}, Nested: map[string][]int64{"n": {1, 2}},
		TagsKey: []string{"t1", "t2"},
		Frozen:  map[typemodel.Genre]map[int]bool{"rock": {1: true}},
		Maybe:   &maybe, MaybeAt: &at,
		Price: typemodel.Money{Cents: 1999}, Prices: []typemodel.Money{{Cents: 1}, {Cents: 2}},
		Events: []gocql.UUID{gocql.UUIDFromTime(at)},
		ByDay:  map[time.Time]time.Time{time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC): at},
	}
}

func sameEverything(t *testing.T, what string, got *typemodel.Everything, want typemodel.Everything) {
	t.Helper()
	gv, wv := reflect.ValueOf(*got), reflect.ValueOf(want)
	for i := range gv.NumField() {
		f := gv.Type().Field(i)
		if f.Name == "_" {
			continue
		}
		g, w := gv.Field(i).Interface(), wv.Field(i).Interface()
		equal := reflect.DeepEqual(g, w)
		switch g := g.(type) {
		case *big.Int:
			equal = g != nil && g.Cmp(w.(*big.Int)) == 0
		case *inf.Dec:
			equal = g != nil && g.Cmp(w.(*inf.Dec)) == 0
		case time.Time:
			equal = g.Equal(w.(time.Time))
		case *time.Time:
			equal = (g == nil) == (w.(*time.Time) == nil) && (g == nil || g.Equal(*w.(*time.Time)))
		}
		if !equal {
			t.Errorf("%s: %s = %#v, want %#v", what, f.Name, g, w)
		}
	}
}

// Every type of the type table goes in and comes back, through Insert,
// Get, both read methods and Update, on the real node; and Verify finds
// both tables in step.
func TestEveryTypeRoundTrips(t *testing.T) {
	_, s := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	repo := typemodel.NewEverythingRepo(s)
	e := everything("first", 42)
	must(t, repo.Insert(ctx, &e))
	got, err := repo.Get(ctx, e.ID, e.TagsKey, e.Day)
	must(t, err)
	sameEverything(t, "Get", got, e)
	page, err := repo.EverythingByS(ctx, "first", nil)
	must(t, err)
	if len(page.Rows) != 1 {
		t.Fatalf("EverythingByS: %d rows", len(page.Rows))
	}
	sameEverything(t, "EverythingByS", &page.Rows[0], e)
	page, err = repo.Everything(ctx, e.ID, nil)
	must(t, err)
	if len(page.Rows) != 1 {
		t.Fatalf("Everything: %d rows", len(page.Rows))
	}
	sameEverything(t, "Everything", &page.Rows[0], e)

	// An Update that moves the row (a new s) and clears what is nil.
	e.S, e.I64, e.Maybe, e.MaybeAt, e.Members = "second", 43, nil, nil, map[string]struct{}{"cy": {}}
	must(t, repo.Update(ctx, &e))
	got, err = repo.Get(ctx, e.ID, e.TagsKey, e.Day)
	must(t, err)
	sameEverything(t, "Get after Update", got, e)
	if page, err := repo.EverythingByS(ctx, "first", nil); err != nil || len(page.Rows) != 0 {
		t.Errorf("the old row stays: %v, %v", page, err)
	}
	page, err = repo.EverythingByS(ctx, "second", nil)
	must(t, err)
	if len(page.Rows) != 1 {
		t.Fatalf("EverythingByS after Update: %d rows", len(page.Rows))
	}
	sameEverything(t, "EverythingByS after Update", &page.Rows[0], e)
	rep, err := repo.Verify(ctx, nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("verify: %+v, %v", rep, err)
	}
}
