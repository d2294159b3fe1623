package importer

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/validate"
)

func TestSingular(t *testing.T) {
	for plural, want := range map[string]string{
		"users": "user", "flags": "flag", "categories": "category", "addresses": "address", "boxes": "box",
		"matches": "match", "dishes": "dish", "ties": "tie", "movies": "movie", "people": "person",
		"statuses": "status", "buzzes": "buzz", "responses": "response", "cases": "case",
		// Already singular, or the same in both.
		"user": "user", "address": "address", "status": "status", "analysis": "analysis", "news": "news",
		"data": "data", "series": "series", "id": "id", "latest": "latest",
	} {
		if got := singular(plural); got != want {
			t.Errorf("singular(%q) = %q, want %q", plural, got, want)
		}
	}
}

func entityNames(res *Result) map[string][]string {
	got := map[string][]string{}
	for _, e := range res.Entities {
		got[e.Name] = e.Tables
	}
	return got
}

// Entities are named in the singular, after the head noun of the table's
// name, and columns as the generator names them (model.GoName); reads
// are named By and the partition key, each unique in its repository, and
// with the types generated code derives from it, in the package.
func TestNames(t *testing.T) {
	res := importScript(t, `CREATE TABLE users (user_id uuid PRIMARY KEY, email text, userid text);
CREATE TABLE users_by_email (email text, user_id uuid, PRIMARY KEY (email, user_id));
CREATE TABLE country_flags (country text, flag text, PRIMARY KEY (country, flag));
CREATE TABLE categories (org_id text, day date, name text, PRIMARY KEY ((org_id, day), name));
CREATE TABLE addresses (id uuid PRIMARY KEY, city text, street text);
CREATE TABLE addresses_by_city (city text, id uuid, street text, PRIMARY KEY (city, id));
CREATE TABLE addresses_by_city_street (city text, street text, id uuid, PRIMARY KEY (city, street, id));
CREATE TABLE comments_by_user (userid uuid, commentid timeuuid, body text, PRIMARY KEY (userid, commentid));
CREATE TABLE ratings_by_user (userid uuid, videoid uuid, rating int, PRIMARY KEY (userid, videoid));
CREATE CUSTOM INDEX addresses_street ON addresses (street) USING 'StorageAttachedIndex';
CREATE CUSTOM INDEX addresses_city ON addresses (city) USING 'StorageAttachedIndex';
`)
	got := entityNames(res)
	for name, tables := range map[string]string{
		"User":          "users users_by_email",
		"CountryFlag":   "country_flags",
		"Category":      "categories",
		"Address":       "addresses addresses_by_city addresses_by_city_street",
		"CommentByUser": "comments_by_user",
		"RatingByUser":  "ratings_by_user",
	} {
		if strings.Join(got[name], " ") != tables {
			t.Errorf("entity %s is stored in %v, want %s; entities %v", name, got[name], tables, res.Entities)
		}
	}
	src := string(res.Source)
	for _, want := range []string{
		"`table:\"users,canonical\" pk:\"user_id\" comment:\"\"`", // read by Get
		"`table:\"users_by_email\" pk:\"email\" ck:\"user_id\" cols:\"\" name:\"ByEmail\" ",
		"`table:\"country_flags\" pk:\"country\" ck:\"flag\" name:\"ByCountry\" ",
		"`table:\"categories\" pk:\"org_id, day\" ck:\"name\" name:\"ByOrgIDAndDay\" ",
		// Two tables of one entity keyed by city: the second takes its
		// table's name; the index on city, already a read's name, its
		// index's.
		"`table:\"addresses_by_city\" pk:\"city\" ck:\"id\" name:\"ByCity\" ",
		"`table:\"addresses_by_city_street\" pk:\"city\" ck:\"street, id\" name:\"AddressesByCityStreet\" ",
		"`index:\"addresses_street\" col:\"street\" name:\"ByStreet\"`",
		"`index:\"addresses_city\" col:\"city\" name:\"AddressesCity\"`",
		// Two entities' paged reads by userid: ByUseridOptions is one
		// type of the package, so the second takes its table's name.
		"`table:\"comments_by_user\" pk:\"userid\" ck:\"commentid\" name:\"ByUserid\" ",
		"`table:\"ratings_by_user\" pk:\"userid\" ck:\"videoid\" name:\"RatingsByUser\" ",
		// The generator's names: user_id is UserID, userid Userid.
		"UserID gocql.UUID `db:\"user_id\"`",
		"Userid string     `db:\"userid\"`",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the output lacks %s\n%s", want, src)
		}
	}
	// The names generate with no error and no warning.
	generateIn(t, res.Source, "")
}

// An entity named as a repository the generated code derives, or NewX
// beside X, takes another name; a name taken is the table's own.
func TestNameCollisions(t *testing.T) {
	res := importScript(t, `CREATE TABLE user (id uuid PRIMARY KEY, a text);
CREATE TABLE users (id uuid PRIMARY KEY, b text);
CREATE TABLE user_repo (id uuid PRIMARY KEY, c text);
`)
	var names []string
	for _, e := range res.Entities {
		names = append(names, e.Name)
	}
	if strings.Join(names, " ") != "User Users UserRepoEntity" {
		t.Errorf("entities %v, want User Users UserRepoEntity", names)
	}
	generateIn(t, res.Source, "")
}

// A merge is a note, with what it costs: the write protocol's columns the
// source of truth gains, by their names in cqlspec, and a conditional
// write on every write.
func TestMergeNote(t *testing.T) {
	res := importScript(t, `CREATE TABLE videos (videoid uuid PRIMARY KEY, userid uuid, name text);
CREATE TABLE user_videos (userid uuid, videoid uuid, name text, PRIMARY KEY (userid, videoid));
`)
	var merges []Note
	for _, n := range res.Notes {
		if n.Merge {
			merges = append(merges, n)
		}
	}
	if len(merges) != 1 || merges[0].Pos != "schema.cql:1:1" || merges[0].Table != "videos" {
		t.Fatalf("merge notes %v", merges)
	}
	text := merges[0].Text
	for _, want := range []string{"merged videos and user_videos into one entity, Video", "ALTER TABLE of videos", "a conditional write (a Paxos round) of videos on every write of Video", "-no-merge"} {
		if !strings.Contains(text, want) {
			t.Errorf("the note lacks %q: %s", want, text)
		}
	}
	for _, c := range []string{cqlspec.VersionColumn, cqlspec.DeletedColumn, cqlspec.PendingColumn, cqlspec.WritesColumn} {
		if !strings.Contains(text, c) {
			t.Errorf("the note does not name %s: %s", c, text)
		}
	}
}

// -no-merge keeps one entity per table: no source of truth, no merge
// note, plain writes.
func TestNoMerge(t *testing.T) {
	script := `CREATE TABLE videos (videoid uuid PRIMARY KEY, userid uuid, name text);
CREATE TABLE user_videos (userid uuid, videoid uuid, name text, PRIMARY KEY (userid, videoid));
`
	res, err := FromCQL("schema.cql", script, Options{Package: "shop", NoMerge: true})
	if err != nil {
		t.Fatal(err)
	}
	got := entityNames(res)
	if len(got) != 2 || strings.Join(got["Video"], " ") != "videos" || strings.Join(got["UserVideo"], " ") != "user_videos" {
		t.Errorf("entities %v, want Video in videos and UserVideo in user_videos", res.Entities)
	}
	if len(res.Notes) != 0 {
		t.Errorf("notes %v", res.Notes)
	}
	src := string(res.Source)
	if strings.Contains(src, "canonical") || strings.Contains(src, "merged") {
		t.Errorf("the output merges:\n%s", src)
	}
	out := generateIn(t, res.Source, "")
	if schema := string(out.Packages[0].Files[gen.SchemaFile]); strings.Contains(schema, cqlspec.VersionColumn) {
		t.Errorf("a table gained the write protocol's columns:\n%s", schema)
	}
}

// Each warning generate would raise over a table as it is deployed is
// silenced on its pattern with the reason, and reported: a non-frozen
// list on every table that stores it, a date alone as the partition key,
// a partition nothing bounds; a table with a TTL has a bound.
func TestIgnores(t *testing.T) {
	res := importScript(t, `CREATE TABLE posts (id uuid PRIMARY KEY, tags list<text>, title text);
CREATE TABLE posts_by_title (title text, id uuid, tags list<text>, PRIMARY KEY (title, id));
CREATE TABLE daily (day date, id uuid, n int, PRIMARY KEY (day, id)) WITH default_time_to_live = 86400;
`)
	var got []string
	for _, ig := range res.Ignores {
		got = append(got, ig.Table+" "+ig.Code)
	}
	want := []string{"posts open-list", "posts_by_title growth-unknown", "posts_by_title open-list", "daily low-cardinality"}
	if !slices.Equal(got, want) {
		t.Errorf("ignores %v, want %v", got, want)
	}
	src := string(res.Source)
	if !strings.Contains(src, `ignore:"growth-unknown: import: deployed with no TTL and no size stated, give size:rows=N or rate=N/d or a ttl and drop this; open-list: import: deployed as a non-frozen list, which Cassandra cannot freeze in place"`) {
		t.Errorf("posts_by_title's ignores:\n%s", src)
	}
	generateIn(t, res.Source, "")
}

// -driver v2 declares the UUIDs and Durations of the ASF driver, and the
// go:generate line says it; by default they are gocql v1's.
func TestDriver(t *testing.T) {
	script := `CREATE TYPE stop (at timestamp, wait duration);
CREATE TABLE trips (id uuid PRIMARY KEY, stops list<frozen<stop>>, first frozen<stop>);
`
	v1 := importScript(t, script)
	if src := string(v1.Source); !strings.Contains(src, "\n\t\"github.com/gocql/gocql\"\n") || !strings.Contains(src, "//go:generate go tool cqlgen generate -driver gocql .\n") {
		t.Errorf("v1:\n%s", src)
	}
	v2, err := FromCQL("schema.cql", script, Options{Package: "shop", Driver: model.GocqlV2Path})
	if err != nil {
		t.Fatal(err)
	}
	src := string(v2.Source)
	if !strings.Contains(src, "\tgocql \"github.com/apache/cassandra-gocql-driver/v2\"\n") || strings.Contains(src, "github.com/gocql/gocql") ||
		!strings.Contains(src, "//go:generate go tool cqlgen generate -driver gocqlv2 .\n") || !strings.Contains(src, "ID    gocql.UUID") {
		t.Errorf("v2:\n%s", src)
	}
	if testing.Short() {
		return
	}
	// In a module on the v2 driver, it generates with no warning, and the
	// user-defined type's methods are written for v2.
	res := generateIn(t, v2.Source, "../../gen/testdata/golden/udt_v2")
	if code := string(res.Packages[0].Files[gen.GoFile]); !strings.Contains(code, `gocql "github.com/apache/cassandra-gocql-driver/v2"`) {
		t.Errorf("the generated code is not for v2:\n%s", code)
	}
	if _, err := FromCQL("schema.cql", script, Options{Driver: "gocqlv3"}); err == nil {
		t.Error("an unknown driver is accepted")
	}
}

// A keyspace of more patterns than generate accepts without a warning of
// the generated file's size is a note: -strict would fail on it, and
// import says so, and how to fix it.
func TestTooManyPatterns(t *testing.T) {
	var b strings.Builder
	for i := range validate.MaxPatterns + 1 {
		fmt.Fprintf(&b, "CREATE TABLE t%d (id int PRIMARY KEY, v text);\n", i)
	}
	res, err := FromCQL("schema.cql", b.String(), Options{Package: "shop", NoMerge: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0].String(), "schema.cql: 501 access patterns (tables and indexes) in one package, over the 500") {
		t.Errorf("notes %v", res.Notes)
	}
}
