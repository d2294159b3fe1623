package gen_test

import (
	"bytes"
	"errors"
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// Every statement of every golden case and example has one bind per
// placeholder, and every column it names belongs to its table.
func TestStatementBinds(t *testing.T) {
	var dirs []string
	for _, c := range cases(t) {
		dirs = append(dirs, "./"+filepath.Join(goldenDir, c))
	}
	pkgs, _, _ := pipeline.Models(pipeline.Options{Patterns: append(dirs, "../example/...")})
	for _, name := range moduleCases(t) {
		ps, _, err := pipeline.Models(pipeline.Options{Dir: filepath.Join(goldenDir, name), Patterns: []string{"."}})
		if err != nil && !errors.Is(err, pipeline.ErrModel) {
			t.Fatalf("%s: %v", name, err)
		}
		pkgs = append(pkgs, ps...)
	}
	n := 0
	for _, p := range pkgs {
		for _, tb := range p.Tables() {
			if tb.Entity.Canonical == nil {
				continue // a model error; no statements are emitted
			}
			cols := map[*model.Column]bool{}
			for _, c := range tb.Columns {
				cols[c] = true
			}
			for _, s := range tb.Statements() {
				n++
				if q := strings.Count(s.CQL(), "?"); q != len(s.Binds) {
					t.Errorf("%s %s: %d placeholders, %d binds\n%s", tb.Name, s.Slot, q, len(s.Binds), s.CQL())
				}
				for _, b := range s.Binds {
					if b.Column != nil && !cols[b.Column] {
						t.Errorf("%s %s binds %s, a column of another table", tb.Name, s.Slot, b.Column.Name)
					}
				}
			}
		}
	}
	if n < 100 {
		t.Errorf("checked %d statements; the cases did not load", n)
	}
}

// The schema carries the runtime's own table exactly as the runtime
// declares it: the generator keeps its copy in templates/ so that it does
// not import the runtime.
func TestIdempotencyTableInSchema(t *testing.T) {
	schema, err := os.ReadFile("../example/music/schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	for _, ddl := range []string{cqlgenimpl.IdempotencyTableCQL, cqlgen.ProgressTableCQL} {
		if !bytes.Contains(schema, []byte(ddl)) {
			t.Errorf("schema.cql does not contain the runtime's table:\n%s", ddl)
		}
	}
}

// Every generated Go file is as gofmt prints it: the entities are
// formatted apart and joined, and the join must not change that.
func TestGeneratedGoIsFormatted(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*", "cqlgen_gen.go"))
	more, _ := filepath.Glob("../example/*/cqlgen_gen.go")
	files = append(files, more...)
	if len(files) < 5 {
		t.Fatalf("found %d generated files", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := format.Source(src)
		if err != nil || !bytes.Equal(out, src) {
			t.Errorf("%s is not gofmt'd (%v)", f, err)
		}
	}
}
