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
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenDir holds one folder a case: a Go package as input, the files
// cqlgen generates for it, and stderr.txt with the diagnostics it expects
// (absent when it expects none).
const goldenDir = "testdata/golden"

func cases(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
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
	byDir := map[string]*gen.Package{}
	for _, p := range res.Packages {
		byDir[filepath.Base(p.Dir)] = p
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(goldenDir, name)
			abs, _ := filepath.Abs(dir)
			p := byDir[name]
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
		})
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
