package review

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cqlgen/cqlgen/internal/load"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/validate"
)

// shop loads testdata/shop through the generator's front stages, once.
var shop = sync.OnceValues(func() (*model.Package, error) {
	lps, err := load.Load(load.Config{Dir: "testdata/shop", Patterns: []string{"."}})
	if err != nil {
		return nil, err
	}
	p, diags := model.Build(lps[0], model.Config{})
	diags = append(diags, validate.Check(p)...)
	if diags.HasErrors() {
		return nil, errors.New(diags.Format(""))
	}
	return p, nil
})

func page(t *testing.T) (*model.Package, string) {
	t.Helper()
	p, err := shop()
	if err != nil {
		t.Fatal(err)
	}
	out, err := Review(p, validate.Verdicts(p))
	if err != nil {
		t.Fatal(err)
	}
	return p, string(out)
}

// section is the part of the page under a heading, up to the next one.
func section(t *testing.T, out, heading string) string {
	t.Helper()
	i := strings.Index(out, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("no section %q in:\n%s", heading, out)
	}
	s := out[i+len(heading)+2:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

func contains(t *testing.T, where, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks:\n%s\nin:\n%s", where, w, got)
		}
	}
}

func TestAccessPatterns(t *testing.T) {
	_, out := page(t)
	got := section(t, out, "## Access patterns")
	contains(t, "access patterns", got,
		"| Track.Tracks: a track by its id | `tracks` | track_id | — | — | — | 1 row, ≈273 B | ✅ accepted |",
		// A | in a doc is escaped, the clustering columns carry their order.
		"| Track.TracksByAlbum: an album's tracks \\| newest first | `tracks_by_album` | album_id | added_at ↓, track_id ↑ | 30 days | — | ≈200 rows, ≈20 kB | ✅ accepted |",
		"| Track.TracksByIsrc: the track with an ISRC (unique key) | `tracks_by_isrc` | isrc | — | — | — | 1 row, ≈56 B | ✅ accepted |",
	)
}

// A table's verdict cell: each finding marked by its kind, then the
// estimate's own word where no finding was made.
func TestVerdicts(t *testing.T) {
	p, _ := page(t)
	tb := p.Entities[0].Tables[1]
	for _, c := range []struct {
		verdicts []model.Verdict
		want     string
	}{
		{nil, "✅ accepted"},
		{[]model.Verdict{{Code: "big-partition"}}, "⚠️ big-partition"},
		{[]model.Verdict{{Code: "unbounded", Error: true}, {Code: "hot", Silenced: "a | b"}}, "❌ unbounded; 🔇 hot silenced: a \\| b"},
	} {
		r := reviewRow(tb.Entity, tb, map[*model.Table][]model.Verdict{tb: c.verdicts})
		if r.Verdict != c.want {
			t.Errorf("verdicts %v: got %q, want %q", c.verdicts, r.Verdict, c.want)
		}
	}
}

func TestIndexesOptionsFanOut(t *testing.T) {
	_, out := page(t)
	contains(t, "indexes", section(t, out, "## Indexes"),
		"| Track.TracksByGenre: an album's tracks of a genre | `tracks_by_genre` | `tracks_by_album` | `genre = ?` | one partition (album_id): the replicas of one partition, as a table read; a write also updates the index (small) | ✅ within one partition; a table keyed by (album_id, genre) beats it for frequent reads or large results |")
	contains(t, "table options", section(t, out, "## Table options"),
		"| `tracks` | stcs (default) | 10 days (default) | — |",
		"| `tracks_by_album` | stcs (default) | 10 days (default) | 💡 `compaction:\"twcs(1d)\"`: rows expire after 30 days and arrive in time order, so TWCS drops whole SSTables as they expire; windows of 1 day make 30 SSTables' worth of a TTL |")
	contains(t, "fan-out", section(t, out, "## Fan-out"),
		"| Track | `tracks` | `tracks`, `tracks_by_album`, `tracks_by_isrc` (3 tables) |")
}

// Other readers lists the tables with bookkeeping, and what to skip in
// each; a table without any is not listed.
func TestOtherReaders(t *testing.T) {
	_, out := page(t)
	got := section(t, out, "## Other readers")
	contains(t, "other readers", got,
		"| `tracks` | `cqlgen_version`, `cqlgen_deleted`, `cqlgen_pending`, `cqlgen_writes` | graves: `cqlgen_deleted = true`, kept 10 days |",
		"| `tracks_by_isrc` | `cqlgen_claim` | claims left by a failed write: confirm each in `tracks` |")
	if strings.Contains(got, "| `tracks_by_album` |") {
		t.Error("a table without bookkeeping is listed among other readers")
	}
	if strings.Contains(got, "static columns") {
		t.Error("the statics' rule is given though no table has static columns")
	}
}

// Statements lists every statement a table's description renders, each
// under its name, and those of a read through an index.
func TestStatements(t *testing.T) {
	_, out := page(t)
	got := section(t, out, "## Statements")
	contains(t, "statements", got,
		"### `tracks` (Track.Tracks)\n\n```sql\n-- Get\nSELECT track_id, album_id, added_at, isrc, genre, cqlgen_deleted\n\tFROM tracks\n\tWHERE track_id = ?\n\n-- GetMany\n",
		"-- Remove\nUPDATE tracks\n\tUSING TTL 864000\n",
		"### `tracks_by_isrc` (Track.TracksByIsrc)",
		"### `tracks_by_album` through index `tracks_by_genre` (Track.TracksByGenre)\n\n```sql\n-- First\nSELECT album_id, added_at, track_id, isrc, genre\n\tFROM tracks_by_album\n\tWHERE album_id = ? AND genre = ?\n",
	)
}

func TestDiagram(t *testing.T) {
	_, out := page(t)
	got := section(t, out, "## Diagram")
	contains(t, "diagram", got,
		`t_tracks["<b>tracks</b> · source of truth<br/>no TTL · no bucket<br/>✅ accepted · 1 row<hr/><b>track_id text K</b><hr/>album_id text<br/>added_at timestamp<br/>isrc text<br/>genre text<br/><i>cqlgen_version bigint</i>`,
		`t_tracks_by_album["<b>tracks_by_album</b><br/>TTL 30 days · no bucket<br/>✅ accepted · ≈200 rows, ≈20 kB<hr/><b>album_id text K</b><br/><b>added_at timestamp C↓</b><br/><b>track_id text C↑</b><hr/>isrc text<br/>genre text"]`,
		`ix_tracks_by_genre{{"<b>tracks_by_genre</b> · index<br/>on tracks_by_album.genre<br/>✅ within one partition"}}`,
		`q_t_tracks(["Track.Get(track_id)<br/>key ((track_id))"])`,
		`q_t_tracks_by_album(["Track.TracksByAlbum(album_id)<br/>key ((album_id), added_at ↓, track_id ↑)"])`,
		`q_ix_tracks_by_genre(["Track.TracksByGenre(album_id, genre)<br/>where album_id = ? AND genre = ?"])`,
		"q_ix_tracks_by_genre --> ix_tracks_by_genre\n  ix_tracks_by_genre --> t_tracks_by_album\n",
		"t_tracks -. write .-> t_tracks_by_album\n  t_tracks -. claim .-> t_tracks_by_isrc\n  class t_tracks canonical\n",
	)
	if n := strings.Count(got, "```mermaid"); n != 1 {
		t.Errorf("%d diagrams for 4 tables and indexes, want 1", n)
	}
}

// A package of more than DiagramLimit tables and indexes gets one diagram
// per entity, each under the entity's name.
func TestDiagramsSplit(t *testing.T) {
	p, _ := page(t)
	e := p.Entities[0]
	nodes := len(e.Tables) + len(e.ReadIndexes())
	var many model.Package
	for len(many.Entities)*nodes <= DiagramLimit {
		many.Entities = append(many.Entities, e)
	}
	ds := diagrams(&many, nil)
	if len(ds) != len(many.Entities) {
		t.Fatalf("%d diagrams for %d entities of %d nodes each, want one each", len(ds), len(many.Entities), nodes)
	}
	for _, d := range ds {
		if d.Heading != "Track" || len(d.Groups) != 1 {
			t.Errorf("diagram %q has %d groups, want Track's alone", d.Heading, len(d.Groups))
		}
	}
	one := model.Package{Entities: many.Entities[:1]}
	if ds := diagrams(&one, nil); len(ds) != 1 || ds[0].Heading != "" {
		t.Errorf("a small package's diagram: %d, heading %q; want one without heading", len(ds), ds[0].Heading)
	}
}

// mermaidText keeps a label's text from ending the label or being read
// as HTML or a Mermaid entity.
func TestMermaidText(t *testing.T) {
	if got, want := mermaidText(`say "hi" #1 <b> & x`), "say #quot;hi#quot; #35;1 &lt;b&gt; &amp; x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
