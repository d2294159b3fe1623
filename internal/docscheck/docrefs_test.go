package docscheck

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docs are the pages checked, relative to the repository root: every
// docs/*.md, the README and the benchmarks' README. CHANGELOG.md is left
// out: it is history, and names files as they were then.
func docs(t *testing.T, root string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pages {
		pages[i], _ = filepath.Rel(root, p)
	}
	pages = append(pages, "README.md", filepath.Join("bench", "README.md"))
	sort.Strings(pages)
	return pages
}

// examples are paths the pages name on purpose although the repository
// has no such file: they are in the reader's own project, or a file a
// command writes. Add to it only a path that is an example.
var examples = map[string]bool{
	// the reader's own project, in README.md, quickstart.md, runbook.md
	"../cqlgen":                true, // the reader's clone of this repository
	"notes.go":                 true, // the quickstart's file in the reader's module
	"0001_music.cql":           true,
	"0002_music.cql":           true,
	"music/migrations/":        true,
	"FILE.cql":                 true, // placeholders in import.md
	"P.go":                     true,
	"cassandra.yaml":           true, // Cassandra's configuration file
	"out/results.md":           true, // written by bench/ab.sh and the Makefile
	"out/benchstat.txt":        true,
	"runtime/netpoll_epoll.go": true, // Go's runtime, not ours
	// Cassandra's CQL examples that import.md was tried on
	"create_table.cql":               true,
	"create_static_column.cql":       true,
	"ddm_create_table.cql":           true,
	"create-table-shopping-cart.cql": true,
}

// extensions mark a word as a file's name.
var extensions = []string{".go", ".md", ".sh", ".cql", ".yaml", ".yml", ".java", ".mod", ".json", ".txt"}

// topDirs are the repository's top-level directories: a path without an
// extension is checked as a directory only if it starts with one of them
// (so that `runtime/internal/impl` is checked, and the import path
// `cqlgen/runtime`, or a word pair like `read/write`, is not).
func topDirs(t *testing.T, root string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			dirs[e.Name()] = true
		}
	}
	return dirs
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// a bare file name in prose: settle.go, cluster.sh
	bareName = regexp.MustCompile(`(?:^|[\s(,;])([A-Za-z0-9_][A-Za-z0-9_.\-]*\.[a-z]+)\b`)
	pathWord = regexp.MustCompile(`^[A-Za-z0-9_.\-/]+$`)
)

type ref struct {
	page string
	line int
	path string
}

// TestDocsNameExistingFiles fails for each path a page names, in a code
// span (`runtime/internal/impl/settle.go`), a link's target or a bare file
// name in its prose (settle.go), that the repository does not hold.
// Fenced code blocks are skipped: they show commands and the reader's own
// code. A path is looked up from the repository root, then from the page's
// own directory; a bare file name must be the name of some file in the
// repository.
func TestDocsNameExistingFiles(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	top := topDirs(t, root)
	names := baseNames(t, root)
	var missing []ref
	checked := 0
	for _, page := range docs(t, root) {
		for _, r := range refs(t, root, page) {
			checked++
			if !exists(root, page, r.path, top, names) {
				missing = append(missing, r)
			}
		}
	}
	t.Logf("%d paths checked", checked)
	if checked < 50 {
		t.Fatalf("only %d paths checked in the docs: the scanner is broken", checked)
	}
	for _, m := range missing {
		t.Errorf("%s:%d names %s, which the repository does not hold", m.page, m.line, m.path)
	}
}

// refs lists the paths a page names, outside fenced code blocks.
func refs(t *testing.T, root, page string) []ref {
	t.Helper()
	f, err := os.Open(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []ref
	fenced := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		var words []string
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			words = append(words, m[1])
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			words = append(words, m[1])
		}
		prose := codeSpan.ReplaceAllString(link.ReplaceAllString(line, "] "), " ")
		for _, m := range bareName.FindAllStringSubmatch(prose, -1) {
			words = append(words, m[1])
		}
		for _, w := range words {
			if p, ok := candidate(w); ok {
				out = append(out, ref{page, n, p})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// candidate tells whether a word names a repository path, and which.
func candidate(w string) (string, bool) {
	if i := strings.IndexByte(w, '#'); i >= 0 { // a link's anchor
		w = w[:i]
	}
	w = strings.TrimRight(w, ".,;:")
	if i := strings.LastIndexByte(w, ':'); i > 0 && strings.Trim(w[i+1:], "0123456789") == "" { // file.go:12
		w = w[:i]
	}
	if w == "" || !pathWord.MatchString(w) || strings.Contains(w, "...") || strings.Contains(w, "//") {
		return "", false
	}
	if examples[w] {
		return "", false
	}
	if hasExtension(w) || strings.HasSuffix(w, "/") || strings.Contains(w, "/") {
		return w, true
	}
	return "", false
}

func hasExtension(w string) bool {
	for _, e := range extensions {
		if strings.HasSuffix(w, e) {
			return true
		}
	}
	return false
}

// exists looks a path up from the root, then from the page's directory.
func exists(root, page, p string, top, names map[string]bool) bool {
	p = strings.TrimPrefix(p, "./")
	if !strings.Contains(strings.TrimSuffix(p, "/"), "/") && !strings.HasSuffix(p, "/") {
		if !hasExtension(p) {
			return true // neither a path nor a file's name
		}
		if names[p] {
			return true
		}
	}
	first, _, _ := strings.Cut(p, "/")
	if !hasExtension(p) && !strings.HasSuffix(p, "/") && !top[first] && first != ".." {
		return true // not one of ours: an import path, a pair of words
	}
	if first != ".." && !top[first] && !strings.HasPrefix(p, "../") {
		// a path under no top-level directory: only from the page's own
		// directory (docs/x.md names "testing.md" or "img/a.png").
		_, err := os.Stat(filepath.Join(root, filepath.Dir(page), p))
		return err == nil || !hasExtension(p) && !strings.HasSuffix(p, "/")
	}
	for _, base := range []string{root, filepath.Join(root, filepath.Dir(page))} {
		if _, err := os.Stat(filepath.Join(base, p)); err == nil {
			return true
		}
	}
	return false
}

// baseNames lists the names of the repository's files.
func baseNames(t *testing.T, root string) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			names[d.Name()] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}
