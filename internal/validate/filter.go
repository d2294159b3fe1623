package validate

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/cqlgen/cqlgen/internal/diag"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/suggest"
	"github.com/cqlgen/cqlgen/internal/tag"
)

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
	for _, ig := range f.Ignores {
		if diag.Code(ig.Code) != diag.TenantKey {
			c.diags.Errorf(ig.Pos, diag.BadValue, "ignore: a filter pattern can silence only tenant-key, not %q", ig.Code)
		}
	}
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
