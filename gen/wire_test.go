package gen_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// testdata/wire.json holds the text of every statement the committed
// goldens and examples declared as constants before the statements were
// rendered by internal/cqlspec, by package and by the constant's name.
// The renderer must give each the same text, byte for byte, and no
// statement more or less: what goes on the wire does not change.
func TestWireUnchanged(t *testing.T) {
	data, err := os.ReadFile("testdata/wire.json")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]map[string]string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, c := range cases(t) {
		dirs = append(dirs, "./"+filepath.Join(goldenDir, c))
	}
	pkgs, _, _ := pipeline.Models(pipeline.Options{Patterns: append(dirs, "../example/...")})
	for _, p := range generateModuleCases(t) {
		pkgs = append(pkgs, p.Model)
	}
	root, _ := filepath.Abs("..")
	seen := 0
	for _, p := range pkgs {
		rel, _ := filepath.Rel(root, p.Dir)
		w, ok := want[filepath.ToSlash(rel)]
		if !ok {
			continue
		}
		seen++
		got := rendered(p)
		for name, text := range w {
			if g, ok := got[name]; !ok {
				t.Errorf("%s: %s is no longer rendered", rel, name)
			} else if g != text {
				t.Errorf("%s: %s changed:\n--- was\n%s\n--- now\n%s", rel, name, text, g)
			}
		}
		for name := range got {
			if _, ok := w[name]; !ok {
				t.Errorf("%s: %s is new", rel, name)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("compared %d packages of %d", seen, len(want))
	}
}

// rendered is the text of every statement of p's tables and index reads,
// by the name its constant had.
func rendered(p *model.Package) map[string]string {
	out := map[string]string{}
	for _, e := range p.Entities {
		if e.Canonical == nil {
			continue
		}
		for _, tb := range e.Tables {
			for _, s := range tb.Statements() {
				out[s.Const] = s.CQL()
			}
		}
		for _, ix := range e.Indexes {
			if ix.On == nil {
				continue
			}
			for _, s := range ix.Statements() {
				out[s.Const] = s.CQL()
			}
		}
	}
	return out
}
