package v2

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// idsOf reads the ticket ids a statement selects with plain gocql v1, in
// the order Cassandra returns them.
func idsOf(t *testing.T, raw *gocqlv1.Session, pageSize int, cql string, args ...any) []string {
	t.Helper()
	it := raw.Query(cql, args...).PageSize(pageSize).Iter()
	var ids []string
	var id gocqlv1.UUID
	for it.Scan(&id) {
		ids = append(ids, id.String())
	}
	must(t, it.Close())
	return ids
}

// pageAll reads every page of a read, limit rows at a time, and returns
// the ids in the order read and the size of each page.
func pageAll(t *testing.T, what string, read func(cursor string) ([]gocql.UUID, string, error)) (ids []string, sizes []int) {
	t.Helper()
	cursor := ""
	for range 1000 {
		page, next, err := read(cursor)
		if err != nil {
			t.Fatalf("%s: page %d: %v", what, len(sizes)+1, err)
		}
		sizes = append(sizes, len(page))
		for _, id := range page {
			ids = append(ids, id.String())
		}
		if next == "" {
			return ids, sizes
		}
		cursor = next
	}
	t.Fatalf("%s: more than 1000 pages", what)
	return nil, nil
}

// checkPages says whether pages of a read hold the reference's rows, in
// its order, each once, limit rows a page but the last.
func checkPages(t *testing.T, what string, got []string, sizes []int, want []string, limit int) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: read %d rows, want %d in Cassandra's order:\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i, n := range sizes {
		if n > limit || (i < len(sizes)-1 && n != limit) {
			t.Errorf("%s: pages of %v rows, limit %d", what, sizes, limit)
			break
		}
	}
	if wantPages := max(1, (len(want)+limit-1)/limit); len(sizes) != wantPages && len(sizes) != wantPages+1 {
		t.Errorf("%s: %d pages for %d rows of %d", what, len(sizes), len(want), limit)
	}
}

func ticketIDs[T any](rows []T, id func(*T) gocql.UUID) []gocql.UUID {
	out := make([]gocql.UUID, len(rows))
	for i := range rows {
		out[i] = id(&rows[i])
	}
	return out
}

// Reads on the v2 driver, each page by page with cursors and compared
// with the same rows read with plain gocql: a partition clustered by a
// time and a v2 UUID (many tickets share a time, so the UUID decides),
// one clustered by the UUID alone, bounded by a UUID, the merge of 8
// hash buckets, and the walk back over day buckets. The cursors carry v2
// UUIDs, which the runtime encodes with the v2 codec; this is where "a
// v2 UUID field fails on the first page" was reported.
func TestPagedReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)

	// 37 tickets in queue q, four at each time; all of owner o; over the
	// 8 shards of board b.
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for i := range 37 {
		tk := ticket(i)
		tk.Queue, tk.Owner, tk.Board = "q", "o", "b"
		tk.OpenedAt = day.Add(time.Duration(i/4) * time.Hour)
		must(t, repo.Insert(ctx, tk))
	}

	t.Run("UUIDClustering", func(t *testing.T) {
		want := idsOf(t, e.raw, 1000, "SELECT ticket_id FROM tickets_by_queue WHERE queue = 'q'")
		for _, limit := range []int{1, 5, 36, 37, 50} {
			got, sizes := pageAll(t, "TicketsByQueue", func(c string) ([]gocql.UUID, string, error) {
				p, err := repo.TicketsByQueue(ctx, "q", &v2model.TicketsByQueueOptions{Limit: limit, Cursor: c})
				return ticketIDs(p.Rows, func(r *v2model.Ticket) gocql.UUID { return r.TicketID }), p.Cursor, err
			})
			checkPages(t, fmt.Sprint("TicketsByQueue, limit ", limit), got, sizes, want, limit)
		}
	})

	t.Run("UUIDAloneAndBounds", func(t *testing.T) {
		want := idsOf(t, e.raw, 1000, "SELECT ticket_id FROM tickets_by_owner WHERE owner = 'o'")
		got, sizes := pageAll(t, "TicketsByOwner", func(c string) ([]gocql.UUID, string, error) {
			p, err := repo.TicketsByOwner(ctx, "o", &v2model.TicketsByOwnerOptions{Limit: 4, Cursor: c})
			return ticketIDs(p.Rows, func(r *v2model.TicketsByOwnerRow) gocql.UUID { return r.TicketID }), p.Cursor, err
		})
		checkPages(t, "TicketsByOwner", got, sizes, want, 4)

		// From the 10th id (inclusive) to the 30th (exclusive), bound by
		// v2 UUIDs.
		from, err := gocql.ParseUUID(want[10])
		must(t, err)
		to, err := gocql.ParseUUID(want[30])
		must(t, err)
		got, sizes = pageAll(t, "TicketsByOwner bounded", func(c string) ([]gocql.UUID, string, error) {
			p, err := repo.TicketsByOwner(ctx, "o", &v2model.TicketsByOwnerOptions{Limit: 6, Cursor: c, TicketIDFrom: &from, TicketIDTo: &to})
			return ticketIDs(p.Rows, func(r *v2model.TicketsByOwnerRow) gocql.UUID { return r.TicketID }), p.Cursor, err
		})
		checkPages(t, "TicketsByOwner from the 10th to the 30th", got, sizes, want[10:30], 6)

		// A cursor of one owner is refused for another.
		p, err := repo.TicketsByOwner(ctx, "o", &v2model.TicketsByOwnerOptions{Limit: 3})
		must(t, err)
		if _, err := repo.TicketsByOwner(ctx, "someone else", &v2model.TicketsByOwnerOptions{Cursor: p.Cursor}); !errors.Is(err, cqlgen.ErrInvalidCursor) {
			t.Errorf("another owner's cursor: %v, want ErrInvalidCursor", err)
		}
	})

	t.Run("HashBucketMerge", func(t *testing.T) {
		// Cassandra merges the 8 buckets itself when asked with IN and
		// ORDER BY, unpaged: the reference order.
		shards := make([]string, 8)
		for i := range shards {
			shards[i] = fmt.Sprint(i)
		}
		want := idsOf(t, e.raw, 0, "SELECT ticket_id FROM tickets_by_board WHERE board = 'b' AND shard IN ("+strings.Join(shards, ", ")+") ORDER BY opened_at DESC, ticket_id ASC")
		if len(want) != 37 {
			t.Fatalf("tickets_by_board holds %d rows of board b, want 37", len(want))
		}
		held := map[string]bool{}
		for _, s := range shards {
			if len(idsOf(t, e.raw, 100, "SELECT ticket_id FROM tickets_by_board WHERE board = 'b' AND shard = "+s)) > 0 {
				held[s] = true
			}
		}
		if len(held) < 6 {
			t.Errorf("37 tickets landed in %d of 8 shards: the merge is hardly tested", len(held))
		}
		for _, limit := range []int{1, 7, 10, 40} {
			got, sizes := pageAll(t, "TicketsByBoard", func(c string) ([]gocql.UUID, string, error) {
				p, err := repo.TicketsByBoard(ctx, "b", &v2model.TicketsByBoardOptions{Limit: limit, Cursor: c})
				return ticketIDs(p.Rows, func(r *v2model.Ticket) gocql.UUID { return r.TicketID }), p.Cursor, err
			})
			checkPages(t, fmt.Sprint("TicketsByBoard, limit ", limit), got, sizes, want, limit)
		}
		// One read with a limit gets exactly the first rows.
		p, err := repo.TicketsByBoard(ctx, "b", &v2model.TicketsByBoardOptions{Limit: 10})
		must(t, err)
		var first []string
		for _, r := range p.Rows {
			first = append(first, r.TicketID.String())
		}
		if !slices.Equal(first, want[:10]) || p.Cursor == "" {
			t.Errorf("TicketsByBoard, limit 10: %v, cursor %q; want %v", first, p.Cursor, want[:10])
		}
	})

	t.Run("TimeBucketWalkBack", func(t *testing.T) {
		// Queue w: tickets on the 20th, 19th, 17th (the 18th empty) and
		// the 15th, which a look-back of 5 days from the 20th does not
		// reach.
		start := time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC)
		days := map[int]int{20: 4, 19: 3, 17: 5, 15: 2}
		for d, n := range days {
			for i := range n {
				tk := ticket(100 + d*10 + i)
				tk.Queue = "w"
				tk.OpenedAt = time.Date(2026, 11, d, 8, 0, 0, 0, time.UTC).Add(time.Duration(i%2) * time.Hour)
				must(t, repo.Insert(ctx, tk))
			}
		}
		var want []string
		for d := 20; d > 15; d-- {
			want = append(want, idsOf(t, e.raw, 100, "SELECT ticket_id FROM tickets_by_day WHERE queue = 'w' AND day = ?",
				time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC))...)
		}
		if len(want) != 12 {
			t.Fatalf("the reference holds %d rows, want 12", len(want))
		}
		for _, limit := range []int{1, 3, 5, 12, 20} {
			got, sizes := pageAll(t, "TicketsByDay", func(c string) ([]gocql.UUID, string, error) {
				p, err := repo.TicketsByDay(ctx, "w", &v2model.TicketsByDayOptions{Limit: limit, Cursor: c, Start: start, LookBack: 5})
				return ticketIDs(p.Rows, func(r *v2model.Ticket) gocql.UUID { return r.TicketID }), p.Cursor, err
			})
			checkPages(t, fmt.Sprint("TicketsByDay, limit ", limit), got, sizes, want, limit)
		}
		// A look-back of 6 days reaches the 15th.
		p, err := repo.TicketsByDay(ctx, "w", &v2model.TicketsByDayOptions{Limit: 100, Start: start, LookBack: 6})
		must(t, err)
		if len(p.Rows) != 14 {
			t.Errorf("a look-back of 6 days read %d rows, want 14", len(p.Rows))
		}
	})
}

// GetMany on v2 UUIDs: the order of the keys given, a key twice, a key
// never written and a deleted ticket missing.
func TestGetMany(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	var ids []gocql.UUID
	for i := range 5 {
		tk := ticket(i)
		must(t, repo.Insert(ctx, tk))
		ids = append(ids, tk.TicketID)
	}
	must(t, repo.Delete(ctx, &v2model.Ticket{TicketID: ids[3]}))
	never := gocql.MustRandomUUID()
	keys := []gocql.UUID{ids[4], never, ids[0], ids[3], ids[0], ids[2]}
	found, err := repo.GetMany(ctx, keys)
	must(t, err)
	if len(found.Rows) != len(keys) || !slices.Equal(found.Missing, []int{1, 3}) {
		t.Fatalf("GetMany: %d rows, missing %v; want %d rows, missing [1 3]", len(found.Rows), found.Missing, len(keys))
	}
	for i, k := range keys {
		got := found.Rows[i]
		if slices.Contains(found.Missing, i) {
			if got != nil {
				t.Errorf("key %d: %v, want none", i, got.TicketID)
			}
			continue
		}
		if got == nil || got.TicketID != k {
			t.Errorf("key %d: %+v, want ticket %v", i, got, k)
		}
	}
	if _, err := repo.GetMany(ctx, []gocql.UUID{ids[0], {}}); err == nil {
		t.Error("GetMany with a zero UUID: no error")
	}
}

// A user-defined type with a time.Duration and a set, and a v2 Duration
// column, go in and come back whole through Get and a page read, and are
// stored as the schema says (read with plain gocql v1, field by field).
func TestUDTAndDurations(t *testing.T) {
	t.Parallel()
	onBoth(t, testUDTAndDurations)
}

func testUDTAndDurations(t *testing.T, e *env) {
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	tk := ticket(7)
	tk.Sla = gocql.Duration{Months: 1, Days: 2, Nanoseconds: int64(90 * time.Minute)}
	tk.Policy = v2model.Policy{Name: "urgent", Wait: 36*time.Hour + 250*time.Millisecond,
		Labels: map[string]struct{}{"vip": {}, "billing": {}, "eu": {}}}
	must(t, repo.Insert(ctx, tk))
	empty := ticket(8) // no labels: an empty set, read back as none
	empty.Policy.Labels = nil
	must(t, repo.Insert(ctx, empty))

	same := func(what string, got *v2model.Ticket, want *v2model.Ticket) {
		t.Helper()
		if got == nil {
			t.Fatalf("%s: no ticket", what)
		}
		if got.Sla != want.Sla || !reflect.DeepEqual(got.Policy, want.Policy) || !got.OpenedAt.Equal(want.OpenedAt) {
			t.Errorf("%s: sla %+v, policy %+v; want %+v, %+v", what, got.Sla, got.Policy, want.Sla, want.Policy)
		}
	}
	got, err := repo.Get(ctx, tk.TicketID)
	must(t, err)
	same("Get", got, tk)
	p, err := repo.TicketsByQueue(ctx, tk.Queue, nil)
	must(t, err)
	for _, r := range p.Rows {
		switch r.TicketID {
		case tk.TicketID:
			same("TicketsByQueue", &r, tk)
		case empty.TicketID:
			same("TicketsByQueue, no labels", &r, empty)
		}
	}

	if e.raw == nil {
		return
	}
	var name string
	var wait, sla gocqlv1.Duration
	var labels []string
	must(t, e.raw.Query("SELECT policy.name, policy.wait, policy.labels, sla FROM tickets WHERE ticket_id = ?", tk.TicketID.String()).
		Scan(&name, &wait, &labels, &sla))
	// Cassandra keeps a set inside a frozen user-defined type in the order
	// it was sent in, which is a Go map's: compared as a set.
	slices.Sort(labels)
	if name != "urgent" || wait != (gocqlv1.Duration{Nanoseconds: int64(36*time.Hour + 250*time.Millisecond)}) ||
		!slices.Equal(labels, []string{"billing", "eu", "vip"}) || sla != (gocqlv1.Duration{Months: 1, Days: 2, Nanoseconds: int64(90 * time.Minute)}) {
		t.Errorf("as stored: policy %q %+v %v, sla %+v", name, wait, labels, sla)
	}
}
