package importer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// Verdict classifies one table of a round trip: the original against the
// table the imported declarations generate.
type Verdict int

const (
	// Identical: the same columns (names, types, kinds, masks), keys,
	// clustering order, TTL, comment, gc_grace_seconds, compaction and
	// indexes.
	Identical Verdict = iota
	// Equivalent: identical once the columns cqlgen adds for its write
	// protocol and unique claims (cqlgen_version, cqlgen_deleted,
	// cqlgen_pending, cqlgen_writes, cqlgen_static_version, cqlgen_claim)
	// are left out of both: the same data model, plus cqlgen's own
	// bookkeeping.
	Equivalent
	// Different: anything else, a table not declared included.
	Different
)

func (v Verdict) String() string {
	return [...]string{"identical", "equivalent", "different"}[v]
}

// TableResult is the verdict on one original table, and the differences
// that decide it.
type TableResult struct {
	Table   string
	Verdict Verdict
	Diffs   []string
}

// Compare classifies every table of orig (but cqlgen's runtime tables)
// against regen. Tables regen adds (cqlgen's runtime tables) are not
// counted.
func Compare(orig, regen *schemadiff.Schema) []TableResult {
	var out []TableResult
	for _, ot := range orig.Tables {
		if RuntimeTable(ot.Name) {
			continue
		}
		r := TableResult{Table: ot.Name}
		nt := regen.Table(ot.Name)
		if nt == nil {
			r.Verdict, r.Diffs = Different, []string{"not declared"}
			out = append(out, r)
			continue
		}
		model := tableDiffs(orig, regen, ot, nt, false)
		all := tableDiffs(orig, regen, ot, nt, true)
		switch {
		case len(model) > 0:
			r.Verdict, r.Diffs = Different, model
		case len(all) > 0:
			r.Verdict, r.Diffs = Equivalent, all
		}
		out = append(out, r)
	}
	return out
}

// Counts are the verdicts of a round trip, counted.
type Counts struct{ Identical, Equivalent, Different int }

// Count counts the verdicts.
func Count(rs []TableResult) Counts {
	var c Counts
	for _, r := range rs {
		switch r.Verdict {
		case Identical:
			c.Identical++
		case Equivalent:
			c.Equivalent++
		default:
			c.Different++
		}
	}
	return c
}

// TypeDiffs lists the user-defined types of orig that regen lacks or
// declares otherwise.
func TypeDiffs(orig, regen *schemadiff.Schema) []string {
	var out []string
	for _, ot := range orig.Types {
		i := slices.IndexFunc(regen.Types, func(t *schemadiff.Type) bool { return t.Name == ot.Name })
		if i < 0 {
			out = append(out, "type "+ot.Name+" not declared")
			continue
		}
		if a, b := fieldsString(ot.Fields), fieldsString(regen.Types[i].Fields); a != b {
			out = append(out, fmt.Sprintf("type %s: (%s) becomes (%s)", ot.Name, a, b))
		}
	}
	return out
}

func fieldsString(cs []schemadiff.Column) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Name+" "+c.Type)
	}
	return strings.Join(parts, ", ")
}

// tableDiffs lists the differences of two tables; with protocol, the
// columns cqlgen adds count too.
func tableDiffs(os, ns *schemadiff.Schema, ot, nt *schemadiff.Table, protocol bool) []string {
	var d []string
	add := func(format string, args ...any) { d = append(d, fmt.Sprintf(format, args...)) }
	cols := func(t *schemadiff.Table) map[string]schemadiff.Column {
		m := map[string]schemadiff.Column{}
		for _, c := range t.Columns {
			if protocol || !strings.HasPrefix(c.Name, cqlspec.ReservedPrefix) {
				m[c.Name] = c
			}
		}
		return m
	}
	oc, nc := cols(ot), cols(nt)
	for _, c := range ot.Columns {
		o, ok := oc[c.Name]
		if !ok {
			continue
		}
		n, ok := nc[c.Name]
		switch {
		case !ok:
			add("column %s is missing", c.Name)
		case o.Type != n.Type:
			add("column %s: type %s becomes %s", c.Name, o.Type, n.Type)
		case o.Static != n.Static:
			add("column %s: static %v becomes %v", c.Name, o.Static, n.Static)
		case o.Mask != n.Mask:
			add("column %s: mask %q becomes %q", c.Name, o.Mask, n.Mask)
		}
	}
	for _, c := range nt.Columns {
		if _, ok := nc[c.Name]; ok {
			if _, ok := oc[c.Name]; !ok {
				add("column %s is added", c.Name)
			}
		}
	}
	if !slices.Equal(ot.PartitionKey, nt.PartitionKey) {
		add("partition key (%s) becomes (%s)", strings.Join(ot.PartitionKey, ", "), strings.Join(nt.PartitionKey, ", "))
	}
	if !slices.Equal(ot.Clustering, nt.Clustering) {
		add("clustering %v becomes %v", ot.Clustering, nt.Clustering)
	}
	if ot.TTL != nt.TTL {
		add("default_time_to_live %d becomes %d", ot.TTL, nt.TTL)
	}
	if ot.Options.Comment != nt.Options.Comment {
		add("comment %q becomes %q", ot.Options.Comment, nt.Options.Comment)
	}
	if ot.Options.GCGrace != nt.Options.GCGrace {
		add("gc_grace_seconds %d becomes %d", ot.Options.GCGrace, nt.Options.GCGrace)
	}
	if a, b := ot.Options.Compaction.String(), nt.Options.Compaction.String(); a != b {
		add("compaction %s becomes %s", a, b)
	}
	ix := func(s *schemadiff.Schema, table string) []string {
		var out []string
		for _, i := range s.Indexes {
			if i.Table == table {
				// Cassandra reads an index's option values case-insensitively
				// (COSINE is cosine).
				out = append(out, fmt.Sprintf("%s(%s) %s %s", i.Name, i.Column, i.Class, strings.ToLower(i.Options)))
			}
		}
		slices.Sort(out)
		return out
	}
	if a, b := ix(os, ot.Name), ix(ns, nt.Name); !slices.Equal(a, b) {
		add("indexes %v become %v", a, b)
	}
	return d
}
