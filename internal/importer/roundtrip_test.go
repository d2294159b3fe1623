package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// regenerate writes src as a package in a folder of testdata (inside the
// module, so that it loads with the module's requirements), runs the
// generator in memory and returns the schema.cql it makes.
func regenerate(t *testing.T, src []byte) *schemadiff.Schema {
	t.Helper()
	res := generateIn(t, src, "")
	s, err := schemadiff.Parse(string(res.Packages[0].Files[gen.SchemaFile]))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// generateIn generates src as a package in a folder of testdata. With
// module set, the folder is a module of its own, with the go.mod and
// go.sum of that folder of the repository (whose replace of cqlgen, four
// folders up, holds at the same depth): a module that requires the v2
// driver, which cqlgen's own does not. What import wrote must generate
// with no warning, as cqlgen generate -strict needs.
func generateIn(t *testing.T, src []byte, module string) *gen.Result {
	t.Helper()
	dir, err := os.MkdirTemp("testdata", "roundtrip-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if module != "" {
		for _, f := range []string{"go.mod", "go.sum"} {
			b, err := os.ReadFile(filepath.Join(module, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "model.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(dir)
	res, err := gen.Generate(gen.Options{Dir: abs, Patterns: []string{"."}})
	if err != nil {
		if res != nil {
			for _, d := range res.Diags {
				t.Log(d)
			}
		}
		t.Fatalf("generate: %v\n%s", err, src)
	}
	// What a fresh import declares raises no warning: cqlgen generate
	// -strict passes on it.
	for _, d := range res.Diags {
		t.Errorf("generate -strict would fail on what import wrote: %s", d)
	}
	if len(res.Packages) != 1 || res.Packages[0].Files[gen.SchemaFile] == nil {
		t.Fatalf("generate made no schema.cql\n%s", src)
	}
	return res
}

// roundTrip imports a schema file, generates it again from the
// declarations, and compares the two schema files.
func roundTrip(t *testing.T, path string, noMerge bool) ([]TableResult, *Result) {
	t.Helper()
	script, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := schemadiff.Parse(string(script))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(orig, Options{Package: "model", Source: path, File: path, NoMerge: noMerge})
	if err != nil {
		t.Fatal(err)
	}
	regen := regenerate(t, res.Source)
	return Compare(orig, regen), res
}

// TestRoundTripFiles imports every schema the project ships and the
// published ones of testdata/published, generates them again and
// compares the schema files (TestImportRoundTrip in integration/ does the
// same through a node's system_schema): a schema cqlgen generated comes
// back identical or equivalent, and any other table that differs has a
// note that says why.
func TestRoundTripFiles(t *testing.T) {
	files, _ := filepath.Glob("../../example/*/schema.cql")
	golden, _ := filepath.Glob("../../gen/testdata/golden/*/schema.cql")
	files = append(files, golden...)
	models, _ := filepath.Glob("../../integration/*/schema.cql")
	files = append(files, models...)
	published, _ := filepath.Glob("testdata/published/*.cql")
	files = append(files, published...)
	for _, f := range files {
		for _, noMerge := range []bool{false, true} {
			name := strings.ReplaceAll(strings.TrimPrefix(f, "../../"), "/", "_")
			if noMerge {
				name += "_no-merge"
			}
			t.Run(name, func(t *testing.T) {
				rs, res := roundTrip(t, f, noMerge)
				shipped := !strings.Contains(f, "published")
				for _, r := range rs {
					noted := false
					for _, n := range res.Notes {
						noted = noted || (n.Table == r.Table && !n.Merge)
					}
					switch {
					case r.Verdict == Different && shipped:
						t.Errorf("%s, which cqlgen generated, does not come back: %v", r.Table, r.Diffs)
					case r.Verdict == Different && !noted:
						t.Errorf("%s differs, and the import gave no note: %v", r.Table, r.Diffs)
					case r.Verdict == Equivalent && noMerge && !shipped:
						// No table gains the write protocol's columns.
						t.Errorf("%s, which cqlgen did not generate, is only equivalent with -no-merge: %v", r.Table, r.Diffs)
					case r.Verdict != Identical:
						t.Logf("%s: %s %v", r.Table, r.Verdict, r.Diffs)
					}
				}
				merges := 0
				for _, n := range res.Notes {
					if n.Merge {
						merges++
					}
					t.Logf("note %s", n)
				}
				for _, e := range res.Entities {
					if e.Merged {
						merges--
					}
					if noMerge && len(e.Tables) > 1 {
						t.Errorf("-no-merge: entity %s is stored in %v", e.Name, e.Tables)
					}
				}
				if merges != 0 {
					t.Errorf("%d more merge notes than merged entities: %v", merges, res.Entities)
				}
				t.Logf("%+v", Count(rs))
			})
		}
	}
}
