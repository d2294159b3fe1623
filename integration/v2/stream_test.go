package v2

import (
	"context"
	"slices"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Streams on the ASF driver: one partition across many pages, 8 hash
// buckets merged and day buckets walked back, each against the page
// API's rows, then broken after k rows and resumed from the cursor: no
// row twice, none missing.
func TestStreams(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	ctx := context.Background()
	repo := v2model.NewTicketRepo(e.s)
	var start time.Time
	for i := range 90 {
		tk := ticket(i)
		tk.Queue, tk.Board = "q", "b"
		must(t, repo.Insert(ctx, tk))
		start = tk.OpenedAt
	}
	key := func(tk v2model.Ticket) string { return tk.TicketID.String() }
	for _, c := range []struct {
		what string
		read func(context.Context, string) (cqlgen.Page[v2model.Ticket], error)
	}{
		{"tickets_by_queue (one partition), pages of 11", func(ctx context.Context, c string) (cqlgen.Page[v2model.Ticket], error) {
			return repo.TicketsByQueue(ctx, "q", &v2model.TicketsByQueueOptions{Limit: 11, Cursor: c})
		}},
		{"tickets_by_board (8 hash buckets), pages of 11", func(ctx context.Context, c string) (cqlgen.Page[v2model.Ticket], error) {
			return repo.TicketsByBoard(ctx, "b", &v2model.TicketsByBoardOptions{Limit: 11, Cursor: c})
		}},
		{"tickets_by_day (day buckets walked back), pages of 11", func(ctx context.Context, c string) (cqlgen.Page[v2model.Ticket], error) {
			return repo.TicketsByDay(ctx, "q", &v2model.TicketsByDayOptions{Limit: 11, Cursor: c, Start: start})
		}},
	} {
		ids, _ := pageAll(t, c.what, func(cur string) ([]gocql.UUID, string, error) {
			p, err := c.read(ctx, cur)
			return ticketIDs(p.Rows, func(r *v2model.Ticket) gocql.UUID { return r.TicketID }), p.Cursor, err
		})
		if len(ids) != 90 {
			t.Fatalf("%s: %d rows of 90", c.what, len(ids))
		}
		for _, k := range []int{0, 1, 23, 89, 90} {
			rows, cursor := cqlgen.Stream(ctx, "", c.read)
			var got []string
			if k > 0 {
				for r, err := range rows {
					must(t, err)
					if got = append(got, key(r)); len(got) == k {
						break
					}
				}
			}
			rest, _ := cqlgen.Stream(ctx, cursor(), c.read)
			for r, err := range rest {
				must(t, err)
				got = append(got, key(r))
			}
			if !slices.Equal(got, ids) {
				t.Errorf("%s: broken after %d rows and resumed: %d rows, want %d:\n got %v\nwant %v", c.what, k, len(got), len(ids), got, ids)
			}
		}
	}
}
