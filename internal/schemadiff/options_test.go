package schemadiff

import (
	"slices"
	"strings"
	"testing"
)

const withOptions = `CREATE TABLE IF NOT EXISTS plays (
    user_id text,
    at      timestamp,
    PRIMARY KEY (user_id, at)
) WITH CLUSTERING ORDER BY (at DESC)
    AND default_time_to_live = 7776000
    AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 3}
    AND gc_grace_seconds = 259200
    AND comment = 'a user''s plays, newest first';
`

func TestParseOptions(t *testing.T) {
	s, err := Parse(withOptions)
	if err != nil {
		t.Fatal(err)
	}
	o := s.Table("plays").Options
	if o.Comment != "a user's plays, newest first" || o.GCGrace != 259200 {
		t.Errorf("options: %+v", o)
	}
	if got := o.Compaction.String(); got != "{'class': 'TimeWindowCompactionStrategy', 'compaction_window_size': 3, 'compaction_window_unit': 'DAYS'}" {
		t.Errorf("compaction: %s", got)
	}
	if s.Table("plays").TTL != 7776000 {
		t.Errorf("ttl lost among the options: %d", s.Table("plays").TTL)
	}
	// A table that states no option has Cassandra's defaults, which is
	// what a live table created without them reports.
	bare, _ := Parse(strings.Split(withOptions, ") WITH")[0] + ");")
	live := &Schema{Tables: []*Table{{Name: "plays", Columns: bare.Tables[0].Columns, PartitionKey: []string{"user_id"}, Clustering: []Clustering{{Name: "at"}},
		Options: Options{GCGrace: 864000, Compaction: NewCompaction(map[string]string{"class": "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy", "max_threshold": "32", "min_threshold": "4"})}}}}
	if changes := Compare(live, bare); len(changes) != 0 {
		t.Errorf("a bare table against the defaults: %v", changes)
	}
}

func TestCompareOptions(t *testing.T) {
	old, _ := Parse(withOptions)
	for _, tc := range []struct {
		name, edit, with string
		want, cql        string
	}{
		{"comment", "a user''s plays, newest first", "plays, newest first", "additive: table plays: comment 'a user''s plays, newest first' becomes 'plays, newest first'", "ALTER TABLE plays WITH comment = 'plays, newest first';"},
		{"gc_grace", "gc_grace_seconds = 259200", "gc_grace_seconds = 864000", "additive: table plays: gc_grace_seconds 259200 becomes 864000", "ALTER TABLE plays WITH gc_grace_seconds = 864000;"},
		{"window", "'compaction_window_size': 3", "'compaction_window_size': 1", "additive: table plays: compaction", "ALTER TABLE plays WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_size': 1, 'compaction_window_unit': 'DAYS'};"},
		{"strategy", "{'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 3}", "{'class': 'LeveledCompactionStrategy'}", "additive: table plays: compaction", "ALTER TABLE plays WITH compaction = {'class': 'LeveledCompactionStrategy'};"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(withOptions, tc.edit, tc.with, 1)
			if edited == withOptions {
				t.Fatal("edit did not apply")
			}
			new, err := Parse(edited)
			if err != nil {
				t.Fatal(err)
			}
			changes := Compare(old, new)
			if len(changes) != 1 || !strings.HasPrefix(changes[0].String(), tc.want) || changes[0].CQL != tc.cql {
				t.Fatalf("got %+v, want %q with %q", changes, tc.want, tc.cql)
			}
			if _, ok := Migration(changes); !ok {
				t.Error("an option change must apply in place")
			}
		})
	}
}

// A migration file is split at every semicolon by migration tools, so no
// line of it but a statement's end may hold one, even in a comment.
func TestMigrationSemicolons(t *testing.T) {
	old, _ := Parse(strings.Replace(withOptions, "a user''s plays, newest first", "plays; old", 1))
	new, _ := Parse(withOptions)
	m, ok := Migration(Compare(old, new))
	if !ok {
		t.Fatal("a comment change must apply in place")
	}
	for _, line := range strings.Split(m, "\n") {
		if i := strings.IndexByte(line, ';'); i >= 0 && i != len(line)-1 || strings.HasPrefix(line, "--") && i >= 0 {
			t.Errorf("a semicolon inside a line: %q", line)
		}
	}
}

// A new index is created in place with its statement from the file; one
// no longer declared, or moved, is left to a person.
func TestCompareIndexes(t *testing.T) {
	const ix = "\nCREATE CUSTOM INDEX IF NOT EXISTS plays_by_tag ON plays (tags)\n    USING 'StorageAttachedIndex';\n"
	old, _ := Parse(withOptions)
	new, _ := Parse(withOptions + ix)
	if len(new.Indexes) != 1 || new.Indexes[0] != (Index{Name: "plays_by_tag", Table: "plays", Column: "tags", CQL: new.Indexes[0].CQL, Class: "StorageAttachedIndex", Target: "tags", Line: 11}) {
		t.Fatalf("parsed indexes: %+v", new.Indexes)
	}
	changes := Compare(old, new)
	if len(changes) != 1 || changes[0].Kind != Additive || !strings.HasPrefix(changes[0].CQL, "CREATE CUSTOM INDEX IF NOT EXISTS plays_by_tag ON plays (tags)") {
		t.Errorf("new index: %+v", changes)
	}
	// system_schema writes a set's target as values(tags): the same index.
	live := &Schema{Tables: new.Tables, Indexes: []Index{{Name: "plays_by_tag", Table: "plays", Column: target("values(tags)")}}}
	if changes := Compare(live, new); len(changes) != 0 {
		t.Errorf("the same index, live: %v", changes)
	}
	if changes := Compare(new, old); len(changes) != 1 || changes[0].Kind != Breaking {
		t.Errorf("an index no longer declared: %+v", changes)
	}
	moved, _ := Parse(withOptions + strings.Replace(ix, "(tags)", "(at)", 1))
	if changes := Compare(new, moved); len(changes) != 1 || changes[0].Kind != Breaking {
		t.Errorf("a moved index: %+v", changes)
	}
}

// transactional_mode (Cassandra 6) is read and compared: turning it on is
// an ALTER marked Transactional, which cqlgen's commands check against
// the live table (CheckOnboarding) before running it.
func TestTransactionalMode(t *testing.T) {
	parse := func(with string) *Schema {
		t.Helper()
		s, err := Parse("CREATE TABLE t (id int PRIMARY KEY, v int)" + with + ";")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	off, full := parse(""), parse(" WITH comment = 'x' AND transactional_mode = 'full'")
	if m := full.Tables[0].Options.Transactional; m != "full" || slices.Contains(full.Tables[0].Unread, "transactional_mode") {
		t.Fatalf("transactional_mode read as %q (unread %v)", m, full.Tables[0].Unread)
	}
	if m := parse(" WITH transactional_mode = 'off'").Tables[0].Options.Transactional; m != "" {
		t.Errorf("'off' read as %q", m)
	}
	var on []Change
	for _, c := range Compare(off, full) {
		if c.Transactional {
			on = append(on, c)
		}
	}
	if len(on) != 1 || on[0].Kind != Additive || on[0].CQL != "ALTER TABLE t WITH transactional_mode = 'full';" {
		t.Errorf("turning the mode on: %+v", on)
	}
	back := Compare(full, off)
	if len(back) != 2 || !slices.ContainsFunc(back, func(c Change) bool {
		return !c.Transactional && c.CQL == "ALTER TABLE t WITH transactional_mode = 'off';"
	}) {
		t.Errorf("turning the mode off: %+v", back)
	}
	if cs := Compare(full, full); len(cs) != 0 {
		t.Errorf("no change: %+v", cs)
	}
	for stmt, want := range map[string]string{
		"CREATE TABLE t (id int PRIMARY KEY) WITH transactional_mode = 'full' AND comment = 'x'": "full",
		"CREATE TABLE t (id int PRIMARY KEY) WITH transactional_migration_from = 'off'":          "",
	} {
		if got := describedOption(stmt, "transactional_mode"); got != want {
			t.Errorf("describedOption(%q) = %q, want %q", stmt, got, want)
		}
	}
	if got := describedOption("    AND transactional_mode = 'full'\n    AND transactional_migration_from = 'off'", "transactional_migration_from"); got != "off" {
		t.Errorf("transactional_migration_from read as %q", got)
	}
}
