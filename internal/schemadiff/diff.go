package schemadiff

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
)

// Kind classifies a change.
type Kind int

const (
	// Additive changes apply in place: a new table, a new regular or
	// static column, a changed TTL.
	Additive Kind = iota
	// Breaking changes cannot: a changed partition key, clustering key or
	// clustering order, a changed type, a dropped column or table. They
	// need a new table and a backfill.
	Breaking
	// Contract is a deprecated table that is declared no more: the last
	// step of a key change, a DROP TABLE to run by hand once no running
	// code writes the table. It is never written into a migration.
	Contract
	// Unmanaged is a table of the live keyspace that the package does
	// not declare (a migration tool's, another service's): left alone.
	Unmanaged
)

func (k Kind) String() string {
	switch k {
	case Additive:
		return "additive"
	case Contract:
		return "contract"
	case Unmanaged:
		return "unmanaged"
	}
	return "breaking"
}

// Change is one difference between two schemas.
type Change struct {
	Kind  Kind
	Table string
	What  string // in words
	CQL   string // the statement that applies an additive change
	// SourceOf, on a breaking change, is the entity whose source of
	// truth the table is: no backfill can rebuild it, and its way
	// through is a new entity (docs/runbook.md).
	SourceOf string
	// Transactional marks the change that turns transactional_mode on
	// (Cassandra 6): safe in place over an empty table only
	// (CheckOnboarding).
	Transactional bool
}

func (c Change) String() string { return fmt.Sprintf("%s: table %s: %s", c.Kind, c.Table, c.What) }

// Compare lists the changes that turn old into new, table by table in the
// order of new (dropped tables last), and within a table keys first. A
// table of old that new lacks is a breaking drop, or a Contract change when
// old marked it deprecated.
func Compare(old, new *Schema) []Change { return compare(old, new, false) }

// CompareLive is Compare for old read from a live keyspace, which may hold
// tables of others: a table new does not declare is Unmanaged (its indexes
// too), unless its comment marks it as a deprecated table of cqlgen's.
func CompareLive(live, new *Schema) []Change { return compare(live, new, true) }

// RunnerTables are the tables cqlgen migrate keeps in the keyspace it
// migrates: its ledger and its lock. A live comparison leaves them out.
var RunnerTables = []string{cqlspec.MigrationsTable, cqlspec.MigrationsLockTable}

func compare(old, new *Schema, live bool) []Change {
	var out []Change
	for _, nt := range new.Tables {
		ot := old.Table(nt.Name)
		if ot == nil {
			stmt := nt.CQL
			if stmt == "" {
				stmt = "-- CREATE TABLE " + nt.Name + " (see schema.cql)"
			}
			out = append(out, Change{Kind: Additive, Table: nt.Name, What: "new table", CQL: stmt + ";"})
			continue
		}
		out = append(out, compareTable(ot, nt)...)
	}
	for _, ot := range old.Tables {
		if new.Table(ot.Name) != nil || live && slices.Contains(RunnerTables, ot.Name) {
			continue
		}
		switch replacement, deprecated := ot.Deprecated(); {
		case deprecated:
			what := "deprecated, and declared no more"
			if replacement != "" {
				what = "deprecated for " + replacement + ", and declared no more"
			}
			out = append(out, Change{Kind: Contract, Table: ot.Name, CQL: "DROP TABLE IF EXISTS " + ot.Name + ";",
				What: what + ": once every running copy of the application is built without it, drop it by hand"})
		case live:
			out = append(out, Change{Kind: Unmanaged, Table: ot.Name, What: "not declared by this package; left alone"})
		case ot.SourceOf != "":
			out = append(out, Change{Kind: Breaking, Table: ot.Name, SourceOf: ot.SourceOf, What: "dropped: " + truthAdvice(ot.SourceOf) + "; cqlgen never drops a table with its data: drop it by hand once nothing reads or writes it"})
		default:
			out = append(out, Change{Kind: Breaking, Table: ot.Name, What: "dropped: no access pattern uses it any more; cqlgen never drops a table with its data: mark its pattern deprecated instead, and drop it after the switch of reads (docs/runbook.md)"})
		}
	}
	return append(out, compareIndexes(old, new, live)...)
}

const rebuild = "a new table under a new name, filled by a backfill from the source of truth, is the way to change it"

// truthAdvice is rebuild for a source of truth, which cannot be
// deprecated nor backfilled, since every other table is rebuilt from it.
func truthAdvice(entity string) string {
	return "it is the source of truth of " + entity + ", from which every other table is checked and rebuilt, so it can be neither deprecated nor backfilled: a new key (or column type) for it is a new entity, filled by a program of yours (docs/runbook.md, \"Changing a table's key\")"
}

func compareTable(ot, nt *Table) []Change {
	var out []Change
	truth := cmp.Or(nt.SourceOf, ot.SourceOf)
	breaking := func(format string, args ...any) {
		advice := rebuild
		if truth != "" {
			advice = truthAdvice(truth)
		}
		out = append(out, Change{Kind: Breaking, Table: nt.Name, SourceOf: truth, What: fmt.Sprintf(format, args...) + "; " + advice})
	}
	if !slices.Equal(ot.PartitionKey, nt.PartitionKey) {
		breaking("partition key (%s) becomes (%s)", strings.Join(ot.PartitionKey, ", "), strings.Join(nt.PartitionKey, ", "))
	}
	if !slices.Equal(names(ot.Clustering), names(nt.Clustering)) {
		breaking("clustering columns (%s) become (%s)", strings.Join(names(ot.Clustering), ", "), strings.Join(names(nt.Clustering), ", "))
	} else if !slices.Equal(ot.Clustering, nt.Clustering) {
		breaking("clustering order (%s) becomes (%s)", orders(ot.Clustering), orders(nt.Clustering))
	}
	for _, nc := range nt.Columns {
		oc := ot.column(nc.Name)
		switch {
		case oc == nil:
			static := ""
			if nc.Static {
				static = " STATIC"
			}
			out = append(out, Change{Kind: Additive, Table: nt.Name, What: fmt.Sprintf("new column %s %s%s", nc.Name, nc.Type, static),
				CQL: fmt.Sprintf("ALTER TABLE %s ADD %s %s%s;", nt.Name, cqlspec.Quote(nc.Name), nc.Type, static)})
		case oc.Type != nc.Type && strings.HasPrefix(oc.Type, "list<") && nc.Type == "frozen<"+oc.Type+">":
			breaking("column %s is deployed as %s and the model now declares %s, the type a Go slice maps to by default (a non-frozen list appends its elements again when a row is rewritten at the same timestamp); Cassandra cannot change a column's type in place: to keep the table as it is, tag the field cql:%q (generate then warns, silence it with ignore:\"open-list: <reason>\"), or move to the frozen list", nc.Name, oc.Type, nc.Type, oc.Type)
		case oc.Type != nc.Type:
			breaking("column %s changes type from %s to %s", nc.Name, oc.Type, nc.Type)
		case oc.Static != nc.Static:
			breaking("column %s changes from static=%v to static=%v", nc.Name, oc.Static, nc.Static)
		}
	}
	for _, oc := range ot.Columns {
		if nt.column(oc.Name) == nil {
			out = append(out, Change{Kind: Breaking, Table: nt.Name, What: fmt.Sprintf("column %s is dropped; cqlgen never drops data in place: drop it by hand once nothing reads it", oc.Name)})
		}
	}
	if ot.TTL != nt.TTL {
		out = append(out, Change{Kind: Additive, Table: nt.Name, What: fmt.Sprintf("default_time_to_live %d becomes %d (rows written before keep their TTL)", ot.TTL, nt.TTL),
			CQL: fmt.Sprintf("ALTER TABLE %s WITH default_time_to_live = %d;", nt.Name, nt.TTL)})
	}
	return append(out, compareOptions(ot, nt)...)
}

func names(cs []Clustering) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func orders(cs []Clustering) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		dir := "ASC"
		if c.Desc {
			dir = "DESC"
		}
		parts[i] = c.Name + " " + dir
	}
	return strings.Join(parts, ", ")
}

// Migration returns the statements that apply changes in place, as a
// migration file cqlgen migrate (or gocqlx's migrate package) runs, or ok
// false when any change is breaking: then nothing may be applied in place. Contract and
// Unmanaged changes are left out; cql is empty when nothing is additive.
func Migration(changes []Change) (cql string, ok bool) {
	var b strings.Builder
	b.WriteString("-- Generated by cqlgen diff: additive changes only.\n")
	n := 0
	for _, c := range changes {
		if c.Kind == Breaking {
			return "", false
		}
		if c.Kind != Additive {
			continue
		}
		n++
		// Migration tools split at every semicolon, even in a comment.
		fmt.Fprintf(&b, "\n-- %s\n%s\n", strings.ReplaceAll(c.What, ";", ","), c.CQL)
	}
	if n == 0 {
		return "", true
	}
	return b.String(), true
}
