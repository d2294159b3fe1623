package integration

import (
	"context"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/cqlgentest"
	"github.com/cqlgen/cqlgen/example/quickstart"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// docs/quickstart.md's last snippet, as a user writes it: cqlgentest's
// own defaults, the package's schema.cql applied to a keyspace of the
// test's own (the script's USE quickstart is replaced).
func TestQuickstartOnCassandra(t *testing.T) {
	t.Parallel()
	gs, ks := cqlgentest.Schema(t, "../example/quickstart/schema.cql")
	repo := quickstart.NewNoteRepo(gocqlv1.NewSession(gs, nil))
	ctx := context.Background()
	now := time.Now().Truncate(time.Millisecond)
	for i, id := range []string{"n1", "n2"} {
		must(t, repo.Insert(ctx, &quickstart.Note{UserID: "ada", CreatedAt: now.Add(time.Duration(i) * time.Second), NoteID: id, Text: "hello"}))
	}
	page, err := repo.NotesByUser(ctx, "ada", nil)
	must(t, err)
	if len(page.Rows) != 2 || page.Rows[0].NoteID != "n2" {
		t.Errorf("NotesByUser in %s: %+v, want n2 then n1", ks, page.Rows)
	}
	var n int
	must(t, gs.Query("SELECT count(*) FROM system_schema.tables WHERE keyspace_name = 'quickstart'").Scan(&n))
	if n != 0 {
		t.Errorf("the script's own keyspace quickstart has %d tables; the schema belongs in %s", n, ks)
	}
}
