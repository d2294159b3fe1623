package robust

import (
	"context"
	"errors"
	"fmt"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// serial is ctx with the reads of the call at the serial level.
func serial(ctx context.Context) context.Context {
	return cqlgen.WithLevels(ctx, cqlgen.Levels{Read: cqlgen.Serial})
}

// opts is base with the idempotency key idem (if any) and more.
func opts(base []cqlgen.Option, idem string, more ...cqlgen.Option) []cqlgen.Option {
	o := append(append([]cqlgen.Option{}, base...), more...)
	if idem != "" {
		o = append(o, cqlgen.WithIdempotencyKey(idem))
	}
	return o
}

// absent turns ErrNotFound from a read into found == false.
func absent(err error) (found bool, _ error) {
	if errors.Is(err, cqlgen.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Tracks is a Store of example/music Tracks: entity k is the track
// Prefix-k; Name is its name, Count its play count, Group its artist (a
// key of top_tracks_by_artist, so writes move rows there).
type Tracks struct {
	Repo   *music.TrackRepo
	Prefix string
	Opts   []cqlgen.Option // given to every write
}

func (s *Tracks) id(k int) string { return fmt.Sprintf("%s-%d", s.Prefix, k) }

func (s *Tracks) track(k int, v Value) *music.Track {
	return &music.Track{TrackID: s.id(k), ArtistID: fmt.Sprint("artist-", v.Group), PlayCount: v.Count, TrackName: v.Name, Album: "lp", DurationS: 1}
}

func trackValue(t *music.Track) Value {
	if t == nil {
		return Value{}
	}
	var g int
	fmt.Sscanf(t.ArtistID, "artist-%d", &g)
	return Value{Name: t.TrackName, Count: t.PlayCount, Group: g}
}

func (s *Tracks) Get(ctx context.Context, k int, ser bool) (Value, bool, error) {
	if ser {
		ctx = serial(ctx)
	}
	t, err := s.Repo.Get(ctx, s.id(k))
	found, err := absent(err)
	return trackValue(t), found, err
}

func (s *Tracks) GetVersioned(ctx context.Context, k int) (Value, int64, bool, error) {
	t, ver, err := s.Repo.GetVersioned(ctx, s.id(k))
	found, err := absent(err)
	return trackValue(t), ver, found, err
}

func (s *Tracks) Insert(ctx context.Context, k int, v Value, idem string) error {
	return s.Repo.Insert(ctx, s.track(k, v), opts(s.Opts, idem)...)
}

func (s *Tracks) Update(ctx context.Context, k int, v Value, idem string) error {
	return s.Repo.Update(ctx, s.track(k, v), opts(s.Opts, idem)...)
}

func (s *Tracks) UpdateIfVersion(ctx context.Context, k int, v Value, ver int64, idem string) error {
	return s.Repo.Update(ctx, s.track(k, v), opts(s.Opts, idem, cqlgen.IfVersion(ver))...)
}

func (s *Tracks) Modify(ctx context.Context, k int, idem string) (Value, error) {
	t, err := s.Repo.Modify(ctx, s.id(k), func(t *music.Track) error { t.PlayCount++; return nil }, opts(s.Opts, idem)...)
	return trackValue(t), err
}

func (s *Tracks) Delete(ctx context.Context, k int, idem string) error {
	return s.Repo.Delete(ctx, &music.Track{TrackID: s.id(k)}, opts(s.Opts, idem)...)
}

// Tickets is a Store of example/helpdesk Tickets of one organisation:
// entity k is ticket IDs[k]; Name is its subject, Count its replies, Group
// its agent (a key of open_tickets_by_agent).
type Tickets struct {
	Repo *helpdesk.TicketRepo
	Org  string
	IDs  []gocql.UUID
	Opts []cqlgen.Option // given to every write
}

func (s *Tickets) ticket(k int, v Value) *helpdesk.Ticket {
	return &helpdesk.Ticket{
		OrgID: s.Org, TicketID: s.IDs[k], Requester: fmt.Sprintf("user%d@%s.test", k, s.Org),
		Subject: v.Name, Status: helpdesk.StatusOpen, AgentID: fmt.Sprint("agent-", v.Group),
		OpenedAt: s.IDs[k].Time().UTC().Truncate(1e6), Body: "body", Replies: int32(v.Count),
	}
}

func ticketValue(t *helpdesk.Ticket) Value {
	if t == nil {
		return Value{}
	}
	var g int
	fmt.Sscanf(t.AgentID, "agent-%d", &g)
	return Value{Name: t.Subject, Count: int64(t.Replies), Group: g}
}

func (s *Tickets) Get(ctx context.Context, k int, ser bool) (Value, bool, error) {
	if ser {
		ctx = serial(ctx)
	}
	t, err := s.Repo.Get(ctx, s.Org, s.IDs[k])
	found, err := absent(err)
	return ticketValue(t), found, err
}

func (s *Tickets) GetVersioned(ctx context.Context, k int) (Value, int64, bool, error) {
	t, ver, err := s.Repo.GetVersioned(ctx, s.Org, s.IDs[k])
	found, err := absent(err)
	return ticketValue(t), ver, found, err
}

func (s *Tickets) Insert(ctx context.Context, k int, v Value, idem string) error {
	return s.Repo.Insert(ctx, s.ticket(k, v), opts(s.Opts, idem)...)
}

func (s *Tickets) Update(ctx context.Context, k int, v Value, idem string) error {
	return s.Repo.Update(ctx, s.ticket(k, v), opts(s.Opts, idem)...)
}

func (s *Tickets) UpdateIfVersion(ctx context.Context, k int, v Value, ver int64, idem string) error {
	return s.Repo.Update(ctx, s.ticket(k, v), opts(s.Opts, idem, cqlgen.IfVersion(ver))...)
}

func (s *Tickets) Modify(ctx context.Context, k int, idem string) (Value, error) {
	t, err := s.Repo.Modify(ctx, s.Org, s.IDs[k], func(t *helpdesk.Ticket) error { t.Replies++; return nil }, opts(s.Opts, idem)...)
	return ticketValue(t), err
}

func (s *Tickets) Delete(ctx context.Context, k int, idem string) error {
	return s.Repo.Delete(ctx, &helpdesk.Ticket{OrgID: s.Org, TicketID: s.IDs[k]}, opts(s.Opts, idem)...)
}
