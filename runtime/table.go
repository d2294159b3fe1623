package cqlgen

import (
	"strings"
)

// Column is a column of a table and its CQL type.
type Column struct {
	Name string
	Type string // CQL type as in the DDL: text, bigint, frozen<list<text>>, ...
}

// ClusteringColumn is a clustering column and its order.
type ClusteringColumn struct {
	Column
	Desc bool
}

// TableSpec describes one table of an access pattern. Generated code
// declares it as a literal; NewTable turns it into statements once.
type TableSpec struct {
	Name         string
	Pattern      string   // the access pattern's read method, for observers and cursors
	Columns      []Column // every column, in table order: partition key, clustering, others
	PartitionKey []string // partition key columns in order, the bucket column last if any
	Clustering   []ClusteringColumn
	Bucket       string // the bucket column, derived by the repository; "" if none
	// Version names the version column of a canonical table ("" if none):
	// the write timestamp of the entity's last write, which conditional
	// updates and deletes compare and set.
	Version string
}

// Table holds the statements of one table, built once from its spec:
// explicit column lists (never SELECT *), positional placeholders, and
// client-side timestamps on every write.
type Table struct {
	Spec TableSpec
	// Insert writes a whole row: values in Spec.Columns order, then the
	// write timestamp.
	Insert *Statement
	// Delete removes a row: the write timestamp, then the primary key in
	// order (partition key, clustering columns).
	Delete *Statement
	// Get reads one row by its full primary key; it selects every column
	// but the bucket and the version, in Spec.Columns order.
	Get *Statement
	// With a version column: GetVersion is Get with the version last;
	// UpdateIf sets every column outside the primary key, then the version,
	// where the key (then the old version) matches; DeleteIf deletes by key
	// if the version (last) matches.
	GetVersion, UpdateIf, DeleteIf *Statement

	// first[from|to<<1] starts a read at the partition's first row,
	// optionally bounded on the first clustering column.
	first [4]*Statement
	// seek[i] continues after a position: equal on the first i clustering
	// columns, strictly after on column i. seekTo is seek[0] with the to
	// bound. incl/inclTo are the last level, at-or-after.
	seek          []*Statement
	seekTo        *Statement
	incl, inclTo  *Statement
	selectColumns string
}

// NewTable builds the statements of a table.
func NewTable(spec TableSpec) *Table {
	t := &Table{Spec: spec}
	var names, marks, sel []string
	for _, c := range spec.Columns {
		names = append(names, c.Name)
		marks = append(marks, "?")
		if c.Name != spec.Bucket && c.Name != spec.Version {
			sel = append(sel, c.Name)
		}
	}
	t.selectColumns = strings.Join(sel, ", ")
	var key []string
	for _, p := range spec.PartitionKey {
		key = append(key, p+" = ?")
	}
	for _, c := range spec.Clustering {
		key = append(key, c.Name+" = ?")
	}
	where := strings.Join(key, " AND ")
	t.Insert = &Statement{
		CQL:        "INSERT INTO " + spec.Name + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(marks, ", ") + ") USING TIMESTAMP ?",
		Table:      spec.Name,
		Pattern:    spec.Pattern,
		Kind:       Write,
		Idempotent: true,
	}
	t.Delete = &Statement{
		CQL:        "DELETE FROM " + spec.Name + " USING TIMESTAMP ? WHERE " + where,
		Table:      spec.Name,
		Pattern:    spec.Pattern,
		Kind:       Write,
		Idempotent: true,
	}
	t.Get = t.read(where)
	if spec.Version != "" {
		t.GetVersion = &Statement{
			CQL:        "SELECT " + t.selectColumns + ", " + spec.Version + " FROM " + spec.Name + " WHERE " + where,
			Table:      spec.Name,
			Pattern:    spec.Pattern,
			Kind:       Read,
			Idempotent: true,
		}
		inKey := map[string]bool{}
		for _, p := range spec.PartitionKey {
			inKey[p] = true
		}
		for _, c := range spec.Clustering {
			inKey[c.Name] = true
		}
		var set []string
		for _, c := range spec.Columns {
			if !inKey[c.Name] && c.Name != spec.Version {
				set = append(set, c.Name+" = ?")
			}
		}
		set = append(set, spec.Version+" = ?")
		t.UpdateIf = &Statement{
			CQL:     "UPDATE " + spec.Name + " SET " + strings.Join(set, ", ") + " WHERE " + where + " IF " + spec.Version + " = ?",
			Table:   spec.Name,
			Pattern: spec.Pattern,
			Kind:    Conditional,
		}
		t.DeleteIf = &Statement{
			CQL:     "DELETE FROM " + spec.Name + " WHERE " + where + " IF " + spec.Version + " = ?",
			Table:   spec.Name,
			Pattern: spec.Pattern,
			Kind:    Conditional,
		}
	}
	part := make([]string, len(spec.PartitionKey))
	for i, p := range spec.PartitionKey {
		part[i] = p + " = ?"
	}
	n := len(spec.Clustering)
	if n == 0 {
		t.first[0] = t.read(strings.Join(part, " AND "))
		return t
	}
	c0 := spec.Clustering[0]
	for mask := range 4 {
		conds := append([]string(nil), part...)
		if mask&1 != 0 {
			conds = append(conds, c0.Name+" "+fromOp(c0.Desc)+" ?")
		}
		if mask&2 != 0 {
			conds = append(conds, c0.Name+" "+toOp(c0.Desc)+" ?")
		}
		t.first[mask] = t.read(strings.Join(conds, " AND "))
	}
	level := func(i int, op string, withTo bool) *Statement {
		conds := append([]string(nil), part...)
		for _, c := range spec.Clustering[:i] {
			conds = append(conds, c.Name+" = ?")
		}
		conds = append(conds, spec.Clustering[i].Name+" "+op+" ?")
		if withTo {
			conds = append(conds, c0.Name+" "+toOp(c0.Desc)+" ?")
		}
		return t.read(strings.Join(conds, " AND "))
	}
	for i, c := range spec.Clustering {
		t.seek = append(t.seek, level(i, afterOp(c.Desc), false))
	}
	t.seekTo = level(0, afterOp(c0.Desc), true)
	last := spec.Clustering[n-1]
	t.incl = level(n-1, fromOp(last.Desc), false)
	if n == 1 {
		t.inclTo = level(0, fromOp(c0.Desc), true)
	}
	return t
}

func (t *Table) read(where string) *Statement {
	return &Statement{
		CQL:        "SELECT " + t.selectColumns + " FROM " + t.Spec.Name + " WHERE " + where,
		Table:      t.Spec.Name,
		Pattern:    t.Spec.Pattern,
		Kind:       Read,
		Idempotent: true,
	}
}

// fromOp bounds the first row of a read, in clustering order, inclusively.
func fromOp(desc bool) string {
	if desc {
		return "<="
	}
	return ">="
}

// toOp bounds the last row of a read, in clustering order, exclusively.
func toOp(desc bool) string {
	if desc {
		return ">"
	}
	return "<"
}

// afterOp selects rows strictly after a value, in clustering order.
func afterOp(desc bool) string {
	if desc {
		return "<"
	}
	return ">"
}
