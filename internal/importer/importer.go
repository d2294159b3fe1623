// Package importer turns an existing keyspace, read from a CQL file or a
// live cluster's system_schema (through schemadiff), into a Go package of
// cqlgen declarations: an entity a table, or one entity for tables that
// hold the same rows under different keys, with the types, keys, statics,
// TTLs, table options, storage-attached and vector indexes and masks the
// grammar can state. Where no declaration reproduces a table exactly, a
// Note says why, at the table's position, and the output says so above
// the entity.
package importer

import (
	"bytes"
	"cmp"
	"fmt"
	"go/format"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/internal/cqlsplit"
	"github.com/cqlgen/cqlgen/internal/model"
	"github.com/cqlgen/cqlgen/internal/schemadiff"
	"github.com/cqlgen/cqlgen/internal/validate"
)

// Options say what is imported and how the package is named.
type Options struct {
	Package string // the Go package name; "" is "model"
	// Source names what was read, for the file's doc comment: a file
	// name, or "keyspace shop".
	Source string
	// File is the CQL file's name as notes give it (file:line:col); ""
	// when the schema was read from a cluster, and notes then give
	// Keyspace.table.
	File     string
	Keyspace string
	// KeyspaceDirective is the keyspace name and replication map for a
	// //cqlgen:keyspace line, "" for none.
	KeyspaceDirective string
	// Views are the materialized views of the schema, by name, with
	// their positions (file:line:col or keyspace.view): cqlgen writes
	// tables, so each is noted and left out.
	Views []Note
	// Driver is the import path of the Go driver whose UUID and Duration
	// types the fields hold, model.GocqlPath or model.GocqlV2Path; ""
	// is gocql v1.
	Driver string
	// NoMerge keeps one entity per table: no table becomes another's
	// source of truth, so none gains the write protocol's columns, and
	// every entity's writes are plain ones.
	NoMerge bool
}

// Note is something about one table (or index, or type) that the import
// could not reproduce exactly, or a choice it made.
type Note struct {
	Pos   string // file:line:col, or keyspace.table
	Table string
	Text  string
	// Skipped is set when the table has no declaration at all.
	Skipped bool
	// Merge is set on the note of a merge of tables into one entity:
	// what it costs, not what the declaration fails to reproduce.
	Merge bool
}

func (n Note) String() string { return n.Pos + ": " + n.Text }

// Result is the imported package.
type Result struct {
	Source   []byte // the Go file, gofmt'd
	Notes    []Note
	Entities []Entity
	// Ignores are the warnings the declarations silence, each with
	// ignore:"code: import: ..." on a pattern: what the deployed table
	// is (a non-frozen list, no bound on a partition's growth), which
	// import must declare as it is and generate would warn of.
	Ignores []Ignore
}

// Ignore is a warning code one imported table silences.
type Ignore struct {
	Table, Code string
}

// Entity is one declared entity and its tables, the source of truth
// first.
type Entity struct {
	Name   string
	Tables []string
	Merged bool // several tables, merged as one entity
}

// ProtocolColumns are the columns cqlgen adds to tables for its write
// protocol and unique claims: an import leaves them out (cqlgen adds them
// again where its declarations call for them).
var ProtocolColumns = append(slices.Clone(VersionedColumns), cqlspec.StaticVersionColumn, cqlspec.ClaimColumn)

// VersionedColumns are the columns a merge of tables adds to its source
// of truth, which the write protocol versions: an entity of several
// tables that has no static columns.
var VersionedColumns = []string{cqlspec.VersionColumn, cqlspec.DeletedColumn, cqlspec.PendingColumn, cqlspec.WritesColumn}

// RuntimeTable reports whether a table is one cqlgen's runtime owns
// (cqlgen_idempotency, cqlgen_progress, a migration ledger), which every
// generated schema creates by itself.
func RuntimeTable(name string) bool { return strings.HasPrefix(name, cqlspec.ReservedPrefix) }

// quotable reports whether a column's name, plain or not, can be declared.
func quotable(name string) bool {
	return cqlspec.Quotable(name) && !cqlspec.Owned(name)
}

// needsQuotes reports whether a name can only be written quoted, and
// how it reads.
func needsQuotes(name string) bool {
	return !cqlspec.Plain(name) || validate.Reserved(name) || len(name) > 48
}

type field struct {
	goName, col, goType, override, mask string
}

type table struct {
	t       *schemadiff.Table
	order   int
	cols    map[string]schemadiff.Column // without protocol columns
	names   []string                     // column names, in order
	counter bool
	statics []string
	notes   []string
	indexes []*index
	method  string   // the read method's Go name, "" for none
	ignores []string // the warnings the pattern silences, "code: reason"
}

// index is an index pattern of a table.
type index struct {
	tag    string // the tag but for its name:"..."
	col    string
	ann    bool
	name   string // the index's own name
	method string
}

type entity struct {
	name   string
	tables []*table // [0] the source of truth
	fields []field
	why    string
	order  int
}

type importer struct {
	opts    Options
	s       *schemadiff.Schema
	m       *mapper
	notes   []Note
	imports map[string]bool
	used    map[string]bool // Go names declared at package level
	fields  map[string]goType
}

// Import makes the declarations of s.
func Import(s *schemadiff.Schema, opts Options) (*Result, error) {
	if opts.Package == "" {
		opts.Package = "model"
	}
	if opts.Driver != "" && opts.Driver != model.GocqlPath && opts.Driver != model.GocqlV2Path {
		return nil, fmt.Errorf("driver %q: want %s or %s", opts.Driver, model.GocqlPath, model.GocqlV2Path)
	}
	im := &importer{opts: opts, s: s, m: &mapper{udts: map[string]string{}}, imports: map[string]bool{}, used: map[string]bool{}}
	for _, v := range opts.Views {
		im.note(v.Pos, v.Table, true, "materialized view %s: cqlgen writes tables and keeps them in step itself; declare the view's key as another pattern of its base table's entity: not imported", v.Table)
	}
	var udtDecls []string
	for _, ty := range s.Types {
		if needsQuotes(ty.Name) {
			im.note(im.typePos(ty), ty.Name, true, "type %s needs a quoted name, which cqlgen writes for the columns of a table only: tables that use it are not imported", cqlspec.Quote(ty.Name))
			continue
		}
		im.m.udts[ty.Name] = im.goName(ty.Name, true)
	}
	for _, ty := range s.Types {
		if _, ok := im.m.udts[ty.Name]; !ok {
			continue
		}
		decl, err := im.udt(ty)
		if err != nil {
			im.note(im.typePos(ty), ty.Name, true, "type %s: %v; tables that use it are not imported", ty.Name, err)
			delete(im.m.udts, ty.Name)
			continue
		}
		udtDecls = append(udtDecls, decl)
	}
	var tables []*table
	for i, t := range s.Tables {
		if RuntimeTable(t.Name) {
			continue
		}
		if tb := im.table(t, i); tb != nil {
			tables = append(tables, tb)
		}
	}
	entities := im.group(tables)
	im.indexes(tables, entities)
	im.methods(entities)
	res := &Result{}
	patterns := 0
	for _, e := range entities {
		res.Ignores = append(res.Ignores, im.silence(e)...)
		for _, t := range e.tables {
			patterns += 1 + len(t.indexes)
		}
	}
	if patterns > validate.MaxPatterns {
		im.note(im.opts.Source, "", false, "%d access patterns (tables and indexes) in one package, over the %d beyond which generate warns of the generated file's size (generated-size): split the entities into several packages", patterns, validate.MaxPatterns)
	}
	var b bytes.Buffer
	im.header(&b)
	for _, e := range entities {
		im.writeEntity(&b, e)
		var names []string
		for _, t := range e.tables {
			names = append(names, t.t.Name)
		}
		res.Entities = append(res.Entities, Entity{Name: e.name, Tables: names, Merged: len(e.tables) > 1})
	}
	for _, d := range udtDecls {
		b.WriteString(d)
	}
	src := im.finish(b.Bytes())
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("import wrote Go that does not parse (a bug in cqlgen import): %v\n%s", err, src)
	}
	res.Source = out
	res.Notes = im.notes
	return res, nil
}

func (im *importer) pos(t *schemadiff.Table) string {
	if im.opts.File != "" && t.Line > 0 {
		return fmt.Sprintf("%s:%d:%d", im.opts.File, t.Line, max(t.Col, 1))
	}
	return im.opts.Keyspace + "." + t.Name
}

func (im *importer) typePos(ty *schemadiff.Type) string {
	if im.opts.File != "" && ty.Line > 0 {
		return fmt.Sprintf("%s:%d:1", im.opts.File, ty.Line)
	}
	return im.opts.Keyspace + "." + ty.Name
}

func (im *importer) note(pos, table string, skipped bool, format string, args ...any) string {
	n := Note{Pos: pos, Table: table, Text: fmt.Sprintf(format, args...), Skipped: skipped}
	im.notes = append(im.notes, n)
	return n.String()
}

// goName is a package-level Go name for a CQL name, not yet used: the
// generator's own, model.GoName (user_id is UserID), numbered if taken.
func (im *importer) goName(s string, declare bool) string {
	base := model.GoName(s)
	name := base
	for i := 2; im.used[name]; i++ {
		name = base + strconv.Itoa(i)
	}
	if declare {
		im.used[name] = true
	}
	return name
}

// fieldNames gives each column a Go field name, unique in its struct.
func fieldNames(cols []string) map[string]string {
	out := map[string]string{}
	used := map[string]bool{}
	for _, c := range cols {
		base := model.GoName(c)
		name := base
		for i := 2; used[name]; i++ {
			name = base + strconv.Itoa(i)
		}
		used[name] = true
		out[c] = name
	}
	return out
}

func (im *importer) udt(ty *schemadiff.Type) (string, error) {
	var names []string
	for _, f := range ty.Fields {
		if needsQuotes(f.Name) {
			return "", typeErr("field %s needs a quoted name, which cqlgen writes for the columns of a table only", cqlspec.Quote(f.Name))
		}
		names = append(names, f.Name)
	}
	goNames := fieldNames(names)
	var b strings.Builder
	goName := im.m.udts[ty.Name]
	fmt.Fprintf(&b, "\n// %s is the user-defined type %s.\n//\n//cqlgen:udt %s\ntype %s struct {\n", goName, ty.Name, ty.Name, goName)
	for _, f := range ty.Fields {
		gt, nonFrozen, err := im.m.column(f.Type)
		if err != nil {
			return "", fmt.Errorf("field %s: %w", f.Name, err)
		}
		if nonFrozen || strings.HasPrefix(f.Type, "vector") || strings.Contains(f.Type, "counter") {
			return "", typeErr("field %s of type %s cannot be declared in a user-defined type", f.Name, f.Type)
		}
		for _, imp := range gt.imports {
			im.imports[imp] = true
		}
		fmt.Fprintf(&b, "\t%s %s `db:%q%s`\n", goNames[f.Name], gt.Go, f.Name, cqlTag(gt.Override))
	}
	b.WriteString("}\n")
	return b.String(), nil
}

func cqlTag(override string) string {
	if override == "" {
		return ""
	}
	return fmt.Sprintf(" cql:%q", override)
}

// table checks that a table can be declared and maps its columns; a
// table that cannot be is noted and skipped.
func (im *importer) table(t *schemadiff.Table, order int) *table {
	pos := im.pos(t)
	if needsQuotes(t.Name) {
		im.note(pos, t.Name, true, "table %s needs a quoted name, which cqlgen writes for columns only (db:\"name,quoted\"): not imported", cqlspec.Quote(t.Name))
		return nil
	}
	tb := &table{t: t, order: order, cols: map[string]schemadiff.Column{}}
	var quoted []string
	for _, c := range t.Columns {
		if slices.Contains(ProtocolColumns, c.Name) {
			continue
		}
		if !quotable(c.Name) {
			quoted = append(quoted, cqlspec.Quote(c.Name))
			continue
		}
		tb.cols[c.Name] = c
		tb.names = append(tb.names, c.Name)
		if c.Static {
			tb.statics = append(tb.statics, c.Name)
		}
		if c.Type == "counter" {
			tb.counter = true
		}
	}
	if len(quoted) > 0 {
		im.note(pos, t.Name, true, "table %s has column names cqlgen cannot declare (%s): a quoted name it writes holds letters, digits and underscores, from a letter, and names starting with cqlgen_ are its own: not imported", t.Name, strings.Join(quoted, ", "))
		return nil
	}
	key := map[string]bool{}
	for _, k := range t.PartitionKey {
		key[k] = true
	}
	for _, c := range t.Clustering {
		key[c.Name] = true
	}
	for _, name := range tb.names {
		c := tb.cols[name]
		gt, nonFrozen, err := im.m.column(c.Type)
		if err != nil {
			im.note(pos, t.Name, true, "table %s: column %s: %v: not imported", t.Name, c.Name, err)
			return nil
		}
		if key[name] && (strings.HasPrefix(gt.Go, "*") || strings.HasPrefix(c.Type, "vector")) {
			im.note(pos, t.Name, true, "table %s: key column %s of type %s: cqlgen reads it into %s, a pointer, and a key cannot be null: not imported", t.Name, c.Name, c.Type, gt.Go)
			return nil
		}
		if key[name] {
			for _, u := range gt.udts {
				if bad := im.unkeyable(u, map[string]bool{}); bad != "" {
					im.note(pos, t.Name, true, "table %s: key column %s is the user-defined type %s, which holds %s: cqlgen keys no type that holds a set, a map or a duration (a Go map's order would make one value two keys): not imported", t.Name, c.Name, u, bad)
					return nil
				}
			}
		}
		if nonFrozen {
			tb.notes = append(tb.notes, im.note(pos, t.Name, false, "table %s: column %s is the user-defined type %s unfrozen; cqlgen freezes every user-defined type, so the declaration makes it frozen<%s>", t.Name, c.Name, c.Type, c.Type))
		}
	}
	im.options(tb)
	return tb
}

// options notes what the grammar cannot say about a table's options.
func (im *importer) options(tb *table) {
	t, pos := tb.t, im.pos(tb.t)
	if len(t.Unread) > 0 {
		tb.notes = append(tb.notes, im.note(pos, t.Name, false, "table %s: option(s) %s are not part of cqlgen's grammar; the declaration leaves them at Cassandra's defaults (set them by hand with ALTER TABLE ... WITH)", t.Name, strings.Join(t.Unread, ", ")))
	}
	if _, ok := compaction(t.Options.Compaction); !ok {
		tb.notes = append(tb.notes, im.note(pos, t.Name, false, "table %s: compaction %s is not one cqlgen declares (stcs, lcs, ucs, twcs(window)): the declaration leaves Cassandra's default", t.Name, t.Options.Compaction))
	}
	if c := t.Options.Comment; strings.ContainsAny(c, ";\n`\r") {
		tb.notes = append(tb.notes, im.note(pos, t.Name, false, "table %s: its comment holds a semicolon, a line break or a backquote, which cqlgen writes otherwise (a semicolon as a comma, the rest as spaces)", t.Name))
	}
}

// compaction is the compaction key of a strategy, "" for the default.
func compaction(c schemadiff.Compaction) (string, bool) {
	switch c.Class {
	case "", "SizeTieredCompactionStrategy":
		return "", true
	case "LeveledCompactionStrategy":
		return "lcs", true
	case "UnifiedCompactionStrategy":
		return "ucs", true
	case "TimeWindowCompactionStrategy":
		unit := map[string]string{"DAYS": "d", "HOURS": "h", "MINUTES": "m"}[c.Options["compaction_window_unit"]]
		n, err := strconv.Atoi(c.Options["compaction_window_size"])
		if unit == "" || err != nil || n < 1 {
			return "", false
		}
		return fmt.Sprintf("twcs(%d%s)", n, unit), true
	}
	return "", false
}

// duration writes seconds in the largest unit that divides them.
func duration(s int64) string {
	switch {
	case s == 0:
		return "0"
	case s%86400 == 0:
		return fmt.Sprintf("%dd", s/86400)
	case s%3600 == 0:
		return fmt.Sprintf("%dh", s/3600)
	case s%60 == 0:
		return fmt.Sprintf("%dm", s/60)
	}
	return fmt.Sprintf("%ds", s)
}

func (tb *table) key() []string {
	k := slices.Clone(tb.t.PartitionKey)
	for _, c := range tb.t.Clustering {
		k = append(k, c.Name)
	}
	return k
}

// mergeable reports whether o can be stored as another table of the
// entity whose source of truth is c: every column of o is one of c's,
// of the same type and mask, and o's primary key holds c's whole primary
// key, so each row of o is one row of c.
func mergeable(c, o *table) bool {
	if o.counter || c.counter || len(o.statics) > 0 || len(c.statics) > 0 || o.t.SourceOf != "" {
		return false
	}
	for name, oc := range o.cols {
		cc, ok := c.cols[name]
		if !ok || cc.Type != oc.Type || cc.Mask != oc.Mask {
			return false
		}
	}
	ok := o.key()
	for _, k := range c.key() {
		if !slices.Contains(ok, k) {
			return false
		}
	}
	return true
}

// group makes the entities: each source of truth candidate (a table
// cqlgen marked as one first, then the widest) takes the tables it can
// be the source of truth of; the tables left are entities of their own.
func (im *importer) group(tables []*table) []*entity {
	cands := slices.Clone(tables)
	slices.SortStableFunc(cands, func(a, b *table) int {
		return cmp.Or(
			-cmp.Compare(boolInt(a.t.SourceOf != ""), boolInt(b.t.SourceOf != "")),
			-cmp.Compare(len(a.cols), len(b.cols)),
			cmp.Compare(len(a.key()), len(b.key())),
			cmp.Compare(a.order, b.order))
	})
	taken := map[*table]bool{}
	var out []*entity
	for _, c := range cands {
		if taken[c] {
			continue
		}
		e := &entity{tables: []*table{c}, order: c.order}
		for _, o := range tables {
			if !im.opts.NoMerge && o != c && !taken[o] && mergeable(c, o) {
				e.tables = append(e.tables, o)
				e.order = min(e.order, o.order)
			}
		}
		for _, t := range e.tables {
			taken[t] = true
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *entity) int { return cmp.Compare(a.order, b.order) })
	for _, e := range out {
		c := e.tables[0]
		name := c.t.SourceOf
		if name == "" || !regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`).MatchString(name) || im.used[name] {
			name = im.entityName(c.t.Name)
		}
		im.used[name] = true
		e.name = name
	}
	// Generated code declares XRepo and NewXRepo for entity X: an entity
	// called NewX, or XRepo, beside an entity X would declare one twice.
	for _, e := range out {
		rest, isNew := strings.CutPrefix(e.name, "New")
		base, isRepo := strings.CutSuffix(e.name, "Repo")
		if (isNew && im.used[rest]) || (isRepo && im.used[base]) {
			delete(im.used, e.name)
			e.name = im.goName(e.name+"_entity", true)
		}
	}
	for _, e := range out {
		im.used[e.name+"Repo"] = true
		im.used["New"+e.name+"Repo"] = true
	}
	for _, e := range out {
		c := e.tables[0]
		if len(e.tables) > 1 {
			var others []string
			for _, o := range e.tables[1:] {
				others = append(others, o.t.Name)
			}
			all := and(append([]string{c.t.Name}, others...))
			// A source of truth cqlgen generated holds the columns already.
			alter := fmt.Sprintf("%s gains cqlgen's write-protocol columns (%s), an ALTER TABLE of a deployed table", c.t.Name, and(VersionedColumns))
			alterNote := fmt.Sprintf("an ALTER TABLE of %s, which gains the write protocol's columns %s", c.t.Name, strings.Join(VersionedColumns, ", "))
			if slices.ContainsFunc(c.t.Columns, func(col schemadiff.Column) bool { return col.Name == cqlspec.VersionColumn }) {
				alter = fmt.Sprintf("%s keeps cqlgen's write-protocol columns (%s), which it has", c.t.Name, and(VersionedColumns))
				alterNote = fmt.Sprintf("no ALTER TABLE (%s has the write protocol's columns already)", c.t.Name)
			}
			e.why = fmt.Sprintf("Import merged %s into one entity, with %s as its source of truth: every column of %s is a column of %s, of the same type, and %s the whole primary key of %s (%s), so each of their rows is one row of %s. As one entity, every write keeps the tables in step, at a cost: %s, and every write is a conditional write of %s (a Paxos round) before the writes of %s. If they hold different things, or the cost is not worth it, split them into one entity each (cqlgen import -no-merge).",
				all, c.t.Name, and(others), c.t.Name, plural(len(others), "its primary key holds", "each one's primary key holds"), c.t.Name, strings.Join(c.key(), ", "), c.t.Name, alter, c.t.Name, and(others))
			im.notes = append(im.notes, Note{Pos: im.pos(c.t), Table: c.t.Name, Merge: true,
				Text: fmt.Sprintf("merged %s into one entity, %s, with %s as its source of truth: it costs %s, and a conditional write (a Paxos round) of %s on every write of %s; -no-merge keeps one entity per table, with plain writes",
					all, e.name, c.t.Name, alterNote, c.t.Name, e.name)})
		}
		names := fieldNames(c.names)
		for _, col := range c.names {
			cc := c.cols[col]
			gt, _, _ := im.m.column(cc.Type)
			for _, imp := range gt.imports {
				im.imports[imp] = true
			}
			e.fields = append(e.fields, field{goName: names[col], col: col, goType: gt.Go, override: gt.Override, mask: im.mask(c, cc)})
		}
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

var maskRe = regexp.MustCompile(`^mask_(default|null|hash|inner|outer|replace)\((.*)\)$`)

// mask is the mask:"..." value of a masked column.
func (im *importer) mask(tb *table, c schemadiff.Column) string {
	if c.Mask == "" {
		return ""
	}
	m := maskRe.FindStringSubmatch(strings.ReplaceAll(c.Mask, "system.", ""))
	switch {
	case m == nil, (m[1] == "default" || m[1] == "null" || m[1] == "hash") && m[2] != "":
		tb.notes = append(tb.notes, im.note(im.pos(tb.t), tb.t.Name, false, "table %s: column %s is masked with %s, which is not one of cqlgen's masks: the declaration has no mask", tb.t.Name, c.Name, c.Mask))
		return ""
	case m[2] == "":
		return m[1]
	case m[1] == "inner" || m[1] == "outer":
		for _, a := range strings.Split(m[2], ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(a)); err != nil || n < 0 {
				tb.notes = append(tb.notes, im.note(im.pos(tb.t), tb.t.Name, false, "table %s: column %s is masked with %s, and cqlgen's %s takes two counts of characters: the declaration has no mask", tb.t.Name, c.Name, c.Mask, m[1]))
				return ""
			}
		}
	}
	return m[1] + "(" + m[2] + ")"
}

// indexes turns the indexes on imported tables into index patterns.
func (im *importer) indexes(tables []*table, entities []*entity) {
	owner := map[*table]*entity{}
	for _, e := range entities {
		for _, t := range e.tables {
			owner[t] = e
		}
	}
	byName := map[string]*table{}
	for _, t := range tables {
		byName[t.t.Name] = t
	}
	seen := map[string]bool{}
	for _, ix := range im.s.Indexes {
		tb := byName[ix.Table]
		if tb == nil {
			continue
		}
		pos := im.pos(tb.t)
		if im.opts.File != "" && ix.Line > 0 {
			pos = fmt.Sprintf("%s:%d:1", im.opts.File, ix.Line)
		}
		skip := func(format string, args ...any) {
			tb.notes = append(tb.notes, im.note(pos, tb.t.Name, false, "index %s on %s: "+format+": not imported", append([]any{ix.Name, tb.t.Name}, args...)...))
		}
		col, ok := tb.cols[ix.Column]
		typ, _ := parseType(col.Type)
		// keysOfMap: an index on a map's keys, col:"keys(m)", read by
		// contains key.
		keysOfMap := typ != nil && typ.name == "map" && ix.Target == "keys("+ix.Column+")"
		switch {
		case needsQuotes(ix.Name):
			skip("its name needs quotes, which cqlgen writes for the columns of a table only")
			continue
		case !quotable(ix.Column):
			skip("column %s cannot be declared", cqlspec.Quote(ix.Column))
			continue
		case ix.Class != "StorageAttachedIndex":
			what := "a legacy secondary index"
			if ix.Class != "" {
				what = "a custom index of class " + ix.Class
			}
			skip("%s; cqlgen declares storage-attached indexes (SAI) only", what)
			continue
		case !ok || typ == nil:
			skip("column %s is not declared", ix.Column)
			continue
		case slices.Contains(tb.t.PartitionKey, ix.Column):
			skip("it indexes a partition key column, which cqlgen refuses (a read already restricts it)")
			continue
		case ix.Target != ix.Column && ix.Target != "values("+ix.Column+")" && !keysOfMap:
			skip("it indexes %s, and cqlgen indexes a column's value, a list's or set's elements, or a map's keys", ix.Target)
			continue
		case typ.name == "map" && !keysOfMap || typ.name == "frozen" || typ.name == "counter" || typ.name == "duration" || typ.name == "blob":
			skip("cqlgen does not index a column of type %s", col.Type)
			continue
		case seen[ix.Table+"."+ix.Column]:
			skip("another index of the table is on %s, and cqlgen declares one a column", ix.Column)
			continue
		}
		seen[ix.Table+"."+ix.Column] = true
		tag := fmt.Sprintf("index:%q col:%q", ix.Name, ix.Column)
		if ix.Target == "keys("+ix.Column+")" {
			tag = fmt.Sprintf("index:%q col:%q", ix.Name, ix.Target)
		}
		if e := owner[tb]; e.tables[0] != tb {
			tag += fmt.Sprintf(" on:%q", tb.t.Name)
		}
		opts := map[string]string{}
		for _, kv := range strings.Split(ix.Options, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				opts[k] = v
			}
		}
		if typ.name == "vector" {
			sim := strings.ToLower(opts["similarity_function"])
			delete(opts, "similarity_function")
			switch sim {
			case "", "cosine":
				tag += ` match:"ann"`
			case "dot_product", "euclidean":
				tag += fmt.Sprintf(` match:"ann(%s)"`, sim)
			default:
				skip("similarity function %s is not one cqlgen declares", sim)
				continue
			}
		}
		if len(opts) > 0 {
			tb.notes = append(tb.notes, im.note(pos, tb.t.Name, false, "index %s on %s: its options %s are not part of cqlgen's grammar: the declaration leaves them out", ix.Name, tb.t.Name, ix.Options))
		}
		tb.indexes = append(tb.indexes, &index{tag: tag, col: ix.Column, ann: typ.name == "vector", name: ix.Name})
	}
}

func (im *importer) header(b *bytes.Buffer) {
	doc := fmt.Sprintf("Package %s holds the cqlgen declarations that cqlgen import made from %s: an entity a table, or one entity for tables that hold the same rows under different keys. It is yours to edit: rename the entities and read methods, add doc and size hints, then run go generate. A comment or ignore reason that starts with \"import:\" says where a declaration does not reproduce its table exactly, or what the deployed table is that generate would warn of.", im.opts.Package, im.opts.Source)
	for _, line := range wrap(doc, 76) {
		fmt.Fprintf(b, "// %s\n", line)
	}
	fmt.Fprintf(b, "package %s\n\n", im.opts.Package)
	fmt.Fprintf(b, "//go:generate go tool cqlgen generate -driver %s .\n\n", im.driverName())
	if im.opts.KeyspaceDirective != "" {
		fmt.Fprintf(b, "//cqlgen:keyspace %s\n\n", im.opts.KeyspaceDirective)
	}
	b.WriteString("//IMPORTS\n")
	var skipped []Note
	for _, n := range im.notes {
		if n.Skipped {
			skipped = append(skipped, n)
		}
	}
	if len(skipped) > 0 {
		b.WriteString("\n// import: not declared:\n//\n")
		for _, n := range skipped {
			fmt.Fprintf(b, "//   - %s\n", n)
		}
	}
}

// driver is the import path of the Go driver whose types the fields
// hold.
func (im *importer) driver() string {
	if im.opts.Driver == "" {
		return model.GocqlPath
	}
	return im.opts.Driver
}

// driverName is the driver as cqlgen generate's -driver names it.
func (im *importer) driverName() string {
	for name, path := range model.Drivers {
		if path == im.driver() {
			return name
		}
	}
	return "gocql"
}

// finish writes the import block.
func (im *importer) finish(src []byte) []byte {
	imps := []string{"github.com/cqlgen/cqlgen/runtime/cqlgen"}
	for imp := range im.imports {
		if imp == model.GocqlPath {
			imp = im.driver()
		}
		imps = append(imps, imp)
	}
	var std, other []string
	for _, imp := range imps {
		if strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
			other = append(other, imp)
		} else {
			std = append(std, imp)
		}
	}
	slices.Sort(std)
	slices.Sort(other)
	var b strings.Builder
	b.WriteString("import (\n")
	for _, s := range std {
		fmt.Fprintf(&b, "\t%q\n", s)
	}
	if len(std) > 0 {
		b.WriteString("\n")
	}
	for _, s := range other {
		if s == "gopkg.in/inf.v0" {
			fmt.Fprintf(&b, "\tinf %q\n", s)
			continue
		}
		if s == model.GocqlV2Path {
			fmt.Fprintf(&b, "\tgocql %q\n", s)
			continue
		}
		fmt.Fprintf(&b, "\t%q\n", s)
	}
	b.WriteString(")\n")
	return bytes.Replace(src, []byte("//IMPORTS\n"), []byte(b.String()), 1)
}

func (im *importer) writeEntity(b *bytes.Buffer, e *entity) {
	c := e.tables[0]
	b.WriteString("\n")
	if len(e.tables) == 1 {
		fmt.Fprintf(b, "// %s is a row of table %s (%s).\n", e.name, c.t.Name, im.pos(c.t))
	} else {
		var names []string
		for _, t := range e.tables {
			names = append(names, fmt.Sprintf("%s (%s)", t.t.Name, im.pos(t.t)))
		}
		fmt.Fprintf(b, "// %s is stored in tables %s.\n//\n", e.name, and(names))
		for _, line := range wrap(e.why, 76) {
			fmt.Fprintf(b, "// %s\n", line)
		}
	}
	var notes []string
	for _, t := range e.tables {
		notes = append(notes, t.notes...)
	}
	for _, n := range notes {
		b.WriteString("//\n")
		for _, line := range wrap("import: "+n, 76) {
			fmt.Fprintf(b, "// %s\n", line)
		}
	}
	fmt.Fprintf(b, "type %s struct {\n", e.name)
	for i, t := range e.tables {
		fmt.Fprintf(b, "\t_ cqlgen.Pattern `%s`\n", im.patternTag(e, t, i == 0))
	}
	for _, t := range e.tables {
		for _, ix := range t.indexes {
			fmt.Fprintf(b, "\t_ cqlgen.Pattern `%s name:%q`\n", ix.tag, ix.method)
		}
	}
	b.WriteString("\n")
	for _, f := range e.fields {
		tag := fmt.Sprintf("db:%q%s", f.col, cqlTag(f.override))
		if cqlspec.NeedsQuotes(f.col) {
			// A name the table already has that CQL reads only quoted.
			tag = fmt.Sprintf("db:%q%s", f.col+",quoted", cqlTag(f.override))
		}
		if f.mask != "" {
			tag += fmt.Sprintf(" mask:%q", f.mask)
		}
		fmt.Fprintf(b, "\t%s %s `%s`\n", f.goName, f.goType, tag)
	}
	b.WriteString("}\n")
}

func (im *importer) patternTag(e *entity, tb *table, canonical bool) string {
	t := tb.t
	name := t.Name
	if canonical && len(e.tables) > 1 {
		name += ",canonical"
	}
	parts := []string{fmt.Sprintf("table:%q", name), fmt.Sprintf("pk:%q", strings.Join(t.PartitionKey, ", "))}
	if len(t.Clustering) > 0 {
		var ck []string
		for _, c := range t.Clustering {
			s := c.Name
			if c.Desc {
				s += " desc"
			}
			ck = append(ck, s)
		}
		parts = append(parts, fmt.Sprintf("ck:%q", strings.Join(ck, ", ")))
	}
	if !canonical && len(tb.cols) < len(e.tables[0].cols) {
		var cols []string
		key := tb.key()
		for _, f := range e.fields {
			if _, ok := tb.cols[f.col]; ok && !slices.Contains(key, f.col) {
				cols = append(cols, f.col)
			}
		}
		parts = append(parts, fmt.Sprintf("cols:%q", strings.Join(cols, ", ")))
	}
	if len(tb.statics) > 0 {
		parts = append(parts, fmt.Sprintf("static:%q", strings.Join(tb.statics, ", ")))
	}
	if tb.method != "" {
		parts = append(parts, fmt.Sprintf("name:%q", tb.method))
	}
	if t.TTL > 0 {
		parts = append(parts, fmt.Sprintf("ttl:%q", duration(t.TTL)))
	}
	if c, ok := compaction(t.Options.Compaction); ok && c != "" {
		parts = append(parts, fmt.Sprintf("compaction:%q", c))
	}
	if t.Options.GCGrace != schemadiff.DefaultGCGrace {
		parts = append(parts, fmt.Sprintf("gc_grace:%q", duration(t.Options.GCGrace)))
	}
	comment := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "`", "'").Replace(t.Options.Comment)
	parts = append(parts, fmt.Sprintf("comment:%s", strconv.Quote(comment)))
	if len(tb.ignores) > 0 {
		parts = append(parts, fmt.Sprintf("ignore:%q", strings.Join(tb.ignores, "; ")))
	}
	return strings.Join(parts, " ")
}

// wrap breaks s into lines of at most width bytes, at spaces.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// and joins words as English does: a, b and c.
func and(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

var keyspaceRe = regexp.MustCompile(`(?is)^create\s+keyspace\s+(?:if\s+not\s+exists\s+)?([a-z][a-z0-9_]*)\s+with\s+replication\s*=\s*(\{[^}]*\})\s*(?:and\s+durable_writes\s*=\s*true\s*)?$`)

var viewRe = regexp.MustCompile(`(?is)^create\s+materialized\s+view\s+(?:if\s+not\s+exists\s+)?(?:[a-z0-9_"]+\.)?("?[a-z0-9_]+"?)`)

// FromCQL imports a CQL script: its CREATE TYPE, CREATE TABLE and CREATE
// INDEX statements, and its CREATE KEYSPACE as a //cqlgen:keyspace
// directive. file names the script in notes.
func FromCQL(file, script string, opts Options) (*Result, error) {
	s, err := schemadiff.Parse(script)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	opts.File = file
	if opts.Source == "" {
		opts.Source = file
	}
	for _, st := range cqlsplit.Split(script) {
		if m := viewRe.FindStringSubmatch(st.Text); m != nil {
			opts.Views = append(opts.Views, Note{Pos: fmt.Sprintf("%s:%d:1", file, st.Line), Table: strings.ToLower(m[1])})
			continue
		}
		if !st.IsCreateKeyspace() || opts.KeyspaceDirective != "" {
			continue
		}
		if m := keyspaceRe.FindStringSubmatch(strings.TrimSpace(st.Text)); m != nil && !validate.Reserved(strings.ToLower(m[1])) {
			opts.KeyspaceDirective = strings.ToLower(m[1]) + " " + strings.Join(strings.Fields(m[2]), " ")
		}
	}
	return Import(s, opts)
}

// unkeyable names what makes a user-defined type unfit for a key: a set,
// a map or a duration among its fields, or its nested types' fields.
func (im *importer) unkeyable(udt string, seen map[string]bool) string {
	if seen[udt] {
		return ""
	}
	seen[udt] = true
	for _, ty := range im.s.Types {
		if ty.Name != udt {
			continue
		}
		for _, f := range ty.Fields {
			n, err := parseType(f.Type)
			if err != nil {
				continue
			}
			var walk func(n *typeNode) string
			walk = func(n *typeNode) string {
				switch {
				case n.name == "set" || n.name == "map" || n.name == "duration":
					return "a " + n.name + " (field " + f.Name + ")"
				case im.m.udts[n.name] != "":
					return im.unkeyable(n.name, seen)
				}
				for _, c := range n.params {
					if s := walk(c); s != "" {
						return s
					}
				}
				return ""
			}
			if s := walk(n); s != "" {
				return s
			}
		}
	}
	return ""
}
