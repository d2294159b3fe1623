package model_test

import (
	"reflect"
	"sync"
	"testing"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
)

// TestRenderedOnce checks that a table's statements, which the Go emitter
// reads through Statements and the review page through Rendered while the
// two run at once (gen.Generate), are one rendering of its description,
// whichever asks first. Run with -race, it also checks that asking at once
// is safe.
func TestRenderedOnce(t *testing.T) {
	tables := 0
	for _, p := range goldenModels(t) {
		for _, tb := range p.Tables() {
			if len(tb.Columns) == 0 {
				continue // a table the model could not build (a bad_* case)
			}
			tables++
			var wg sync.WaitGroup
			wg.Go(func() { tb.Statements() })
			wg.Go(func() { tb.Rendered() })
			wg.Wait()
			rendered, stmts := tb.Rendered(), tb.Statements()
			if want := cqlspec.Render(tb.Spec()); !reflect.DeepEqual(rendered, want) {
				t.Errorf("%s: Rendered differs from cqlspec.Render of its Spec", tb.Name)
			}
			if len(stmts) != len(rendered) {
				t.Fatalf("%s: %d statements, %d rendered", tb.Name, len(stmts), len(rendered))
			}
			for i, s := range stmts {
				r := rendered[i]
				if s.Slot != r.Slot || s.Depth != r.Depth || s.Scatter != r.Scatter || !reflect.DeepEqual(s.Clauses, r.Clauses) {
					t.Errorf("%s: statement %d is %s, rendered %s", tb.Name, i, s.Const, r.Label())
				}
			}
		}
	}
	if tables == 0 {
		t.Fatal("no tables in the golden models")
	}
}
