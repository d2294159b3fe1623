package cqlschema

import (
	"fmt"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
)

// tableOptions are the WITH clauses of t's options after its clustering
// order and TTL: compaction, gc_grace_seconds, and the comment (its doc
// unless the pattern gives one), so DESCRIBE and system_schema carry it.
func tableOptions(t *model.Table) []string {
	var out []string
	o := t.Options
	if o.Compaction != nil {
		out = append(out, "compaction = "+o.Compaction.CQL())
	}
	if o.HasGCGrace {
		out = append(out, fmt.Sprintf("gc_grace_seconds = %d", o.GCGrace))
	}
	if t.Entity != nil && t.Entity.Transactional {
		// Cassandra 6's Accord: the entity's writes are transactions
		// (table:"...,canonical,transactional").
		out = append(out, "transactional_mode = 'full'")
	}
	if c := t.CommentText(); c != "" {
		out = append(out, "comment = "+Quote(c))
	}
	return out
}

// Quote writes s as a CQL string literal: single quotes, doubled inside.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

type indexView struct {
	Name, Entity, Method, Doc, Table, Column, Cost string
	Similarity                                     string // an ANN index's similarity function
	// Also are the other reads through the index ("Entity.Method: doc"),
	// from the patterns that name it after the one declaring it.
	Also []string
}

// indexes are the index patterns on t, for the DDL after it.
func indexes(t *model.Table) []indexView {
	var out []indexView
	for _, ix := range t.Entity.Indexes {
		if ix.On != t || !ix.Declares() {
			continue
		}
		out = append(out, indexView{
			Name: ix.Name, Entity: t.Entity.GoName, Method: ix.Method, Doc: strings.TrimRight(ix.Doc, "."),
			Table: t.Name, Column: cqlspec.Quote(ix.Column.Name), Cost: indexCost(ix), Similarity: ix.Similarity,
		})
		v := &out[len(out)-1]
		for _, r := range ix.IndexReads()[1:] {
			v.Also = append(v.Also, t.Entity.GoName+"."+r.Method+": "+strings.TrimRight(r.Doc, "."))
			if c := indexCost(r); !strings.Contains(v.Cost, c) {
				v.Cost += ".\n-- " + c
			}
		}
		if ix.Keys {
			out[len(out)-1].Column = "KEYS(" + cqlspec.Quote(ix.Column.Name) + ")"
		}
	}
	return out
}

// indexCost says what one read through ix costs.
func indexCost(ix *model.Index) string {
	q := ix.Column.Name + " " + ix.Op()
	if ix.Range {
		q = ix.Column.Name + " in [from, to)"
	}
	if ix.ANN {
		q = "the " + ix.Column.Name + " nearest a vector (" + ix.Similarity + " similarity, ORDER BY ... ANN OF, a limit, no pages)"
	}
	if ix.Scatter() {
		return "Reads by " + q + " scatter over every token range of the cluster"
	}
	var pk []string
	for _, r := range ix.PK {
		pk = append(pk, r.Name)
	}
	return "Reads by " + q + " within one partition (" + strings.Join(pk, ", ") + ")"
}
