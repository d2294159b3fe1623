package gen_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/imports"
)

// Every generated Go file is as goimports (the golang.org/x/tools version
// in go.mod) would leave it: imports in one block per group, standard
// library first, sorted, and gofmt'd. Linters that run goimports in CI
// then have nothing to say about a generated file.
func TestGeneratedFilesPassGoimports(t *testing.T) {
	var files []string
	for _, pattern := range []string{
		"../example/*/cqlgen_gen.go",
		"testdata/golden/*/cqlgen_gen.go",
		"../runtime/cqlgenimpl/internal/fixture/cqlgen_gen.go",
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	// The check has teeth: one block mixing the standard library with
	// other modules is regrouped.
	mixed := "package p\n\nimport (\n\t\"github.com/gocql/gocql\"\n\t\"context\"\n)\n\nvar _ context.Context\nvar _ gocql.UUID\n"
	if out, err := imports.Process("p.go", []byte(mixed), &imports.Options{Comments: true, TabIndent: true, TabWidth: 8, FormatOnly: true}); err != nil || string(out) == mixed {
		t.Fatalf("goimports left a mixed import block as it was (%v)", err)
	}
	if len(files) < 10 {
		t.Fatalf("found only %d generated files: %v", len(files), files)
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// FormatOnly: group, sort and format the imports there are, the
		// way goimports does, without resolving packages.
		out, err := imports.Process(name, src, &imports.Options{Comments: true, TabIndent: true, TabWidth: 8, FormatOnly: true})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(out) != string(src) {
			t.Errorf("%s: goimports would change it:\n%s", name, firstDiff(string(src), string(out)))
		}
	}
}

// firstDiff shows the first line where a and b differ, with the lines
// around it.
func firstDiff(a, b string) string {
	la, lb := splitLines(a), splitLines(b)
	for i := 0; i < len(la) || i < len(lb); i++ {
		if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
			from, to := max(0, i-3), min(len(la), i+4)
			s := ""
			for j := from; j < to; j++ {
				s += "\t" + la[j] + "\n"
			}
			return s + "goimports:\n" + join(lb[max(0, i-3):min(len(lb), i+4)])
		}
	}
	return ""
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

func join(lines []string) string {
	s := ""
	for _, l := range lines {
		s += "\t" + l + "\n"
	}
	return s
}
