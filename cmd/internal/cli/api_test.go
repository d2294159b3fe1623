package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/diag"
)

// TestDiffKindChange: a second pattern on a one-table entity moves its
// writes to the write protocol and changes its repository; removing the
// second pattern of a two-table entity does the reverse. diff says which
// methods go and come, and what each write costs now, as schema.md's
// table says it, whether it has the generated file of before (the
// committed one, or the one at -base-rev) or only a schema (-base), from
// which the model tells the methods.
func TestDiffKindChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages in a temporary module")
	}
	dir := userModule(t)
	t.Chdir(dir)
	git(t, dir, "init", "-q", "-b", "main")
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "music")
	git(t, dir, "tag", "base")
	baseFile := filepath.Join(t.TempDir(), "base.cql")
	write(t, baseFile, readFile(t, filepath.Join(dir, "music/schema.cql")))
	music := filepath.Join(dir, "music/music.go")

	// One table to two: PlaylistTrack gains a pattern.
	edit(t, music, "`table:\"playlist_tracks\" pk:\"playlist_id\"", "`table:\"playlist_tracks_by_track\" pk:\"track_id\" ck:\"playlist_id, position\" doc:\"the playlists a track is in\"`\n\t_ cqlgen.Pattern `table:\"playlist_tracks,canonical\" pk:\"playlist_id\"")
	forward := func(stdout string) {
		t.Helper()
		wantKindChange(t, stdout,
			"api: PlaylistTrack: now kept in 2 tables (playlist_tracks_by_track, playlist_tracks): every write goes through the write protocol",
			"methods gone: InsertIfAbsent\n",
			"methods new: GetVersioned, Modify, Entity, Tables, Verify, Repair, Backfill, PlaylistTracksByTrack\n",
			"Insert a new entity 0 1 2 (2) 2\n",
			"Update every field but the key changes 1 1 3 (3) 2\n")
	}
	// Before generate: against the committed schema.cql and cqlgen_gen.go.
	code, stdout, stderr := run(t, "diff", "./music")
	if code != ExitOK {
		t.Fatalf("diff = %d\n%s%s", code, stdout, stderr)
	}
	forward(stdout)
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	costRowsOnPage(t, stdout, readFile(t, filepath.Join(dir, "music/schema.md")))
	_, stdout, _ = run(t, "diff", "-base-rev", "base", "./music")
	forward(stdout)
	// As JSON: a warning on the entity's declaration, the methods and
	// costs as its help; the report for people on stderr.
	_, stdout, stderr = run(t, "diff", "-base-rev", "base", "-format", "json", "./music")
	forward(stderr)
	var kinds []diag.Record
	for _, r := range records(t, stdout) {
		if r.Code == diag.KindChange {
			kinds = append(kinds, r)
		}
	}
	if len(kinds) != 1 || kinds[0].File != "music/music.go" || kinds[0].Line == 0 || kinds[0].Severity != "warning" ||
		!strings.HasPrefix(kinds[0].Message, "PlaylistTrack: now kept in 2 tables") ||
		!strings.HasPrefix(kinds[0].Help, "methods gone: InsertIfAbsent\nmethods new:  GetVersioned, Modify,") || !strings.Contains(kinds[0].Help, "\n  Insert  ") {
		t.Errorf("kind-change records: %+v", kinds)
	}
	// A schema file alone: the model tells the same methods.
	_, stdout, _ = run(t, "diff", "-base", baseFile, "./music")
	forward(stdout)
	// A schema that does not say whose its tables are, as a live
	// keyspace: those the entity declares are its.
	var bare []string
	for _, line := range strings.Split(readFile(t, baseFile), "\n") {
		if !strings.HasPrefix(line, "--") {
			bare = append(bare, line)
		}
	}
	bareFile := filepath.Join(filepath.Dir(baseFile), "bare.cql")
	write(t, bareFile, strings.Join(bare, "\n"))
	_, stdout, _ = run(t, "diff", "-base", bareFile, "./music")
	forward(stdout)
	// The committed files are the generated ones: nothing to say.
	if _, stdout, _ = run(t, "diff", "./music"); strings.Contains(stdout, "api:") {
		t.Errorf("diff of a fresh tree speaks of the API:\n%s", stdout)
	}

	// Two tables to one: Track loses top_tracks_by_artist.
	git(t, dir, "checkout", "-q", "base", "--", ".")
	edit(t, music, "\t_ cqlgen.Pattern `table:\"top_tracks_by_artist\" pk:\"artist_id\" ck:\"play_count desc, track_id\" cols:\"track_name, album, duration_s\" size:\"rows=500\" doc:\"an artist's top tracks, most played first\"`\n", "")
	reverse := []string{
		"api: Track: now kept in one table (tracks), not 2: each write is one statement on it, with no write protocol and no fan-out\n",
		"Insert — 0 0 1 (1) 1\n",
		"InsertIfAbsent no row has the key 0 1 1 (1) 1\n",
	}
	code, stdout, _ = run(t, "diff", "./music")
	if code != ExitStale { // the protocol's columns and the table are dropped: breaking
		t.Errorf("diff of the removal = %d, want %d", code, ExitStale)
	}
	wantKindChange(t, stdout, append(reverse,
		"methods gone: GetVersioned, Modify, Entity, Tables, Verify, Repair, Backfill, TopTracksByArtist\n",
		"methods new: InsertIfAbsent\n")...)
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	costRowsOnPage(t, stdout, readFile(t, filepath.Join(dir, "music/schema.md")))
	// With a schema file alone, the model no longer declares the table
	// that went: diff says it cannot list the methods, and where to.
	_, stdout, _ = run(t, "diff", "-base", baseFile, "./music")
	wantKindChange(t, stdout, append(reverse, "methods: diff has no generated cqlgen_gen.go of before to compare with; -base-rev REV lists the methods gone and new\n")...)
}

var spaces = regexp.MustCompile(` {2,}`)

// wantKindChange checks that stdout, with runs of spaces made one, holds
// each of want, and speaks of one entity's kind change.
func wantKindChange(t *testing.T, stdout string, want ...string) {
	t.Helper()
	flat := spaces.ReplaceAllString(stdout, " ")
	for _, w := range want {
		if !strings.Contains(flat, w) {
			t.Errorf("diff lacks %q:\n%s", w, stdout)
		}
	}
	if n := strings.Count(stdout, "  api: "); n != 1 {
		t.Errorf("diff speaks of %d kind changes, want 1:\n%s", n, stdout)
	}
}

// costRowsOnPage checks that every cost row diff printed is a row of the
// review page's "What a write costs".
func costRowsOnPage(t *testing.T, stdout, page string) {
	t.Helper()
	_, rows, ok := strings.Cut(stdout, "Statements (requests)  Rows\n")
	if !ok {
		t.Fatalf("diff prints no cost table:\n%s", stdout)
	}
	n := 0
	for _, line := range strings.Split(rows, "\n") {
		if !strings.HasPrefix(line, "      ") {
			break
		}
		f := strings.Split(strings.TrimSpace(line), "  ")
		var cells []string
		for _, c := range f {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		if len(cells) != 6 {
			t.Fatalf("cost row %q: %d cells", line, len(cells))
		}
		row := fmt.Sprintf("| %s |\n", strings.Join(cells, " | "))
		if !strings.Contains(page, row) {
			t.Errorf("schema.md has no row %q", row)
		}
		n++
	}
	if n == 0 {
		t.Errorf("no cost rows:\n%s", stdout)
	}
}
