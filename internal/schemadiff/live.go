package schemadiff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gocql/gocql"
)

// FromCluster reads the tables of a keyspace from a live cluster's
// system_schema.
func FromCluster(s *gocql.Session, keyspace string) (*Schema, error) {
	ttls := map[string]int64{}
	opts := map[string]Options{}
	var name, comment string
	var ttl, gcGrace int
	var compaction map[string]string
	it := s.Query(`SELECT table_name, default_time_to_live, comment, gc_grace_seconds, compaction FROM system_schema.tables WHERE keyspace_name = ?`, keyspace).Iter()
	for it.Scan(&name, &ttl, &comment, &gcGrace, &compaction) {
		ttls[name] = int64(ttl)
		opts[name] = Options{Comment: comment, GCGrace: int64(gcGrace), Compaction: NewCompaction(compaction)}
		compaction = nil
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	type col struct {
		table, name, kind, order, typ string
		pos                           int
	}
	var cols []col
	var c col
	it = s.Query(`SELECT table_name, column_name, kind, clustering_order, type, position FROM system_schema.columns WHERE keyspace_name = ?`, keyspace).Iter()
	for it.Scan(&c.table, &c.name, &c.kind, &c.order, &c.typ, &c.pos) {
		cols = append(cols, c)
	}
	if err := it.Close(); err != nil {
		return nil, err
	}
	rank := map[string]int{"partition_key": 0, "clustering": 1, "static": 2, "regular": 3}
	slices.SortFunc(cols, func(a, b col) int {
		return cmp.Or(cmp.Compare(a.table, b.table), cmp.Compare(rank[a.kind], rank[b.kind]), cmp.Compare(a.pos, b.pos), cmp.Compare(a.name, b.name))
	})
	s2 := &Schema{}
	for _, c := range cols {
		t := s2.Table(c.table)
		if t == nil {
			t = &Table{Name: c.table, TTL: ttls[c.table], Options: opts[c.table]}
			s2.Tables = append(s2.Tables, t)
		}
		t.Columns = append(t.Columns, Column{Name: c.name, Type: c.typ, Static: c.kind == "static"})
		switch c.kind {
		case "partition_key":
			t.PartitionKey = append(t.PartitionKey, c.name)
		case "clustering":
			t.Clustering = append(t.Clustering, Clustering{Name: c.name, Desc: c.order == "desc"})
		}
	}
	var err error
	if s2.Indexes, err = liveIndexes(s, keyspace); err != nil {
		return nil, err
	}
	if s2.Types, err = liveTypes(s, keyspace); err != nil {
		return nil, err
	}
	liveMasks(s, keyspace, s2)
	return s2, nil
}

// liveTypes reads the user-defined types of a keyspace, by name.
func liveTypes(s *gocql.Session, keyspace string) ([]*Type, error) {
	var out []*Type
	var name string
	var names, types []string
	it := s.Query(`SELECT type_name, field_names, field_types FROM system_schema.types WHERE keyspace_name = ?`, keyspace).Iter()
	for it.Scan(&name, &names, &types) {
		t := &Type{Name: name}
		for i := range min(len(names), len(types)) {
			t.Fields = append(t.Fields, Column{Name: names[i], Type: types[i]})
		}
		out = append(out, t)
		names, types = nil, nil
	}
	return out, it.Close()
}

// liveMasks sets the masks of a keyspace's masked columns, read from
// system_schema.column_masks; a node without that table (before 5.0) has
// none.
func liveMasks(s *gocql.Session, keyspace string, sc *Schema) {
	var table, column, fn string
	var types, args []string
	it := s.Query(`SELECT table_name, column_name, function_name, function_argument_types, function_argument_values FROM system_schema.column_masks WHERE keyspace_name = ?`, keyspace).Iter()
	for it.Scan(&table, &column, &fn, &types, &args) {
		if t := sc.Table(table); t != nil {
			if c := t.column(column); c != nil {
				// The values are stored as text: write them as a schema
				// file does, a string quoted, a null as null.
				for i, a := range args {
					switch {
					case a == "":
						args[i] = "null"
					case i < len(types) && (types[i] == "text" || types[i] == "ascii" || types[i] == "varchar"):
						args[i] = quote(a)
					}
				}
				c.Mask = fn + "(" + strings.Join(args, ", ") + ")"
			}
		}
		types, args = nil, nil
	}
	_ = it.Close()
}
