package integration

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/annref"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TestNearestScored runs the scored ANN reads on the node, through gocql
// v1, and on cqltest: each similarity function's score, with a partition
// key, with a SAI filter by equality and by CONTAINS, and scored by
// another function than the index orders by, against the reference
// computed in Go.
func TestNearestScored(t *testing.T) {
	onBoth(t, testmodel.Schema, func(t *testing.T, _ *gocql.Session, s cqlgen.Session) {
		annref.Check(t, testmodel.NewEmbeddingRepo(s))
	})
}

// TestKillrVideoSimilarity serves KillrVideo v5's similarity queries
// (killrvideo-data, examples/schema-v5-query-examples.cql: similar videos
// by content features, similar tags), which select
// similarity_cosine(column, vector) with each row: the generated reads
// return the nearest rows with Cassandra's score, and the score of each is
// the one plain gocql gets from the published query for that row.
func TestKillrVideoSimilarity(t *testing.T) {
	raw, s := repoSession(t, testmodel.Schema)
	ctx := context.Background()
	videos := testmodel.NewVideoRepo(s)
	var all []*testmodel.Video
	for i := range 12 {
		f := make([]float32, 16)
		for j := range f {
			f[j] = float32(math.Sin(float64(i*16+j))) + 1.5
		}
		v := &testmodel.Video{VideoID: gocql.TimeUUID(), Name: "video " + string(rune('a'+i)), Category: "Education", ContentFeatures: f}
		must(t, videos.Insert(ctx, v))
		all = append(all, v)
	}
	must(t, videos.Insert(ctx, &testmodel.Video{VideoID: gocql.TimeUUID(), Name: "no features yet"}))
	// The published query's vector.
	q := []float32{0.2, 0.3, 0.1, 0.4, 0.6, 0.2, 0.1, 0.5, 0.3, 0.7, 0.8, 0.1, 0.2, 0.3, 0.4, 0.5}
	got, err := videos.SimilarVideos(ctx, q, &testmodel.SimilarVideosOptions{Limit: 5})
	must(t, err)
	sort.Slice(all, func(i, j int) bool {
		return annref.Similarity("cosine", all[i].ContentFeatures, q) > annref.Similarity("cosine", all[j].ContentFeatures, q)
	})
	if len(got) != 5 {
		t.Fatalf("SimilarVideos, limit 5: %d rows", len(got))
	}
	for i, g := range got {
		if g.Row.VideoID != all[i].VideoID {
			t.Fatalf("SimilarVideos: row %d is %s, want %s", i, g.Row.Name, all[i].Name)
		}
		var published float32
		must(t, raw.Query(`SELECT similarity_cosine(content_features, [0.2, 0.3, 0.1, 0.4, 0.6, 0.2, 0.1, 0.5, 0.3, 0.7, 0.8, 0.1, 0.2, 0.3, 0.4, 0.5]) AS similarity FROM videos WHERE videoid = ?`, g.Row.VideoID).Scan(&published))
		if g.Score != published {
			t.Errorf("SimilarVideos: %s scored %v, the published query %v", g.Row.Name, g.Score, published)
		}
	}

	// Queries 5b and 5c score the same rows by euclidean and dot product:
	// two more reads through videos_content_features_idx, which orders by
	// cosine, each row's score the one the published query computes.
	for _, m := range []struct {
		fn   string
		read func() ([]cqlgen.Scored[testmodel.Video], error)
	}{
		{"euclidean", func() ([]cqlgen.Scored[testmodel.Video], error) {
			return videos.SimilarVideosEuclidean(ctx, q, &testmodel.SimilarVideosEuclideanOptions{Limit: 3})
		}},
		{"dot_product", func() ([]cqlgen.Scored[testmodel.Video], error) {
			return videos.SimilarVideosDotProduct(ctx, q, &testmodel.SimilarVideosDotProductOptions{Limit: 3})
		}},
	} {
		got, err := m.read()
		must(t, err)
		if len(got) != 3 {
			t.Fatalf("similarity_%s, limit 3: %d rows", m.fn, len(got))
		}
		for i, g := range got {
			if g.Row.VideoID != all[i].VideoID {
				t.Fatalf("similarity_%s: row %d is %s, want %s (the index orders by cosine)", m.fn, i, g.Row.Name, all[i].Name)
			}
			var published float32
			must(t, raw.Query(`SELECT similarity_`+m.fn+`(content_features, [0.2, 0.3, 0.1, 0.4, 0.6, 0.2, 0.1, 0.5, 0.3, 0.7, 0.8, 0.1, 0.2, 0.3, 0.4, 0.5]) FROM videos WHERE videoid = ?`, g.Row.VideoID).Scan(&published))
			if g.Score != published {
				t.Errorf("similarity_%s: %s scored %v, the published query %v", m.fn, g.Row.Name, g.Score, published)
			}
			if ref := annref.Similarity(m.fn, g.Row.ContentFeatures, q); math.Abs(float64(g.Score)-ref) > 1e-5 {
				t.Errorf("similarity_%s: %s scored %v, the reference in Go %v", m.fn, g.Row.Name, g.Score, ref)
			}
		}
	}

	tags := testmodel.NewTagRepo(s)
	for i, name := range []string{"cassandra", "databases", "cooking", "nosql", "baking", "java"} {
		v := make([]float32, 8)
		for j := range v {
			v[j] = float32(math.Cos(float64(i*8+j))) + 1.1
		}
		must(t, tags.Insert(ctx, &testmodel.Tag{Tag: name, TagVector: v, Category: "tech"}))
	}
	tq := []float32{0.8, 0.1, 0.3, 0.2, 0.7, 0.1, 0.5, 0.3}
	similar, err := tags.SimilarTags(ctx, tq, &testmodel.SimilarTagsOptions{Limit: 5})
	must(t, err)
	if len(similar) != 5 {
		t.Fatalf("SimilarTags, limit 5: %d rows", len(similar))
	}
	for i, g := range similar {
		ref := annref.Similarity("cosine", g.Row.TagVector, tq)
		if math.Abs(float64(g.Score)-ref) > 1e-6 || (i > 0 && g.Score > similar[i-1].Score) {
			t.Errorf("SimilarTags: %s scored %v (reference %v), after %v", g.Row.Tag, g.Score, ref, similar[max(i-1, 0)].Score)
		}
	}
}
