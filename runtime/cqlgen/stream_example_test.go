package cqlgen_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cqlgen/cqlgen/example/quickstart"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	_ "github.com/cqlgen/cqlgen/runtime/gocqlv1" // cqltest marshals with the driver's codec
)

// A stream over quickstart's NotesByUser, two rows a page: stopped after
// the third note, and resumed from its cursor for the rest.
func ExampleStream() {
	schema, err := os.ReadFile("../../example/quickstart/schema.cql")
	if err != nil {
		panic(err)
	}
	s, err := cqltest.New(string(schema)) // an in-memory Cassandra
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	notes := quickstart.NewNoteRepo(s)
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i, text := range []string{"first", "second", "third", "fourth", "fifth"} {
		if err := notes.Insert(ctx, &quickstart.Note{UserID: "ada", CreatedAt: day.AddDate(0, 0, -i), NoteID: fmt.Sprint(i), Text: text}); err != nil {
			panic(err)
		}
	}
	read := func(ctx context.Context, cursor string) (cqlgen.Page[quickstart.Note], error) {
		return notes.NotesByUser(ctx, "ada", &quickstart.NotesByUserOptions{Limit: 2, Cursor: cursor})
	}

	rows, cursor := cqlgen.Stream(ctx, "", read)
	for n, err := range rows {
		if err != nil {
			panic(err)
		}
		fmt.Println(n.Text)
		if n.Text == "third" {
			break
		}
	}
	saved := cursor() // mid-page: the page held "third" and "fourth"

	rest, _ := cqlgen.Stream(ctx, saved, read)
	for n, err := range rest {
		if err != nil {
			panic(err)
		}
		fmt.Println("then", n.Text)
	}
	// Output:
	// first
	// second
	// third
	// then fourth
	// then fifth
}
