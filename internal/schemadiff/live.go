package schemadiff

import (
	"cmp"
	"fmt"
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
	if err := liveTransactional(s, keyspace, s2); err != nil {
		return nil, err
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

// liveTransactional reads each table's transactional_mode and
// transactional_migration_from on a Cassandra 6 cluster. 6.0 keeps them
// out of system_schema.tables: DESCRIBE TABLE states them. Before 6 no
// table has them (off), and nothing is read.
func liveTransactional(s *gocql.Session, keyspace string, sc *Schema) error {
	var version string
	if err := s.Query(`SELECT release_version FROM system.local`).Scan(&version); err != nil {
		return err
	}
	if major, _, _ := strings.Cut(version, "."); major != "" && major < "6" && len(major) == 1 {
		return nil // before Cassandra 6: no transactional_mode
	}
	for _, t := range sc.Tables {
		mode, from, err := describeTransactional(s, keyspace, t.Name)
		if err != nil {
			return err
		}
		t.Options.Transactional, t.Options.MigratingFrom = mode, from
	}
	return nil
}

// describeTransactional reads a table's transactional_mode ("" for off)
// and transactional_migration_from from DESCRIBE TABLE.
func describeTransactional(s *gocql.Session, keyspace, table string) (mode, from string, err error) {
	var stmt string
	it := s.Query(`DESCRIBE TABLE ` + quoteIdent(keyspace) + `.` + quoteIdent(table)).Iter()
	m := map[string]any{}
	for it.MapScan(m) {
		if c, ok := m["create_statement"].(string); ok && stmt == "" {
			stmt = c
		}
		m = map[string]any{}
	}
	if err := it.Close(); err != nil {
		return "", "", fmt.Errorf("DESCRIBE TABLE %s.%s: %w", keyspace, table, err)
	}
	return transactionalMode(describedOption(stmt, "transactional_mode")), describedOption(stmt, "transactional_migration_from"), nil
}

// describedOption is the value of a string option in a CREATE TABLE
// statement as DESCRIBE writes it ("AND name = 'value'"), "" if none.
func describedOption(stmt, name string) string {
	_, rest, ok := strings.Cut(stmt, " "+name+" = '")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, "'")
	return v
}

// quoteIdent writes a name as a quoted CQL identifier.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// OnboardingError reports a table that cannot be moved into Cassandra 6's
// transactional mode in place: it holds rows written outside Accord,
// which Accord cannot read safely until the table's ranges are migrated,
// or that migration has begun and is not finished. Steps says how.
type OnboardingError struct {
	Keyspace, Table string
	// MigratingFrom is the live table's transactional_migration_from
	// when its migration has begun ("off"), "" when it has not.
	MigratingFrom string
}

func (e *OnboardingError) Error() string {
	head := fmt.Sprintf("table %s.%s holds rows written outside Accord, which Accord cannot read safely (\"Accord can't safely read data written by non-SERIAL writes\", Cassandra 6.0's \"Onboarding to Accord\"): turning transactional_mode on over it is refused until its ranges are migrated to Accord", e.Keyspace, e.Table)
	if e.MigratingFrom != "" {
		head = fmt.Sprintf("table %s.%s is in transactional_mode, and the migration of its ranges to Accord has begun and is not finished (transactional_migration_from = '%s'): until it is, Accord refuses its transactions", e.Keyspace, e.Table, e.MigratingFrom)
	}
	return head + ". " + e.Steps()
}

// Steps are the steps of Cassandra 6.0's migration of a table into Accord
// (docs/cassandra6.md, "Onboarding a table that holds data").
func (e *OnboardingError) Steps() string {
	t := e.Keyspace + "." + e.Table
	var b strings.Builder
	if e.MigratingFrom == "" {
		b.WriteString("Migrate it first, then run this again:\n")
	} else {
		b.WriteString("Finish the migration first, then run this again:\n")
	}
	if e.MigratingFrom == "" {
		fmt.Fprintf(&b, "  1. ALTER TABLE %s WITH transactional_mode = 'full';  (with accord.range_migration: auto, 6.0's default, every range starts migrating; with explicit: nodetool consensus_admin begin-migration %s)\n", t, e.Keyspace)
	} else {
		b.WriteString("  1. (done: transactional_mode is on, and the ranges are migrating)\n")
	}
	fmt.Fprintf(&b, "  2. on every node: nodetool consensus_admin finish-migration %s  (it repairs the ranges' data, then Accord's, and marks them migrated; the nodes must run paxos_variant: v2, and the keyspace RF >= 2: from Paxos v1, or at RF=1, 6.0-alpha2 never finishes it)\n", e.Keyspace)
	fmt.Fprintf(&b, "  3. check that DESCRIBE TABLE %s states transactional_migration_from = 'none' (nodetool consensus_admin list %s lists no range migrating)\n", t, e.Keyspace)
	b.WriteString("docs/cassandra6.md, \"Onboarding a table that holds data\"")
	return b.String()
}

// CheckOnboarding tells whether a table may have transactional_mode
// turned on in place: yes when it is already in the mode with every range
// migrated, or holds no row (or does not exist yet); else an
// *OnboardingError with the steps of the migration Cassandra 6.0 requires.
func CheckOnboarding(s *gocql.Session, keyspace, table string) error {
	var n int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?`, keyspace, table).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	mode, from, err := describeTransactional(s, keyspace, table)
	if err != nil {
		return err
	}
	if mode != "" && from != "" && from != "none" {
		return &OnboardingError{Keyspace: keyspace, Table: table, MigratingFrom: from}
	}
	if mode != "" {
		return nil // migrated
	}
	it := s.Query(`SELECT * FROM ` + quoteIdent(keyspace) + `.` + quoteIdent(table) + ` LIMIT 1`).Iter()
	rows := it.NumRows()
	if err := it.Close(); err != nil {
		return fmt.Errorf("reading a row of %s.%s: %w", keyspace, table, err)
	}
	if rows > 0 {
		return &OnboardingError{Keyspace: keyspace, Table: table}
	}
	return nil
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
