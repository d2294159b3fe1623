package validate

import (
	"fmt"
	"go/token"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/suggest"
	"github.com/cqlgen/cqlgen/internal/tag"
)

// indexes checks every index pattern of p: that its index can be created,
// that its read can run, and that it is worth having over the table.
func (c *checker) indexes(p *model.Package) {
	names := map[string]*model.Index{}
	type onCol struct{ table, col string }
	cols := map[onCol]*model.Index{}
	for _, e := range p.Entities {
		for _, ix := range e.Indexes {
			if first, dup := names[ix.Name]; dup && first.Entity != e {
				c.diags.Errorf(ix.Pos, diag.BadIndex, "index %s is declared twice; the first is on %s at %s: index names are unique in a keyspace", ix.Name, first.Entity.GoName, diag.Short(first.Pos))
			} else if !dup {
				names[ix.Name] = ix
			}
			if d := ix.Declared; d != nil {
				c.sharedIndex(d, ix)
			}
			if !c.index(p, e, ix) || !ix.Declares() {
				continue
			}
			k := onCol{ix.On.Name, ix.Column.Name}
			if first, dup := cols[k]; dup {
				c.diags.Errorf(ix.Column.Pos, diag.BadIndex, "column %s of %s is already indexed by %s at %s; Cassandra takes one storage-attached index a column: read through it with index:\"%s\" (its col and match) and name:\"...\", or drop one", ix.Column.Name, ix.On.Name, first.Name, diag.Short(first.Pos), first.Name)
				continue
			}
			cols[k] = ix
		}
	}
}

// sharedIndex checks a pattern that names an index d declares: it adds a
// read through that index, so it must say what d says of the index
// itself (on, col and match), which the DDL takes from d alone.
func (c *checker) sharedIndex(d, ix *model.Index) {
	var diffs []string
	if onTag(ix) != onTag(d) {
		diffs = append(diffs, fmt.Sprintf("on:%q, not on:%q", onTag(ix), onTag(d)))
	}
	if ix.Column.Name != d.Column.Name || ix.Keys != d.Keys {
		diffs = append(diffs, fmt.Sprintf("col:%q, not col:%q", colTag(ix), colTag(d)))
	}
	if m, dm := matchTag(ix), matchTag(d); m != dm {
		diffs = append(diffs, m+", not "+dm)
	}
	if len(diffs) > 0 {
		c.diags.Errorf(ix.Pos, diag.BadIndex, "index %s is declared at %s, and this pattern says %s: a second pattern naming an index adds a read through it and repeats its on, col and match; give this index another name for another index", ix.Name, diag.Short(d.Pos), strings.Join(diffs, ", "))
	}
}

// onTag, colTag and matchTag write back what an index pattern's on, col
// and match say, for a diagnostic.
func onTag(ix *model.Index) string {
	if ix.On != nil {
		return ix.On.Name
	}
	return ix.OnName
}

func colTag(ix *model.Index) string {
	if ix.Keys {
		return "keys(" + ix.Column.Name + ")"
	}
	return ix.Column.Name
}

func matchTag(ix *model.Index) string {
	switch {
	case ix.ANN && ix.Similarity != "cosine":
		return `match:"ann(` + ix.Similarity + `)"`
	case ix.ANN:
		return `match:"ann"`
	case ix.Range:
		return `match:"range"`
	}
	return "no match (equality)"
}

// index checks one index pattern; it reports whether the index names a
// table and a column of it, so that the package-wide checks can go on.
func (c *checker) index(p *model.Package, e *model.Entity, ix *model.Index) bool {
	c.identifier(ix.Pos, "index", ix.Name)
	if !token.IsIdentifier(ix.Method) || !token.IsExported(ix.Method) {
		c.diags.Errorf(ix.MethodPos, diag.BadIdentifier, "read method name %q is not an exported Go identifier", ix.Method)
	}
	c.readIgnores("an index pattern", ix.Ignores)
	t := ix.On
	if t == nil {
		if ix.OnName != "" {
			var tables []string
			for _, t := range e.Tables {
				tables = append(tables, t.Name)
			}
			msg := fmt.Sprintf("index %s is on table %s, which is no table of %s (its tables: %s)", ix.Name, ix.OnName, e.GoName, strings.Join(tables, ", "))
			if s := suggest.Closest(ix.OnName, tables); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			c.diags.Errorf(ix.OnPos, diag.BadIndex, "%s", msg)
		}
		return false
	}
	f := ix.Column.Field
	if f == nil {
		c.unknownColumn(ix.Column, "col", e)
		return false
	}
	var col *model.Column
	for _, tc := range t.Columns {
		if tc.Field == f {
			col = tc
		}
	}
	first := !ix.Scatter() && len(t.Clustering()) > 0 && t.Clustering()[0].Field == f
	switch {
	case col == nil:
		c.diags.Errorf(ix.Column.Pos, diag.BadIndex, "column %s is not stored in %s, so an index on it there has nothing to index: add it to the table's cols, or put the index on a table that stores it with on:\"...\"", ix.Column.Name, t.Name)
		return false
	case col.Kind == model.PartitionKey:
		c.diags.Errorf(ix.Column.Pos, diag.BadIndex, "column %s is in the partition key of %s, which a read already restricts by equality: an index on it adds nothing (and Cassandra refuses one on a partition key of one column); read the table by its key", ix.Column.Name, t.Name)
		return true
	case first:
		c.diags.Errorf(ix.Column.Pos, diag.BadIndex, "column %s is the first clustering column of %s: within a partition, the table's own read already slices it in order (%s with From and To), so an index restricted to a partition adds nothing", ix.Column.Name, t.Name, t.Method)
		return true
	}
	if f.Type == nil {
		return true
	}
	if ix.Keys {
		switch {
		case f.Type.Name != "map" || f.Type.Frozen:
			c.diags.Errorf(ix.Column.Pos, diag.BadIndex, "col:\"keys(%s)\" indexes the keys of a map, and %s is a %s: write col:\"%s\"", ix.Column.Name, ix.Column.Name, f.Type, ix.Column.Name)
			return false
		case ix.Range || ix.ANN:
			c.diags.Errorf(ix.MatchPos, diag.BadIndex, "an index on the keys of %s is read by contains key: drop match", ix.Column.Name)
		default:
			if ok, why := model.Indexable(f.Type.Params[0]); !ok || f.Type.Params[0].IsCollection() {
				c.diags.Errorf(ix.Column.Pos, diag.UnsupportedType, "the keys of %s are %s: a storage-attached index cannot serve them", ix.Column.Name, why)
				return true
			}
			c.indexPartition(p, ix)
		}
		return true
	}
	if ok, why := model.Indexable(f.Type); !ok {
		c.diags.Errorf(ix.Column.Pos, diag.UnsupportedType, "column %s is %s: a storage-attached index cannot serve it; index another column, or serve the read with a table", ix.Column.Name, why)
		return true
	}
	switch {
	case ix.ANN && !f.Type.IsVector():
		c.diags.Errorf(ix.MatchPos, diag.BadIndex, "match:\"ann\" on %s, a %s: an ANN read finds the rows whose vector is nearest another; index a []float32 declared cql:\"vector<float, N>\"", ix.Column.Name, f.Type)
		return true
	case !ix.ANN && f.Type.IsVector():
		c.diags.Errorf(ix.Column.Pos, diag.BadIndex, "column %s is a %s: an index on a vector serves only a read of the rows nearest a vector; say match:\"ann\" (cosine similarity), ann(dot_product) or ann(euclidean)", ix.Column.Name, f.Type)
		return true
	}
	if ix.ANN && ix.Filter.Name != "" {
		c.annFilter(e, ix)
	}
	if ix.Range {
		switch {
		case ix.Contains():
			c.diags.Errorf(ix.MatchPos, diag.BadIndex, "match:\"range\" on %s, a %s: a read of a collection asks whether it contains a value; drop match", ix.Column.Name, f.Type)
		case !model.Rangeable(f.Type):
			c.diags.Errorf(ix.MatchPos, diag.BadIndex, "match:\"range\" on %s, a %s: a storage-attached index reads ranges of numbers, dates and times only (text and the rest by equality); drop match for an equality read", ix.Column.Name, f.Type)
		}
	}
	c.indexPartition(p, ix)
	return true
}

// indexPartition checks the partition an index read is restricted to:
// none (a scatter), or exactly the partition key of the table.
func (c *checker) indexPartition(p *model.Package, ix *model.Index) {
	c.readPartition(p, "index "+ix.Name, ix.On, ix.Entity, ix.PK, ix.PKPos, ix.Ignores)
}

// readIgnores checks the ignores of a read through indexes (what: an
// index or a filter pattern), which may silence only tenant-key: the
// one warning such a read gets (readPartition).
func (c *checker) readIgnores(what string, ignores []model.Ignore) {
	for _, ig := range ignores {
		if diag.Code(ig.Code) != diag.TenantKey {
			c.diags.Errorf(ig.Pos, diag.BadValue, "ignore: %s can silence only tenant-key, not %q", what, ig.Code)
		}
	}
}

// readPartition checks the partition a read through indexes (what: an
// index or a filter) is restricted to: none (a scatter), or exactly the
// partition key of t.
func (c *checker) readPartition(p *model.Package, what string, t *model.Table, e *model.Entity, pk []model.Ref, pkPos token.Position, ignores []model.Ignore) {
	if len(pk) == 0 {
		if p.Tenant != nil && !slices.ContainsFunc(ignores, func(ig model.Ignore) bool { return diag.Code(ig.Code) == diag.TenantKey }) {
			c.diags.Errorf(pkPos, diag.TenantKey, "%s reads without a partition key, over every tenant's rows, which //cqlgen:tenant at %s forbids: restrict it to a partition of %s with pk:\"%s\", or, for data every tenant shares, ignore:\"tenant-key: why\"",
				what, diag.Short(p.Tenant.Pos), t.Name, pkNames(t))
		}
		return
	}
	if t.Bucket != nil {
		c.diags.Errorf(pkPos, diag.BadIndex, "%s: table %s is bucketed (%s), so its partition key includes a bucket a read cannot name; drop pk for a scatter read, or put the index on a table without a bucket", what, t.Name, t.Bucket.Expr())
		return
	}
	var got []string
	for _, r := range pk {
		if r.Field == nil {
			c.unknownColumn(r, "pk", e)
			return
		}
		got = append(got, r.Name)
	}
	if strings.Join(got, ", ") != pkNames(t) {
		c.diags.Errorf(pkPos, diag.BadIndex, "%s: pk (%s) must be the whole partition key of %s, (%s), in order: an index read is cheap within one partition, and any other restriction makes Cassandra filter; write pk:\"%s\", or drop pk for a scatter over the cluster",
			what, strings.Join(got, ", "), t.Name, pkNames(t), pkNames(t))
	}
}

func pkNames(t *model.Table) string {
	var names []string
	for _, r := range t.PK {
		names = append(names, r.Name)
	}
	return strings.Join(names, ", ")
}

// gcHintWindow is Cassandra's default max_hint_window: a replica down
// longer than this gets a delete only from a repair.
const gcHintWindow = 3 * 3600

// options checks a table's compaction and gc_grace.
func (c *checker) options(t *model.Table) {
	o := t.Options
	if o.HasGCGrace && o.GCGrace < gcHintWindow {
		c.warn(t, o.GCGracePos, diag.GCGrace, "table %s: gc_grace of %s: Cassandra may purge a tombstone after gc_grace, and a replica that missed the delete (down longer than the 3-hour hint window, or not yet repaired) then brings the deleted row back; every table of a repository takes deletes (Delete, and an Update that moves a row), so keep gc_grace above the time between repairs (the default is 10 days)",
			t.Name, durationWords(o.GCGrace))
	}
	cp := o.Compaction
	if cp == nil || cp.Strategy != "twcs" {
		return
	}
	if t.TTL == 0 {
		c.warn(t, o.CompactionPos, diag.TableOption, "table %s: twcs on a table whose rows never expire: TimeWindowCompactionStrategy frees space by dropping whole SSTables once all their rows have expired, so give the table a ttl, or use stcs, lcs or ucs", t.Name)
		return
	}
	w := cp.WindowSeconds()
	windows := (t.TTL + w - 1) / w
	if windows > 100 || w > t.TTL {
		rec, n := t.RecommendedWindow()
		c.warn(t, cp.WindowPos, diag.TableOption, "table %s: a twcs window of %s makes %s of a %s ttl, far from the 20 to 50 SSTables TWCS wants; write compaction:\"%s\" (%d windows)",
			t.Name, durationWords(w), plural(windows, "window"), durationWords(t.TTL), rec.Tag(), n)
	}
}

// durationWords writes seconds in the largest whole unit.
func durationWords(s int64) string {
	for _, u := range []struct {
		secs int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}} {
		if s >= u.secs && s%u.secs == 0 {
			return fmt.Sprintf("%d%s", s/u.secs, u.name)
		}
	}
	return fmt.Sprintf("%ds", s)
}

func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// annFilter checks an ANN read's filter:"column eq|contains": the column
// has an index pattern of its own on the same table that serves that
// condition, as Cassandra restricts an ANN search only by indexed columns.
func (c *checker) annFilter(e *model.Entity, ix *model.Index) {
	if ix.Filter.Field == nil {
		c.unknownColumn(ix.Filter, "filter", e)
		return
	}
	if fx := ix.FilterIndex; fx != nil {
		if want := map[bool]string{true: "contains", false: "eq"}[fx.Contains()]; ix.FilterOp != want {
			c.diags.Errorf(ix.Filter.Pos, diag.BadIndex, "filter:\"%s %s\": index %s on %s, a %s, is read by %s; write filter:\"%s %s\"", ix.Filter.Name, ix.FilterOp, fx.Name, ix.Filter.Name, ix.Filter.Field.Type, want, ix.Filter.Name, want)
		}
		return
	}
	for _, fx := range e.Indexes {
		if fx != ix && fx.On == ix.On && fx.Column.Name == ix.Filter.Name {
			what := "a range (match:\"range\")"
			if fx.ANN {
				what = "another ANN index"
			}
			c.diags.Errorf(ix.Filter.Pos, diag.BadIndex, "filter:\"%s %s\": index %s reads %s; an ANN read is narrowed by an equality or CONTAINS condition on an indexed column", ix.Filter.Name, ix.FilterOp, fx.Name, what)
			return
		}
	}
	c.diags.Errorf(ix.Filter.Pos, diag.BadIndex, "filter:\"%s %s\": %s has no index pattern on %s, and Cassandra narrows an ANN search only by indexed columns (\"ANN ordering by vector requires all restricted column(s) to be indexed\"): declare index:\"...\" col:%q on it", ix.Filter.Name, ix.FilterOp, ix.Filter.Name, ix.On.Name, ix.Filter.Name)
}

// filters checks every filter pattern of p: its table, that each column
// has an index that serves its condition, that the target version serves
// each operator, and its partition.
func (c *checker) filters(p *model.Package) {
	for _, e := range p.Entities {
		for _, f := range e.Filters {
			c.filter(p, e, f)
		}
	}
}

func (c *checker) filter(p *model.Package, e *model.Entity, f *model.Filter) {
	if !token.IsIdentifier(f.Method) || !token.IsExported(f.Method) {
		c.diags.Errorf(f.MethodPos, diag.BadIdentifier, "read method name %q is not an exported Go identifier", f.Method)
	}
	c.readIgnores("a filter pattern", f.Ignores)
	if f.OrPos.IsValid() {
		c.diags.Errorf(f.OrPos, diag.UnsupportedOperator, "filter %s: %s%s", f.Method, model.RefusedOr(p.Cassandra), versionNote(p))
	}
	t := f.On
	if t == nil {
		var tables []string
		for _, t := range e.Tables {
			tables = append(tables, t.Name)
		}
		if f.OnName != "" {
			msg := fmt.Sprintf("filter %s reads table %s, which is no table of %s (its tables: %s)", f.Method, f.OnName, e.GoName, strings.Join(tables, ", "))
			if s := suggest.Closest(f.OnName, tables); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			c.diags.Errorf(f.OnPos, diag.BadIndex, "%s", msg)
		}
		return
	}
	seen := map[*model.Field]*model.FilterCond{}
	ok := true
	for _, fc := range f.Conds {
		if !c.filterCond(p, e, f, fc) {
			ok = false
			continue
		}
		if first := seen[fc.Column.Field]; first != nil {
			c.diags.Errorf(fc.Column.Pos, diag.BadIndex, "filter %s: column %s is read twice (first at %s); a range or between bounds it on both sides in one condition", f.Method, fc.Column.Name, diag.Short(first.Column.Pos))
			ok = false
		}
		seen[fc.Column.Field] = fc
	}
	if ok {
		c.readPartition(p, "filter "+f.Method, t, e, f.PK, f.PKPos, f.Ignores)
	}
}

// filterCond checks one condition: its column, the index that serves
// it, the operator against the column's type and the target version.
func (c *checker) filterCond(p *model.Package, e *model.Entity, f *model.Filter, fc *model.FilterCond) bool {
	t := f.On
	fd := fc.Column.Field
	if fd == nil {
		c.unknownColumn(fc.Column, "filter", e)
		return false
	}
	if fd.Type == nil {
		return false
	}
	typ := fd.Type
	isColl := (typ.Name == "set" || typ.Name == "list") && !typ.Frozen
	isMap := typ.Name == "map" && !typ.Frozen
	if typ.IsVector() {
		c.diags.Errorf(fc.Column.Pos, diag.BadIndex, "filter %s: column %s is a %s, which an index reads by nearness alone (an index pattern with match:\"ann\"): leave it out of the filter", f.Method, fc.Column.Name, typ)
		return false
	}
	switch fc.Op {
	case tag.OpContains:
		if !isColl {
			c.diags.Errorf(fc.OpPos, diag.BadIndex, "filter %s: contains on %s, a %s: contains reads a set or a list by one of its elements; write eq (or range) for a column of one value", f.Method, fc.Column.Name, typ)
			return false
		}
	case tag.OpContainsKey:
		if !isMap {
			c.diags.Errorf(fc.OpPos, diag.BadIndex, "filter %s: contains key on %s, a %s: contains key reads a map by one of its keys; write contains for a set or list, eq for a column of one value", f.Method, fc.Column.Name, typ)
			return false
		}
	case tag.OpRange, tag.OpBetween:
		if isColl || isMap || !model.Rangeable(typ) {
			c.diags.Errorf(fc.OpPos, diag.BadIndex, "filter %s: %s on %s, a %s: a storage-attached index reads ranges of numbers, dates and times only; write eq (or contains for a set or list)", f.Method, fc.Op, fc.Column.Name, typ)
			return false
		}
	default:
		if isColl || isMap {
			c.diags.Errorf(fc.OpPos, diag.BadIndex, "filter %s: %s on %s, a %s: a read of a collection asks whether it holds a value; write contains (contains key for a map's keys)", f.Method, fc.Op, fc.Column.Name, typ)
			return false
		}
	}
	if !model.Serves(p.Cassandra, fc.Op) {
		c.diags.Errorf(fc.OpPos, diag.UnsupportedOperator, "filter %s: %s%s", f.Method, model.RefusedOp(p.Cassandra, fc.Op), versionNote(p))
		return false
	}
	if fc.Index != nil {
		return true
	}
	var col *model.Column
	for _, tc := range t.Columns {
		if tc.Field == fd {
			col = tc
		}
	}
	switch {
	case col == nil:
		c.diags.Errorf(fc.Column.Pos, diag.BadIndex, "filter %s: column %s is not stored in %s; read a table that stores it with on:\"...\"", f.Method, fc.Column.Name, t.Name)
	case isMap:
		c.diags.Errorf(fc.Column.Pos, diag.BadIndex, "filter %s: column %s of %s has no index on its keys, so Cassandra would filter every row of the read to serve it; declare one: _ cqlgen.Pattern `index:\"%s_by_%s_key\" col:\"keys(%s)\"`", f.Method, fc.Column.Name, t.Name, t.Name, fc.Column.Name, fc.Column.Name)
	case col.Kind == model.PartitionKey:
		c.diags.Errorf(fc.Column.Pos, diag.BadIndex, "filter %s: column %s is in the partition key of %s, which pk:\"...\" restricts by equality; drop it from the filter", f.Method, fc.Column.Name, t.Name)
	default:
		c.diags.Errorf(fc.Column.Pos, diag.BadIndex, "filter %s: column %s of %s has no storage-attached index, so Cassandra would filter every row of the read to serve it; declare one: _ cqlgen.Pattern `index:\"%s_by_%s\" col:\"%s\"`", f.Method, fc.Column.Name, t.Name, t.Name, fc.Column.Name, fc.Column.Name)
	}
	return false
}

// versionNote says where the target version comes from.
func versionNote(p *model.Package) string {
	if p.CassandraPos.IsValid() {
		return fmt.Sprintf(" (//cqlgen:cassandra %s at %s)", p.Cassandra, diag.Short(p.CassandraPos))
	}
	return fmt.Sprintf(" (the default target; a package declares another with //cqlgen:cassandra)")
}
