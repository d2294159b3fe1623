package gen_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// cacheModule copies every golden case that generates files (but the
// module cases) and every example into one module outside this
// repository, a package a case, and returns its folder and the packages'
// folder names.
func cacheModule(t *testing.T) (string, []string) {
	t.Helper()
	dir := driverModule(t, "\tgithub.com/gocql/gocql v1.7.0\n"+
		"\tgithub.com/golang/snappy v0.0.4 // indirect\n"+
		"\tgithub.com/hailocab/go-hostpool v0.0.0-20160125115350-e80d13ce29ed // indirect\n"+
		"\tgopkg.in/inf.v0 v0.9.1 // indirect\n")
	if err := os.Remove(filepath.Join(dir, "model.go")); err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, c := range goldenCases(t, false) {
		// A case whose model has errors generates nothing to cache.
		if _, err := os.Stat(filepath.Join(goldenDir, c, "cqlgen_gen.go")); err == nil {
			srcs = append(srcs, filepath.Join(goldenDir, c))
		}
	}
	examples, _ := filepath.Glob("../example/*/cqlgen_gen.go")
	for _, e := range examples {
		srcs = append(srcs, filepath.Dir(e))
	}
	var names []string
	for _, src := range srcs {
		name := filepath.Base(filepath.Dir(src)) + "_" + filepath.Base(src)
		names = append(names, name)
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || strings.HasSuffix(n, "_test.go") || !strings.HasSuffix(n, ".go") && n != "schema.cql" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(src, n))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, names
}

// generateAll generates every package of the module with the cache in
// cache ("off" for none) and returns the files by path, and what the
// cache served.
func generateAll(t *testing.T, dir, cache string) (map[string][]byte, pipeline.CacheStats) {
	t.Helper()
	res, err := pipeline.Generate(pipeline.Options{Dir: dir, Patterns: []string{"./..."}, CacheDir: cache})
	if err != nil && !errors.Is(err, pipeline.ErrModel) {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range res.Packages {
		for name, b := range p.Files {
			files[filepath.Join(filepath.Base(p.Dir), name)] = b
		}
	}
	// The diagnostics, as the command prints them, as one more file.
	files["diagnostics.txt"] = []byte(res.Diags.Format(dir))
	return files, res.Cache
}

// sameFiles fails unless got has exactly want's files, byte for byte.
func sameFiles(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range want {
			if !yield(n) {
				return
			}
		}
	}) {
		if !bytes.Equal(got[name], want[name]) {
			t.Errorf("%s: %s differs from a run without the cache (%d bytes against %d)", what, name, len(got[name]), len(want[name]))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d files, %d without the cache", what, len(got), len(want))
	}
}

// The cache of emitted code changes no byte of the output, nor of the
// diagnostics (which the cache keeps too, by the model with its
// positions): over every
// golden case and example, a run with an empty cache, a run on the
// unchanged packages (every package served whole from the cache), and a
// run after one entity of each package changed (that entity's code
// built again, every other entity's code, DDL and review-page sections (rows, diagram, statements)
// taken from the cache, though the edit moved every entity below it down
// a line) each write exactly what a
// run without the cache writes. A cache whose every entry is damaged
// afterwards is read as empty.
func TestCacheSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("generates every golden case and example four times")
	}
	dir, names := cacheModule(t)
	cache := t.TempDir()

	cold, _ := generateAll(t, dir, "off")
	if len(cold) == 0 {
		t.Fatal("nothing generated")
	}
	first, st := generateAll(t, dir, cache)
	sameFiles(t, "an empty cache", first, cold)
	if st.Packages != 0 || st.Entities != 0 || st.Sections != 0 || st.Emitted == 0 {
		t.Errorf("an empty cache served %+v", st)
	}
	warm, st := generateAll(t, dir, cache)
	sameFiles(t, "the unchanged packages", warm, cold)
	pkgs := (len(cold) - 1) / 3
	if !bytes.Contains(cold["diagnostics.txt"], []byte("warning: ")) {
		t.Fatal("no warnings to compare")
	}
	if st.Packages != pkgs || st.Emitted != 0 {
		t.Errorf("on the unchanged packages the cache served %+v, want all %d packages", st, pkgs)
	}

	// One entity of each package changes: the first gets a field more,
	// which also moves every entity below it down a line.
	models, _, err := pipeline.Models(pipeline.Options{Dir: dir, Patterns: []string{"./..."}})
	if err != nil && !errors.Is(err, pipeline.ErrModel) {
		t.Fatal(err)
	}
	entities, edited := 0, 0
	for _, mp := range models {
		if len(mp.Entities) == 0 || !slices.Contains(names, filepath.Base(mp.Dir)) {
			continue
		}
		entities += len(mp.Entities)
		pos := mp.Entities[0].Pos
		src, err := os.ReadFile(pos.Filename)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(src), "\n")
		if !strings.HasSuffix(strings.TrimSpace(lines[pos.Line-1]), "struct {") {
			t.Fatalf("%s: %q is no struct's first line", pos, lines[pos.Line-1])
		}
		field := "\tCacheEdit int64 `db:\"cache_edit\"`\n"
		if mp.Entities[0].Counting() {
			field = "\tCacheEdit int64 `db:\"cache_edit\" cql:\"counter\"`\n"
		}
		lines = slices.Insert(lines, pos.Line, field)
		if err := os.WriteFile(pos.Filename, []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		edited++
	}
	if edited != pkgs {
		t.Fatalf("edited %d packages of %d", edited, pkgs)
	}
	coldEdited, _ := generateAll(t, dir, "off")
	changed := 0
	for name, b := range coldEdited {
		if strings.HasSuffix(name, "cqlgen_gen.go") && !bytes.Equal(b, cold[name]) {
			changed++
		}
	}
	if changed != pkgs {
		t.Fatalf("the edit changed %d generated Go files of %d", changed, pkgs)
	}
	edits, st := generateAll(t, dir, cache)
	sameFiles(t, "one entity changed", edits, coldEdited)
	if st.Packages != 0 || st.Emitted != pkgs || st.Entities != entities-pkgs || st.Sections != 2*(entities-pkgs) {
		t.Errorf("with one entity changed in each of %d packages (%d entities) the cache served %+v, want every other entity's code, DDL and review sections", pkgs, entities, st)
	}

	// Damage every entry: flip a byte, cut one short, empty another.
	n := 0
	filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(path) == "trim.txt" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch n % 3 {
		case 0:
			b[len(b)-1] ^= 0x20
		case 1:
			b = b[:len(b)/2]
		case 2:
			b = nil
		}
		n++
		return os.WriteFile(path, b, 0o644)
	})
	if n == 0 {
		t.Fatal("no entries in the cache")
	}
	damaged, st := generateAll(t, dir, cache)
	sameFiles(t, fmt.Sprintf("%d damaged entries", n), damaged, coldEdited)
	if st.Packages != 0 || st.Entities != 0 || st.Sections != 0 {
		t.Errorf("damaged entries served %+v", st)
	}
}
