package integration

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// unit is a 384-float embedding pointing mostly along axis a, with a
// little of axis b: replies along one axis are near each other.
func unit(a, b int, w float64) []float32 {
	v := make([]float32, 384)
	v[a] = float32(math.Sqrt(1 - w*w))
	v[b] = float32(w)
	return v
}

// TestVectorSearch stores helpdesk canned replies with 384-float
// embeddings on the real node and searches them through the generated
// ANN read: the replies come back nearest first by cosine similarity,
// only the tenant's, at most the limit; the embedding read back is the
// one written, float for float; a reply without one is stored and never
// returned. A vector of the wrong length is refused before anything is
// sent, on write and on search, with an *cqlgen.InputError (ErrVectorDimension).
func TestVectorSearch(t *testing.T) {
	raw, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewCannedReplyRepo(s)
	replies := []*helpdesk.CannedReply{
		{Title: "refund", Embedding: unit(0, 1, 0.1)},
		{Title: "refund, partial", Embedding: unit(0, 2, 0.3)},
		{Title: "password reset", Embedding: unit(5, 6, 0.1)},
		{Title: "invoice copy", Embedding: unit(0, 9, 0.6)},
		{Title: "draft, no embedding yet"},
	}
	for _, r := range replies {
		r.OrgID, r.ReplyID, r.Body = "org", gocql.TimeUUID(), r.Title+"..."
		must(t, repo.Insert(ctx, r))
	}
	// Another tenant's reply, nearest of all: never in org's results.
	must(t, repo.Insert(ctx, &helpdesk.CannedReply{OrgID: "other", ReplyID: gocql.TimeUUID(), Title: "theirs", Embedding: unit(0, 1, 0)}))

	got, err := repo.SimilarReplies(ctx, "org", unit(0, 1, 0), &helpdesk.SimilarRepliesOptions{Limit: 3})
	must(t, err)
	var titles []string
	for _, r := range got {
		titles = append(titles, r.Title)
	}
	want := []string{"refund", "refund, partial", "invoice copy"}
	if len(titles) != len(want) {
		t.Fatalf("nearest: %q, want %q", titles, want)
	}
	for i := range want {
		if titles[i] != want[i] {
			t.Fatalf("nearest: %q, want %q", titles, want)
		}
	}
	all, err := repo.SimilarReplies(ctx, "org", unit(5, 6, 0), nil)
	must(t, err)
	if len(all) != 4 || all[0].Title != "password reset" {
		t.Errorf("nearest a password question, no limit given: %d replies, first %q", len(all), all[0].Title)
	}
	for _, r := range all {
		if r.Title == "draft, no embedding yet" {
			t.Error("a reply without an embedding was returned")
		}
	}

	// Read back float for float, through Get and with plain gocql.
	back, err := repo.Get(ctx, "org", replies[1].ReplyID)
	must(t, err)
	for i, f := range replies[1].Embedding {
		if back.Embedding[i] != f {
			t.Fatalf("embedding[%d] read back %v, written %v", i, back.Embedding[i], f)
		}
	}
	if draft, err := repo.Get(ctx, "org", replies[4].ReplyID); err != nil || draft.Embedding != nil {
		t.Errorf("the draft: %v, embedding %v; want none", err, draft)
	}
	var sim float32
	must(t, raw.Query("SELECT similarity_cosine(embedding, embedding) FROM canned_replies WHERE org_id = ? AND reply_id = ?", "org", replies[0].ReplyID).Scan(&sim))
	if math.Abs(float64(sim)-1) > 1e-6 {
		t.Errorf("the node computes a similarity of %v of the stored vector with itself, want 1", sim)
	}

	// The wrong dimension: refused, nothing sent.
	bad := &helpdesk.CannedReply{OrgID: "org", ReplyID: gocql.TimeUUID(), Title: "bad", Embedding: make([]float32, 383)}
	var de *cqlgen.InputError
	if err := repo.Insert(ctx, bad); !(errors.As(err, &de) && de.Err == cqlgen.ErrVectorDimension) || de.Reason != "the column holds vectors of 384 floats; this one has 383" || de.Name != "embedding" || !errors.Is(err, cqlgen.ErrVectorDimension) {
		t.Errorf("Insert of 383 floats: %v", err)
	}
	if _, err := repo.Get(ctx, "org", bad.ReplyID); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("the refused reply was written: %v", err)
	}
	if _, err := repo.SimilarReplies(ctx, "org", make([]float32, 3), nil); !(errors.As(err, &de) && de.Err == cqlgen.ErrVectorDimension) || !strings.HasSuffix(de.Reason, "this one has 3") {
		t.Errorf("search by 3 floats: %v", err)
	}
	var le *cqlgen.InputError
	if _, err := repo.SimilarReplies(ctx, "org", unit(0, 1, 0), &helpdesk.SimilarRepliesOptions{Limit: -1}); !(errors.As(err, &le) && le.Err == cqlgen.ErrInvalidLimit) {
		t.Errorf("a negative limit: %v", err)
	}
}
