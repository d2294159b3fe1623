package gen_test

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/gen"
	"github.com/cqlgen/cqlgen/internal/emit/review"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/pipeline"
)

// mermaidNode is a node of a review diagram as the test reads it back.
type mermaidNode struct {
	shape, label string
	diagram      int
}

// mermaidDiagram is what the test reads back from one Mermaid block.
type mermaidDiagram struct {
	nodes   map[string]*mermaidNode
	edges   map[string]string // "from->to" to its label ("" for a solid one)
	classes map[string]map[string]bool
}

// Every line of a review diagram has one of these forms, which Mermaid's
// flowchart grammar reads; a label is quoted and holds no quote.
var (
	ident          = `[A-Za-z][A-Za-z0-9_]*`
	label          = `"([^"]*)"`
	reInit         = regexp.MustCompile(`^%%\{init: \{"flowchart": \{"wrappingWidth": \d+\}\}\}%%$`)
	reClassDef     = regexp.MustCompile(`^  classDef (` + ident + `) [a-z-]+:[^ ,]+( [^ ,]+)*$`)
	reSubgraph     = regexp.MustCompile(`^  subgraph (` + ident + `)\[` + label + `\]$`)
	reTableNode    = regexp.MustCompile(`^    (` + ident + `)\[` + label + `\]$`)
	reIndexNode    = regexp.MustCompile(`^    (` + ident + `)\{\{` + label + `\}\}$`)
	rePattern      = regexp.MustCompile(`^    (` + ident + `)\(\[` + label + `\]\)$`)
	reDottedEdge   = regexp.MustCompile(`^  (` + ident + `) -\. ([a-z ]+) \.-> (` + ident + `)$`)
	reSolidEdge    = regexp.MustCompile(`^  (` + ident + `) --> (` + ident + `)$`)
	reClass        = regexp.MustCompile(`^  class (` + ident + `(?:,` + ident + `)*) (` + ident + `)$`)
	reLabelTag     = regexp.MustCompile(`<(/?)([a-z]+)/?>`)
	reMermaidBlock = regexp.MustCompile("(?s)```mermaid\n(.*?)```")
)

// parseDiagrams reads back the Mermaid blocks of a review page, failing on
// any line that is not one of the forms above, on an unbalanced subgraph
// or HTML tag, and on an edge or class that names no node.
func parseDiagrams(t *testing.T, page string) []*mermaidDiagram {
	t.Helper()
	var ds []*mermaidDiagram
	for i, m := range reMermaidBlock.FindAllStringSubmatch(page, -1) {
		d := &mermaidDiagram{nodes: map[string]*mermaidNode{}, edges: map[string]string{}, classes: map[string]map[string]bool{}}
		lines := strings.Split(strings.TrimSuffix(m[1], "\n"), "\n")
		if len(lines) < 2 || !reInit.MatchString(lines[0]) || lines[1] != "flowchart LR" {
			t.Errorf("diagram %d does not open with the init directive and flowchart LR:\n%s", i, m[1])
			continue
		}
		defined := map[string]bool{}
		var uses [][2]string // node, what uses it
		depth := 0
		node := func(id, shape, lbl string) {
			if d.nodes[id] != nil {
				t.Errorf("diagram %d: node %s declared twice", i, id)
			}
			checkLabel(t, id, lbl)
			d.nodes[id] = &mermaidNode{shape: shape, label: lbl, diagram: i}
		}
		for _, l := range lines[2:] {
			switch {
			case reClassDef.MatchString(l):
				defined[reClassDef.FindStringSubmatch(l)[1]] = true
			case reSubgraph.MatchString(l):
				depth++
			case l == "    direction LR" && depth == 1:
			case l == "  end":
				depth--
			case reTableNode.MatchString(l) && depth == 1:
				s := reTableNode.FindStringSubmatch(l)
				node(s[1], "table", s[2])
			case reIndexNode.MatchString(l) && depth == 1:
				s := reIndexNode.FindStringSubmatch(l)
				node(s[1], "index", s[2])
			case rePattern.MatchString(l) && depth == 1:
				s := rePattern.FindStringSubmatch(l)
				node(s[1], "pattern", s[2])
			case reDottedEdge.MatchString(l):
				s := reDottedEdge.FindStringSubmatch(l)
				d.edges[s[1]+"->"+s[3]] = s[2]
				uses = append(uses, [2]string{s[1], l}, [2]string{s[3], l})
			case reSolidEdge.MatchString(l):
				s := reSolidEdge.FindStringSubmatch(l)
				d.edges[s[1]+"->"+s[2]] = ""
				uses = append(uses, [2]string{s[1], l}, [2]string{s[2], l})
			case reClass.MatchString(l):
				s := reClass.FindStringSubmatch(l)
				if !defined[s[2]] {
					t.Errorf("diagram %d: class %s has no classDef", i, s[2])
				}
				d.classes[s[2]] = map[string]bool{}
				for _, id := range strings.Split(s[1], ",") {
					d.classes[s[2]][id] = true
					uses = append(uses, [2]string{id, l})
				}
			default:
				t.Errorf("diagram %d: line %q is none of the forms the review page writes", i, l)
			}
			if depth < 0 || depth > 1 {
				t.Errorf("diagram %d: subgraphs unbalanced at %q", i, l)
			}
		}
		if depth != 0 {
			t.Errorf("diagram %d: a subgraph is not closed", i)
		}
		for _, u := range uses {
			if d.nodes[u[0]] == nil {
				t.Errorf("diagram %d: %q names %s, which is declared nowhere", i, u[1], u[0])
			}
		}
		ds = append(ds, d)
	}
	return ds
}

// checkLabel fails on a label whose HTML tags do not pair up, or that
// holds a tag the review page does not write, a bare < or >, or a
// Mermaid entity code other than the escapes mermaidText writes.
func checkLabel(t *testing.T, id, lbl string) {
	t.Helper()
	var open []string
	for _, m := range reLabelTag.FindAllStringSubmatch(lbl, -1) {
		closing, tag := m[1] == "/", m[2]
		switch {
		case tag == "br" || tag == "hr":
		case tag != "b" && tag != "i":
			t.Errorf("%s: tag <%s> in label %q", id, tag, lbl)
		case !closing:
			open = append(open, tag)
		case len(open) == 0 || open[len(open)-1] != tag:
			t.Errorf("%s: </%s> closes nothing in label %q", id, tag, lbl)
		default:
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		t.Errorf("%s: <%s> not closed in label %q", id, open[0], lbl)
	}
	if rest := reLabelTag.ReplaceAllString(lbl, ""); strings.ContainsAny(rest, "<>") {
		t.Errorf("%s: a bare < or > in label %q", id, lbl)
	}
	if rest := strings.NewReplacer("#quot;", "", "#35;", "").Replace(lbl); strings.Contains(rest, "#") {
		t.Errorf("%s: an unescaped # in label %q", id, lbl)
	}
}

// keyWords is a table's full primary key as the review page should
// write it on its access pattern, built here from the model.
func keyWords(tb *model.Table) string {
	var pk, ck []string
	for _, c := range tb.Columns {
		switch {
		case c.Kind == model.PartitionKey && c.Bucket != nil:
			pk = append(pk, c.Name+" = "+c.Bucket.Expr())
		case c.Kind == model.PartitionKey:
			pk = append(pk, c.Name)
		case c.Kind == model.Clustering && c.Desc:
			ck = append(ck, ", "+c.Name+" ↓")
		case c.Kind == model.Clustering:
			ck = append(ck, ", "+c.Name+" ↑")
		}
	}
	return "key ((" + strings.Join(pk, ", ") + ")" + strings.Join(ck, "") + ")"
}

// TestReviewDiagrams reads back the diagrams of every review page cqlgen
// writes, the examples' and the golden cases', and checks them against
// the model: every table is drawn once, its key columns set apart in bold
// with their kind and order, its TTL, bucket and verdict on it, what it
// is (source of truth, unique, counter, sparse, deprecated) said and
// styled; every access pattern carries the table's full key and points
// at its table, every index pattern at its index and the index at its
// table; and a package of more than review.DiagramLimit tables and indexes
// is drawn one entity a diagram.
func TestReviewDiagrams(t *testing.T) {
	patterns := []string{"../example/..."}
	for _, n := range cases(t) {
		patterns = append(patterns, "./"+filepath.ToSlash(filepath.Join(goldenDir, n)))
	}
	res, err := pipeline.Generate(pipeline.Options{Patterns: patterns})
	if err != nil && !errors.Is(err, pipeline.ErrModel) {
		t.Fatal(err)
	}
	res.Packages = append(res.Packages, generateModuleCases(t)...)
	seen := map[string]int{} // what the checked pages covered
	for _, p := range res.Packages {
		page := string(p.Files[gen.ReviewFile])
		if page == "" {
			continue
		}
		t.Run(filepath.Base(p.Dir), func(t *testing.T) {
			ds := parseDiagrams(t, page)
			nodes, filters, shared := 0, 0, 0
			for _, e := range p.Model.Entities {
				nodes += len(e.Tables)
				for _, ix := range e.Indexes {
					if ix.On != nil && ix.Declares() {
						nodes++
					}
				}
			}
			split := nodes > review.DiagramLimit
			if !split && len(ds) != 1 || split && len(ds) != len(p.Model.Entities) {
				t.Fatalf("%d tables and indexes in %d entities drawn in %d diagrams", nodes, len(p.Model.Entities), len(ds))
			}
			if split {
				seen["split"]++
			}
			// What docs/grammar.md says of the examples.
			if name := filepath.Base(p.Dir); name == "music" && split || name == "helpdesk" && !split {
				t.Errorf("%s: split %v, the docs say otherwise", name, split)
			}
			find := func(id string) (*mermaidDiagram, *mermaidNode) {
				var d *mermaidDiagram
				var n *mermaidNode
				for _, dd := range ds {
					if dd.nodes[id] != nil {
						if n != nil {
							t.Errorf("%s drawn in two diagrams", id)
						}
						d, n = dd, dd.nodes[id]
					}
				}
				return d, n
			}
			for ei, e := range p.Model.Entities {
				for _, tb := range e.Tables {
					d, n := find("t_" + tb.Name)
					if n == nil || n.shape != "table" {
						t.Errorf("table %s is not drawn as a table", tb.Name)
						continue
					}
					if split && n.diagram != ei {
						t.Errorf("table %s drawn in diagram %d, not its entity's (%d)", tb.Name, n.diagram, ei)
					}
					checkTableNode(t, tb, n.label, seen)
					if d.classes["deprecated"]["t_"+tb.Name] != tb.Deprecated || d.classes["deprecated"]["q_t_"+tb.Name] != tb.Deprecated {
						t.Errorf("%s: deprecated %v, but its node and pattern are styled otherwise", tb.Name, tb.Deprecated)
					}
					if tb.ReplacedBy != nil && d.edges["t_"+tb.Name+"->t_"+tb.ReplacedBy.Name] != "replaced by" {
						t.Errorf("%s: no replaced by arrow to %s", tb.Name, tb.ReplacedBy.Name)
					}
					if tb != e.Canonical {
						want := "write"
						switch {
						case tb.Unique:
							want = "claim"
						case tb.Sparse():
							want = "write if where"
						}
						if got := d.edges["t_"+e.Canonical.Name+"->t_"+tb.Name]; got != want {
							t.Errorf("fan-out %s -> %s labelled %q, want %q", e.Canonical.Name, tb.Name, got, want)
						}
					} else if len(e.Tables) > 1 && !d.classes["canonical"]["t_"+tb.Name] {
						t.Errorf("%s: the source of truth is not styled as one", tb.Name)
					}
					_, q := find("q_t_" + tb.Name)
					if read, ok := d.edges["q_t_"+tb.Name+"->t_"+tb.Name]; q == nil || q.shape != "pattern" || !ok || read != "" {
						t.Errorf("%s: no access pattern points at it", tb.Name)
						continue
					}
					if !strings.Contains(q.label, "<br/>"+keyWords(tb)) {
						t.Errorf("%s: pattern %q lacks the full key %q", tb.Name, q.label, keyWords(tb))
					}
					seen["patterns"]++
				}
				for _, ix := range e.Indexes {
					if ix.On == nil {
						continue
					}
					if !ix.Declares() {
						// Another read through an index drawn once: a
						// pattern alone, with an arrow to the index.
						shared++
						q := "q_ix_" + ix.Name + "_" + ix.Method
						d, n := find(q)
						if n == nil {
							t.Errorf("read %s through index %s is not drawn", ix.Method, ix.Name)
							continue
						}
						if _, ok := d.edges[q+"->ix_"+ix.Name]; !ok || !strings.Contains(n.label, ix.Method) {
							t.Errorf("read %s through index %s: no access pattern points at the index", ix.Method, ix.Name)
						}
						seen["shared reads"]++
						continue
					}
					d, n := find("ix_" + ix.Name)
					if n == nil || n.shape != "index" || !strings.Contains(n.label, "<b>"+ix.Name+"</b> · index") {
						t.Errorf("index %s is not drawn as an index", ix.Name)
						continue
					}
					if _, ok := d.edges["ix_"+ix.Name+"->t_"+ix.On.Name]; !ok {
						t.Errorf("index %s does not point at its table %s", ix.Name, ix.On.Name)
					}
					if _, ok := d.edges["q_ix_"+ix.Name+"->ix_"+ix.Name]; !ok || !strings.Contains(d.nodes["q_ix_"+ix.Name].label, htmlText(ix.Condition())) {
						t.Errorf("index %s: no access pattern with its condition points at it", ix.Name)
					}
					seen["indexes"]++
				}
				// A filter is a pattern alone, with an arrow to each
				// index it goes through.
				for _, f := range e.Filters {
					filters++
					d, n := find("q_f_" + f.Method)
					if n == nil || !strings.Contains(n.label, htmlText(f.Condition())) {
						t.Errorf("filter %s is not drawn with its condition", f.Method)
						continue
					}
					for _, c := range f.Conds {
						if _, ok := d.edges["q_f_"+f.Method+"->ix_"+c.Index.Name]; !ok {
							t.Errorf("filter %s does not point at index %s", f.Method, c.Index.Name)
						}
					}
					seen["filters"]++
				}
			}
			count := 0
			for _, d := range ds {
				count += len(d.nodes)
			}
			if want := 2*nodes + filters + shared; count != want {
				t.Errorf("%d nodes drawn, want %d: one a table or index and one its pattern, and one a filter or another read through an index", count, want)
			}
		})
	}
	// The cases must have exercised every kind the page draws.
	for _, k := range []string{"split", "patterns", "indexes", "filters", "shared reads", "deprecated", "unique", "counter", "sparse", "bucket", "ttl", "static", "silenced"} {
		if seen[k] == 0 {
			t.Errorf("no review page drew a %s; the cases did not load", k)
		}
	}
}

// checkTableNode checks a table's label: its head (name, what it is, TTL,
// bucket, verdict), then its key columns alone in the second section, in
// bold with their markers, then every other column.
func checkTableNode(t *testing.T, tb *model.Table, lbl string, seen map[string]int) {
	t.Helper()
	sections := strings.Split(lbl, "<hr/>")
	if len(sections) < 2 || len(sections) > 3 {
		t.Errorf("%s: %d sections in %q, want head, key and other columns", tb.Name, len(sections), lbl)
		return
	}
	head := sections[0]
	var wantKey, wantRest []string
	for _, c := range tb.Columns {
		line := c.Name + " " + htmlText(c.Type.String())
		switch {
		case c.Kind == model.PartitionKey:
			wantKey = append(wantKey, "<b>"+line+" K</b>")
		case c.Kind == model.Clustering && c.Desc:
			wantKey = append(wantKey, "<b>"+line+" C↓</b>")
		case c.Kind == model.Clustering:
			wantKey = append(wantKey, "<b>"+line+" C↑</b>")
		case c.Kind == model.Static:
			wantRest = append(wantRest, line+" S")
			seen["static"]++
		case c.Kind == model.Regular:
			wantRest = append(wantRest, line)
		default:
			wantRest = append(wantRest, "<i>"+line+"</i>")
		}
	}
	if got := strings.Join(wantKey, "<br/>"); sections[1] != got {
		t.Errorf("%s: key section %q, want %q", tb.Name, sections[1], got)
	}
	rest := ""
	if len(sections) == 3 {
		rest = sections[2]
	}
	if got := strings.Join(wantRest, "<br/>"); rest != got {
		t.Errorf("%s: other columns %q, want %q", tb.Name, rest, got)
	}
	want := []string{"<b>" + tb.Name + "</b>"}
	ttl := "no TTL"
	if tb.TTL > 0 {
		ttl = "TTL " + model.HumanDuration(tb.TTL)
		seen["ttl"]++
	}
	want = append(want, ttl)
	if b := tb.Bucket; b != nil {
		want = append(want, b.Column+" = "+b.Expr())
		seen["bucket"]++
	} else {
		want = append(want, "no bucket")
	}
	if tb.Deprecated {
		what := "DEPRECATED, no replacement"
		if tb.ReplacedBy != nil {
			what = "DEPRECATED, replaced by " + tb.ReplacedBy.Name
		}
		want = append(want, what)
		seen["deprecated"]++
	}
	switch {
	case tb.HasCounters():
		want = append(want, "· counter table")
		seen["counter"]++
	case tb == tb.Entity.Canonical && len(tb.Entity.Tables) > 1:
		want = append(want, "· source of truth")
	case tb.Unique:
		want = append(want, "· unique key")
		seen["unique"]++
	}
	if tb.Sparse() {
		want = append(want, "· sparse")
		if !strings.Contains(unescapeLabel(head), "only where "+tb.WhereWords()) {
			t.Errorf("%s: head %q lacks its predicate %q", tb.Name, head, tb.WhereWords())
		}
		seen["sparse"]++
	}
	verdicts := strings.Count(head, "✅") + strings.Count(head, "⚠️") + strings.Count(head, "❌") + strings.Count(head, "🔇")
	if verdicts == 0 {
		t.Errorf("%s: no verdict in %q", tb.Name, head)
	}
	if strings.Contains(head, "🔇") {
		seen["silenced"]++
	}
	for _, w := range want {
		if !strings.Contains(head, w) {
			t.Errorf("%s: head %q lacks %q", tb.Name, head, w)
		}
	}
}

// htmlText escapes < and > as a label's HTML needs.
var htmlText = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace

// unescapeLabel reads back the text of a label as Mermaid shows it: its
// entity codes and HTML escapes replaced by what they stand for.
var unescapeLabel = strings.NewReplacer("#quot;", `"`, "#35;", "#", "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace
