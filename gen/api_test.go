package gen_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// gen's severities are the stages' own, value for value.
func TestSeverities(t *testing.T) {
	for _, s := range []struct {
		gen  gen.Severity
		diag diag.Severity
	}{{gen.Error, diag.Error}, {gen.Warning, diag.Warning}, {gen.Notice, diag.Notice}} {
		if int(s.gen) != int(s.diag) || s.gen.String() != s.diag.String() {
			t.Errorf("gen %d (%s) against diag %d (%s)", s.gen, s.gen, s.diag, s.diag)
		}
	}
}

// gen names the files the pipeline writes.
func TestOutputs(t *testing.T) {
	if !slices.Equal(gen.Outputs, pipeline.Outputs) {
		t.Errorf("gen.Outputs %v, the pipeline's %v", gen.Outputs, pipeline.Outputs)
	}
}

// A model with errors comes back as a *gen.ModelError that matches
// ErrModel and carries the diagnostics, each at its place in the source.
func TestModelError(t *testing.T) {
	res, err := gen.Generate(gen.Options{Dir: filepath.Join(goldenDir, "bad_bucket"), Patterns: []string{"."}, CacheDir: "off"})
	var me *gen.ModelError
	if !errors.As(err, &me) || !errors.Is(err, gen.ErrModel) {
		t.Fatalf("err = %v, want a *gen.ModelError", err)
	}
	if !me.Diags.HasErrors() || len(me.Diags) != len(res.Diags) {
		t.Fatalf("the error has %d diagnostics, the result %d", len(me.Diags), len(res.Diags))
	}
	want, rerr := os.ReadFile(filepath.Join(goldenDir, "bad_bucket", "stderr.txt"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	abs, _ := filepath.Abs(filepath.Join(goldenDir, "bad_bucket"))
	for _, d := range res.Diags {
		if d.Pos.Filename == "" || d.Pos.Line == 0 || d.Message == "" || d.Code == "" {
			t.Errorf("%s: a diagnostic without its place, message or code", d)
		}
		if !strings.Contains(string(want), d.Format(abs)) {
			t.Errorf("%q is not in stderr.txt", d.Format(abs))
		}
	}
	for _, d := range res.Diags {
		if d.Severity == gen.Error && !strings.Contains(err.Error(), d.String()) {
			t.Errorf("the error does not say %s: %v", d, err)
		}
	}
	for _, p := range res.Packages {
		if len(p.Files) != 0 {
			t.Errorf("%s: files generated from a model with errors", p.Path)
		}
	}
}
