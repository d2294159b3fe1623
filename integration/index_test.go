package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// noteIDs names notes by space and seq, in the order given.
func noteIDs(rows []testmodel.Note) string {
	var b strings.Builder
	for _, n := range rows {
		fmt.Fprintf(&b, "%s/%d ", n.Space, n.Seq)
	}
	return b.String()
}

// notesInOrder is the table's clustering order: at descending, seq
// ascending.
func notesInOrder(ns []testmodel.Note) []testmodel.Note {
	out := slices.Clone(ns)
	slices.SortFunc(out, func(a, b testmodel.Note) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		return int(a.Seq - b.Seq)
	})
	return out
}

// TestIndexReads writes notes through the repository and reads them back
// through the generated index methods on the live node: by tag and by a
// range of sizes within one space, in clustering order, and by author
// over every space, in the order one unpaged query gives; every limit
// gives every matching row once; an absent value gives an empty page
// without a cursor; and a cursor of one value is refused for another.
func TestIndexReads(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	repo := testmodel.NewNoteRepo(s)
	base := time.Now().UTC().Truncate(time.Millisecond)
	var all []testmodel.Note
	for sp := range 4 {
		for i := range 23 {
			n := testmodel.Note{
				Space:  fmt.Sprintf("s%d", sp),
				At:     base.Add(-time.Duration(i%5) * time.Minute), // five notes share each time: two runs to continue
				Seq:    int64(i),
				Author: []string{"ann", "bob", "cy"}[(i+sp)%3],
				Tags:   []string{[]string{"red", "blue"}[i%2], fmt.Sprintf("t%d", i%4)},
				Size:   int32(i * 3),
			}
			must(t, repo.Insert(ctx, &n))
			all = append(all, n)
		}
	}
	filter := func(keep func(testmodel.Note) bool) []testmodel.Note {
		var out []testmodel.Note
		for _, n := range all {
			if keep(n) {
				out = append(out, n)
			}
		}
		return notesInOrder(out)
	}

	wantRed := filter(func(n testmodel.Note) bool { return n.Space == "s1" && slices.Contains(n.Tags, "red") })
	wantSize := filter(func(n testmodel.Note) bool { return n.Space == "s2" && n.Size >= 10 && n.Size < 40 })
	if len(wantRed) < 10 || len(wantSize) < 8 {
		t.Fatalf("the data gives too few rows to page: %d, %d", len(wantRed), len(wantSize))
	}
	for _, limit := range []int{1, 3, 100} {
		got := pageAll(t, func(cursor string) (cqlgen.Page[testmodel.Note], error) {
			return repo.NotesByTag(ctx, "s1", "red", &testmodel.NotesByTagOptions{Limit: limit, Cursor: cursor})
		}, limit)
		if noteIDs(got) != noteIDs(wantRed) {
			t.Errorf("by tag, limit %d:\n got %s\nwant %s", limit, noteIDs(got), noteIDs(wantRed))
		}
		got = pageAll(t, func(cursor string) (cqlgen.Page[testmodel.Note], error) {
			return repo.NotesBySize(ctx, "s2", 10, 40, &testmodel.NotesBySizeOptions{Limit: limit, Cursor: cursor})
		}, limit)
		if noteIDs(got) != noteIDs(wantSize) {
			t.Errorf("by size, limit %d:\n got %s\nwant %s", limit, noteIDs(got), noteIDs(wantSize))
		}
	}

	// A scatter comes back in token order, then clustering order: the
	// order of one unpaged query, which is the reference.
	var ref []string
	it := raw.Query(`SELECT space, seq FROM notes WHERE author = ?`, "ann").PageSize(10000).Iter()
	var sp string
	var seq int64
	for it.Scan(&sp, &seq) {
		ref = append(ref, fmt.Sprintf("%s/%d", sp, seq))
	}
	must(t, it.Close())
	wantAnn := filter(func(n testmodel.Note) bool { return n.Author == "ann" })
	if len(ref) != len(wantAnn) {
		t.Fatalf("the node finds %d notes by ann, the test wrote %d", len(ref), len(wantAnn))
	}
	for _, limit := range []int{1, 4, 7, 100} {
		got := pageAll(t, func(cursor string) (cqlgen.Page[testmodel.Note], error) {
			return repo.NotesByAuthor(ctx, "ann", &testmodel.NotesByAuthorOptions{Limit: limit, Cursor: cursor})
		}, limit)
		if noteIDs(got) != strings.Join(ref, " ")+" " {
			t.Errorf("scatter by author, limit %d:\n got %s\nwant %s", limit, noteIDs(got), strings.Join(ref, " "))
		}
	}

	// Nothing matches: one empty page, no cursor.
	page, err := repo.NotesByTag(ctx, "s1", "green", nil)
	must(t, err)
	if len(page.Rows) != 0 || page.Cursor != "" {
		t.Errorf("an absent tag: %d rows, cursor %q", len(page.Rows), page.Cursor)
	}
	page, err = repo.NotesByAuthor(ctx, "nobody", nil)
	must(t, err)
	if len(page.Rows) != 0 || page.Cursor != "" {
		t.Errorf("an absent author: %d rows, cursor %q", len(page.Rows), page.Cursor)
	}

	// A cursor belongs to its read: another tag, space or author refuses it.
	page, err = repo.NotesByTag(ctx, "s1", "red", &testmodel.NotesByTagOptions{Limit: 2})
	must(t, err)
	_, err = repo.NotesByTag(ctx, "s1", "blue", &testmodel.NotesByTagOptions{Limit: 2, Cursor: page.Cursor})
	var bad *cqlgen.InputError
	if !(errors.As(err, &bad) && bad.Err == cqlgen.ErrInvalidCursor) {
		t.Errorf("a red cursor for blue notes: %v, want an ErrInvalidCursor", err)
	}
	scatter, err := repo.NotesByAuthor(ctx, "ann", &testmodel.NotesByAuthorOptions{Limit: 2})
	must(t, err)
	if _, err = repo.NotesByAuthor(ctx, "bob", &testmodel.NotesByAuthorOptions{Cursor: scatter.Cursor}); !(errors.As(err, &bad) && bad.Err == cqlgen.ErrInvalidCursor) {
		t.Errorf("ann's cursor for bob's notes: %v, want an ErrInvalidCursor", err)
	}
	if _, err := repo.NotesByTag(ctx, "", "red", nil); !errors.Is(err, cqlgen.ErrEmptyKey) {
		t.Errorf("an empty space: %v, want ErrEmptyKey", err)
	}
}

// TestIndexHelpdesk runs the helpdesk example's index reads on its own
// schema: an organisation's articles by tag and by views, never another
// organisation's.
func TestIndexHelpdesk(t *testing.T) {
	t.Parallel()
	_, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewArticleRepo(s)
	for i := range 9 {
		for _, org := range []string{"acme", "globex"} {
			a := helpdesk.Article{OrgID: org, ArticleID: gocqlTimeUUID(i), Title: fmt.Sprintf("a%d", i), Tags: []string{"billing"}, Views: int64(i * 10)}
			if i%3 == 0 {
				a.Tags = append(a.Tags, "login")
			}
			must(t, repo.Insert(ctx, &a))
		}
	}
	got := pageAll(t, func(cursor string) (cqlgen.Page[helpdesk.Article], error) {
		return repo.ArticlesTagged(ctx, "acme", "login", &helpdesk.ArticlesTaggedOptions{Limit: 2, Cursor: cursor})
	}, 2)
	var titles []string
	for _, a := range got {
		if a.OrgID != "acme" {
			t.Errorf("an article of %s in acme's read", a.OrgID)
		}
		titles = append(titles, a.Title)
	}
	if strings.Join(titles, " ") != "a0 a3 a6" {
		t.Errorf("acme's login articles: %v", titles)
	}
	views := pageAll(t, func(cursor string) (cqlgen.Page[helpdesk.Article], error) {
		return repo.ArticlesByViews(ctx, "globex", 20, 50, &helpdesk.ArticlesByViewsOptions{Limit: 2, Cursor: cursor})
	}, 2)
	titles = nil
	for _, a := range views {
		titles = append(titles, a.Title)
	}
	if strings.Join(titles, " ") != "a2 a3 a4" {
		t.Errorf("globex's articles with 20 to 49 views: %v", titles)
	}
}

// TestTableOptionsLive applies schemas and reads back what
// system_schema.tables holds: the options a pattern declares, and every
// table's doc as its comment, quotes and all.
func TestTableOptionsLive(t *testing.T) {
	t.Parallel()
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, testmodel.Schema)
	cassandratest.MustApplyCQL(t, raw, helpdesk.Schema)
	type row struct {
		comment    string
		gcGrace    int
		compaction map[string]string
	}
	read := func(table string) row {
		var r row
		must(t, raw.Query(`SELECT comment, gc_grace_seconds, compaction FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, ks, table).
			Scan(&r.comment, &r.gcGrace, &r.compaction))
		return r
	}
	notes := read("notes")
	// The tag's semicolon is a comma: migration tools split at semicolons.
	if notes.comment != "notes for the index tests, it's a table with every option" || notes.gcGrace != 21600 {
		t.Errorf("notes: comment %q, gc_grace_seconds %d", notes.comment, notes.gcGrace)
	}
	if !strings.HasSuffix(notes.compaction["class"], ".TimeWindowCompactionStrategy") || notes.compaction["compaction_window_unit"] != "HOURS" || notes.compaction["compaction_window_size"] != "1" {
		t.Errorf("notes: compaction %v", notes.compaction)
	}
	articles := read("articles")
	if articles.comment != "an organisation's knowledge-base articles" || articles.gcGrace != 3*86400 || !strings.HasSuffix(articles.compaction["class"], ".SizeTieredCompactionStrategy") {
		t.Errorf("articles: %+v", articles)
	}
	audit := read("audit_log")
	if audit.compaction["compaction_window_unit"] != "DAYS" || audit.compaction["compaction_window_size"] != "1" || audit.gcGrace != 864000 {
		t.Errorf("audit_log: %+v", audit)
	}
	// A pattern without doc gets the words cqlgen writes above the table.
	if r := read("readings_1"); r.comment != "a sensor's readings in one hash bucket" {
		t.Errorf("readings_1: comment %q", r.comment)
	}
	var kinds []string
	it := raw.Query(`SELECT index_name, kind, options FROM system_schema.indexes WHERE keyspace_name = ? AND table_name = ?`, ks, "notes").Iter()
	var name, kind string
	var opts map[string]string
	for it.Scan(&name, &kind, &opts) {
		kinds = append(kinds, name+" "+kind+" "+opts["class_name"]+" "+opts["target"])
		opts = nil
	}
	must(t, it.Close())
	slices.Sort(kinds)
	want := "notes_by_author CUSTOM StorageAttachedIndex author|notes_by_size CUSTOM StorageAttachedIndex size|notes_by_tag CUSTOM StorageAttachedIndex values(tags)"
	if strings.Join(kinds, "|") != want {
		t.Errorf("indexes of notes:\n got %s\nwant %s", strings.Join(kinds, "|"), want)
	}
}

// gocqlTimeUUID is a timeuuid of the i-th second of 2026: ascending in i.
func gocqlTimeUUID(i int) gocql.UUID {
	return gocql.UUIDFromTime(time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC))
}
