package counting_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/cqlgentest"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"

	"example.com/countingadapter/counting"
	"example.com/countingadapter/model"
)

// TestMain stops the container cqlgentest may have started. The tests
// need a Cassandra: CASSANDRA_HOSTS, a node on 127.0.0.1:9042, or none,
// when they are skipped, and fail under CI=true (cqlgentest).
func TestMain(m *testing.M) { cqlgentest.Main(m) }

// calls keeps the repository calls the session's observer saw end.
type calls struct {
	mu  sync.Mutex
	end []cqlobserve.CallObservation
}

func (*calls) Observe(context.Context, cqlobserve.Observation) {}
func (*calls) StartCall(ctx context.Context, _ cqlobserve.Call) context.Context {
	return ctx
}
func (c *calls) EndCall(_ context.Context, o cqlobserve.CallObservation) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.end = append(c.end, o)
}

// take returns the calls that ended since the last take.
func (c *calls) take() []cqlobserve.CallObservation {
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.end
	c.end = nil
	return end
}

// cost is a row of schema.md's "What a write costs": what one write sends
// when it meets no race, conflict or lost reply.
type cost struct {
	reads, conditional, statements, requests int
}

var costRow = regexp.MustCompile(`^\| (\w+) \| (.+?) \| (\d+) \| (\d+) \| (\d+) \((\d+)\) \| (\d+) \|$`)

// writeCosts reads the cost of each write from the schema.md cqlgen
// generated beside the model, by "Entity Write Case".
func writeCosts(t *testing.T, path string) map[string]cost {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	costs := map[string]cost{}
	entity := ""
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "**") && strings.HasSuffix(line, "**") {
			entity = strings.Trim(line, "*")
			continue
		}
		m := costRow.FindStringSubmatch(line)
		if m == nil || entity == "" {
			continue
		}
		n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
		costs[entity+" "+m[1]+" "+m[2]] = cost{reads: n(3), conditional: n(4), statements: n(5), requests: n(6)}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return costs
}

// A generated repository runs on a Driver written outside cqlgen's module:
// every write sends, through it, exactly what schema.md says it costs (the
// generator's count), and as many requests as the runtime's own call
// observation counts attempts; what it wrote reads back, through the
// repositories and in the tables.
func TestRepositoriesRunOnTheCountingDriver(t *testing.T) {
	gs, _ := cqlgentest.Schema(t, "../model/schema.cql")
	obs := &calls{}
	s, counter := counting.NewSession(gs, &cqlgen.SessionOptions{Observer: obs})
	notes, tracks := model.NewNoteRepo(s), model.NewTrackRepo(s)
	ctx := context.Background()
	costs := writeCosts(t, "../model/schema.md")
	checked := map[string]bool{}

	// write runs one write and checks what the counting driver saw
	// against schema.md's cost of it and the call's observation.
	write := func(name string, fn func() error) {
		t.Helper()
		counter.Take()
		obs.take()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, cql := counter.Take()
		want, ok := costs[name]
		if !ok {
			t.Fatalf("%s: schema.md's \"What a write costs\" has no such row (have %v)", name, costs)
		}
		checked[name] = true
		if got.Reads != want.reads || got.Conditional != want.conditional || got.Statements != want.statements || got.Requests != want.requests {
			t.Errorf("%s sent %d statements in %d requests (%d reads, %d conditional): %q; schema.md says %d in %d (%d reads, %d conditional)",
				name, got.Statements, got.Requests, got.Reads, got.Conditional, cql, want.statements, want.requests, want.reads, want.conditional)
		}
		if len(cql) != got.Statements {
			t.Errorf("%s: %d statements kept for %d counted", name, len(cql), got.Statements)
		}
		ends := obs.take()
		if len(ends) != 1 {
			t.Fatalf("%s: the observer saw %d calls end, want 1: %+v", name, len(ends), ends)
		}
		if o := ends[0]; o.Attempts != got.Requests || o.Retries != 0 {
			t.Errorf("%s: the runtime observed %d attempts (%d retries), the driver was handed %d requests", name, o.Attempts, o.Retries, got.Requests)
		}
	}

	// Notes: one table.
	at := time.Now().UTC().Truncate(time.Millisecond)
	n1 := &model.Note{UserID: "ada", CreatedAt: at, NoteID: "n1", Text: "first"}
	n2 := &model.Note{UserID: "ada", CreatedAt: at.Add(time.Second), NoteID: "n2", Text: "second"}
	write("Note Insert —", func() error { return notes.Insert(ctx, n1) })
	n1.Text = "first, edited"
	write("Note Update —", func() error { return notes.Update(ctx, n1) })
	write("Note InsertIfAbsent no row has the key", func() error {
		r, err := notes.InsertIfAbsent(ctx, n2)
		if err == nil && !r.Applied {
			t.Errorf("InsertIfAbsent of a new note did not apply: %+v", r)
		}
		return err
	})
	page, err := notes.NotesByUser(ctx, "ada", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []model.Note{*n2, *n1}; !reflect.DeepEqual(page.Rows, want) {
		t.Errorf("ada's notes: %+v, want %+v", page.Rows, want)
	}
	write("Note Delete —", func() error { return notes.Delete(ctx, n1) })
	if _, err := notes.Get(ctx, "ada", n1.CreatedAt, "n1"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get of a deleted note: %v, want ErrNotFound", err)
	}

	// Tracks: a source of truth and an artist's top tracks, written by
	// the write protocol. Each change moves the track to another artist.
	// schema.md costs each write from the state its case names: Modify
	// and Delete of a track just inserted, the second Update after a
	// first that moved rows.
	tr := model.Track{TrackID: "t1", ArtistID: "a1", PlayCount: 10, Name: "one"}
	write("Track Insert a new entity", func() error { return tracks.Insert(ctx, &tr) })
	checkTrack(t, tracks, gs, tr, "")
	tr2 := model.Track{TrackID: "t1", ArtistID: "a2", PlayCount: 20, Name: "two"}
	write("Track Update every field but the key changes", func() error { return tracks.Update(ctx, &tr2) })
	checkTrack(t, tracks, gs, tr2, "a1")
	tr3 := model.Track{TrackID: "t1", ArtistID: "a3", PlayCount: 30, Name: "three"}
	write("Track Update the same, again: after a change that moved rows", func() error { return tracks.Update(ctx, &tr3) })
	checkTrack(t, tracks, gs, tr3, "a2")

	m := model.Track{TrackID: "t2", ArtistID: "b1", PlayCount: 1, Name: "modified"}
	write("Track Insert a new entity", func() error { return tracks.Insert(ctx, &m) })
	m2 := model.Track{TrackID: "t2", ArtistID: "b2", PlayCount: 2, Name: "modified again"}
	write("Track Modify the change edits every field but the key", func() error {
		_, err := tracks.Modify(ctx, "t2", func(e *model.Track) error {
			if *e != m {
				t.Errorf("Modify was handed %+v, want %+v", *e, m)
			}
			*e = m2
			return nil
		})
		return err
	})
	checkTrack(t, tracks, gs, m2, "b1")

	d := model.Track{TrackID: "t3", ArtistID: "c1", PlayCount: 5, Name: "deleted"}
	write("Track Insert a new entity", func() error { return tracks.Insert(ctx, &d) })
	write("Track Delete an entity that exists", func() error { return tracks.Delete(ctx, &d) })
	if _, err := tracks.Get(ctx, "t3"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("Get of a deleted track: %v, want ErrNotFound", err)
	}
	if page, err := tracks.TopTracksByArtist(ctx, "c1", nil); err != nil || len(page.Rows) != 0 {
		t.Errorf("c1's top tracks after the delete: %+v, %v; want none", page.Rows, err)
	}

	// Every write schema.md costs was run.
	for name := range costs {
		if !checked[name] {
			t.Errorf("schema.md costs %q, which the test does not run", name)
		}
	}
}

// checkTrack checks that want reads back through the repository, and
// that the artist's top tracks hold it alone, in the table itself and
// through the repository; the artist it moved from (moved, unless "") has
// no row left.
func checkTrack(t *testing.T, tracks *model.TrackRepo, gs *gocql.Session, want model.Track, moved string) {
	t.Helper()
	ctx := context.Background()
	if got, err := tracks.Get(ctx, want.TrackID); err != nil || *got != want {
		t.Errorf("Get(%s): %+v, %v; want %+v", want.TrackID, got, err, want)
	}
	if page, err := tracks.TopTracksByArtist(ctx, want.ArtistID, nil); err != nil || !reflect.DeepEqual(page.Rows, []model.Track{want}) {
		t.Errorf("%s's top tracks: %+v, %v; want %+v", want.ArtistID, page.Rows, err, want)
	}
	for _, artist := range []string{want.ArtistID, moved} {
		if artist == "" {
			continue
		}
		var rows []string
		it := gs.Query("SELECT track_id, play_count, name FROM top_tracks_by_artist WHERE artist_id = ?", artist).Iter()
		var id, name string
		var count int64
		for it.Scan(&id, &count, &name) {
			rows = append(rows, fmt.Sprintf("%s %d %s", id, count, name))
		}
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		var expect []string
		if artist == want.ArtistID {
			expect = []string{fmt.Sprintf("%s %d %s", want.TrackID, want.PlayCount, want.Name)}
		}
		if !reflect.DeepEqual(rows, expect) {
			t.Errorf("top_tracks_by_artist of %s holds %q, want %q", artist, rows, expect)
		}
	}
}
