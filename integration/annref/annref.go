// Package annref checks ANN reads that return Cassandra's score against a
// reference computed in Go, on whatever session (driver, node or
// cqltest) runs the repository: the integration suites of both drivers
// call Check.
package annref

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// Similarity is a similarity function as Cassandra 5.0 defines it,
// computed in float64: cosine (1+cos θ)/2, dot product (1+a·b)/2 and
// euclidean 1/(1+d²).
func Similarity(fn string, a, b []float32) float64 {
	var dot, na, nb, d2 float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot, na, nb, d2 = dot+x*y, na+x*x, nb+y*y, d2+(x-y)*(x-y)
	}
	switch fn {
	case "cosine":
		return (1 + dot/math.Sqrt(na*nb)) / 2
	case "dot_product":
		return (1 + dot) / 2
	case "euclidean":
		return 1 / (1 + d2)
	}
	panic("annref: no similarity function " + fn)
}

// vec is a random vector of 3 floats, of length 1 when unit (dot product
// compares unit vectors), never all zero.
func vec(r *rand.Rand, unit bool) []float32 {
	v := []float32{float32(r.Float64()*2 - 1), float32(r.Float64()*2 - 1), float32(r.Float64() + 0.1)}
	if unit {
		n := math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]))
		for i := range v {
			v[i] = float32(float64(v[i]) / n)
		}
	}
	return v
}

// Embeddings are the rows Check writes: 2 spaces of 24 rows, kinds a and
// b in turn, labels red (every third) and blue, and one row without
// vectors, which no ANN read returns.
func Embeddings() []*testmodel.Embedding {
	r := rand.New(rand.NewSource(37))
	var rows []*testmodel.Embedding
	for _, space := range []string{"s1", "s2"} {
		for i := range 24 {
			e := &testmodel.Embedding{Space: space, ID: int32(i), Kind: []string{"a", "b"}[i%2], Labels: []string{"blue"},
				Cos: vec(r, false), Dot: vec(r, true), Euc: vec(r, false), Mix: vec(r, false)}
			if i%3 == 0 {
				e.Labels = []string{"red"}
			}
			rows = append(rows, e)
		}
		rows = append(rows, &testmodel.Embedding{Space: space, ID: 99, Kind: "a", Labels: []string{"red", "blue"}})
	}
	return rows
}

// read is one scored read and its reference: the rows it may return, the
// vector it compares, and the functions it orders and scores by.
type read struct {
	name         string
	run          func(ctx context.Context, limit int) ([]cqlgen.Scored[testmodel.Embedding], error)
	match        func(e *testmodel.Embedding) bool
	col          func(e *testmodel.Embedding) []float32
	q            []float32
	order, score string
}

// Check writes Embeddings through repo and runs each scored read:
// within a space (cosine), within a space among a kind (dot product, a
// SAI filter by equality), over every space among a kind (euclidean), and
// within a space among a label (CONTAINS), ordered by cosine and scored by
// euclidean. Each returns the reference's nearest rows in its order, and
// each row's score is the reference function's value, within float32
// rounding.
func Check(t *testing.T, repo *testmodel.EmbeddingRepo) {
	t.Helper()
	ctx := context.Background()
	rows := Embeddings()
	for _, e := range rows {
		if err := repo.Insert(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	// A deleted row leaves a grave in the source of truth, which no read
	// returns.
	gone := rows[1]
	if err := repo.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	rows = slices.Delete(rows, 1, 2)
	r := rand.New(rand.NewSource(7))
	qc, qd, qe, qm := vec(r, false), vec(r, true), vec(r, false), vec(r, false)
	reads := []read{
		{"NearestCos", func(ctx context.Context, n int) ([]cqlgen.Scored[testmodel.Embedding], error) {
			return repo.NearestCos(ctx, "s1", qc, &testmodel.NearestCosOptions{Limit: n})
		}, func(e *testmodel.Embedding) bool { return e.Space == "s1" }, func(e *testmodel.Embedding) []float32 { return e.Cos }, qc, "cosine", "cosine"},
		{"NearestDot", func(ctx context.Context, n int) ([]cqlgen.Scored[testmodel.Embedding], error) {
			return repo.NearestDot(ctx, "s2", "b", qd, &testmodel.NearestDotOptions{Limit: n})
		}, func(e *testmodel.Embedding) bool { return e.Space == "s2" && e.Kind == "b" }, func(e *testmodel.Embedding) []float32 { return e.Dot }, qd, "dot_product", "dot_product"},
		{"NearestEuc", func(ctx context.Context, n int) ([]cqlgen.Scored[testmodel.Embedding], error) {
			return repo.NearestEuc(ctx, "a", qe, &testmodel.NearestEucOptions{Limit: n})
		}, func(e *testmodel.Embedding) bool { return e.Kind == "a" }, func(e *testmodel.Embedding) []float32 { return e.Euc }, qe, "euclidean", "euclidean"},
		{"NearestMix", func(ctx context.Context, n int) ([]cqlgen.Scored[testmodel.Embedding], error) {
			return repo.NearestMix(ctx, "s1", "red", qm, &testmodel.NearestMixOptions{Limit: n})
		}, func(e *testmodel.Embedding) bool { return e.Space == "s1" && slices.Contains(e.Labels, "red") }, func(e *testmodel.Embedding) []float32 { return e.Mix }, qm, "cosine", "euclidean"},
	}
	for _, rd := range reads {
		var want []*testmodel.Embedding
		for _, e := range rows {
			if rd.match(e) && rd.col(e) != nil {
				want = append(want, e)
			}
		}
		sort.SliceStable(want, func(i, j int) bool {
			return Similarity(rd.order, rd.col(want[i]), rd.q) > Similarity(rd.order, rd.col(want[j]), rd.q)
		})
		for _, limit := range []int{5, 100} {
			got, err := rd.run(ctx, limit)
			if err != nil {
				t.Fatalf("%s: %v", rd.name, err)
			}
			n := min(limit, len(want))
			if len(got) != n {
				t.Fatalf("%s, limit %d: %d rows, want %d", rd.name, limit, len(got), n)
			}
			for i, g := range got {
				w := want[i]
				if g.Row.Space != w.Space || g.Row.ID != w.ID {
					t.Fatalf("%s, limit %d: row %d is %s/%d, want %s/%d (%s)", rd.name, limit, i, g.Row.Space, g.Row.ID, w.Space, w.ID, ids(got))
				}
				ref := Similarity(rd.score, rd.col(w), rd.q)
				if math.Abs(float64(g.Score)-ref) > 1e-5*math.Max(1, math.Abs(ref)) {
					t.Errorf("%s: row %s/%d scored %v by %s, the reference %v", rd.name, w.Space, w.ID, g.Score, rd.score, ref)
				}
				if !slices.Equal(rd.col(&g.Row), rd.col(w)) {
					t.Errorf("%s: row %s/%d read back vector %v, written %v", rd.name, w.Space, w.ID, rd.col(&g.Row), rd.col(w))
				}
			}
		}
	}
}

func ids(rows []cqlgen.Scored[testmodel.Embedding]) string {
	s := ""
	for _, r := range rows {
		s += fmt.Sprintf(" %s/%d:%.4f", r.Row.Space, r.Row.ID, r.Score)
	}
	return s
}
