package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the root of the cqlgen module, from this package's folder.
var repoRoot, _ = filepath.Abs("../../..")

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCheckExamplesFresh(t *testing.T) {
	t.Chdir(repoRoot)
	code, _, stderr := run(t, "check", "./example/...")
	if code != ExitOK {
		t.Fatalf("check ./example/... = %d, want 0\n%s", code, stderr)
	}
}

// userModule makes a module outside this repository that uses cqlgen the
// way the README says: a tool line in go.mod and a go:generate line. It
// holds a copy of example/music, and returns its folder.
func userModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	goMod := `module example.com/shop

go 1.26

require github.com/cqlgen/cqlgen v0.0.0

replace github.com/cqlgen/cqlgen => ` + repoRoot + `

tool github.com/cqlgen/cqlgen/cmd/cqlgen
`
	write(t, filepath.Join(dir, "go.mod"), goMod)
	sum, err := os.ReadFile(filepath.Join(repoRoot, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
	// Every file of the model (music.go and any other the package
	// declares entities in), but not what cqlgen generates.
	files, err := filepath.Glob(filepath.Join(repoRoot, "example/music/*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := filepath.Base(f); name == "cqlgen_gen.go" || name == "schema.go" {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "music", filepath.Base(f)), string(src))
	}
	// schema.go embeds schema.cql, which does not exist before the first
	// generate: loading must not trip over it.
	emb, err := os.ReadFile(filepath.Join(repoRoot, "example/music/schema.go"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "music/schema.go"), string(emb))
	gocmd(t, dir, "mod", "tidy")
	return dir
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gocmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	write(t, path, strings.Replace(string(b), old, new, 1))
}

// TestUserModule runs the README's workflow in a module of a user's: go
// generate through go tool, then check, then a tag edit that check must
// catch, then a mistake that generate must report at its position.
func TestUserModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cqlgen in a temporary module")
	}
	dir := userModule(t)
	gocmd(t, dir, "generate", "./...")
	// The generated repository builds and vets in the user's module.
	gocmd(t, dir, "vet", "./...")
	got, err := os.ReadFile(filepath.Join(dir, "music/schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(repoRoot, "example/music/schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	// Same model, same DDL, but for the package path in the header.
	fix := func(b []byte) string {
		return regexp.MustCompile(`(?m)^-- Source: .*$`).ReplaceAllString(string(b), "")
	}
	if fix(got) != fix(want) {
		t.Errorf("go generate in a user module wrote a different schema.cql:\n%s", got)
	}

	t.Chdir(dir)
	if code, _, stderr := run(t, "check", "./..."); code != ExitOK {
		t.Fatalf("check after generate = %d\n%s", code, stderr)
	}

	// A tag edited without regenerating: check names the file and shows
	// the change.
	music := filepath.Join(dir, "music/music.go")
	edit(t, music, `ttl:"90d"`, `ttl:"60d"`)
	code, stdout, stderr := run(t, "check", "./...")
	if code != ExitStale {
		t.Fatalf("check after a tag edit = %d, want %d\n%s", code, ExitStale, stderr)
	}
	if !strings.Contains(stderr, filepath.Join("music", "schema.cql")+" is stale") {
		t.Errorf("check does not name the stale file:\n%s", stderr)
	}
	for _, line := range []string{"-    AND default_time_to_live = 7776000", "+    AND default_time_to_live = 5184000"} {
		if !strings.Contains(stdout, line) {
			t.Errorf("diff lacks %q:\n%s", line, stdout)
		}
	}

	// A mistake: generate reports file:line:col, writes nothing, and
	// exits 3.
	before, _ := os.ReadFile(filepath.Join(dir, "music/schema.cql"))
	edit(t, music, `ck:"played_at desc, track_id"`, `ck:"played_at sideways, track_id"`)
	code, _, stderr = run(t, "generate", "./...")
	if code != ExitModel {
		t.Fatalf("generate with a bad tag = %d, want %d\n%s", code, ExitModel, stderr)
	}
	if !regexp.MustCompile(`(?m)^music/music\.go:\d+:\d+: ck: expected asc, desc or a comma after "played_at", found "sideways" \[bad-value\]$`).MatchString(stderr) {
		t.Errorf("stderr lacks the positioned diagnostic:\n%s", stderr)
	}
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
		t.Errorf("stderr shows a panic:\n%s", stderr)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "music/schema.cql"))
	if !bytes.Equal(before, after) {
		t.Error("generate wrote schema.cql although the model has errors")
	}
}

// TestOrphanAndConflict: a package that no longer declares patterns loses
// its generated schema.cql, and a hand-written one is never overwritten.
func TestOrphanAndConflict(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages in a temporary module")
	}
	dir := userModule(t)
	t.Chdir(dir)
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	schema := filepath.Join(dir, "music/schema.cql")
	write(t, filepath.Join(dir, "music/music.go"), "package music\n")
	// The package's other model files go too, so that it has no entity.
	others, _ := filepath.Glob(filepath.Join(dir, "music/*.go"))
	for _, f := range others {
		switch filepath.Base(f) {
		case "music.go", "schema.go", "cqlgen_gen.go":
		default:
			os.Remove(f)
		}
	}
	code, _, stderr := run(t, "check", "./...")
	if code != ExitStale || !strings.Contains(stderr, "is no longer generated") {
		t.Errorf("check with an orphaned schema.cql = %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, "generate", "-v", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	if _, err := os.Stat(schema); !os.IsNotExist(err) {
		t.Errorf("orphaned schema.cql was not removed: %v", err)
	}

	src, _ := os.ReadFile(filepath.Join(repoRoot, "example/music/music.go"))
	write(t, filepath.Join(dir, "music/music.go"), string(src))
	write(t, schema, "CREATE TABLE mine (id int PRIMARY KEY);\n")
	code, _, stderr = run(t, "generate", "./...")
	if code != ExitFailure || !strings.Contains(stderr, "was not written by cqlgen") {
		t.Errorf("generate over a hand-written schema.cql = %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(schema); string(b) != "CREATE TABLE mine (id int PRIMARY KEY);\n" {
		t.Error("a hand-written schema.cql was overwritten")
	}
}

func TestUsage(t *testing.T) {
	if code, _, stderr := run(t); code != ExitUsage || !strings.Contains(stderr, "Commands:") {
		t.Errorf("no args = %d\n%s", code, stderr)
	}
	if code, _, _ := run(t, "frobnicate"); code != ExitUsage {
		t.Errorf("unknown command = %d", code)
	}
	if code, stdout, _ := run(t, "help"); code != ExitOK || !strings.Contains(stdout, "Exit codes") {
		t.Errorf("help = %d\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, "version"); code != ExitOK || !strings.HasPrefix(stdout, "cqlgen ") {
		t.Errorf("version = %d %q", code, stdout)
	}
	if code, _, _ := run(t, "generate", "-nope"); code != ExitUsage {
		t.Errorf("bad flag = %d", code)
	}
	seeds := filepath.Join(repoRoot, "gen/testdata/golden/partition_seeds")
	if code, _, stderr := run(t, "check", seeds); code != ExitOK || !strings.Contains(stderr, "[large-partition]") {
		t.Errorf("warnings alone = %d, want 0 with the warnings printed\n%s", code, stderr)
	}
	if code, _, stderr := run(t, "check", "-strict", seeds); code != ExitModel || !strings.Contains(stderr, "-strict counts as errors") {
		t.Errorf("warnings under -strict = %d, want %d\n%s", code, ExitModel, stderr)
	}
	if code, _, stderr := run(t, "check", "./does/not/exist"); code != ExitFailure {
		t.Errorf("missing package = %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, "generate", "-driver", "gocqlv3", seeds); code != ExitUsage || !strings.Contains(stderr, "gocqlv2 (github.com/apache/cassandra-gocql-driver/v2)") {
		t.Errorf("an unknown -driver = %d, want %d\n%s", code, ExitUsage, stderr)
	}
}

// TestDriverFlag: generate and check take -driver, which must agree with
// the drivers whose types the model's fields hold.
func TestDriverFlag(t *testing.T) {
	// A model on gocql v1 (its UUIDs are v1's), and one on the ASF
	// driver, in a module of its own.
	v1 := filepath.Join(repoRoot, "gen/testdata/golden/udt")
	v2 := filepath.Join(repoRoot, "gen/testdata/golden/udt_v2")
	mismatch := regexp.MustCompile(`(?m)^.*model\.go:\d+:\d+: field \w+ is a gocql\.\w+ of (\S+), but -driver (\S+) was given.*\[driver-mix\]$`)
	for _, c := range []struct {
		dir, driver string
		code        int
		from, flag  string // of the mismatch reported
	}{
		{v1, "", ExitOK, "", ""},
		{v1, "gocql", ExitOK, "", ""},
		{v1, "gocqlv2", ExitModel, "github.com/gocql/gocql", "gocqlv2"},
		{v2, "", ExitOK, "", ""},
		{v2, "gocqlv2", ExitOK, "", ""},
		{v2, "gocql", ExitModel, "github.com/apache/cassandra-gocql-driver/v2", "gocql"},
	} {
		t.Chdir(c.dir)
		args := []string{"check"}
		if c.driver != "" {
			args = append(args, "-driver", c.driver)
		}
		code, _, stderr := run(t, append(args, ".")...)
		if code != c.code {
			t.Errorf("%s in %s = %d, want %d\n%s", strings.Join(args, " "), filepath.Base(c.dir), code, c.code, stderr)
			continue
		}
		m := mismatch.FindStringSubmatch(stderr)
		if c.from == "" && m != nil || c.from != "" && (m == nil || m[1] != c.from || m[2] != c.flag) {
			t.Errorf("%s in %s: stderr\n%s", strings.Join(args, " "), filepath.Base(c.dir), stderr)
		}
	}
}

// TestDiff runs diff on a copy of example/music: a column added is an
// additive change with a migration file; a clustering order flipped is a
// breaking change with none.
func TestDiff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages in a temporary module")
	}
	dir := userModule(t)
	t.Chdir(dir)
	if code, _, stderr := run(t, "generate", "./..."); code != ExitOK {
		t.Fatalf("generate = %d\n%s", code, stderr)
	}
	music := filepath.Join(dir, "music/music.go")
	edit(t, music, "\tDurationS int32     `db:\"duration_s\"`\n}", "\tDurationS int32     `db:\"duration_s\"`\n\tDevice    string    `db:\"device\"`\n}")
	code, stdout, stderr := run(t, "diff", "-migrations", "migrations", "./...")
	if code != ExitOK {
		t.Fatalf("diff with a column added = %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "additive: table listening_history: new column device text") {
		t.Errorf("diff does not report the new column:\n%s", stdout)
	}
	mig, err := os.ReadFile(filepath.Join(dir, "music/migrations/0001_music.cql"))
	if err != nil {
		t.Fatalf("no migration file: %v\n%s", err, stdout)
	}
	if !strings.Contains(string(mig), "ALTER TABLE listening_history ADD device text;") {
		t.Errorf("migration:\n%s", mig)
	}
	// The same change again (the keyspace has not applied it yet): the
	// folder already holds it, so nothing new is written.
	code, stdout, stderr = run(t, "diff", "-migrations", "migrations", "./...")
	if code != ExitOK || !strings.Contains(stderr, "migrations/0001_music.cql already holds this migration; nothing written") {
		t.Errorf("diff -migrations run twice = %d\n%s%s", code, stdout, stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "music/migrations/*.cql")); len(files) != 1 {
		t.Errorf("diff -migrations run twice wrote %v", files)
	}

	// A new access pattern over existing tracks: additive, and diff names
	// the backfill that fills it.
	edit(t, music, "\t_ cqlgen.Pattern `table:\"tracks,canonical", "\t_ cqlgen.Pattern `table:\"tracks_by_album\" pk:\"album\" ck:\"track_id\" size:\"rows=100\"`\n\t_ cqlgen.Pattern `table:\"tracks,canonical")
	code, stdout, stderr = run(t, "diff", "./...")
	if code != ExitOK || !strings.Contains(stdout, "additive: table tracks_by_album: new table") ||
		!strings.Contains(stdout, "    cqlgen maintain backfill -entity Track -table tracks_by_album -job add-tracks_by_album ./music\n") ||
		!strings.Contains(stdout, "    cqlgen maintain verify -table tracks_by_album ./music\n") {
		t.Errorf("diff with a new pattern = %d\n%s%s", code, stdout, stderr)
	}

	// A projection's key changed: expand/contract, with a backfill from
	// the source of truth.
	projection := `table:"top_tracks_by_artist" pk:"artist_id" ck:"play_count desc, track_id"`
	edit(t, music, projection, `table:"top_tracks_by_artist" pk:"artist_id" ck:"play_count asc, track_id"`)
	code, stdout, _ = run(t, "diff", "-migrations", "migrations", "./...")
	if code != ExitStale || !strings.Contains(stdout, "breaking: table top_tracks_by_artist: clustering order (play_count DESC, track_id ASC) becomes (play_count ASC, track_id ASC)") || !strings.Contains(stdout, "no migration written") {
		t.Errorf("diff with a projection's order flipped = %d\n%s", code, stdout)
	}
	for _, step := range []string{"1. expand", "2. backfill: cqlgen maintain backfill -entity E -table NEW -job NAME ./music\n",
		"3. verify:   cqlgen maintain verify -entity E -table NEW ./music\n", "4. switch reads", "5. contract", `table:"old,deprecated" replaced_by:"new"`} {
		if !strings.Contains(stdout, step) {
			t.Errorf("a breaking change's output lacks %q:\n%s", step, stdout)
		}
	}
	if strings.Contains(stdout, "new entity") {
		t.Errorf("a projection's key change is advised as a source of truth's:\n%s", stdout)
	}
	edit(t, music, `table:"top_tracks_by_artist" pk:"artist_id" ck:"play_count asc, track_id"`, projection)

	// The key of a source of truth changed: the runbook forbids its
	// deprecation, and no backfill can fill it; the way is a new entity.
	edit(t, music, `ck:"played_at desc, track_id" ttl:"90d"`, `ck:"played_at asc, track_id" ttl:"90d"`)
	code, stdout, _ = run(t, "diff", "-migrations", "migrations", "./...")
	if code != ExitStale || !strings.Contains(stdout, "breaking: table listening_history: clustering order (played_at DESC, track_id ASC) becomes (played_at ASC, track_id ASC); it is the source of truth of Play") || !strings.Contains(stdout, "no migration written") {
		t.Errorf("diff with the order of a source of truth flipped = %d\n%s", code, stdout)
	}
	for _, want := range []string{"the way through for Play's source of truth", "a new key for it is a new entity, filled by a program of yours", "declare a new entity (a new Go type)",
		"3. verify: cqlgen maintain verify -entity NEW ./music, for the new entity's other tables"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("a source of truth's key change lacks %q:\n%s", want, stdout)
		}
	}
	for _, wrong := range []string{`table:"old,deprecated"`, "2. backfill", "filled by a backfill from the source of truth"} {
		if strings.Contains(stdout, wrong) {
			t.Errorf("a source of truth's key change is advised %q, which the runbook forbids for it:\n%s", wrong, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "music/migrations/0002_music.cql")); err == nil {
		t.Error("a migration was written for a breaking change")
	}
}

// generate -cache DIR keeps the entities' code in DIR and writes the same
// files from it; without -cache the cache is $CQLGEN_CACHE, and -cache off
// keeps nothing.
func TestGenerateCacheFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages in a temporary module")
	}
	dir := userModule(t)
	t.Chdir(dir)
	fromEnv := filepath.Join(t.TempDir(), "env")
	t.Setenv("CQLGEN_CACHE", fromEnv)
	if code, _, stderr := run(t, "generate", "-cache", "off", "./..."); code != ExitOK {
		t.Fatalf("generate -cache off = %d\n%s", code, stderr)
	}
	if _, err := os.Stat(fromEnv); !os.IsNotExist(err) {
		t.Fatalf("-cache off made %s (%v)", fromEnv, err)
	}
	cold := readFile(t, filepath.Join(dir, "music/cqlgen_gen.go"))
	cache := t.TempDir()
	for range 2 { // the cache filled, then read
		if code, _, stderr := run(t, "generate", "-cache", cache, "./..."); code != ExitOK {
			t.Fatalf("generate -cache = %d\n%s", code, stderr)
		}
		if got := readFile(t, filepath.Join(dir, "music/cqlgen_gen.go")); got != cold {
			t.Fatal("cqlgen_gen.go differs from the one generated without the cache")
		}
	}
	for _, d := range []string{cache, fromEnv} {
		if d == fromEnv {
			if code, _, stderr := run(t, "check", "./..."); code != ExitOK {
				t.Fatalf("check = %d\n%s", code, stderr)
			}
		}
		entries, err := os.ReadDir(d)
		if err != nil || len(entries) < 2 {
			t.Fatalf("%s: %d entries in the cache, %v", d, len(entries), err)
		}
	}
}
