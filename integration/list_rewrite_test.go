package integration

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/typemodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// A row cqlgen writes again at the same timestamp must come back as it
// was written once. cqlgen does rewrite rows at a change's own timestamp:
// the next writer carries out a pending change (complete()), two writers
// may do so at once, and an unconditional write is resent after a lost
// reply. A non-frozen list took each rewrite as new elements (its cells
// are keyed by timeuuids the coordinator draws); a Go slice is therefore
// stored as a frozen list, one cell. Each test reads every table with
// plain gocql.

// everythingLists reads the list columns of e's rows in both tables.
func everythingLists(t *testing.T, raw *gocql.Session, e typemodel.Everything) []string {
	t.Helper()
	var drift []string
	check := func(table, where string, arg any) {
		iter := raw.Query("SELECT list, prices, events FROM "+table+" WHERE "+where+" = ?", arg).Iter()
		var list []string
		var prices []int64
		var events []gocql.UUID
		rows := 0
		for iter.Scan(&list, &prices, &events) {
			rows++
			if !slices.Equal(list, e.List) {
				drift = append(drift, fmt.Sprintf("%s: list = %v, want %v", table, list, e.List))
			}
			want := make([]int64, len(e.Prices))
			for i, p := range e.Prices {
				want[i] = p.Cents
			}
			if !slices.Equal(prices, want) {
				drift = append(drift, fmt.Sprintf("%s: prices = %v, want %v", table, prices, want))
			}
			if !slices.Equal(events, e.Events) {
				drift = append(drift, fmt.Sprintf("%s: events = %v, want %v", table, events, e.Events))
			}
		}
		if err := iter.Close(); err != nil {
			t.Fatal(err)
		}
		if rows != 1 {
			drift = append(drift, fmt.Sprintf("%s: %d rows, want 1", table, rows))
		}
	}
	check("everything", "id", e.ID)
	check("everything_by_s", "s", e.S)
	return drift
}

// verifyClean fails unless Verify finds both tables in step.
func verifyClean(t *testing.T, what string, repo *typemodel.EverythingRepo) {
	t.Helper()
	rep, err := repo.Verify(context.Background(), nil)
	if err != nil || rep.Drift() != 0 {
		t.Errorf("%s: verify: %+v, %v", what, rep.Tables, err)
	}
}

// An Insert that moves the row leaves no pending change; the same Insert
// again (IfAbsent) finds the row and rewrites the other table's row at
// the change's timestamp.
func TestListsKeepTheirValueWhenAChangeIsCarriedOutAgain(t *testing.T) {
	raw, s := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	repo := typemodel.NewEverythingRepo(s, cqlgen.WithAttempts(1))
	e := everything("first", 42)
	must(t, repo.Insert(ctx, &e))
	e.S, e.I64 = "second", 43
	must(t, repo.Insert(ctx, &e))
	must(t, repo.Insert(ctx, &e, cqlgen.IfAbsent()))
	for _, d := range everythingLists(t, raw, e) {
		t.Error(d)
	}
	verifyClean(t, "after the rewrite", repo)
}

// Each call of a moving Insert loses its reply in turn; the repository
// retries, and a later Insert of the same value carries out what is left.
func TestListsKeepTheirValueAfterALostReply(t *testing.T) {
	raw, base := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	count := &faultSession{Session: base}
	e := everything("clean", 1)
	repo := typemodel.NewEverythingRepo(count)
	must(t, repo.Insert(ctx, &e))
	before := count.calls.Load()
	e.S = "clean-moved"
	must(t, repo.Insert(ctx, &e))
	calls := int(count.calls.Load() - before)
	for k := 1; k <= calls; k++ {
		name := fmt.Sprintf("call %d of %d", k, calls)
		fs := &faultSession{Session: base, k: int64(k), f: lostReply}
		repo := typemodel.NewEverythingRepo(fs, cqlgen.WithAttempts(3), injected)
		e := everything(fmt.Sprintf("s-%d", k), int64(k))
		must(t, repo.Insert(ctx, &e))
		e.S = fmt.Sprintf("moved-%d", k)
		fs.armed.Store(true)
		err := repo.Insert(ctx, &e)
		fs.armed.Store(false)
		if err != nil {
			must(t, repo.Insert(ctx, &e)) // the caller's own retry
		}
		must(t, repo.Insert(ctx, &e, cqlgen.IfAbsent()))
		for _, d := range everythingLists(t, raw, e) {
			t.Errorf("%s: %s", name, d)
		}
	}
	verifyClean(t, "after the lost replies", typemodel.NewEverythingRepo(base))
}

// A writer dies after each call of a moving Insert in turn, leaving its
// change pending; two writers then carry it out at once.
func TestListsKeepTheirValueUnderConcurrentCompleters(t *testing.T) {
	raw, base := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	count := &faultSession{Session: base}
	e := everything("clean", 1)
	repo := typemodel.NewEverythingRepo(count)
	must(t, repo.Insert(ctx, &e))
	before := count.calls.Load()
	e.S = "clean-moved"
	must(t, repo.Insert(ctx, &e))
	calls := int(count.calls.Load() - before)
	for k := 1; k <= calls; k++ {
		name := fmt.Sprintf("dies at call %d of %d", k, calls)
		fs := &faultSession{Session: base, k: int64(k), f: dies}
		repo := typemodel.NewEverythingRepo(fs, cqlgen.WithAttempts(1), injected)
		e := everything(fmt.Sprintf("s-%d", k), int64(k))
		must(t, repo.Insert(ctx, &e))
		e.S = fmt.Sprintf("moved-%d", k)
		fs.armed.Store(true)
		if err := repo.Insert(ctx, &e); err == nil {
			t.Errorf("%s: the failed step went unreported", name)
		}
		fs.armed.Store(false)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() {
				r := typemodel.NewEverythingRepo(base, cqlgen.WithAttempts(5), injected)
				v := e
				errs[i] = r.Insert(ctx, &v)
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for _, d := range everythingLists(t, raw, e) {
			t.Errorf("%s: %s", name, d)
		}
	}
	verifyClean(t, "after the concurrent completers", typemodel.NewEverythingRepo(base))
}

// A single-table entity's Insert is one unconditional write at a client
// timestamp; after a lost reply it is sent again. (On the node this path
// kept a non-frozen list too: the resend observed here carries a new
// timestamp, whose tombstone covers the first write's elements. A driver
// retry policy resending the same statement, below this session, would
// not; the test guards the repository's own resend.)
func TestListsKeepTheirValueWhenASingleTableInsertIsRetried(t *testing.T) {
	raw, base := repoSession(t, typemodel.Schema)
	ctx := context.Background()
	for _, attempts := range []int{1, 3} {
		fs := &faultSession{Session: base, k: 1, f: lostReply}
		repo := typemodel.NewPlaylistRepo(fs, cqlgen.WithAttempts(attempts), injected)
		id, _ := gocql.RandomUUID()
		p := typemodel.Playlist{ID: id, Tracks: []string{"intro", "verse", "verse"}}
		fs.armed.Store(true)
		err := repo.Insert(ctx, &p)
		fs.armed.Store(false)
		if err != nil {
			must(t, repo.Insert(ctx, &p)) // the caller's own retry
		}
		var tracks []string
		if err := raw.Query("SELECT tracks FROM playlists WHERE id = ?", id).Scan(&tracks); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tracks, p.Tracks) {
			t.Errorf("attempts %d: tracks = %v, want %v", attempts, tracks, p.Tracks)
		}
	}
}
