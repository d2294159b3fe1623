package model

import "strings"

// Statement is one CQL statement that generated code declares for a table:
// its text, one clause per line, and what its placeholders bind, in order.
// Both come from one description here, so the emitted CQL and the code
// that binds it cannot disagree.
type Statement struct {
	Slot Slot
	// Depth is, for a page statement, how many clustering columns, from
	// the first, it fixes by equality: 0, or up to the table's
	// PrefixDepth.
	Depth int
	// Scatter marks the form of a page statement that reads every hash
	// bucket of a partition at once: the bucket column IN ?, the bucket
	// column selected last, at most a bound number of rows per bucket
	// (PER PARTITION LIMIT ?).
	Scatter bool
	Const   string   // the Go constant that holds the text
	Clauses []string // the statement, one clause per line
	Binds   []Bind   // one per placeholder, in order
}

// CQL is the statement's text, clauses on their own lines, a long clause
// continued over several at its commas or before its ANDs.
func (s *Statement) CQL() string {
	lines := make([]string, len(s.Clauses))
	for i, c := range s.Clauses {
		lines[i] = wrapClause(c)
	}
	return strings.Join(lines, "\n\t")
}

// clauseWidth keeps the lines of a statement short enough to read in a
// diff, with the Go code around them.
const clauseWidth = 72

func wrapClause(c string) string {
	if len(c) <= clauseWidth {
		return c
	}
	// The places a line may end: after ", " and before " AND ", but not
	// inside a short parenthesized group, (a, b) > (?, ?) or token(a, b),
	// which reads best whole. A long one, an INSERT's column list, breaks
	// at its commas.
	var parts []string
	start := 0
	for i := 0; i < len(c); i++ {
		switch {
		case c[i] == '(':
			if end := matchingParen(c, i); end > i && end-i <= 40 {
				i = end
			}
		case strings.HasPrefix(c[i:], ", "):
			parts = append(parts, c[start:i+2])
			start = i + 2
		case i > start && strings.HasPrefix(c[i:], " AND "):
			parts = append(parts, c[start:i])
			start = i
		}
	}
	parts = append(parts, c[start:])
	var b strings.Builder
	line := 0
	for i, part := range parts {
		if i > 0 && line+len(part) > clauseWidth {
			b.WriteString("\n\t\t")
			line = 0
			part = strings.TrimLeft(part, " ")
		}
		b.WriteString(part)
		line += len(part)
	}
	return strings.ReplaceAll(b.String(), ", \n", ",\n")
}

// matchingParen is the index of the ')' that closes c[open], or -1.
func matchingParen(c string, open int) int {
	depth := 0
	for i := open; i < len(c); i++ {
		switch c[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// Slot names a statement's role; the runtime's cqlgenimpl.CQL has a field
// of the same name for each (After holds the After levels in order).
type Slot string

const (
	SlotInsert      Slot = "Insert"
	SlotInsertTTL   Slot = "InsertTTL" // Insert with a TTL of the call's, on an entity stored in one table
	SlotCreate      Slot = "Create"    // Insert if no row has the key (IF NOT EXISTS), with a TTL
	SlotAdd         Slot = "Add"       // a counter table's update, in place of Insert
	SlotDelete      Slot = "Delete"
	SlotGet         Slot = "Get"
	SlotGetMany     Slot = "GetMany" // the canonical rows of several keys: the last partition key column IN ?
	SlotState       Slot = "State"
	SlotPartition   Slot = "Partition" // State's columns from the first row of a partition, for its statics
	SlotChange      Slot = "Change"
	SlotRemove      Slot = "Remove"
	SlotSettle      Slot = "Settle"
	SlotFenceLive   Slot = "FenceLive"
	SlotFenceGrave  Slot = "FenceGrave"
	SlotTake        Slot = "Take"
	SlotRelease     Slot = "Release"
	SlotScan        Slot = "Scan"
	SlotFirst       Slot = "First"
	SlotFirstFrom   Slot = "FirstFrom"
	SlotFirstTo     Slot = "FirstTo"
	SlotFirstFromTo Slot = "FirstFromTo"
	SlotAfter       Slot = "After" // one per run of clustering columns of one direction; Level is where it starts
	SlotAfterTo     Slot = "AfterTo"
	SlotAtOrAfter   Slot = "AtOrAfter"
	SlotAtOrAfterTo Slot = "AtOrAfterTo"
)

// BindKind tells what a placeholder binds.
type BindKind int

const (
	BindColumn       BindKind = iota // the column's value (a version column: the write timestamp)
	BindTimestamp                    // the write timestamp (USING TIMESTAMP)
	BindOldVersion                   // the version the row had when read (null: no row)
	BindPending                      // the record of the change's rows to delete elsewhere
	BindWrites                       // the record of the last changes, this one included
	BindFrom                         // the read's From bound
	BindTo                           // the read's To bound
	BindTokenLo                      // a scan's lower token, excluded
	BindTokenHi                      // a scan's upper token, included
	BindHeld                         // a unique table's owner column, as read
	BindChange                       // the version of the change that gives a claim up
	BindDelta                        // the amount a counter update adds to Column
	BindKeys                         // the list of Column's values a multi-get reads (IN ?)
	BindTTL                          // the time to live of the write, in seconds (USING TTL)
	BindPerPartition                 // the most rows a scatter read takes of each bucket (PER PARTITION LIMIT ?)
	BindStaticTS                     // the new version of the partition's statics (unset: unchanged)
	BindOldStatic                    // the version of the partition's statics when read (null: none)
)

// Bind is one placeholder.
type Bind struct {
	Kind   BindKind
	Column *Column // for BindColumn, and the column a bound restricts
}

// Words describes the placeholder for a comment.
func (b Bind) Words() string {
	switch b.Kind {
	case BindTimestamp:
		return "the write timestamp"
	case BindOldVersion:
		return "the version read"
	case BindPending:
		return "the pending record"
	case BindWrites:
		return "the record of the last changes"
	case BindFrom:
		return "From"
	case BindTo:
		return "To"
	case BindTokenLo:
		return "the lower token (excluded)"
	case BindTokenHi:
		return "the upper token"
	case BindHeld:
		return b.Column.Name + " as read"
	case BindChange:
		return "the version of the change"
	case BindDelta:
		return "the amount added to " + b.Column.Name
	case BindTTL:
		return "the TTL in seconds (unset: the table's default)"
	case BindValue:
		return "the value of " + b.Column.Name + " looked for"
	case BindKeys:
		return "the list of " + b.Column.Name + " values"
	case BindLimit:
		return "the limit"
	case BindPerPartition:
		return "the most rows per bucket"
	case BindStaticTS:
		return "the statics' new version (unset: unchanged)"
	case BindOldStatic:
		return "the statics' version read"
	}
	if b.Column.Kind == Claim {
		return b.Column.Name + " (the version of the change)"
	}
	if b.Column.Kind == Version {
		return b.Column.Name + " (the write timestamp)"
	}
	return b.Column.Name
}

// The table's uses decide which statements it gets.

// HasRead reports whether the table gets a read method of its own: every
// table but a canonical one with no clustering column and no bucket, whose
// one row per partition Get already reads.
func (t *Table) HasRead() bool {
	return !(t.Entity.Canonical == t && t.pagesOne())
}

// ReadsOne reports whether the table's read method returns one row rather
// than pages: its partition holds one row.
func (t *Table) ReadsOne() bool { return t.Unique || (t.pagesOne() && t.Entity.Canonical != t) }

// HasGetMany reports whether the entity's repository gets a multi-get,
// GetMany, on t: the source of truth, when a partition holds one entity
// (no clustering column, no bucket), so that a list of partition keys is
// a list of entities.
func (t *Table) HasGetMany() bool {
	return t.Entity.Canonical == t && t.pagesOne() && !t.Unique && len(t.PartitionKey()) > 0
}

func (t *Table) pagesOne() bool { return len(t.CK) == 0 && t.Bucket == nil }

// Statements returns the statements generated code declares for t, in
// the order they are emitted. They are built once, on first use, after
// the model is complete.
func (t *Table) Statements() []*Statement {
	if t.stmts == nil {
		t.stmts = t.statements()
	}
	return t.stmts
}

func (t *Table) statements() []*Statement {
	e := t.Entity
	canonical := e.Canonical == t
	versioned := canonical && e.Versioned()
	var out []*Statement
	// A page statement's level carries the depth of its prefix above bit
	// 16: the constants of a read that fixes the first k clustering
	// columns are named ...Eq<k>First, ...Eq<k>After<level>.
	add := func(slot Slot, level int, clauses []string, binds []Bind) {
		scatter := level&scatterLevel != 0
		depth := level &^ scatterLevel >> 16
		level &= 1<<16 - 1
		name := t.Names.Var
		if scatter {
			name += "Scatter"
		}
		if depth > 0 {
			name += "Eq" + itoa(int64(depth))
		}
		name += string(slot)
		if slot == SlotAfter {
			name += itoa(int64(level))
		}
		out = append(out, &Statement{Slot: slot, Depth: depth, Scatter: scatter, Const: name + "CQL", Clauses: clauses, Binds: binds})
	}
	keyCols := append(t.PartitionKey(), t.Clustering()...)
	where, keyBinds := t.equal(keyCols)
	if t.Unique {
		t.uniqueStatements(add, where, keyBinds)
		if e.Maintained() {
			t.scanStatement(add, false)
		}
		return out
	}

	sel := "SELECT " + strings.Join(t.selected(), ", ")
	if t.HasCounters() {
		t.counterStatements(add, where, keyBinds)
	} else if !versioned {
		var names, marks []string
		var binds []Bind
		for _, c := range t.Columns {
			names = append(names, c.Name)
			marks = append(marks, "?")
			binds = append(binds, Bind{Column: c})
		}
		into := []string{
			"INSERT INTO " + t.Name + " (" + strings.Join(names, ", ") + ")",
			"VALUES (" + strings.Join(marks, ", ") + ")",
		}
		add(SlotInsert, 0, append(into[:2:2], "USING TIMESTAMP ?"), append(binds, Bind{Kind: BindTimestamp}))
		if e.Single() {
			// A TTL of the call's, and a create that applies only where
			// no row has the key; Cassandra refuses a client timestamp
			// on a conditional write.
			add(SlotInsertTTL, 0, append(into[:2:2], "USING TTL ? AND TIMESTAMP ?"),
				append(binds[:len(binds):len(binds)], Bind{Kind: BindTTL}, Bind{Kind: BindTimestamp}))
			add(SlotCreate, 0, append(into[:2:2], "IF NOT EXISTS USING TTL ?"),
				append(binds[:len(binds):len(binds)], Bind{Kind: BindTTL}))
		}
		add(SlotDelete, 0, []string{"DELETE FROM " + t.Name, "USING TIMESTAMP ?", where},
			append([]Bind{{Kind: BindTimestamp}}, keyBinds...))
	}
	if canonical || t.ReadsOne() {
		add(SlotGet, 0, []string{sel, "FROM " + t.Name, where}, keyBinds)
	}
	if t.HasGetMany() {
		pk := t.PartitionKey()
		last := pk[len(pk)-1]
		conds, binds := t.conds(pk[:len(pk)-1])
		conds = append(conds, last.Name+" IN ?")
		binds = append(binds, Bind{Kind: BindKeys, Column: last})
		add(SlotGetMany, 0, []string{sel, "FROM " + t.Name, "WHERE " + strings.Join(conds, " AND ")}, binds)
	}
	if versioned {
		t.protocolStatements(add, where, keyBinds)
		if e.HasUnique() {
			t.fenceStatements(add, where, keyBinds)
		}
	}
	if e.Maintained() {
		t.scanStatement(add, canonical)
	}
	if !t.HasRead() || t.ReadsOne() {
		return out
	}
	for depth := 0; depth <= t.PrefixDepth(); depth++ {
		t.pageStatements(add, sel, depth, false)
	}
	if t.Scatters() {
		for depth := 0; depth <= t.PrefixDepth(); depth++ {
			t.pageStatements(add, sel+", "+t.Bucket.Column, depth, true)
		}
	}
	return out
}

// scatterLevel marks, in the level add is given, a statement's scatter
// form (see Statement.Scatter).
const scatterLevel = 1 << 24

// Scatters reports whether the table's reads get the scatter form of their
// page statements: it is split over hash buckets (every page statement),
// or over time buckets (those from a first row: a walk reads several
// older buckets at once from their first rows, and continues a cursor
// in its bucket alone).
func (t *Table) Scatters() bool {
	if t.Bucket == nil || !t.HasRead() || t.ReadsOne() {
		return false
	}
	return t.Bucket.Kind.IsTime() || t.Bucket.N > 1
}

// pageStatements are the statements of a read in pages that fixes the
// first depth clustering columns by equality (none at depth 0): from the
// first row, unbounded or bounded on the next clustering column, and the
// continuations after a row. Their scatter form (see Statement.Scatter)
// reads every hash bucket at once: sel then names the bucket column last.
func (t *Table) pageStatements(add func(Slot, int, []string, []Bind), sel string, depth int, scatter bool) {
	read := func(slot Slot, level int, conds []string, binds []Bind) {
		clauses := []string{sel, "FROM " + t.Name, "WHERE " + strings.Join(conds, " AND ")}
		if scatter {
			level |= scatterLevel
			clauses = append(clauses, "PER PARTITION LIMIT ?")
			binds = append(binds[:len(binds):len(binds)], Bind{Kind: BindPerPartition})
		}
		add(slot, level+depth<<16, clauses, binds)
	}
	all := t.Clustering()
	pconds, pbinds := t.conds(append(t.PartitionKey(), all[:depth]...))
	if scatter {
		// The bucket column is the partition key's last.
		b := len(t.PartitionKey()) - 1
		pconds[b] = t.Bucket.Column + " IN ?"
		pbinds[b] = Bind{Kind: BindKeys, Column: pbinds[b].Column}
	}
	ck := all[depth:]
	if len(ck) == 0 {
		read(SlotFirst, 0, pconds, pbinds)
		return
	}
	c0 := ck[0]
	from := func(c *Column) (string, Bind) {
		return c.Name + " " + fromOp(c.Desc) + " ?", Bind{Kind: BindFrom, Column: c}
	}
	to := func(c *Column) (string, Bind) {
		return c.Name + " " + toOp(c.Desc) + " ?", Bind{Kind: BindTo, Column: c}
	}
	fc, fb := from(c0)
	tc, tb := to(c0)
	with := func(conds []string, binds []Bind, more ...any) ([]string, []Bind) {
		cs, bs := append([]string(nil), conds...), append([]Bind(nil), binds...)
		for i := 0; i < len(more); i += 2 {
			cs, bs = append(cs, more[i].(string)), append(bs, more[i+1].(Bind))
		}
		return cs, bs
	}
	read(SlotFirst, 0, pconds, pbinds)
	cs, bs := with(pconds, pbinds, fc, fb)
	read(SlotFirstFrom, 0, cs, bs)
	cs, bs = with(pconds, pbinds, tc, tb)
	read(SlotFirstTo, 0, cs, bs)
	cs, bs = with(pconds, pbinds, fc, fb, tc, tb)
	read(SlotFirstFromTo, 0, cs, bs)
	if scatter && t.Bucket.Kind.IsTime() {
		return
	}
	// A continuation after a row: for each run of clustering columns of
	// one direction, equal on the columns before the run, after the row
	// on the run's columns as one multi-column slice. Cassandra compares
	// such a slice value by value, which is the clustering order only
	// when every column of it has the same direction; a table ordered one
	// way throughout continues in one query. Under a prefix, the runs
	// start after it: the fixed columns are equalities.
	runs := clusteringRuns(ck)
	level := func(k int, op func(bool) string) ([]string, []Bind) {
		return t.runAfter(ck, runs, k, op, pconds, pbinds)
	}
	for k, start := range runs {
		cs, bs := level(k, afterOp)
		read(SlotAfter, depth+start, cs, bs)
	}
	cs, bs = level(0, afterOp)
	cs, bs = with(cs, bs, tc, tb)
	read(SlotAfterTo, 0, cs, bs)
	cs, bs = level(len(runs)-1, fromOp)
	read(SlotAtOrAfter, 0, cs, bs)
	if len(runs) == 1 {
		cs, bs = level(0, fromOp)
		cs, bs = with(cs, bs, tc, tb)
		read(SlotAtOrAfterTo, 0, cs, bs)
	}
}

// counterStatements are a counter table's writes: one update that adds
// an amount to every counter of a row, and a delete. Cassandra refuses an
// INSERT, and a client timestamp, on a counter table.
func (t *Table) counterStatements(add func(Slot, int, []string, []Bind), where string, keyBinds []Bind) {
	var set []string
	var binds []Bind
	for _, c := range t.CounterColumns() {
		set = append(set, c.Name+" = "+c.Name+" + ?")
		binds = append(binds, Bind{Kind: BindDelta, Column: c})
	}
	add(SlotAdd, 0, []string{"UPDATE " + t.Name, "SET " + strings.Join(set, ", "), where}, append(binds, keyBinds...))
	add(SlotDelete, 0, []string{"DELETE FROM " + t.Name, where}, keyBinds)
}

// runAfter is the condition of a continuation at the k-th run of
// clustering columns of one direction (see clusteringRuns), after the
// partition's conditions: equal on the columns before the run, and op on
// the run's columns as one multi-column slice.
func (t *Table) runAfter(ck []*Column, runs []int, k int, op func(bool) string, pconds []string, pbinds []Bind) ([]string, []Bind) {
	start, end := runs[k], len(ck)
	if k+1 < len(runs) {
		end = runs[k+1]
	}
	cs, bs := append([]string(nil), pconds...), append([]Bind(nil), pbinds...)
	eq, eqb := t.conds(ck[:start])
	cs, bs = append(cs, eq...), append(bs, eqb...)
	var names, marks []string
	for _, c := range ck[start:end] {
		names, marks = append(names, c.Name), append(marks, "?")
		bs = append(bs, Bind{Column: c})
	}
	rel := names[0] + " " + op(ck[start].Desc) + " ?"
	if len(names) > 1 {
		rel = "(" + strings.Join(names, ", ") + ") " + op(ck[start].Desc) + " (" + strings.Join(marks, ", ") + ")"
	}
	return append(cs, rel), bs
}

// clusteringRuns groups clustering columns into runs of one direction
// (ASC or DESC), returning where each run starts: [0] when every column
// has the same direction, [0, 1] for (a DESC, b ASC).
func clusteringRuns(ck []*Column) []int {
	var runs []int
	for i, c := range ck {
		if i == 0 || c.Desc != ck[i-1].Desc {
			runs = append(runs, i)
		}
	}
	return runs
}

// protocolStatements are the canonical table's statements of the write
// protocol: the state of a row, and the conditional writes that change
// it, remove it (leaving a grave) and settle its pending record.
func (t *Table) protocolStatements(add func(Slot, int, []string, []Bind), where string, keyBinds []Bind) {
	var state []string
	var set, clear []string
	var setBinds []Bind
	for _, c := range t.Columns {
		switch c.Kind {
		case Regular, Static:
			set = append(set, c.Name+" = ?")
			setBinds = append(setBinds, Bind{Column: c})
			if c.Kind == Regular {
				clear = append(clear, c.Name+" = null")
			}
		}
		if c.Field != nil || c.Kind == Version || c.Kind == Deleted || c.Kind == Pending || c.Kind == StaticVersion || c.Kind == Writes {
			state = append(state, c.Name)
		}
	}
	version := t.column(Version)
	cond := "IF " + VersionColumn + " = ?"
	old := []Bind{{Kind: BindOldVersion}}
	statics := t.column(StaticVersion) != nil
	if statics {
		// The statics belong to the partition: a write conditions on
		// their version too, so that another row's change of them is a
		// conflict.
		cond += " AND " + StaticVersionColumn + " = ?"
		old = append(old, Bind{Kind: BindOldStatic})
	}
	add(SlotState, 0, []string{"SELECT " + strings.Join(state, ", "), "FROM " + t.Name, where}, keyBinds)
	if statics {
		pk, pkBinds := t.equal(t.PartitionKey())
		add(SlotPartition, 0, []string{"SELECT " + strings.Join(state, ", "), "FROM " + t.Name, pk, "LIMIT 1"}, pkBinds)
	}
	set = append(set, VersionColumn+" = ?", DeletedColumn+" = false", PendingColumn+" = ?", WritesColumn+" = ?")
	setBinds = append(setBinds, Bind{Column: version}, Bind{Kind: BindPending}, Bind{Kind: BindWrites})
	if statics {
		set = append(set, StaticVersionColumn+" = ?")
		setBinds = append(setBinds, Bind{Kind: BindStaticTS})
	}
	add(SlotChange, 0, []string{"UPDATE " + t.Name, "SET " + strings.Join(set, ", "), where, cond},
		append(append(setBinds, keyBinds...), old...))
	clear = append(clear, VersionColumn+" = ?", DeletedColumn+" = true", PendingColumn+" = ?", WritesColumn+" = ?")
	add(SlotRemove, 0, []string{"UPDATE " + t.Name, "USING TTL " + itoa(t.GraveTTL()), "SET " + strings.Join(clear, ", "), where, cond},
		append(append([]Bind{{Column: version}, {Kind: BindPending}, {Kind: BindWrites}}, keyBinds...), old...))
	// Settling concerns the row's own change: its version alone.
	add(SlotSettle, 0, []string{"UPDATE " + t.Name, "SET " + PendingColumn + " = null", where, "IF " + VersionColumn + " = ?"},
		append(append([]Bind(nil), keyBinds...), old[0]))
}

// uniqueStatements are a unique table's: the claim (an INSERT IF NOT
// EXISTS, whose version column binds the change's version), a claim
// taken over or renewed, a claim given up, the plain delete repair runs on
// a claim no one holds, and the read of a claim.
func (t *Table) uniqueStatements(add func(Slot, int, []string, []Bind), where string, keyBinds []Bind) {
	var names, marks, set, held []string
	var binds, setBinds, heldBinds []Bind
	for _, c := range t.Columns {
		names, marks = append(names, c.Name), append(marks, "?")
		binds = append(binds, Bind{Column: c})
		if c.Kind == Regular {
			set = append(set, c.Name+" = ?")
			setBinds = append(setBinds, Bind{Column: c})
			held = append(held, c.Name+" = ?")
			heldBinds = append(heldBinds, Bind{Kind: BindHeld, Column: c})
		}
	}
	claim := t.column(Claim)
	add(SlotInsert, 0, []string{
		"INSERT INTO " + t.Name + " (" + strings.Join(names, ", ") + ")",
		"VALUES (" + strings.Join(marks, ", ") + ")",
		"IF NOT EXISTS",
	}, binds)
	add(SlotDelete, 0, []string{"DELETE FROM " + t.Name, "USING TIMESTAMP ?", where},
		append([]Bind{{Kind: BindTimestamp}}, keyBinds...))
	add(SlotGet, 0, []string{"SELECT " + strings.Join(names, ", "), "FROM " + t.Name, where}, keyBinds)
	add(SlotTake, 0, []string{
		"UPDATE " + t.Name,
		"SET " + strings.Join(append(set, ClaimColumn+" = ?"), ", "),
		where,
		"IF " + strings.Join(append(held, ClaimColumn+" = ?"), " AND "),
	}, append(append(append(append(setBinds, Bind{Column: claim}), keyBinds...), heldBinds...), Bind{Kind: BindOldVersion}))
	add(SlotRelease, 0, []string{
		"DELETE FROM " + t.Name,
		where,
		"IF " + strings.Join(append(held, ClaimColumn+" < ?"), " AND "),
	}, append(append(append([]Bind(nil), keyBinds...), setBinds...), Bind{Kind: BindChange}))
}

// fenceStatements are, on the canonical table of an entity with unique
// tables, the conditional writes that move an entity's version on when
// another writer takes over a claim it left behind: a live entity keeps
// its values; a grave, or no row at all, becomes a grave.
func (t *Table) fenceStatements(add func(Slot, int, []string, []Bind), where string, keyBinds []Bind) {
	version := t.column(Version)
	cond := "IF " + VersionColumn + " = ?"
	binds := append(append([]Bind{{Column: version}}, keyBinds...), Bind{Kind: BindOldVersion})
	add(SlotFenceLive, 0, []string{"UPDATE " + t.Name, "SET " + VersionColumn + " = ?", where, cond}, binds)
	add(SlotFenceGrave, 0, []string{"UPDATE " + t.Name, "USING TTL " + itoa(t.GraveTTL()), "SET " + VersionColumn + " = ?, " + DeletedColumn + " = true", where, cond}, binds)
}

// Single reports an entity stored in one table that is not a counter
// table: its writes are one plain statement each, which can take a TTL
// of the call's, and its Insert can be conditional (IF NOT EXISTS).
func (e *Entity) Single() bool { return len(e.Tables) == 1 && !e.Counting() }

// HasUnique reports whether the entity has a unique table.
func (e *Entity) HasUnique() bool {
	for _, t := range e.Tables {
		if t.Unique {
			return true
		}
	}
	return false
}

// scanStatement is the token-range scan verify, repair and backfill run:
// on the canonical table, State's columns; elsewhere every column the
// Insert writes, then the write timestamps of WritetimeColumns.
func (t *Table) scanStatement(add func(Slot, int, []string, []Bind), canonical bool) {
	var cols, pk []string
	versioned := canonical && t.Entity.Versioned()
	for _, c := range t.Columns {
		switch {
		case versioned && (c.Field != nil || c.Kind == Version || c.Kind == Deleted || c.Kind == Pending || c.Kind == StaticVersion || c.Kind == Writes):
			cols = append(cols, c.Name)
		case canonical && !versioned && c.Field != nil:
			cols = append(cols, c.Name)
		case !canonical && c.Kind != Claim:
			cols = append(cols, c.Name)
		}
		if c.Kind == PartitionKey {
			pk = append(pk, c.Name)
		}
	}
	if !versioned {
		for _, c := range t.WritetimeColumns() {
			cols = append(cols, "writetime("+c.Name+")")
		}
	}
	token := "token(" + strings.Join(pk, ", ") + ")"
	from := []string{"FROM " + t.Name, "WHERE " + token + " > ? AND " + token + " <= ?"}
	add(SlotScan, 0, append([]string{"SELECT " + strings.Join(cols, ", ")}, from...),
		[]Bind{{Kind: BindTokenLo}, {Kind: BindTokenHi}})
	if canonical && !versioned {
		// How verify reads one entity again, by its key.
		where, keyBinds := t.equal(append(t.PartitionKey(), t.Clustering()...))
		add(SlotState, 0, []string{"SELECT " + strings.Join(cols, ", "), "FROM " + t.Name, where}, keyBinds)
	}
}

// WritetimeColumns are the columns whose write timestamps Scan selects,
// last, on a projection or an immutable entity's canonical table: every
// regular column of one cell (not a collection, unless frozen). The
// greatest of them is when the row was last written: an orphan is
// deleted at it, a stale row is written over just after it, and an
// immutable entity's rows elsewhere are written at its canonical row's.
func (t *Table) WritetimeColumns() []*Column {
	var out []*Column
	for _, c := range t.Columns {
		if c.Kind == Regular && c.Field != nil && c.Type != nil && (!c.Type.IsCollection() || c.Type.Frozen) {
			out = append(out, c)
		}
	}
	return out
}

// GraveTTLSeconds is how long the canonical row of a deleted entity stays
// as a grave: Cassandra's default gc_grace_seconds, ten days. It must
// outlast the clock skew between writers and the time until a change
// cut short is finished (the next write, or a repair).
const GraveTTLSeconds = 10 * 24 * 3600

// GraveTTL is the TTL of a grave in t: GraveTTLSeconds, or the table's
// own TTL when shorter.
func (t *Table) GraveTTL() int64 {
	if t.TTL > 0 && t.TTL < GraveTTLSeconds {
		return t.TTL
	}
	return GraveTTLSeconds
}

func (t *Table) column(kind ColumnKind) *Column {
	for _, c := range t.Columns {
		if c.Kind == kind {
			return c
		}
	}
	return nil
}

// selected are the columns a read returns: every column of a field, in
// table order, and on a versioned canonical table the mark of a deleted
// entity last, so that reads skip graves.
func (t *Table) selected() []string {
	var cols []string
	for _, c := range t.Columns {
		if c.Field != nil || c.Kind == Deleted {
			cols = append(cols, c.Name)
		}
	}
	return cols
}

// equal is a WHERE clause with an equality per column.
func (t *Table) equal(cols []*Column) (string, []Bind) {
	conds, binds := t.conds(cols)
	return "WHERE " + strings.Join(conds, " AND "), binds
}

func (t *Table) conds(cols []*Column) ([]string, []Bind) {
	var conds []string
	var binds []Bind
	for _, c := range cols {
		conds = append(conds, c.Name+" = ?")
		binds = append(binds, Bind{Column: c})
	}
	return conds, binds
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
