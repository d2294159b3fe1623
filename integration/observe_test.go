package integration

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// recorder is a CallObserver, and gocql's own QueryObserver and
// BatchObserver, that keeps everything it is told.
type recorder struct {
	mu      sync.Mutex
	obs     []cqlobserve.Observation
	calls   []cqlobserve.CallObservation
	queries []gocql.ObservedQuery
	batches []gocql.ObservedBatch
	// mismatch records an Observe whose context did not carry the call
	// the observation names.
	mismatch []string
}

type spanKey struct{}

func (r *recorder) Observe(ctx context.Context, o cqlobserve.Observation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.obs = append(r.obs, o)
	if c, _ := cqlobserve.CallOf(ctx); c != o.Call || ctx.Value(spanKey{}) != o.Call.String() {
		r.mismatch = append(r.mismatch, fmt.Sprintf("%v in the context of %v (%v)", o.Call, c, ctx.Value(spanKey{})))
	}
}

func (r *recorder) StartCall(ctx context.Context, c cqlobserve.Call) context.Context {
	return context.WithValue(ctx, spanKey{}, c.String())
}

func (r *recorder) EndCall(ctx context.Context, o cqlobserve.CallObservation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Value(spanKey{}) != o.Call.String() {
		r.mismatch = append(r.mismatch, fmt.Sprintf("EndCall of %v without StartCall's context", o.Call))
	}
	r.calls = append(r.calls, o)
}

func (r *recorder) ObserveQuery(_ context.Context, q gocql.ObservedQuery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, q)
}

func (r *recorder) ObserveBatch(_ context.Context, b gocql.ObservedBatch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, b)
}

// Every repository call is one record, however many statements it runs;
// every attempt names its node, its keyspace, its rows and its call; the
// pre-read of a write is a kind of its own; and the cluster's own gocql
// observers still see every attempt.
func TestObservationsOfRepositoryCalls(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	raw, ks := cassandratest.Keyspace(t, func(c *gocql.ClusterConfig) {
		c.QueryObserver = rec
		c.BatchObserver = rec
	})
	cassandratest.MustApplyCQL(t, raw, music.Schema)
	rec.mu.Lock()
	rec.queries, rec.batches = nil, nil // the schema's statements
	rec.mu.Unlock()
	s := gocqlv1.NewSession(raw, &cqlgen.SessionOptions{Observer: rec})
	repo := music.NewTrackRepo(s)
	ctx := context.Background()

	for i := range 3 {
		must(t, repo.Insert(ctx, &music.Track{TrackID: fmt.Sprint("t", i), ArtistID: "a1", PlayCount: int64(i), TrackName: "n"}))
	}
	must(t, repo.Update(ctx, &music.Track{TrackID: "t0", ArtistID: "a1", PlayCount: 7, TrackName: "renamed"}))
	page, err := repo.TopTracksByArtist(ctx, "a1", nil)
	must(t, err)
	if _, err := repo.Get(ctx, "missing"); err == nil {
		t.Fatal("Get of a missing track found one")
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, m := range rec.mismatch {
		t.Error(m)
	}
	var names []string
	for _, c := range rec.calls {
		names = append(names, c.Call.String())
	}
	if got, want := strings.Join(names, " "), "Track.Insert Track.Insert Track.Insert Track.Update Track.TopTracksByArtist Track.Get"; got != want {
		t.Fatalf("call records %q, want %q", got, want)
	}
	if c := rec.calls[5]; c.Err == nil || c.Attempts != 1 || c.Rows != 0 {
		t.Errorf("Get of a missing track: %+v, want its ErrNotFound, 1 attempt, 0 rows", c)
	}
	if c := rec.calls[4]; c.Err != nil || c.Rows != len(page.Rows) || c.Rows != 3 || c.Latency <= 0 {
		t.Errorf("TopTracksByArtist: %+v, want 3 rows, as the page has %d", c, len(page.Rows))
	}

	// Each call's Attempts is what its statements' observations add up
	// to: a batch's statements share one attempt.
	attempts := map[cqlobserve.Call]int{}
	batchSeen := map[string]bool{}
	host, _, _ := net.SplitHostPort(cassandratest.Hosts(t)[0])
	for i, o := range rec.obs {
		if o.Attempt != 1 || o.Err != nil && o.Call.Method != "Get" {
			t.Errorf("observation %d: %+v", i, o)
		}
		if h, _, err := net.SplitHostPort(o.Host); err != nil || h != host {
			if ips, _ := net.LookupHost(host); len(ips) == 0 || h != ips[0] {
				t.Errorf("observation %d: host %q, want %s:port", i, o.Host, host)
			}
		}
		if o.Keyspace != ks {
			t.Errorf("observation %d: keyspace %q, want %q", i, o.Keyspace, ks)
		}
		key := fmt.Sprint(i)
		if o.Batch > 0 {
			key = fmt.Sprintf("%v %v %d", o.Call, o.Latency, o.Batch)
		}
		if !batchSeen[key] {
			batchSeen[key] = true
			attempts[o.Call]++
		}
	}
	for _, c := range rec.calls {
		attempts[c.Call] -= c.Attempts
	}
	for c, n := range attempts {
		if n != 0 {
			t.Errorf("%v: the observations of its attempts and its call records differ by %d", c, n)
		}
	}

	// Update's pre-read is a PreRead, and its call runs no Read; the page
	// read is a Read with the rows it returned.
	var update, read []cqlobserve.Observation
	for _, o := range rec.obs {
		switch o.Call.Method {
		case "Update":
			update = append(update, o)
		case "TopTracksByArtist":
			read = append(read, o)
		}
	}
	if len(update) == 0 || update[0].Kind != cqlgen.PreRead || update[0].Table != "tracks" || update[0].Rows != 1 {
		t.Errorf("Update's first statement: %+v, want the pre-read of its row in tracks", update)
	}
	for _, o := range update {
		if o.Kind == cqlgen.Read {
			t.Errorf("Update ran a statement of kind Read: %+v", o)
		}
	}
	if len(read) != 1 || read[0].Kind != cqlgen.Read || read[0].Rows != 3 {
		t.Errorf("TopTracksByArtist's statements: %+v, want one read of 3 rows", read)
	}

	// gocql's own observers saw every attempt: every statement sent alone,
	// and every batch once.
	alone, batches := 0, map[string]bool{}
	for _, o := range rec.obs {
		if o.Batch == 0 {
			alone++
		} else {
			batches[fmt.Sprintf("%v %v", o.Call, o.Latency)] = true
		}
	}
	if len(rec.queries) != alone || len(rec.batches) != len(batches) {
		t.Errorf("gocql's observers saw %d queries and %d batches; cqlgen's, %d and %d", len(rec.queries), len(rec.batches), alone, len(batches))
	}
	if alone == 0 {
		t.Error("no statement was sent alone")
	}
}

// Every kind of repository method records one call under its own name,
// with the error it returned: the writes and reads of an entity stored in
// one table, those of an entity written through the protocol, its
// maintenance, and reads over hash and time buckets. Generated methods
// are one call of the runtime, which records the call itself.
func TestEveryKindOfMethodRecordsItsCall(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	raw, _ := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, music.Schema)
	s := gocqlv1.NewSession(raw, &cqlgen.SessionOptions{Observer: rec})
	ctx := context.Background()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

	plays := music.NewPlayRepo(s)
	p := &music.Play{UserID: "u1", PlayedAt: at, TrackID: "t1"}
	must(t, plays.Insert(ctx, p))
	_, err := plays.InsertIfAbsent(ctx, p)
	must(t, err)
	must(t, plays.Update(ctx, p))
	_, err = plays.Get(ctx, "u1", at, "t1")
	must(t, err)
	_, err = plays.ListeningHistory(ctx, "u1", nil)
	must(t, err)
	must(t, plays.Delete(ctx, p))
	if _, err := plays.Get(ctx, "", at, "t1"); err == nil {
		t.Fatal("Get with an empty user_id found a play")
	}

	tracks := music.NewTrackRepo(s)
	must(t, tracks.Insert(ctx, &music.Track{TrackID: "t1", ArtistID: "a1"}))
	_, _, err = tracks.GetVersioned(ctx, "t1")
	must(t, err)
	_, err = tracks.Modify(ctx, "t1", func(tr *music.Track) error { tr.PlayCount++; return nil })
	must(t, err)
	_, err = tracks.GetMany(ctx, []string{"t1", "t2"})
	must(t, err)
	_, err = tracks.ScanTracks(ctx, nil)
	must(t, err)
	_, err = tracks.Verify(ctx, nil)
	must(t, err)
	_, err = tracks.Repair(ctx, nil)
	must(t, err)
	_, err = tracks.Backfill(ctx, "top_tracks_by_artist", nil)
	must(t, err)
	must(t, tracks.Delete(ctx, &music.Track{TrackID: "t1"}))

	_, err = music.NewChartEntryRepo(s).DailyCharts(ctx, at, nil)
	must(t, err)
	_, err = music.NewReleaseRepo(s).NewReleases(ctx, &music.NewReleasesOptions{Start: at})
	must(t, err)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, m := range rec.mismatch {
		t.Error(m)
	}
	var names []string
	for _, c := range rec.calls {
		names = append(names, c.Call.String())
	}
	want := "Play.Insert Play.InsertIfAbsent Play.Update Play.Get Play.ListeningHistory Play.Delete Play.Get " +
		"Track.Insert Track.GetVersioned Track.Modify Track.GetMany Track.ScanTracks Track.Verify Track.Repair Track.Backfill Track.Delete " +
		"ChartEntry.DailyCharts Release.NewReleases"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("call records\n%s\nwant\n%s", got, want)
	}
	if c := rec.calls[6]; c.Err == nil || c.Attempts != 0 {
		t.Errorf("Get with an empty key: %+v, want its error, and no attempt", c)
	}
}
