package quickstart_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/quickstart"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1" // the driver's codec, which cqltest marshals with
)

// docs/quickstart.md shows this package's model as it is: only the
// package clause and its comment differ.
func TestQuickstartDocShowsTheModel(t *testing.T) {
	doc, err := os.ReadFile("../../docs/quickstart.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("quickstart.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```go\n(package notes\n.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/quickstart.md has no ```go block starting with package notes")
	}
	code := string(src)
	code = code[strings.Index(code, "package quickstart"):]
	code = strings.Replace(code, "package quickstart", "package notes", 1)
	if string(m[1]) != code {
		t.Errorf("docs/quickstart.md shows\n%s\nbut quickstart.go is\n%s", m[1], code)
	}
}

// Step 5's first snippet: the repository on the in-memory Cassandra.
func TestQuickstartInMemory(t *testing.T) {
	schema, err := os.ReadFile("schema.cql")
	if err != nil {
		t.Fatal(err)
	}
	s, err := cqltest.New(string(schema))
	if err != nil {
		t.Fatal(err)
	}
	repo := quickstart.NewNoteRepo(s)
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	for i, id := range []string{"n1", "n2", "n3"} {
		if err := repo.Insert(ctx, &quickstart.Note{UserID: "ada", CreatedAt: now.Add(time.Duration(i) * time.Second), NoteID: id, Text: "note " + id}); err != nil {
			t.Fatal(err)
		}
	}
	page, err := repo.NotesByUser(ctx, "ada", &quickstart.NotesByUserOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Rows) != 2 || page.Rows[0].NoteID != "n3" || page.Rows[1].NoteID != "n2" || page.Cursor == "" {
		t.Fatalf("first page %+v, cursor %q; want n3, n2 and a cursor", page.Rows, page.Cursor)
	}
	page, err = repo.NotesByUser(ctx, "ada", &quickstart.NotesByUserOptions{Limit: 2, Cursor: page.Cursor})
	if err != nil || len(page.Rows) != 1 || page.Rows[0].NoteID != "n1" {
		t.Fatalf("second page %+v, %v; want n1", page.Rows, err)
	}
}
