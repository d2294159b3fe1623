package review

import (
	"fmt"
	"strings"

	"github.com/cqlgen/cqlgen/internal/model"
)

type reviewIndex struct {
	Pattern, Name, Table, Query, Cost, Verdict string
}

// reviewIndexRow is an index's line on the review page: what a read asks,
// what it costs, and when a table would serve it better.
func reviewIndexRow(ix *model.Index) reviewIndex {
	r := reviewIndex{
		Pattern: strings.ReplaceAll(fmt.Sprintf("%s.%s: %s", ix.Entity.GoName, ix.Method, strings.TrimRight(ix.Doc, ".")), "|", "\\|"),
		Name:    ix.Name,
		Table:   ix.On.Name,
		Query:   "`" + ix.Column.Name + " " + ix.Op() + " ?`",
	}
	if ix.Range {
		r.Query = "`" + ix.Condition() + "`"
	}
	if ix.ANN {
		r.Query = "`ORDER BY " + ix.Column.Name + " ANN OF ? LIMIT ?` (" + ix.Similarity + ")"
		if fx := ix.FilterIndex; fx != nil {
			r.Query = "`WHERE " + fx.Column.Name + " " + fx.Op() + " ? ORDER BY " + ix.Column.Name + " ANN OF ? LIMIT ?` (" + ix.Similarity + ")"
		}
		if ix.Score != "" {
			r.Query += ", each row with `similarity_" + ix.Score + "(" + ix.Column.Name + ", ?)`"
		}
	}
	var pk []string
	for _, p := range ix.PK {
		pk = append(pk, p.Name)
	}
	switch {
	case ix.ANN && ix.Scatter():
		r.Cost = "a scatter: every query searches the vector index of every node; a write also adds the vector to the node's graph (more than a plain index)"
		r.Verdict = "⚠️ scatter: nearest neighbours over the whole cluster; no table can serve a similarity search, so keep the limit small"
		return r
	case ix.ANN:
		r.Cost = "one partition (" + strings.Join(pk, ", ") + "), its replicas' vector index; a write also adds the vector to the graph (more than a plain index)"
		r.Verdict = "✅ within one partition; no table can serve a similarity search"
		return r
	}
	if ix.Scatter() {
		r.Cost = "a scatter: every query visits every token range on every node; a write also updates the index (small)"
		r.Verdict = "⚠️ scatter: keep it for rare or ad hoc reads; a table keyed by " + ix.Column.Name + " beats it for frequent reads, large results or a unique lookup"
	} else {
		r.Cost = "one partition (" + strings.Join(pk, ", ") + "): the replicas of one partition, as a table read; a write also updates the index (small)"
		r.Verdict = "✅ within one partition; a table keyed by (" + strings.Join(pk, ", ") + ", " + ix.Column.Name + ") beats it for frequent reads or large results"
	}
	return r
}

type reviewOption struct {
	Table, Compaction, GCGrace, Advice string
}

// reviewOptions are the tables' options on the review page, with the
// TWCS recommendation for a time series with a TTL that does not use it.
func reviewOptions(tables []*model.Table) []reviewOption {
	var out []reviewOption
	for _, t := range tables {
		o := t.Options
		r := reviewOption{Table: t.Name, Compaction: "stcs (default)", GCGrace: "10 days (default)", Advice: "—"}
		if o.Compaction != nil {
			r.Compaction = "`" + o.Compaction.Tag() + "`"
		}
		if o.HasGCGrace {
			r.GCGrace = model.HumanDuration(o.GCGrace)
			if o.GCGrace == 0 {
				r.GCGrace = "0"
			}
		}
		twcs := o.Compaction != nil && o.Compaction.Strategy == "twcs"
		if t.TimeSeries() && !twcs {
			rec, n := t.RecommendedWindow()
			r.Advice = fmt.Sprintf("💡 `compaction:\"%s\"`: rows expire after %s and arrive in time order, so TWCS drops whole SSTables as they expire; windows of %s make %d SSTables' worth of a TTL", rec.Tag(), model.HumanDuration(t.TTL), model.HumanDuration(rec.WindowSeconds()), n)
		}
		out = append(out, r)
	}
	return out
}

// reviewFilterRow is a filter's line on the review page: the conditions
// it ANDs, the indexes that serve them, and what the read costs.
func reviewFilterRow(f *model.Filter) reviewIndex {
	var names []string
	for _, c := range f.Conds {
		if c.Index != nil {
			names = append(names, c.Index.Name)
		}
	}
	r := reviewIndex{
		Pattern: strings.ReplaceAll(fmt.Sprintf("%s.%s: %s", f.Entity.GoName, f.Method, strings.TrimRight(f.Doc, ".")), "|", "\\|"),
		Name:    strings.Join(names, "`, `"),
		Table:   f.On.Name,
		Query:   "`" + f.Condition() + "`",
	}
	var pk []string
	for _, p := range f.PK {
		pk = append(pk, p.Name)
	}
	n := fmt.Sprint(len(names))
	if f.Scatter() {
		r.Cost = "a scatter: every query visits every token range on every node, and on each intersects " + n + " indexes' matches; a write also updates each index (small)"
		r.Verdict = "⚠️ scatter: keep it for rare or ad hoc reads; a table keyed by the equality columns beats it for frequent reads or large results"
	} else {
		r.Cost = "one partition (" + strings.Join(pk, ", ") + "): its replicas intersect " + n + " indexes' matches, about a table read; a write also updates each index (small)"
		r.Verdict = "✅ within one partition; a table keyed by (" + strings.Join(pk, ", ") + ", the equality columns) beats it for frequent reads or large results"
	}
	return r
}
