package review

import (
	"errors"
	"fmt"
	"slices"
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
	out, err := Review(&many, nil)
	if err != nil {
		t.Fatal(err)
	}
	ds := section(t, string(out), "## Diagrams")
	if n := strings.Count(ds, "```mermaid"); n != len(many.Entities) {
		t.Fatalf("%d diagrams for %d entities of %d nodes each, want one each", n, len(many.Entities), nodes)
	}
	if n, m := strings.Count(ds, "\n### Track\n"), strings.Count(ds, "\n  subgraph "); n != len(many.Entities) || m != n {
		t.Errorf("%d diagrams under Track's name and %d groups, want %d of each, Track's alone", n, m, len(many.Entities))
	}
	one := model.Package{Entities: many.Entities[:1]}
	out, err = Review(&one, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := section(t, string(out), "## Diagram"); strings.Count(d, "```mermaid") != 1 || strings.Contains(d, "\n### ") {
		t.Errorf("a small package's diagram, want one without heading:\n%s", d)
	}
}

// mermaidText keeps a label's text from ending the label or being read
// as HTML or a Mermaid entity.
func TestMermaidText(t *testing.T) {
	if got, want := mermaidText(`say "hi" #1 <b> & x`), "say #quot;hi#quot; #35;1 &lt;b&gt; &amp; x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// mapCache is a Cache in memory, counting the parts rendered (put).
type mapCache struct {
	parts    map[*model.Entity][][]byte
	rendered int
}

func (c *mapCache) Get(e *model.Entity) ([][]byte, bool) {
	p, ok := c.parts[e]
	return p, ok
}

func (c *mapCache) Put(e *model.Entity, p [][]byte) {
	c.parts[e] = p
	c.rendered++
}

// An entity's part of the page comes from the cache only when it was
// rendered from what this run's would be: the same verdicts of its
// tables (validation's, not its model's) and the same diagram layout (a
// package that grows past DiagramLimit draws a diagram an entity). Each
// page is the one a run without the cache renders.
func TestReviewCached(t *testing.T) {
	p, want := page(t)
	c := &mapCache{parts: map[*model.Entity][][]byte{}}
	verdicts := validate.Verdicts(p)
	same := func(what string, p *model.Package, verdicts map[*model.Table][]model.Verdict, want string) {
		t.Helper()
		got, err := ReviewCached(p, verdicts, c)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s: the page differs from one rendered without the cache:\n%s\nwant:\n%s", what, got, want)
		}
	}
	same("an empty cache", p, verdicts, want)
	if c.rendered != len(p.Entities) || len(c.parts) != len(p.Entities) {
		t.Fatalf("an empty cache: %d parts rendered and %d kept, want %d", c.rendered, len(c.parts), len(p.Entities))
	}
	same("a full cache", p, verdicts, want)
	if c.rendered != len(p.Entities) {
		t.Fatalf("a full cache: %d parts rendered again, want none", c.rendered-len(p.Entities))
	}

	// Another verdict on the first entity's first table.
	e := p.Entities[0]
	other := map[*model.Table][]model.Verdict{}
	for k, v := range verdicts {
		other[k] = v
	}
	other[e.Tables[0]] = append(slices.Clone(other[e.Tables[0]]), model.Verdict{Code: "CQLG999", Silenced: "a test"})
	fresh, err := Review(p, other)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fresh), "CQLG999") {
		t.Fatal("the verdict is not on the page")
	}
	c.rendered = 0
	same("another verdict", p, other, string(fresh))
	if c.rendered != 1 {
		t.Errorf("with another verdict on %s's table %d parts were rendered again, want its own alone", e.GoName, c.rendered)
	}

	// The first entity alone (one diagram), then as many times as it takes
	// to pass DiagramLimit (a diagram each), on the same cache.
	one := model.Package{Path: p.Path, Entities: []*model.Entity{e}}
	many := model.Package{Path: p.Path}
	for len(many.Entities)*(len(e.Tables)+len(e.ReadIndexes())) <= DiagramLimit {
		many.Entities = append(many.Entities, e)
	}
	for _, q := range []*model.Package{&one, &many} {
		fresh, err := Review(q, verdicts)
		if err != nil {
			t.Fatal(err)
		}
		c.rendered = 0
		same(fmt.Sprintf("%d entities", len(q.Entities)), q, verdicts, string(fresh))
		if c.rendered == 0 {
			t.Errorf("%d entities: the part of the other layout was taken", len(q.Entities))
		}
	}
}
