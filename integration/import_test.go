package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/importer"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
)

// importSchemas are the schemas of the round trip: every schema.cql the
// project ships (the examples, the golden models that generate one, the
// integration models) and the published ones in
// internal/importer/testdata/published, each of which names its source.
func importSchemas(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"example/*/schema.cql", "gen/testdata/golden/*/schema.cql", "integration/*/schema.cql", "internal/importer/testdata/published/*.cql"} {
		m, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		must(t, err)
		for _, f := range m {
			// A schema in the transactional mode needs Cassandra 6 to be
			// applied at all, and import does not read the mode yet
			// (docs/cassandra6.md, "Limits"): it is named here, not
			// round-tripped on this node.
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "transactional_mode") {
				t.Logf("left out of the round trip: %s declares transactional_mode (Cassandra 6)", f)
				continue
			}
			files = append(files, f)
		}
	}
	return files
}

// qualified finds the keyspace a statement qualifies a name with.
var qualified = regexp.MustCompile(`(?i)\b(?:table|type|index|on)\s+(?:if\s+not\s+exists\s+)?([a-z][a-z0-9_]*)\.`)

// applyScript runs a schema file's CREATE TYPE, TABLE and INDEX
// statements in the session's keyspace, with the file's own keyspace
// qualifiers removed.
func applyScript(t *testing.T, s *gocql.Session, script string) {
	t.Helper()
	var keyspaces []string
	for _, m := range qualified.FindAllStringSubmatch(script, -1) {
		if !slices.Contains(keyspaces, strings.ToLower(m[1])) {
			keyspaces = append(keyspaces, strings.ToLower(m[1]))
		}
	}
	for _, st := range cqlscript.Split(script) {
		if _, use := st.Use(); use || st.IsCreateKeyspace() {
			continue
		}
		text := st.Text
		for _, ks := range keyspaces {
			text = regexp.MustCompile(`(?i)\b`+ks+`\.`).ReplaceAllString(text, "")
		}
		if err := s.Query(text).Exec(); err != nil {
			t.Fatalf("line %d: %v\n\t%s", st.Line, err, text)
		}
	}
}

// regenerate writes an imported package into a folder of testdata, in
// this module, and generates its schema.cql in memory.
func regenerate(t *testing.T, src []byte) string {
	t.Helper()
	must(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "import-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.WriteFile(filepath.Join(dir, "model.go"), src, 0o644))
	abs, _ := filepath.Abs(dir)
	res, err := gen.Generate(gen.Options{Dir: abs, Patterns: []string{"."}})
	if err != nil {
		if res != nil {
			for _, d := range res.Diags {
				t.Log(d)
			}
		}
		t.Fatalf("generate: %v\n%s", err, src)
	}
	// What a fresh import declares raises no warning: cqlgen generate
	// -strict passes on it.
	for _, d := range res.Diags {
		t.Errorf("generate -strict would fail on what import wrote: %s", d)
	}
	schema := res.Packages[0].Files[gen.SchemaFile]
	if schema == nil {
		t.Fatalf("no schema.cql generated from\n%s", src)
	}
	return string(schema)
}

type importCount struct {
	schema      string
	file, live  importer.Counts
	noMerge     importer.Counts
	notDeclared int
	differ      []string
}

// TestImportRoundTrip imports every schema, from its file and from the
// keyspace it was applied to, generates the declarations again and
// applies what they generate into keyspaces of their own, then compares
// each with the original through system_schema: columns, types, kinds,
// keys, clustering order, TTL, options, masks and indexes. Every table
// must come back identical or equivalent (the same, plus cqlgen's write
// protocol columns), but for those the import announced it could not
// reproduce, each with a note naming it.
func TestImportRoundTrip(t *testing.T) {
	var mu sync.Mutex
	var counts []importCount
	for _, f := range importSchemas(t) {
		rel, _ := filepath.Rel(repoRoot, f)
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			script, err := os.ReadFile(f)
			must(t, err)
			orig, origKS := cassandratest.Keyspace(t)
			applyScript(t, orig, string(script))
			want, err := schemadiff.FromCluster(orig, origKS)
			must(t, err)

			check := func(how string, res *importer.Result) (importer.Counts, []importer.TableResult) {
				t.Helper()
				s, ks := cassandratest.Keyspace(t)
				applyScript(t, s, regenerate(t, res.Source))
				got, err := schemadiff.FromCluster(s, ks)
				must(t, err)
				rs := importer.Compare(want, got)
				for _, r := range rs {
					// A merge's note says what it costs, not why a table differs.
					noted := slices.ContainsFunc(res.Notes, func(n importer.Note) bool { return n.Table == r.Table && !n.Merge })
					if r.Verdict == importer.Different && !noted {
						t.Errorf("%s import: table %s differs, and the import gave no note: %s", how, r.Table, strings.Join(r.Diffs, "; "))
					}
					if r.Verdict != importer.Identical {
						t.Logf("%s import: %s: %s: %s", how, r.Table, r.Verdict, strings.Join(r.Diffs, "; "))
					}
				}
				if d := importer.TypeDiffs(want, got); len(d) > 0 && !slices.ContainsFunc(res.Notes, func(n importer.Note) bool { return n.Skipped }) {
					t.Errorf("%s import: user-defined types differ: %v", how, d)
				}
				return importer.Count(rs), rs
			}
			fromFile, err := importer.FromCQL(rel, string(script), importer.Options{Package: "model"})
			must(t, err)
			for _, n := range fromFile.Notes {
				t.Logf("note: %s", n)
			}
			fileCounts, rs := check("file", fromFile)
			fromLive, err := importer.Import(want, importer.Options{Package: "model", Source: "keyspace " + origKS, Keyspace: origKS})
			must(t, err)
			liveCounts, _ := check("live", fromLive)
			// With -no-merge, no table gains the write protocol's columns:
			// a table cqlgen did not generate comes back identical.
			flat, err := importer.FromCQL(rel, string(script), importer.Options{Package: "model", NoMerge: true})
			must(t, err)
			flatCounts, flatRs := check("file -no-merge", flat)
			for _, e := range flat.Entities {
				if len(e.Tables) > 1 {
					t.Errorf("-no-merge: entity %s is stored in %v", e.Name, e.Tables)
				}
			}
			if !strings.Contains(string(script), cqlspec.VersionColumn) {
				for _, r := range flatRs {
					if r.Verdict == importer.Equivalent {
						t.Errorf("-no-merge: %s is only equivalent: %s", r.Table, strings.Join(r.Diffs, "; "))
					}
				}
			}

			shipped := !strings.Contains(rel, "published")
			if shipped && (fileCounts.Different > 0 || liveCounts.Different > 0) {
				t.Errorf("a schema cqlgen generated does not come back: file %+v, live %+v", fileCounts, liveCounts)
			}
			c := importCount{schema: rel, file: fileCounts, live: liveCounts, noMerge: flatCounts}
			for _, n := range fromFile.Notes {
				if n.Skipped {
					c.notDeclared++
				}
			}
			for _, r := range rs {
				if r.Verdict == importer.Different {
					c.differ = append(c.differ, r.Table)
				}
			}
			mu.Lock()
			counts = append(counts, c)
			mu.Unlock()
		})
	}
	var b strings.Builder
	b.WriteString("\n| schema | tables | identical | equivalent | different | not declared | from the live keyspace (i/e/d) | -no-merge (i/e/d) |\n| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
	var total importCount
	for _, c := range counts {
		n := c.file.Identical + c.file.Equivalent + c.file.Different
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d/%d/%d | %d/%d/%d |\n", c.schema, n, c.file.Identical, c.file.Equivalent, c.file.Different, c.notDeclared,
			c.live.Identical, c.live.Equivalent, c.live.Different, c.noMerge.Identical, c.noMerge.Equivalent, c.noMerge.Different)
		total.file.Identical += c.file.Identical
		total.file.Equivalent += c.file.Equivalent
		total.file.Different += c.file.Different
		total.notDeclared += c.notDeclared
		total.noMerge.Identical += c.noMerge.Identical
		total.noMerge.Equivalent += c.noMerge.Equivalent
		total.noMerge.Different += c.noMerge.Different
	}
	fmt.Fprintf(&b, "| total | %d | %d | %d | %d | %d | | %d/%d/%d |\n", total.file.Identical+total.file.Equivalent+total.file.Different, total.file.Identical, total.file.Equivalent, total.file.Different, total.notDeclared,
		total.noMerge.Identical, total.noMerge.Equivalent, total.noMerge.Different)
	t.Log(b.String())
	if out := os.Getenv("IMPORT_COUNTS"); out != "" {
		must(t, os.WriteFile(out, []byte(b.String()), 0o644))
	}
}

// TestImportCommandLive runs cqlgen import -keyspace on a keyspace of the
// node, as a user would: the package it writes generates the keyspace's
// tables again, a table with quoted column names included (declared with
// db:"name,quoted"), but for a table whose own name needs quotes and a
// materialized view, which it names.
func TestImportCommandLive(t *testing.T) {
	s, ks := cassandratest.Keyspace(t)
	applyScript(t, s, `CREATE TYPE point (x int, y int);
CREATE TABLE videos (videoid uuid PRIMARY KEY, userid uuid, added timestamp, name text MASKED WITH mask_inner(1, 1), at frozen<point>, tags set<text>);
CREATE TABLE user_videos (userid uuid, added timestamp, videoid uuid, name text MASKED WITH mask_inner(1, 1), PRIMARY KEY (userid, added, videoid)) WITH CLUSTERING ORDER BY (added DESC, videoid ASC);
CREATE TABLE moves ("from" text, "createdAt" timestamp, "to" text, PRIMARY KEY ("from", "createdAt")) WITH CLUSTERING ORDER BY ("createdAt" DESC);
CREATE TABLE "Legs" (id uuid PRIMARY KEY);
CREATE CUSTOM INDEX videos_by_tag ON videos (tags) USING 'StorageAttachedIndex';
CREATE TABLE people (id uuid PRIMARY KEY, email text);
CREATE MATERIALIZED VIEW people_by_email AS SELECT * FROM people WHERE email IS NOT NULL AND id IS NOT NULL PRIMARY KEY (email, id);`)
	want, err := schemadiff.FromCluster(s, ks)
	must(t, err)
	must(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "import-cli-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	abs, _ := filepath.Abs(dir)
	out, code := goRunCqlgen(t, "import", "-keyspace", ks, "-package", "shop", "-driver", "v2", "-o", abs)
	if code != 0 {
		t.Fatalf("cqlgen import = %d\n%s", code, out)
	}
	if !strings.Contains(out, ks+`.Legs: note: table "Legs" needs a quoted name`) || !strings.Contains(out, ks+".people_by_email: note: materialized view people_by_email") ||
		strings.Contains(out, ".moves: note") || !strings.Contains(out, "3 entities for 4 tables (1 merged from several tables), 2 not declared") ||
		!strings.Contains(out, ks+".videos: note: merged videos and user_videos into one entity, Video, with videos as its source of truth: it costs an ALTER TABLE of videos") {
		t.Errorf("output:\n%s", out)
	}
	src, err := os.ReadFile(filepath.Join(dir, "shop.go"))
	must(t, err)
	if !strings.Contains(string(src), `gocql "github.com/apache/cassandra-gocql-driver/v2"`) || !strings.Contains(string(src), "//go:generate go tool cqlgen generate -driver gocqlv2 .") {
		t.Errorf("-driver v2: shop.go:\n%s", src)
	}
	compare := func(src []byte, merged bool) {
		t.Helper()
		regen := regenerate(t, src)
		s2, ks2 := cassandratest.Keyspace(t)
		applyScript(t, s2, regen)
		got, err := schemadiff.FromCluster(s2, ks2)
		must(t, err)
		for _, r := range importer.Compare(want, got) {
			switch {
			case (r.Table == "Legs" || r.Table == "people_by_email") && r.Verdict == importer.Different:
			case r.Table == "videos" && merged && r.Verdict == importer.Equivalent: // the source of truth of two tables
			case r.Verdict == importer.Identical:
			default:
				t.Errorf("%s: %s %v", r.Table, r.Verdict, r.Diffs)
			}
		}
		if d := importer.TypeDiffs(want, got); len(d) > 0 {
			t.Errorf("types: %v", d)
		}
	}
	compare(src, true)

	// -no-merge: one entity a table, and videos as it is.
	flatDir, err := os.MkdirTemp("testdata", "import-cli-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(flatDir) })
	flatAbs, _ := filepath.Abs(flatDir)
	out, code = goRunCqlgen(t, "import", "-keyspace", ks, "-package", "shop", "-no-merge", "-o", flatAbs)
	if code != 0 || strings.Contains(out, "note: merged") || !strings.Contains(out, "4 entities for 4 tables (0 merged from several tables), 2 not declared") {
		t.Fatalf("cqlgen import -no-merge = %d\n%s", code, out)
	}
	flat, err := os.ReadFile(filepath.Join(flatDir, "shop.go"))
	must(t, err)
	compare(flat, false)
}

// goRunCqlgen runs the command from this repository's source.
func goRunCqlgen(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", "./cmd/cqlgen"}, args...)...)
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), hostsEnv(t))
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(b), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(b), 0
}
