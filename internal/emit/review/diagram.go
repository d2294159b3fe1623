package review

import (
	"fmt"
	"strings"

	"github.com/cqlgen/cqlgen/internal/model"
)

// DiagramLimit is the most tables and indexes one diagram of the review
// page shows. Beyond it, a package gets one diagram per entity: a Mermaid
// flowchart of more nodes is scaled down to fit the page until its labels
// cannot be read. No edge of the diagram crosses from one entity to
// another, so the split loses nothing.
const DiagramLimit = 8

// reviewDiagram is one Mermaid flowchart of the review page: the whole
// package's, or one entity's when the package is large.
type reviewDiagram struct {
	Heading string // the entity's name; empty for the package's one diagram
	Groups  []reviewGroup
	Edges   []reviewEdge
	Classes []reviewClass
}

// reviewGroup is an entity's subgraph: its tables and indexes, and its
// access patterns. The patterns are drawn inside it, left to right, so
// that each stands before its table rather than above or below the
// entity, with its arrow across the others.
type reviewGroup struct {
	ID, Name string
	Nodes    []reviewNode
	Patterns []reviewPattern
}

// reviewNode is a table (a rectangle) or an index (a hexagon).
type reviewNode struct{ ID, Open, Label, Close string }

// reviewPattern is an access pattern; an edge points it at the table or
// index that serves it.
type reviewPattern struct{ ID, Label string }

// reviewEdge is an edge between two nodes: solid for a read, dotted for
// the writes of the fan-out and for a replacement.
type reviewEdge struct {
	From, Label, To string
	Dotted          bool
}

// reviewClass styles some nodes: the sources of truth, the deprecated.
type reviewClass struct{ Name, Style, IDs string }

// diagramNodes counts the package's tables and indexes: the review page
// draws one Mermaid diagram for the package, or one per entity when it
// has more than DiagramLimit.
func diagramNodes(p *model.Package) int {
	nodes := 0
	for _, e := range p.Entities {
		nodes += len(e.Tables)
		for _, ix := range e.ReadIndexes() {
			if ix.Declares() {
				nodes++
			}
		}
	}
	return nodes
}

// diagram draws the entities' tables, indexes and access patterns.
func diagram(heading string, entities []*model.Entity, verdicts map[*model.Table][]model.Verdict) reviewDiagram {
	d := reviewDiagram{Heading: heading}
	var canonical, deprecated []string
	var writes []reviewEdge
	for _, e := range entities {
		g := reviewGroup{ID: "e_" + e.GoName, Name: e.GoName}
		for _, t := range e.Tables {
			id := tableNodeID(t)
			g.Nodes = append(g.Nodes, reviewNode{ID: id, Open: "[\"", Label: tableLabel(t, verdicts[t]), Close: "\"]"})
			g.Patterns = append(g.Patterns, reviewPattern{ID: "q_" + id, Label: patternLabel(t)})
			d.Edges = append(d.Edges, reviewEdge{From: "q_" + id, To: id})
			switch {
			case t.Deprecated:
				deprecated = append(deprecated, id, "q_"+id)
			case t == e.Canonical && len(e.Tables) > 1:
				canonical = append(canonical, id)
			}
			if e.Canonical != nil && t != e.Canonical {
				writes = append(writes, reviewEdge{From: tableNodeID(e.Canonical), Label: fanOutWord(t), To: id, Dotted: true})
			}
			if t.ReplacedBy != nil {
				writes = append(writes, reviewEdge{From: id, Label: "replaced by", To: tableNodeID(t.ReplacedBy), Dotted: true})
			}
		}
		for _, ix := range e.ReadIndexes() {
			id := "ix_" + ix.Name
			if !ix.Declares() {
				// Another read through an index drawn once.
				q := "q_" + id + "_" + ix.Method
				g.Patterns = append(g.Patterns, reviewPattern{ID: q, Label: indexPatternLabel(ix)})
				d.Edges = append(d.Edges, reviewEdge{From: q, To: id})
				continue
			}
			g.Nodes = append(g.Nodes, reviewNode{ID: id, Open: "{{\"", Label: indexLabel(ix), Close: "\"}}"})
			g.Patterns = append(g.Patterns, reviewPattern{ID: "q_" + id, Label: indexPatternLabel(ix)})
			d.Edges = append(d.Edges, reviewEdge{From: "q_" + id, To: id}, reviewEdge{From: id, To: tableNodeID(ix.On)})
		}
		for _, f := range e.Filters {
			if f.On == nil {
				continue
			}
			id := "q_f_" + f.Method
			g.Patterns = append(g.Patterns, reviewPattern{ID: id, Label: filterPatternLabel(f)})
			for _, c := range f.Conds {
				if c.Index != nil {
					d.Edges = append(d.Edges, reviewEdge{From: id, To: "ix_" + c.Index.Name})
				}
			}
		}
		d.Groups = append(d.Groups, g)
	}
	d.Edges = append(d.Edges, writes...)
	if len(canonical) > 0 {
		d.Classes = append(d.Classes, reviewClass{Name: "canonical", Style: "stroke-width:3px", IDs: strings.Join(canonical, ",")})
	}
	if len(deprecated) > 0 {
		d.Classes = append(d.Classes, reviewClass{Name: "deprecated", Style: "stroke-dasharray:6 4", IDs: strings.Join(deprecated, ",")})
	}
	return d
}

// tableNodeID is a table's node in a diagram. The prefix keeps a table
// named like a Mermaid keyword (end, style, class) a plain node.
func tableNodeID(t *model.Table) string { return "t_" + t.Name }

// fanOutWord labels the edge from the source of truth to another table.
func fanOutWord(t *model.Table) string {
	switch {
	case t.Unique:
		return "claim"
	case t.Sparse():
		return "write if where"
	}
	return "write"
}

// tableLabel is a table's node: its name and what it is, its TTL, bucket
// and verdict, then its key columns set apart from the others, and last
// the columns of cqlgen's write protocol, in italics.
func tableLabel(t *model.Table, verdicts []model.Verdict) string {
	var roles []string
	e := t.Entity
	switch {
	case t.HasCounters():
		roles = append(roles, "counter table")
	case t == e.Canonical && len(e.Tables) > 1:
		roles = append(roles, "source of truth")
	case t.Unique:
		roles = append(roles, "unique key")
	}
	if t.Sparse() {
		roles = append(roles, "sparse")
	}
	head := []string{"<b>" + t.Name + "</b>" + prefixAll(" · ", roles)}
	if t.Deprecated {
		what := "DEPRECATED, no replacement"
		if t.ReplacedBy != nil {
			what = "DEPRECATED, replaced by " + t.ReplacedBy.Name
		}
		head = append(head, "<b>"+what+"</b>")
	}
	if t.Sparse() {
		head = append(head, "only where "+mermaidText(t.WhereWords()))
	}
	head = append(head, ttlAndBucket(t), diagramVerdict(t, verdicts))
	var key, rest, protocol []string
	for _, c := range t.Columns {
		line := c.Name + " " + mermaidText(c.Type.String())
		switch c.Kind {
		case model.PartitionKey:
			key = append(key, "<b>"+line+" K</b>")
		case model.Clustering:
			key = append(key, "<b>"+line+" C"+arrow(c)+"</b>")
		case model.Static:
			rest = append(rest, line+" S")
		case model.Regular:
			rest = append(rest, line)
		default:
			protocol = append(protocol, "<i>"+line+"</i>")
		}
	}
	sections := []string{strings.Join(head, "<br/>"), strings.Join(key, "<br/>")}
	if len(rest)+len(protocol) > 0 {
		sections = append(sections, strings.Join(append(rest, protocol...), "<br/>"))
	}
	return strings.Join(sections, "<hr/>")
}

// ttlAndBucket is a table's TTL and bucket: "TTL 30 days · bucket shard
// = hash(track_id) % 100", "no TTL · no bucket".
func ttlAndBucket(t *model.Table) string {
	ttl, bucket := "no TTL", "no bucket"
	if t.TTL > 0 {
		ttl = "TTL " + model.HumanDuration(t.TTL)
	}
	if b := t.Bucket; b != nil {
		bucket = "bucket " + b.Column + " = " + mermaidText(b.Expr())
		if b.Column == "bucket" {
			bucket = "bucket = " + mermaidText(b.Expr())
		}
	}
	return ttl + " · " + bucket
}

// diagramVerdict is the partition check's verdict, in short, with the
// estimated size: the codes without their reasons, which the table of
// access patterns gives.
func diagramVerdict(t *model.Table, verdicts []model.Verdict) string {
	est := t.Estimate()
	size := "size unknown"
	switch {
	case est.Unbounded:
		size = "unbounded"
	case est.Known && est.Rows == 1:
		size = "1 row"
	case est.Known:
		size = "≈" + model.HumanCount(est.Rows) + " rows, ≈" + model.HumanBytes(est.Bytes)
	}
	var found []string
	for _, v := range verdicts {
		switch {
		case v.Silenced != "":
			found = append(found, "🔇 "+v.Code+" (silenced)")
		case v.Error:
			found = append(found, "❌ "+v.Code)
		default:
			found = append(found, "⚠️ "+v.Code)
		}
	}
	switch {
	case len(found) > 0:
		return strings.Join(found, ", ") + " · " + size
	case !est.Known:
		return "✅ bounded by TTL or bucket"
	}
	return "✅ accepted · " + size
}

// patternLabel is an access pattern's node: the method that reads it
// (marked when deprecated) and the full primary key of its table, the bucket in the partition key and
// each clustering column with its order.
func patternLabel(t *model.Table) string {
	var params []string
	for _, c := range t.PartitionKey() {
		if c.Field != nil {
			params = append(params, c.Name)
		}
	}
	call := fmt.Sprintf("%s.%s(%s)", t.Entity.GoName, t.ReadMethod(), strings.Join(params, ", "))
	if t.Deprecated {
		call += " · deprecated"
	}
	return call + "<br/>key " + mermaidText(primaryKeyWords(t))
}

// primaryKeyWords is t's primary key as the review page writes it:
// ((org_id, agent_id, bucket = month(event_id)), event_id ↓).
func primaryKeyWords(t *model.Table) string {
	var pk, key []string
	for _, c := range t.PartitionKey() {
		if c.Bucket != nil {
			pk = append(pk, c.Name+" = "+c.Bucket.Expr())
		} else {
			pk = append(pk, c.Name)
		}
	}
	key = append(key, "("+strings.Join(pk, ", ")+")")
	for _, c := range t.Clustering() {
		key = append(key, c.Name+" "+arrow(c))
	}
	return "(" + strings.Join(key, ", ") + ")"
}

// indexLabel is an index's node: its name, the column it indexes and the
// cost of a read through it.
func indexLabel(ix *model.Index) string {
	scatter, within := false, false
	for _, r := range ix.IndexReads() {
		scatter, within = scatter || r.Scatter(), within || !r.Scatter()
	}
	cost := "✅ within one partition"
	switch {
	case scatter && within:
		cost = "✅ within one partition, ⚠️ and a scatter over the cluster"
	case scatter:
		cost = "⚠️ scatter over the cluster"
	}
	return "<b>" + ix.Name + "</b> · index<br/>on " + ix.On.Name + "." + ix.Column.Name + "<br/>" + cost
}

// indexPatternLabel is an index pattern's node: its method and the
// restriction it reads with.
func indexPatternLabel(ix *model.Index) string {
	var params, where []string
	for _, r := range ix.PK {
		params = append(params, r.Name)
		where = append(where, r.Name+" = ?")
	}
	if !ix.ANN {
		params = append(params, ix.Column.Name)
		where = append(where, ix.Condition())
		call := fmt.Sprintf("%s.%s(%s)", ix.Entity.GoName, ix.Method, strings.Join(params, ", "))
		return call + "<br/>where " + mermaidText(strings.Join(where, " AND "))
	}
	if fx := ix.FilterIndex; fx != nil {
		params = append(params, fx.Column.Name)
		where = append(where, fx.Condition())
	}
	params = append(params, ix.Column.Name)
	call := fmt.Sprintf("%s.%s(%s)", ix.Entity.GoName, ix.Method, strings.Join(params, ", "))
	q := "order by " + ix.Condition()
	if len(where) > 0 {
		q = "where " + strings.Join(where, " AND ") + " " + q
	}
	if ix.Score != "" {
		q += ", with similarity_" + ix.Score
	}
	return call + "<br/>" + mermaidText(q)
}

// filterPatternLabel is a filter pattern's node: its method and the
// restriction it reads with, an arrow to each index it goes through.
func filterPatternLabel(f *model.Filter) string {
	var params, where []string
	for _, r := range f.PK {
		params = append(params, r.Name)
		where = append(where, r.Name+" = ?")
	}
	for _, c := range f.Conds {
		params = append(params, c.Column.Name)
	}
	where = append(where, f.Condition())
	call := fmt.Sprintf("%s.%s(%s)", f.Entity.GoName, f.Method, strings.Join(params, ", "))
	return call + "<br/>where " + mermaidText(strings.Join(where, " AND "))
}

// arrow is a clustering column's order: ↑ ascending, ↓ descending.
func arrow(c *model.Column) string {
	if c.Desc {
		return "↓"
	}
	return "↑"
}

func prefixAll(sep string, words []string) string {
	if len(words) == 0 {
		return ""
	}
	return sep + strings.Join(words, sep)
}

// mermaidText escapes text for a quoted Mermaid label rendered as HTML: a
// double quote would end the label, # starts Mermaid's entity codes, and
// <, > and & are HTML.
var mermaidText = strings.NewReplacer(
	`"`, "#quot;",
	"#", "#35;",
	"&", "&amp;",
	"<", "&lt;",
	">", "&gt;",
).Replace
