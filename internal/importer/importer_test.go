package importer

import (
	"bytes"
	"go/format"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// Each CQL type becomes the Go type cqlgen reads it into, with the cql
// tag that makes cqlgen write that CQL type again; a type no declaration
// can state is an error that says why.
func TestTypes(t *testing.T) {
	m := &mapper{udts: map[string]string{"address": "Address"}}
	for _, c := range []struct{ cql, goType, override string }{
		{"text", "string", ""},
		{"varchar", "string", "varchar"},
		{"ascii", "string", "ascii"},
		{"boolean", "bool", ""},
		{"tinyint", "int8", ""},
		{"smallint", "int16", ""},
		{"int", "int32", ""},
		{"bigint", "int64", ""},
		{"counter", "int64", "counter"},
		{"varint", "*big.Int", ""},
		{"decimal", "*inf.Dec", ""},
		{"float", "float32", ""},
		{"double", "float64", ""},
		{"blob", "[]byte", ""},
		{"timestamp", "time.Time", ""},
		{"date", "time.Time", "date"},
		{"time", "time.Duration", "time"},
		{"uuid", "gocql.UUID", ""},
		{"timeuuid", "gocql.UUID", "timeuuid"},
		{"duration", "gocql.Duration", ""},
		{"inet", "net.IP", ""},
		{"list<text>", "[]string", "list<text>"}, // a slice is frozen<list<T>> by default: a deployed list<T> is named
		{"set<text>", "[]string", "set<text>"},
		{"set<timeuuid>", "[]gocql.UUID", "set<timeuuid>"},
		{"list<timeuuid>", "[]gocql.UUID", "list<timeuuid>"},
		{"map<text, int>", "map[string]int32", ""},
		{"map<text, date>", "map[string]time.Time", "map<text, date>"},
		{"list<frozen<list<int>>>", "[][]int32", "list<frozen<list<int>>>"},
		{"set<frozen<set<int>>>", "[][]int32", "set<frozen<set<int>>>"},
		{"frozen<list<text>>", "[]string", ""},
		{"frozen<list<timeuuid>>", "[]gocql.UUID", "frozen<list<timeuuid>>"},
		{"frozen<address>", "Address", ""},
		{"map<text, frozen<address>>", "map[string]Address", ""},
		{"list<frozen<address>>", "[]Address", "list"},
		{"frozen<list<frozen<address>>>", "[]Address", ""},
		{"set<frozen<address>>", "[]Address", "set"},
		{"vector<float, 384>", "[]float32", "vector<float, 384>"},
	} {
		gt, _, err := m.column(c.cql)
		if err != nil {
			t.Errorf("%s: %v", c.cql, err)
			continue
		}
		if gt.Go != c.goType || gt.Override != c.override {
			t.Errorf("%s: got %s cql:%q, want %s cql:%q", c.cql, gt.Go, gt.Override, c.goType, c.override)
		}
	}
	for _, c := range []struct{ cql, why string }{
		{"tuple<int, text>", "no tuples"},
		{"map<blob, int>", "comparable"},
		{"map<frozen<list<int>>, int>", "comparable"},
		{"map<timeuuid, frozen<address>>", "user-defined type address"},
		{"vector<int, 3>", "vectors of floats"},
		{"'org.example.MyType'", "no Go mapping"},
	} {
		if _, _, err := m.column(c.cql); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: error %v, want one that says %q", c.cql, err, c.why)
		}
	}
	if _, nonFrozen, _ := m.column("address"); !nonFrozen {
		t.Error("an unfrozen user-defined type column is not reported as one")
	}
}

func importScript(t *testing.T, script string) *Result {
	t.Helper()
	res, err := FromCQL("schema.cql", script, Options{Package: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if src, err := format.Source(res.Source); err != nil || !bytes.Equal(src, res.Source) {
		t.Errorf("the output is not gofmt'd (%v)", err)
	}
	again, err := FromCQL("schema.cql", script, Options{Package: "shop"})
	if err != nil || !bytes.Equal(again.Source, res.Source) {
		t.Error("two imports of one schema differ")
	}
	return res
}

// Keys, clustering order, statics, the TTL and the table options all go
// into the pattern's tag, and a keyspace into the package directive.
func TestKeysAndOptions(t *testing.T) {
	res := importScript(t, `CREATE KEYSPACE shop WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
CREATE TABLE shop.events (
    org_id text, day date, at timestamp, event_id timeuuid, source text static, body text,
    PRIMARY KEY ((org_id, day), at, event_id)
) WITH CLUSTERING ORDER BY (at DESC, event_id ASC)
  AND default_time_to_live = 7776000
  AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': '6'}
  AND gc_grace_seconds = 259200
  AND comment = 'an org''s "events"';
CREATE TABLE shop.articles (id uuid PRIMARY KEY, body text) WITH compaction = {'class': 'LeveledCompactionStrategy'} AND gc_grace_seconds = 90;
CREATE TABLE shop.views (id uuid PRIMARY KEY, n counter);
`)
	src := string(res.Source)
	for _, want := range []string{
		"//cqlgen:keyspace shop {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"`table:\"events\" pk:\"org_id, day\" ck:\"at desc, event_id\" static:\"source\" name:\"ByOrgIDAndDay\" ttl:\"90d\" compaction:\"twcs(6h)\" gc_grace:\"3d\" comment:\"an org's \\\"events\\\"\" ignore:\"table-option: import: deployed with this compaction\"`",
		// A gc_grace under the hint window is the deployed table's: the
		// warning generate would give is silenced, with the reason.
		"`table:\"articles\" pk:\"id\" compaction:\"lcs\" gc_grace:\"90s\" comment:\"\" ignore:\"gc-grace: import: deployed with this gc_grace, keep it above the time between repairs\"`",
		"N  int64      `db:\"n\" cql:\"counter\"`",
		"Day     time.Time  `db:\"day\" cql:\"date\"`",
		"EventID gocql.UUID `db:\"event_id\" cql:\"timeuuid\"`",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the output lacks %s\n%s", want, src)
		}
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes: %v", res.Notes)
	}
}

// Tables that hold one entity under different keys become one entity,
// with the widest as its source of truth and a comment that names the
// choice; a table with a column the other lacks, a counter table and a
// table with statics stay entities of their own.
func TestMerge(t *testing.T) {
	res := importScript(t, `
CREATE TABLE videos (videoid uuid PRIMARY KEY, userid uuid, name text, added_date timestamp, tags set<text>);
CREATE TABLE user_videos (userid uuid, added_date timestamp, videoid uuid, name text,
    PRIMARY KEY (userid, added_date, videoid)) WITH CLUSTERING ORDER BY (added_date DESC, videoid ASC);
CREATE TABLE videos_by_name (name text, videoid uuid, userid uuid, added_date timestamp, tags set<text>, PRIMARY KEY (name, videoid));
CREATE TABLE videos_by_tag (tag text, videoid uuid, name text, PRIMARY KEY (tag, videoid));
CREATE TABLE latest (day text, videoid uuid, name text, PRIMARY KEY (day, videoid));
CREATE TABLE by_user_name (userid uuid, name text, PRIMARY KEY (userid, name));
CREATE TABLE video_views (videoid uuid PRIMARY KEY, views counter);
`)
	got := map[string][]string{}
	for _, e := range res.Entities {
		got[e.Name] = e.Tables
	}
	if ts := got["Video"]; strings.Join(ts, " ") != "videos user_videos videos_by_name" {
		t.Errorf("Video is stored in %v, want videos (source of truth), user_videos, videos_by_name; entities %v", ts, res.Entities)
	}
	for _, alone := range []string{"VideoByTag", "Latest", "ByUserName", "VideoView"} {
		if len(got[alone]) != 1 {
			t.Errorf("%s: %v, want a table of its own", alone, got[alone])
		}
	}
	src := strings.ReplaceAll(string(res.Source), "\n// ", " ")
	for _, want := range []string{
		"`table:\"videos,canonical\" pk:\"videoid\" comment:\"\"`",
		// user_videos stores a subset: the columns it has besides its key.
		"`table:\"user_videos\" pk:\"userid\" ck:\"added_date desc, videoid\" cols:\"name\" name:\"ByUserid\" comment:\"\" ignore:\"growth-unknown: ",
		"`table:\"videos_by_name\" pk:\"name\" ck:\"videoid\" name:\"ByName\" comment:\"\" ignore:\"growth-unknown: ",
		"Import merged videos, user_videos and videos_by_name into one entity",
		"with videos as its source of truth",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the output lacks %s\n%s", want, src)
		}
	}
}

// A table cqlgen generated keeps its entity's name and source of truth
// from the comment cqlgen writes above it, and loses the write protocol's
// columns, which cqlgen adds again.
func TestImportGenerated(t *testing.T) {
	res := importScript(t, `-- Track.Tracks: a track by its id.
-- Source of truth for Track.
CREATE TABLE IF NOT EXISTS tracks (
    track_id text, artist_id text, play_count bigint,
    cqlgen_version bigint, cqlgen_deleted boolean, cqlgen_pending blob, cqlgen_writes blob,
    PRIMARY KEY (track_id)
) WITH comment = 'a track by its id';
CREATE TABLE IF NOT EXISTS top_tracks (artist_id text, play_count bigint, track_id text,
    PRIMARY KEY (artist_id, play_count, track_id)) WITH CLUSTERING ORDER BY (play_count DESC, track_id ASC);
CREATE TABLE IF NOT EXISTS cqlgen_progress (job text, range_index int, rows bigint, PRIMARY KEY (job, range_index));
`)
	if len(res.Entities) != 1 || res.Entities[0].Name != "Track" || strings.Join(res.Entities[0].Tables, " ") != "tracks top_tracks" {
		t.Errorf("entities %+v, want Track in tracks and top_tracks", res.Entities)
	}
	if src := string(res.Source); strings.Contains(src, `db:"cqlgen_`) || strings.Contains(src, `table:"cqlgen_`) {
		t.Errorf("the output declares cqlgen's own columns or tables:\n%s", src)
	}
}

// A column whose name needs quotes (a reserved word, a mixed-case name)
// is declared with db:"name,quoted", keys and index included; a table
// whose own name needs quotes, or a column cqlgen cannot quote, is not
// declared: the note says so at the table's position, and the output
// lists it.
func TestQuotedNames(t *testing.T) {
	res := importScript(t, `CREATE TABLE transfers ("from" text, "createdAt" timestamp, "to" text, amount bigint, PRIMARY KEY ("from", "createdAt")) WITH CLUSTERING ORDER BY ("createdAt" DESC);
CREATE CUSTOM INDEX transfers_to ON transfers ("to") USING 'StorageAttachedIndex';

  CREATE TABLE "Accounts" (id uuid PRIMARY KEY);
CREATE TABLE notes (id uuid PRIMARY KEY, "the note" text);
`)
	if len(res.Entities) != 1 || res.Entities[0].Name != "Transfer" {
		t.Errorf("entities %+v, want Transfer alone", res.Entities)
	}
	src := string(res.Source)
	for _, want := range []string{
		"`table:\"transfers\" pk:\"from\" ck:\"createdAt desc\"",
		"`index:\"transfers_to\" col:\"to\"",
		"From      string    `db:\"from,quoted\"`",
		"CreatedAt time.Time `db:\"createdAt,quoted\"`",
		"To        string    `db:\"to,quoted\"`",
		"Amount    int64     `db:\"amount\"`",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the output lacks %s:\n%s", want, src)
		}
	}
	want := []string{
		`schema.cql:4:3: table "Accounts" needs a quoted name, which cqlgen writes for columns only (db:"name,quoted"): not imported`,
		`schema.cql:5:1: table notes has column names cqlgen cannot declare ("the note"): a quoted name it writes holds letters, digits and underscores, from a letter, and names starting with cqlgen_ are its own: not imported`,
	}
	if len(res.Notes) != 2 || res.Notes[0].String() != want[0] || res.Notes[1].String() != want[1] || !res.Notes[0].Skipped {
		t.Errorf("notes:\n%v\nwant:\n%v", res.Notes, want)
	}
	if !strings.Contains(src, "//   - "+want[0]) {
		t.Errorf("the output does not list the table it left out:\n%s", res.Source)
	}
	// Read from a cluster, a reserved word is a name like any other: it
	// is declared quoted all the same.
	live := &schemadiff.Schema{Tables: []*schemadiff.Table{{Name: "moves", PartitionKey: []string{"id"}, Columns: []schemadiff.Column{{Name: "id", Type: "uuid"}, {Name: "to", Type: "text"}}}}}
	lr, err := Import(live, Options{Keyspace: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(lr.Notes) != 0 || !strings.Contains(string(lr.Source), "`db:\"to,quoted\"`") {
		t.Errorf("live notes: %v\n%s", lr.Notes, lr.Source)
	}
}

// What a declaration cannot state is noted at the table and marked in
// the output above the entity: options of no pattern key, an unfrozen
// user-defined type, a mask cqlgen has no name for, a legacy index.
func TestNotes(t *testing.T) {
	res := importScript(t, `CREATE TYPE point (x int, y int);
CREATE TABLE places (
    id uuid PRIMARY KEY,
    at point,
    name text MASKED WITH mask_inner(1, null),
    tags set<text>,
    kind text
) WITH caching = {'keys': 'ALL'} AND speculative_retry = '99p';
CREATE INDEX places_kind ON places (kind);
CREATE CUSTOM INDEX places_tags ON places (tags) USING 'StorageAttachedIndex';
`)
	var texts []string
	for _, n := range res.Notes {
		texts = append(texts, n.String())
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{
		"schema.cql:2:1: table places: column at is the user-defined type point unfrozen",
		"schema.cql:2:1: table places: option(s) caching, speculative_retry are not part of cqlgen's grammar",
		"table places: column name is masked with mask_inner(1, null)",
		"schema.cql:9:1: index places_kind on places: a legacy secondary index; cqlgen declares storage-attached indexes (SAI) only: not imported",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	src := string(res.Source)
	if !strings.Contains(src, "// import: schema.cql:9:1: index places_kind") || !strings.Contains(src, "`index:\"places_tags\" col:\"tags\" name:\"ByTags\"`") {
		t.Errorf("the output does not mark the notes, or lost the SAI index:\n%s", src)
	}
	if !strings.Contains(src, "//cqlgen:udt point\ntype Point struct {") {
		t.Errorf("the user-defined type is not declared:\n%s", src)
	}
}

// An entity named NewX beside an entity X would make generated code
// declare NewXRepo twice, as X's constructor and as NewX's repository.
func TestGeneratedNames(t *testing.T) {
	res := importScript(t, `CREATE TABLE releases (id uuid PRIMARY KEY, title text);
CREATE TABLE new_releases (day date, id uuid, title text, at timestamp, PRIMARY KEY (day, at, id));
`)
	var names []string
	for _, e := range res.Entities {
		names = append(names, e.Name)
	}
	if strings.Join(names, " ") != "Release NewReleaseEntity" {
		t.Errorf("entities %v, want Release and NewReleaseEntity", names)
	}
}

// A materialized view is no table of cqlgen's: it is noted, not declared.
func TestViews(t *testing.T) {
	res := importScript(t, `CREATE TABLE person (id timeuuid PRIMARY KEY, email text);
CREATE MATERIALIZED VIEW IF NOT EXISTS ks.person_by_email AS
  SELECT * FROM person WHERE email IS NOT NULL AND id IS NOT NULL PRIMARY KEY (email, id);
`)
	if len(res.Entities) != 1 || len(res.Notes) != 1 || !res.Notes[0].Skipped ||
		!strings.HasPrefix(res.Notes[0].String(), "schema.cql:2:1: materialized view person_by_email: ") {
		t.Errorf("entities %v, notes %v", res.Entities, res.Notes)
	}
}

// A key of a user-defined type that holds a set is refused by cqlgen
// (key-type): the table is noted, not declared.
func TestUnkeyableUDT(t *testing.T) {
	res := importScript(t, `CREATE TYPE inner_t (tags frozen<set<text>>);
CREATE TYPE outer_t (i frozen<inner_t>);
CREATE TABLE keyed (k frozen<outer_t>, v text, PRIMARY KEY (k));
CREATE TABLE valued (id int PRIMARY KEY, o frozen<outer_t>);
`)
	if len(res.Entities) != 1 || res.Entities[0].Name != "Valued" {
		t.Errorf("entities %v", res.Entities)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0].Text, "key column k is the user-defined type outer_t, which holds a set (field tags)") {
		t.Errorf("notes %v", res.Notes)
	}
}

// An index on a map's keys is imported as col:"keys(m)"; one on its
// values or entries is not, with a note that says why.
func TestImportMapKeysIndex(t *testing.T) {
	res := importScript(t, `CREATE TABLE items (org text, id int, labels map<text, int>, attrs map<text, text>, PRIMARY KEY (org, id));
CREATE CUSTOM INDEX items_labels ON items (KEYS(labels)) USING 'StorageAttachedIndex';
CREATE CUSTOM INDEX items_attrs ON items (VALUES(attrs)) USING 'StorageAttachedIndex';
`)
	src := string(res.Source)
	if !strings.Contains(src, "`index:\"items_labels\" col:\"keys(labels)\"") {
		t.Errorf("the keys index is not imported:\n%s", src)
	}
	var notes []string
	for _, n := range res.Notes {
		notes = append(notes, n.String())
	}
	if strings.Contains(src, "`index:\"items_attrs\"") || !strings.Contains(strings.Join(notes, "\n"), "index items_attrs on items: cqlgen does not index a column of type map<text, text>") {
		t.Errorf("the values index is imported, or not noted:\n%s\n%s", src, notes)
	}
}
