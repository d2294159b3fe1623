package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// GetMany on the live node, against a reference read key by key with
// plain gocql: rows in the order of the keys, the missing ones (never
// written, deleted, of another tenant) reported, duplicates answered
// twice, and the bound on the number of keys, reached and passed.
func TestGetMany(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, tablesOf(t, helpdesk.Schema, "tickets", "tickets_by_requester", "open_tickets_by_agent")+"\n"+
		tablesOf(t, music.Schema, "tracks", "top_tracks_by_artist"))
	ctx := context.Background()

	t.Run("tickets of one tenant", func(t *testing.T) {
		repo := helpdesk.NewTicketRepo(s)
		base := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
		var ids []gocql.UUID
		for i := range 12 {
			at := base.Add(time.Duration(i) * time.Minute)
			tk := &helpdesk.Ticket{OrgID: "acme", TicketID: gocql.UUIDFromTime(at), Requester: "r@x", Subject: fmt.Sprint("t", i), Status: helpdesk.StatusOpen, OpenedAt: at}
			must(t, repo.Insert(ctx, tk))
			ids = append(ids, tk.TicketID)
		}
		other := &helpdesk.Ticket{OrgID: "other", TicketID: gocql.UUIDFromTime(base.Add(time.Hour)), Requester: "r@y", Subject: "elsewhere", Status: helpdesk.StatusOpen, OpenedAt: base}
		must(t, repo.Insert(ctx, other))
		must(t, repo.Delete(ctx, &helpdesk.Ticket{OrgID: "acme", TicketID: ids[4]}))
		never := gocql.UUIDFromTime(base.Add(-time.Hour))
		keys := []gocql.UUID{ids[9], ids[4], never, ids[0], other.TicketID, ids[9], ids[11], ids[3]}
		got, err := repo.GetMany(ctx, "acme", keys)
		must(t, err)
		var want []int
		for i, k := range keys {
			// The reference: the canonical row, read by its key with plain
			// gocql; a grave (cqlgen_deleted) is no ticket.
			var subject string
			var deleted bool
			err := raw.Query("SELECT subject, cqlgen_deleted FROM tickets WHERE org_id = ? AND ticket_id = ?", "acme", k).Scan(&subject, &deleted)
			exists := err == nil && !deleted
			if err != nil && !errors.Is(err, gocql.ErrNotFound) {
				t.Fatal(err)
			}
			switch r := got.Rows[i]; {
			case exists && (r == nil || r.TicketID != k || r.Subject != subject):
				t.Errorf("key %d: got %+v, want %s", i, r, subject)
			case !exists && r != nil:
				t.Errorf("key %d: got %+v, want none", i, r)
			case !exists:
				want = append(want, i)
			}
		}
		if !slices.Equal(got.Missing, want) || !slices.Equal(want, []int{1, 2, 4}) {
			t.Errorf("missing %v, reference %v, want [1 2 4]", got.Missing, want)
		}
	})

	t.Run("tracks, up to the bound", func(t *testing.T) {
		repo := music.NewTrackRepo(s)
		var keys []string
		for i := range cqlgen.DefaultMaxKeys {
			id := fmt.Sprintf("tr-%03d", i)
			keys = append(keys, id)
			if i%10 != 7 {
				must(t, repo.Insert(ctx, &music.Track{TrackID: id, ArtistID: "a1", PlayCount: int64(i), TrackName: "n" + id}))
			}
		}
		slices.Reverse(keys)
		got, err := repo.GetMany(ctx, keys)
		must(t, err)
		var want []int
		for i, k := range keys {
			if k[len(k)-1] == '7' {
				want = append(want, i)
				continue
			}
			if r := got.Rows[i]; r == nil || r.TrackID != k || r.TrackName != "n"+k {
				t.Errorf("key %d (%s): got %+v", i, k, r)
			}
		}
		if !slices.Equal(got.Missing, want) {
			t.Errorf("missing %v, want %v", got.Missing, want)
		}
		var ke *cqlgen.InputError
		if _, err := repo.GetMany(ctx, append(keys, "one-too-many")); !(errors.As(err, &ke) && ke.Err == cqlgen.ErrInvalidLimit) {
			t.Errorf("%d keys: %v, want an *cqlgen.InputError (ErrInvalidLimit)", len(keys)+1, err)
		}
	})
}
