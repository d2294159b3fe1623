package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlscript"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// A stream whose connection is cut mid-stream, for good (the proxy
// closed: no attempt can reconnect), yields the read's error once and
// ends; the cursor is after the last row yielded, and a stream from it
// on a healthy session gives exactly the rest.
func TestStreamYieldsACutConnection(t *testing.T) {
	direct, ks := cassandratest.Keyspace(t)
	for _, st := range cqlscript.Split(testmodel.Schema) {
		if strings.Contains(st.Text, "CREATE TABLE IF NOT EXISTS notes ") {
			cassandratest.MustApplyCQL(t, direct, st.Text)
		}
	}
	ctx := ctxTimeout(t, 2*time.Minute)
	healthy := testmodel.NewNoteRepo(gocqlv1.NewSession(direct, nil))
	at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for i := range 120 {
		if err := healthy.Insert(ctx, &testmodel.Note{Space: "s", At: at.Add(time.Duration(i) * time.Second), Seq: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	read := func(repo *testmodel.NoteRepo) func(context.Context, string) (cqlgen.Page[testmodel.Note], error) {
		return func(ctx context.Context, c string) (cqlgen.Page[testmodel.Note], error) {
			return repo.Notes(ctx, "s", &testmodel.NotesOptions{Limit: 30, Cursor: c})
		}
	}
	var want []int64
	all, _ := cqlgen.Stream(ctx, "", read(healthy))
	for n, err := range all {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, n.Seq)
	}
	if len(want) != 120 {
		t.Fatalf("%d notes, want 120", len(want))
	}

	p := startProxy(t, cassandratest.Hosts(t)[0])
	var failed failures
	cut := testmodel.NewNoteRepo(gocqlv1.NewSession(proxied(t, ks, p), &cqlgen.SessionOptions{MaxAttempts: 2, BaseDelay: 20 * time.Millisecond, Observer: &failed}))
	rows, cursor := cqlgen.Stream(ctx, "", read(cut))
	var got []int64
	var errs []error
	for n, err := range rows {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if got = append(got, n.Seq); len(got) == 45 {
			p.close() // mid-page: the next page's read finds no connection
		}
	}
	if len(errs) != 1 || len(got) != 60 {
		t.Fatalf("cut after 45 rows (pages of 30): %d rows, errors %v; want 60 rows and one error", len(got), errs)
	}
	t.Logf("the cut, yielded: %v", errs[0])
	if errors.Is(errs[0], context.Canceled) || errors.Is(errs[0], context.DeadlineExceeded) {
		t.Errorf("the error is the context's, not the cut's: %v", errs[0])
	}
	rest, _ := cqlgen.Stream(ctx, cursor(), read(healthy))
	for n, err := range rest {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n.Seq)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("resumed on a healthy session after the cut: %d rows, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
}
