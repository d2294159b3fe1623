// Package cqlschema emits schema.cql, the DDL of a package's model: its
// keyspace, user-defined types, tables and indexes, rendered through
// templates/schema.cql.tmpl from what the model decided.
package cqlschema

import (
	"fmt"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/templates"
)

type schemaView struct {
	Package  string
	Keyspace *model.Keyspace
	Types    []typeView
	Tables   []string // each entity's tables, rendered by entityTables
	// RuntimeTables is the DDL of the runtime's own tables, which every
	// schema ends with.
	RuntimeTables string
}

// typeView is a CREATE TYPE statement.
type typeView struct {
	Name   string
	GoName string
	Fields []columnView
}

type tableView struct {
	Name       string
	Entity     string
	Method     string
	Doc        string
	Canonical  bool
	Where      string // a sparse table's predicate
	Unique     bool
	Txn        bool   // the entity is in the transactional mode
	Deprecated string // what a deprecated table's header comment says; empty otherwise
	Bucket     string
	TTL        string
	Columns    []columnView
	PrimaryKey string
	Options    []string
	Indexes    []indexView
}

type columnView struct {
	Name   string
	Pad    string
	Type   string
	Static bool
	Mask   string // the masking function of a masked column: mask_inner(1, 1)
}

// Schema renders schema.cql: the DDL of every table of the package.
func Schema(p *model.Package) ([]byte, error) {
	return SchemaCached(p, nil)
}

// Cache keeps the DDL of one entity's tables from one run to the next:
// Get returns what Put stored for an entity of the same model. A nil
// Cache is none.
type Cache interface {
	Get(e *model.Entity) ([]byte, bool)
	Put(e *model.Entity, part []byte)
}

// SchemaCached is Schema taking each entity's tables from c when it has
// them, and putting there those it renders. The file is the same.
func SchemaCached(p *model.Package, c Cache) ([]byte, error) {
	v := schemaView{Package: p.Path, Keyspace: p.Keyspace, RuntimeTables: cqlspec.RuntimeTablesCQL}
	for _, u := range p.UDTs {
		v.Types = append(v.Types, udtView(u))
	}
	for _, e := range p.Entities {
		var part []byte
		ok := false
		if c != nil {
			part, ok = c.Get(e)
		}
		if !ok {
			var err error
			if part, err = entityTables(e); err != nil {
				return nil, err
			}
			if c != nil {
				c.Put(e, part)
			}
		}
		v.Tables = append(v.Tables, string(part))
	}
	return templates.Render("schema.cql.tmpl", v)
}

// entityTables renders the DDL of e's tables and their indexes, which
// depends on e's model alone.
func entityTables(e *model.Entity) ([]byte, error) {
	views := make([]tableView, len(e.Tables))
	for i, t := range e.Tables {
		views[i] = table(t)
	}
	return templates.Render("schema.cql.table.tmpl", views)
}

// udtView lays out a user-defined type's fields as a table's columns.
func udtView(u *model.UDT) typeView {
	tv := typeView{Name: u.Name, GoName: u.GoName}
	width := 0
	for _, f := range u.Fields {
		width = max(width, len(f.Column))
	}
	for _, f := range u.Fields {
		tv.Fields = append(tv.Fields, columnView{Name: f.Column, Pad: strings.Repeat(" ", width-len(f.Column)), Type: f.Type.String()})
	}
	return tv
}

func table(t *model.Table) tableView {
	tv := tableView{
		Name:      t.Name,
		Entity:    t.Entity.GoName,
		Method:    t.Method,
		Doc:       strings.TrimRight(t.Doc, "."),
		Canonical: t.Entity.Canonical == t,
		Where:     t.WhereWords(),
		Unique:    t.Unique,
		Txn:       t.Entity.Transactional,
	}
	if t.Deprecated {
		tv.Deprecated = "still written, dropped by hand once nothing reads it"
		if t.ReplacedByName != "" {
			tv.Deprecated = "replaced by " + t.ReplacedByName + "; still written, dropped by hand after its backfill and the switch of reads"
		}
	}
	if b := t.Bucket; b != nil {
		tv.Bucket = fmt.Sprintf("%s = %s", b.Column, bucketWords(b))
	}
	if t.TTL > 0 {
		tv.TTL = model.HumanDuration(t.TTL)
	}
	width := 0
	for _, c := range t.Columns {
		width = max(width, len(cqlspec.Quote(c.Name)))
	}
	for _, c := range t.Columns {
		name := cqlspec.Quote(c.Name)
		tv.Columns = append(tv.Columns, columnView{
			Name:   name,
			Pad:    strings.Repeat(" ", width-len(name)),
			Type:   c.Type.String(),
			Static: c.Kind == model.Static || c.Kind == model.StaticVersion,
		})
		if c.Field != nil {
			tv.Columns[len(tv.Columns)-1].Mask = c.Field.Mask
		}
	}
	tv.PrimaryKey = primaryKey(t)
	if ck := t.Clustering(); len(ck) > 0 {
		parts := make([]string, len(ck))
		for i, c := range ck {
			parts[i] = cqlspec.Quote(c.Name) + " " + order(c.Desc)
		}
		tv.Options = append(tv.Options, "CLUSTERING ORDER BY ("+strings.Join(parts, ", ")+")")
	}
	if t.TTL > 0 {
		tv.Options = append(tv.Options, fmt.Sprintf("default_time_to_live = %d", t.TTL))
	}
	tv.Options = append(tv.Options, tableOptions(t)...)
	tv.Indexes = indexes(t)
	return tv
}

func order(desc bool) string {
	if desc {
		return "DESC"
	}
	return "ASC"
}

// primaryKey writes PRIMARY KEY's argument: the partition key in its own
// parentheses when it has more than one column, then the clustering columns.
func primaryKey(t *model.Table) string {
	var pk []string
	for _, c := range t.PartitionKey() {
		pk = append(pk, cqlspec.Quote(c.Name))
	}
	parts := []string{strings.Join(pk, ", ")}
	if len(pk) > 1 {
		parts[0] = "(" + parts[0] + ")"
	}
	for _, c := range t.Clustering() {
		parts = append(parts, cqlspec.Quote(c.Name))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func bucketWords(b *model.Bucket) string {
	switch b.Kind {
	case model.HashBucket:
		return fmt.Sprintf("hash(%s) %% %d; reads query all %d buckets and merge them", b.Source.Name, b.N, b.N)
	case model.HourBucket:
		return fmt.Sprintf("the UTC hour of %s; reads walk back hour by hour", b.Source.Name)
	case model.DayBucket:
		return fmt.Sprintf("the UTC day of %s; reads walk back day by day", b.Source.Name)
	case model.WeekBucket:
		if b.StartSet {
			return fmt.Sprintf("the %s starting the week of %s (UTC); reads walk back week by week", b.FirstDay(), b.Source.Name)
		}
		return fmt.Sprintf("the Monday starting the ISO week of %s (UTC); reads walk back week by week", b.Source.Name)
	case model.MonthBucket:
		return fmt.Sprintf("the first day of the UTC month of %s; reads walk back month by month", b.Source.Name)
	}
	return fmt.Sprintf("the first day of the %d-day range (counted from %s) holding %s; reads walk back range by range", b.N, b.StartDate(), b.Source.Name)
}
