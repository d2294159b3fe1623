package cqlgenimpl_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// scanAll runs a scan method to its end over every share of of, a page
// of limit rows at a time, and counts each row's key.
func scanAll(t *testing.T, of, limit int, page func(*cqlgen.ScanOptions) (cqlgen.Page[fixture.Profile], error)) map[string]int {
	t.Helper()
	seen := map[string]int{}
	for split := range max(of, 1) {
		o := &cqlgen.ScanOptions{Limit: limit, Split: split, Of: of}
		for pages := 0; ; pages++ {
			if pages > 10_000 {
				t.Fatalf("share %d of %d: no end after %d pages", split, of, pages)
			}
			p, err := page(o)
			must(t, err)
			if len(p.Rows) > limit {
				t.Fatalf("a page of %d rows, limit %d", len(p.Rows), limit)
			}
			if len(p.Rows) == 0 && p.Cursor != "" {
				t.Fatalf("share %d of %d: an empty page that goes on", split, of)
			}
			for _, r := range p.Rows {
				seen[r.Org+"/"+r.UserID]++
			}
			if p.Cursor == "" {
				break
			}
			o.Cursor = p.Cursor
		}
	}
	return seen
}

// profiles writes n profiles over orgs organisations, then deletes every
// seventh (a grave in profiles, gone from profiles_by_name); it returns
// the keys that remain.
func profiles(t *testing.T, repo *fixture.ProfileRepo, n, orgs int) map[string]bool {
	t.Helper()
	ctx := context.Background()
	want := map[string]bool{}
	for i := range n {
		p := &fixture.Profile{Org: fmt.Sprintf("o%d", i%orgs), UserID: fmt.Sprintf("u%d", i), Name: fmt.Sprintf("n%03d", i%13)}
		must(t, repo.Insert(ctx, p))
		want[p.Org+"/"+p.UserID] = true
		if i%7 == 3 {
			must(t, repo.Delete(ctx, p))
			delete(want, p.Org+"/"+p.UserID)
		}
	}
	return want
}

func checkOnce(t *testing.T, what string, seen map[string]int, want map[string]bool) {
	t.Helper()
	for k, n := range seen {
		if n != 1 || !want[k] {
			t.Errorf("%s: %s read %d times (want %v)", what, k, n, want[k])
		}
	}
	for k := range want {
		if seen[k] == 0 {
			t.Errorf("%s: %s never read", what, k)
		}
	}
}

// A scan split into shares reads every live row exactly once, whatever
// the number of shares and the page size: on the source of truth, whose
// graves it skips, and on a table whose partitions (an organisation's
// profiles) are larger than a page, so that pages end inside them.
func TestScanReadsEveryRowOnce(t *testing.T) {
	ctx := context.Background()
	repo := fixture.NewProfileRepo(session(t))
	want := profiles(t, repo, 240, 3)
	for _, of := range []int{0, 1, 2, 7, 64} {
		for _, limit := range []int{1, 9, 100, 1000} {
			name := fmt.Sprintf("of %d, limit %d", of, limit)
			checkOnce(t, "profiles, "+name, scanAll(t, of, limit, func(o *cqlgen.ScanOptions) (cqlgen.Page[fixture.Profile], error) {
				return repo.ScanProfiles(ctx, o)
			}), want)
			checkOnce(t, "profiles_by_name, "+name, scanAll(t, of, limit, func(o *cqlgen.ScanOptions) (cqlgen.Page[fixture.Profile], error) {
				return repo.ScanProfilesByName(ctx, o)
			}), want)
		}
	}
}

// A worker that crashed resumes from the last cursor it kept, on a new
// repository: the rows after it, none twice, none missed.
func TestScanResumesFromCursor(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	key := []byte("scan cursor key")
	want := profiles(t, fixture.NewProfileRepo(s), 100, 2)
	first := fixture.NewProfileRepo(s, cqlgen.WithCursorKey(key))
	seen := map[string]int{}
	p, err := first.ScanProfilesByName(ctx, &cqlgen.ScanOptions{Limit: 7, Split: 1, Of: 2})
	must(t, err)
	for _, r := range p.Rows {
		seen[r.Org+"/"+r.UserID]++
	}
	// The worker dies here; another one, with the same key, takes over.
	again := fixture.NewProfileRepo(s, cqlgen.WithCursorKey(key))
	o := &cqlgen.ScanOptions{Limit: 7, Split: 1, Of: 2, Cursor: p.Cursor}
	for o.Cursor != "" {
		p, err := again.ScanProfilesByName(ctx, o)
		must(t, err)
		for _, r := range p.Rows {
			seen[r.Org+"/"+r.UserID]++
		}
		o.Cursor = p.Cursor
	}
	p, err = again.ScanProfilesByName(ctx, &cqlgen.ScanOptions{Limit: 1000, Split: 0, Of: 2})
	must(t, err)
	for _, r := range p.Rows {
		seen[r.Org+"/"+r.UserID]++
	}
	checkOnce(t, "resumed", seen, want)
}

// A cursor is refused with an *InputError (ErrInvalidCursor), never a
// panic, when it is tampered with, forged, or handed to another share,
// another table or a repository without its key; options out of range
// are refused before anything is sent.
func TestScanRefusesBadCursorsAndOptions(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	profiles(t, fixture.NewProfileRepo(s), 50, 2)
	repo := fixture.NewProfileRepo(s)
	p, err := repo.ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 5, Split: 0, Of: 2})
	must(t, err)
	if p.Cursor == "" {
		t.Fatal("no cursor after a first page of 5 rows of 50")
	}
	raw, err := base64.RawURLEncoding.DecodeString(p.Cursor)
	must(t, err)
	var bad []string
	for i := range raw {
		b := append([]byte(nil), raw...)
		b[i] ^= 0x41
		bad = append(bad, base64.RawURLEncoding.EncodeToString(b))
	}
	bad = append(bad, "x", "!!!", base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1]), base64.RawURLEncoding.EncodeToString(make([]byte, 40)))
	invalid := func(what string, err error, want error) {
		t.Helper()
		var ie *cqlgen.InputError
		if !errors.As(err, &ie) || !errors.Is(err, want) {
			t.Errorf("%s: %v, want an *cqlgen.InputError (%v)", what, err, want)
		}
	}
	for i, c := range bad {
		_, err := repo.ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 5, Split: 0, Of: 2, Cursor: c})
		invalid(fmt.Sprintf("tampered cursor %d", i), err, cqlgen.ErrInvalidCursor)
	}
	_, err = repo.ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 5, Split: 1, Of: 2, Cursor: p.Cursor})
	invalid("another share", err, cqlgen.ErrInvalidCursor)
	_, err = repo.ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 5, Cursor: p.Cursor})
	invalid("the whole ring", err, cqlgen.ErrInvalidCursor)
	_, err = repo.ScanProfilesByName(ctx, &cqlgen.ScanOptions{Limit: 5, Split: 0, Of: 2, Cursor: p.Cursor})
	invalid("another table", err, cqlgen.ErrInvalidCursor)
	_, err = fixture.NewProfileRepo(s, cqlgen.WithCursorKey([]byte("k"))).ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 5, Split: 0, Of: 2, Cursor: p.Cursor})
	invalid("unsealed, to a repository with a key", err, cqlgen.ErrInvalidCursor)
	sealed, err := fixture.NewProfileRepo(s, cqlgen.WithCursorKey([]byte("k"))).ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 5})
	must(t, err)
	_, err = fixture.NewProfileRepo(s, cqlgen.WithCursorKey([]byte("other"))).ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: 5, Cursor: sealed.Cursor})
	invalid("sealed with another key", err, cqlgen.ErrInvalidCursor)

	for _, o := range []cqlgen.ScanOptions{{Split: 2, Of: 2}, {Split: -1, Of: 2}, {Split: 1}, {Of: -1}} {
		_, err := repo.ScanProfiles(ctx, &o)
		invalid(fmt.Sprintf("share %d of %d", o.Split, o.Of), err, cqlgen.ErrInvalidOption)
	}
	_, err = repo.ScanProfiles(ctx, &cqlgen.ScanOptions{Limit: cqlgen.DefaultMaxLimit + 1})
	invalid("a limit above the bound", err, cqlgen.ErrInvalidLimit)
	_, err = fixture.NewProfileRepo(s, cqlgen.WithScanRate(-1)).ScanProfiles(ctx, nil)
	invalid("a negative rate", err, cqlgen.ErrInvalidOption)
}

// countingLimiter records what a scan asks of its limiter.
type countingLimiter struct {
	calls, rows int
	refuse      error
}

func (l *countingLimiter) WaitN(_ context.Context, n int) error {
	l.calls++
	l.rows += n
	return l.refuse
}

// A scan asks its limiter, before each request, for the rows the request
// asks for: the rows read never exceed what the limiter granted, and a
// limiter's error (a cancelled context) ends the scan with it.
func TestScanAsksTheLimiter(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	want := profiles(t, fixture.NewProfileRepo(s), 60, 2)
	l := &countingLimiter{}
	repo := fixture.NewProfileRepo(s, func(o *cqlgen.Options) { o.ScanLimiter = l })
	o := &cqlgen.ScanOptions{Limit: 10}
	read, pages := 0, 0
	for {
		p, err := repo.ScanProfilesByName(ctx, o)
		must(t, err)
		read += len(p.Rows)
		pages++
		if p.Cursor == "" {
			break
		}
		o.Cursor = p.Cursor
	}
	if read != len(want) {
		t.Fatalf("read %d rows, want %d", read, len(want))
	}
	if l.calls < pages || l.rows < read || l.rows > read+10*l.calls {
		t.Errorf("%d pages, %d rows read; the limiter was asked %d times for %d rows", pages, read, l.calls, l.rows)
	}
	stop := errors.New("stop")
	l.refuse = stop
	if _, err := repo.ScanProfilesByName(ctx, &cqlgen.ScanOptions{Limit: 10}); !errors.Is(err, stop) {
		t.Errorf("a limiter's error: got %v", err)
	}
}

// A scan is not a snapshot, but under writes it keeps its word: every
// row that exists from the scan's start to its end, and keeps its key,
// is read exactly once, while rows are inserted and deleted between its
// pages; a row written during the scan is read at most once.
func TestScanUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	repo := fixture.NewProfileRepo(session(t))
	stay := profiles(t, repo, 150, 3)
	seen := map[string]int{}
	o := &cqlgen.ScanOptions{Limit: 7, Split: 0, Of: 1}
	for page := 0; ; page++ {
		p, err := repo.ScanProfiles(ctx, o)
		must(t, err)
		for _, r := range p.Rows {
			seen[r.Org+"/"+r.UserID]++
		}
		// Between pages: new profiles, and some of them gone again.
		for j := range 5 {
			np := &fixture.Profile{Org: fmt.Sprintf("o%d", j%3), UserID: fmt.Sprintf("new-%d-%d", page, j), Name: "new"}
			must(t, repo.Insert(ctx, np))
			if j%2 == 0 {
				must(t, repo.Delete(ctx, np))
			}
		}
		if p.Cursor == "" {
			break
		}
		o.Cursor = p.Cursor
	}
	if len(stay) < 100 {
		t.Fatalf("only %d profiles to scan", len(stay))
	}
	for k := range stay {
		if seen[k] != 1 {
			t.Errorf("%s, there throughout, read %d times", k, seen[k])
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s read %d times", k, n)
		}
	}
}
