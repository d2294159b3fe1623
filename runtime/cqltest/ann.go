package cqltest

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

// ANN queries: SELECT ..., similarity_f(column, ?) FROM t [WHERE ...]
// ORDER BY column ANN OF ? LIMIT ?, as Cassandra 5.0's storage-attached
// vector index answers them, computed exactly over the rows the WHERE
// clause selects (Cassandra's graph search is approximate; on the few
// rows a test holds it finds the same ones).

// similarities are the selectable similarity functions, by name.
var similarities = map[string]string{
	"similarity_cosine":      "cosine",
	"similarity_dot_product": "dot_product",
	"similarity_euclidean":   "euclidean",
}

var floatType = (&cqlType{kind: cqldriver.TypeFloat, name: "float"}).complete()

// annOrder is ORDER BY col ANN OF vec.
type annOrder struct {
	col *column
	vec term
}

// skipTerm passes over a term whose type is not known yet: a marker, a
// literal, or a bracketed vector literal.
func skipTerm(p *parser) error {
	if p.punct("[") {
		for !p.punct("]") {
			if p.next().kind == tEOF {
				return p.errorf("expecting ']'")
			}
		}
		return nil
	}
	p.punct("-")
	switch t := p.next(); t.kind {
	case tMark, tString, tNumber, tIdent:
		return nil
	}
	p.i--
	return p.errorf("expecting a vector")
}

// similaritySelector completes s, similarity_f(column, term at arg): the
// column is a float vector and the term one of its type.
func similaritySelector(p *parser, st *prepared, s selector, arg int) (selector, error) {
	c := s.col
	if c.typ.dims == 0 {
		return s, invalidf("Function system.%s requires a float vector argument, but found argument %s of type %s", s.fn, c.name, c.typ.name)
	}
	save := p.i
	p.i = arg
	t, err := parseTerm(p, st, c.typ, c.name)
	p.i = save
	if err != nil {
		return s, err
	}
	s.arg, s.name, s.typ = t, "system."+s.fn+"("+c.name+", ?)", floatType
	return s, nil
}

// parseANN reads the rest of ORDER BY: column ANN OF vector.
func parseANN(p *parser, st *prepared) error {
	c, err := p.column(st.table)
	if err != nil {
		return err
	}
	if !p.keywords("ann", "of") {
		return unsupportedf("ORDER BY in a SELECT, but for ORDER BY column ANN OF ?")
	}
	if c.typ.dims == 0 || !st.table.indexed[c] {
		return invalidf("ANN ordering by vector requires the column to be indexed using 'StorageAttachedIndex'")
	}
	t, err := parseTerm(p, st, c.typ, c.name)
	if err != nil {
		return err
	}
	st.ann = &annOrder{col: c, vec: t}
	return nil
}

// checkANN checks what an ANN query needs, and that a similarity function
// is selected only in one.
func (st *prepared) checkANN() error {
	if st.ann == nil {
		for _, s := range st.sel {
			if _, sim := similarities[s.fn]; sim {
				return unsupportedf("%s() outside an ANN query (ORDER BY column ANN OF ?)", s.fn)
			}
		}
		return nil
	}
	if st.limit == nil {
		return invalidf("SAI based ORDER BY clause requires a LIMIT that is not greater than 1000. LIMIT was NO LIMIT")
	}
	if st.perPartition != nil {
		return unsupportedf("PER PARTITION LIMIT in an ANN query")
	}
	return nil
}

// floats decodes a vector's value; ok is false for a null one.
func floats(b []byte) ([]float32, bool) {
	if b == nil {
		return nil, false
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.BigEndian.Uint32(b[4*i:]))
	}
	return v, true
}

// similarity is Cassandra 5.0's similarity function fn of a and b:
// cosine (1+cos)/2, dot product (1+a·b)/2, euclidean 1/(1+d²), computed
// in float32 as Cassandra's VectorSimilarityFunction does.
func similarity(fn string, a, b []float32) float32 {
	var dot, na, nb, d2 float32
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
		d2 += (a[i] - b[i]) * (a[i] - b[i])
	}
	switch fn {
	case "dot_product":
		return (1 + dot) / 2
	case "euclidean":
		return 1 / (1 + d2)
	}
	return (1 + dot/float32(math.Sqrt(float64(na*nb)))) / 2
}

// vectorArg resolves a vector bound to an ANN query; cosine refuses an
// all-zero one, as Cassandra does.
func vectorArg(t term, vals []value, fn string) ([]float32, error) {
	v := t.get(vals)
	if v.unset || v.b == nil {
		return nil, invalidf("Invalid null or unset value for a vector in an ANN query")
	}
	f, _ := floats(v.b)
	if fn == "cosine" {
		zero := true
		for _, x := range f {
			zero = zero && x == 0
		}
		if zero {
			return nil, invalidf("Function system.similarity_cosine doesn't support all-zero vectors.")
		}
	}
	return f, nil
}

// annPage runs an ANN query: the live rows the WHERE clause selects (one
// partition, or every one) that have a vector, nearest the bound one by
// the index's similarity function, up to LIMIT, in one page, each with
// the similarity functions selected.
func (st *prepared) annPage(vals []value, now int64) (*result, error) {
	t := st.table
	res := &result{}
	for _, s := range st.sel {
		res.cols = append(res.cols, resultColumn{s.name, s.typ})
	}
	fn := t.similarity[st.ann.col]
	if fn == "" {
		fn = "cosine"
	}
	q, err := vectorArg(st.ann.vec, vals, fn)
	if err != nil {
		return nil, err
	}
	args := make([][]float32, len(st.sel))
	for i, s := range st.sel {
		if f, sim := similarities[s.fn]; sim {
			if args[i], err = vectorArg(s.arg, vals, f); err != nil {
				return nil, err
			}
		}
	}
	limit, err := limitOf(st.limit, vals)
	if err != nil {
		return nil, err
	}
	fv, err := st.filterValues(vals)
	if err != nil {
		return nil, err
	}
	parts := t.ring
	if !st.scan {
		pk, _, err := key(st, vals)
		if err != nil {
			return nil, err
		}
		parts = nil
		if p := t.partition(pk, false); p != nil {
			parts = append(parts, p)
		}
	}
	type hit struct {
		p   *partition
		r   *row
		del int64
		sim float32
	}
	var hits []hit
	for _, p := range parts {
		for _, r := range p.rows {
			del := p.deletion(t, r)
			if !r.live(del, now) || !st.passes(p, r, fv, now) {
				continue
			}
			b, _ := r.value(st.ann.col, del, now)
			if v, ok := floats(b); ok {
				hits = append(hits, hit{p, r, del, similarity(fn, v, q)})
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].sim > hits[j].sim })
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	for _, h := range hits {
		row := st.project(h.p, h.r, h.del, now)
		for i, s := range st.sel {
			if args[i] == nil {
				continue
			}
			v, ok := floats(row[i])
			row[i] = nil
			if ok {
				row[i] = binary.BigEndian.AppendUint32(nil, math.Float32bits(similarity(similarities[s.fn], v, args[i])))
			}
		}
		res.rows = append(res.rows, row)
	}
	return res, nil
}
