package gen_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenDir holds one folder a case: a Go package as input, the files
// cqlgen generates for it, and stderr.txt with the diagnostics it expects
// (absent when it expects none).
//
// A case with a go.mod of its own is a module case: it needs a module
// cqlgen's own does not require (the ASF driver), so it is generated, and
// built, in its own module, where a user's package would be.
const goldenDir = "testdata/golden"

// cases are the golden cases in cqlgen's module; moduleCases those in
// modules of their own.
func cases(t *testing.T) []string { return goldenCases(t, false) }

func moduleCases(t *testing.T) []string { return goldenCases(t, true) }

func goldenCases(t *testing.T, modules bool) []string {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		_, err := os.Stat(filepath.Join(goldenDir, e.Name(), "go.mod"))
		if (err == nil) == modules {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) == 0 {
		t.Fatal("no golden cases")
	}
	return dirs
}

func TestGolden(t *testing.T) {
	names := cases(t)
	patterns := make([]string, len(names))
	for i, n := range names {
		patterns[i] = "./" + filepath.ToSlash(filepath.Join(goldenDir, n))
	}
	// One run over every case, as a user's go generate over many packages.
	res, err := gen.Generate(gen.Options{Patterns: patterns})
	if err != nil && !errors.Is(err, gen.ErrModel) {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) { checkCase(t, name, res) })
	}
	// Each module case in its module, as go generate runs there.
	for _, name := range moduleCases(t) {
		t.Run(name, func(t *testing.T) {
			res, err := gen.Generate(gen.Options{Dir: filepath.Join(goldenDir, name), Patterns: []string{"."}})
			if err != nil && !errors.Is(err, gen.ErrModel) {
				t.Fatal(err)
			}
			checkCase(t, name, res)
		})
	}
}

// generateModuleCases generates every module case in its module, for
// the tests that check every generated package.
func generateModuleCases(t *testing.T) []*pipeline.Package {
	t.Helper()
	var out []*pipeline.Package
	for _, name := range moduleCases(t) {
		res, err := pipeline.Generate(pipeline.Options{Dir: filepath.Join(goldenDir, name), Patterns: []string{"."}})
		if err != nil && !errors.Is(err, pipeline.ErrModel) {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, res.Packages...)
	}
	return out
}

// checkCase compares what res generated, and the diagnostics it has, for
// the golden case name with the case's files.
func checkCase(t *testing.T, name string, res *gen.Result) {
	t.Helper()
	dir := filepath.Join(goldenDir, name)
	abs, _ := filepath.Abs(dir)
	var p *gen.Package
	for _, rp := range res.Packages {
		if rp.Dir == abs {
			p = rp
		}
	}
	if p == nil {
		t.Fatalf("no package loaded from %s", dir)
	}
	var stderr strings.Builder
	for _, d := range res.Diags {
		if filepath.Dir(d.Pos.Filename) == abs {
			stderr.WriteString(d.Format(abs))
			stderr.WriteByte('\n')
		}
	}
	compare(t, filepath.Join(dir, "stderr.txt"), []byte(stderr.String()))
	for _, out := range gen.Outputs {
		compare(t, filepath.Join(dir, out), p.Files[out])
	}
}

// compare checks got against the golden file at path; nil or empty got
// means the file must not exist.
func compare(t *testing.T, path string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(path)
	exists := err == nil
	if *update {
		switch {
		case len(got) > 0:
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		case exists:
			os.Remove(path)
		}
		return
	}
	switch {
	case len(got) == 0 && exists:
		t.Errorf("%s exists, but nothing was generated for it (run go test ./gen -update)", path)
	case len(got) > 0 && !exists:
		t.Errorf("%s is missing; generated:\n%s", path, got)
	case !bytes.Equal(got, want):
		t.Errorf("%s differs (run go test ./gen -update to accept):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestGoldenInputsCompile builds every case: a golden model must be valid
// Go, so that what it tests is the tags, not a broken package.
func TestGoldenInputsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages")
	}
	cmd := exec.Command("go", "build", "./"+goldenDir+"/...")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// ./... stops at a folder with a go.mod: each module case builds in
	// its module, generated file included.
	for _, name := range moduleCases(t) {
		cmd := exec.Command("go", "build", "./...")
		cmd.Dir = filepath.Join(goldenDir, name)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go build in %s: %v\n%s", cmd.Dir, err, out)
		}
	}
}

// TestDeterministic generates the examples twice and compares the bytes.
func TestDeterministic(t *testing.T) {
	run := func() map[string][]byte {
		res, err := gen.Generate(gen.Options{Patterns: []string{"../example/..."}})
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, p := range res.Packages {
			for name, b := range p.Files {
				files[filepath.Join(p.Dir, name)] = b
			}
		}
		return files
	}
	a, b := run(), run()
	if len(a) == 0 {
		t.Fatal("nothing generated for the examples")
	}
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

// TestExamplesMatchSeeds checks the key shape of every table of the two
// worked examples against the designs of the seed lessons.
func TestExamplesMatchSeeds(t *testing.T) {
	pkgs, _, err := pipeline.Models(pipeline.Options{Patterns: []string{"../example/music", "../example/messaging"}})
	if err != nil {
		t.Fatal(err)
	}
	type shape struct {
		pk, ck string // "col, col" and "col DESC, col ASC"
		ttl    int64
	}
	want := map[string]shape{
		"listening_history":        {"user_id", "played_at DESC, track_id ASC", 90 * 86400},
		"top_tracks_by_artist":     {"artist_id", "play_count DESC, track_id ASC", 0},
		"playlist_tracks":          {"playlist_id", "position ASC, track_id ASC", 0},
		"daily_charts":             {"chart_date, shard", "play_count DESC, track_id ASC", 30 * 86400},
		"messages_by_conversation": {"conversation_id", "sent_at DESC, message_id ASC", 0},
		"messages_by_user":         {"user_id", "sent_at DESC, message_id ASC", 0},
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		for _, tb := range p.Tables() {
			w, ok := want[tb.Name]
			if !ok {
				continue
			}
			seen[tb.Name] = true
			var pk, ck []string
			for _, c := range tb.PartitionKey() {
				pk = append(pk, c.Name)
			}
			for _, c := range tb.Clustering() {
				dir := "ASC"
				if c.Desc {
					dir = "DESC"
				}
				ck = append(ck, c.Name+" "+dir)
			}
			got := shape{strings.Join(pk, ", "), strings.Join(ck, ", "), tb.TTL}
			if got != w {
				t.Errorf("%s: got %+v, want %+v", tb.Name, got, w)
			}
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("no table %s in the examples", name)
		}
	}
	// The charts are sharded into 100 hash buckets of track_id.
	for _, p := range pkgs {
		for _, tb := range p.Tables() {
			if tb.Name == "daily_charts" && (tb.Bucket == nil || tb.Bucket.Expr() != "hash(track_id) % 100") {
				t.Errorf("daily_charts bucket = %+v", tb.Bucket)
			}
		}
	}
}
