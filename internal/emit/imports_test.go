package emit

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The emitters print what the model describes: a Go type is the model's
// GoType, and the questions about it are the model's answers. Importing
// go/types here would let them decide them again, apart from the model.
func TestNoGoTypes(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "go/types" {
				t.Errorf("%s imports go/types; ask the model instead (internal/model/answers.go, gotype.go)", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no source files read")
	}
}
