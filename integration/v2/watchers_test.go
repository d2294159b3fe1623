package v2

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// An entity stored in one table, on the v2 driver: InsertIfAbsent creates
// once, counts a call that finds exactly its own row (its set included,
// whatever order its Go map gives) as applied again, and otherwise says
// who is there; IfAbsent on Insert says the same as a conflict; WithTTL
// sets one write's time to live instead of the table's; IfVersion is
// refused; pages come in clustering order with cursors; Update and
// Delete write the one row.
func TestEntityInOneTable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewWatcherRepo(e.s)
	tk := gocql.MustRandomUUID()
	since := time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC)
	topics := map[string]struct{}{}
	for i := range 12 {
		topics[fmt.Sprint("topic-", i)] = struct{}{}
	}
	ann := &v2model.Watcher{TicketID: tk, Watcher: "ann", Since: since, Topics: topics}

	res, err := repo.InsertIfAbsent(ctx, ann)
	if err != nil || !res.Applied || res.Again {
		t.Fatalf("InsertIfAbsent of a new watcher: %+v, %v", res, err)
	}
	for range 5 {
		res, err = repo.InsertIfAbsent(ctx, ann)
		if err != nil || !res.Applied || !res.Again || res.Current == nil || len(res.Current.Topics) != 12 {
			t.Fatalf("InsertIfAbsent sent again with the same values: %+v, %v; want applied, again", res, err)
		}
	}
	rival := *ann
	rival.Since = since.Add(time.Hour)
	res, err = repo.InsertIfAbsent(ctx, &rival)
	if err != nil || res.Applied || res.Current == nil || !res.Current.Since.Equal(since) {
		t.Fatalf("InsertIfAbsent over another row: %+v, %v; want not applied, the first row as Current", res, err)
	}
	var conflict *cqlgen.VersionConflictError
	if err := repo.Insert(ctx, &rival, cqlgen.IfAbsent()); !errors.As(err, &conflict) || conflict.Actual != 0 {
		t.Errorf("Insert IfAbsent over another row: %v, want a *cqlgen.VersionConflictError without versions", err)
	}
	var oe *cqlgen.InputError
	if err := repo.Update(ctx, ann, cqlgen.IfVersion(1)); !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) {
		t.Errorf("IfVersion on an entity without versions: %v, want an *cqlgen.InputError (ErrInvalidOption)", err)
	}

	// The table's TTL, and one write's own.
	bob := &v2model.Watcher{TicketID: tk, Watcher: "bob", Since: since}
	must(t, repo.Insert(ctx, bob, cqlgen.WithTTL(time.Hour)))
	ttl := func(name string) int {
		var n int
		must(t, e.raw.Query("SELECT TTL(since) FROM watchers WHERE ticket_id = ? AND watcher = ?", tk.String(), name).Scan(&n))
		return n
	}
	if n := ttl("ann"); n < 30*24*3600-120 || n > 30*24*3600 {
		t.Errorf("ann's row expires in %d s, want the table's 30 days", n)
	}
	if n := ttl("bob"); n < 3600-120 || n > 3600 {
		t.Errorf("bob's row, written WithTTL(1h), expires in %d s", n)
	}

	for _, name := range []string{"eve", "cat", "dan"} {
		must(t, repo.Insert(ctx, &v2model.Watcher{TicketID: tk, Watcher: name, Since: since}))
	}
	var names []string
	cursor := ""
	for {
		p, err := repo.Watchers(ctx, tk, &v2model.WatchersOptions{Limit: 2, Cursor: cursor})
		must(t, err)
		for _, w := range p.Rows {
			names = append(names, w.Watcher)
		}
		if cursor = p.Cursor; cursor == "" {
			break
		}
	}
	if want := []string{"ann", "bob", "cat", "dan", "eve"}; !slices.Equal(names, want) {
		t.Errorf("Watchers, two a page: %v, want %v", names, want)
	}

	ann.Topics = map[string]struct{}{"only": {}}
	must(t, repo.Update(ctx, ann))
	got, err := repo.Get(ctx, tk, "ann")
	must(t, err)
	if len(got.Topics) != 1 {
		t.Errorf("ann's topics after Update: %v", got.Topics)
	}
	must(t, repo.Delete(ctx, ann))
	if _, err := repo.Get(ctx, tk, "ann"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	if n := len(rows(t, e.raw, "SELECT watcher FROM watchers")); n != 4 {
		t.Errorf("watchers holds %d rows, want 4", n)
	}
}
