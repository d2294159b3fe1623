package cqlspec

import (
	"strconv"
	"strings"
)

// Render returns every statement of t, in a fixed order: the writes, the
// reads by key, the write protocol's, the scan, then the page statements
// of each prefix depth, then their scatter forms. An index read's
// description (Index set) has the index's statements alone.
func Render(t *Table) []Statement {
	r := renderer{t: t, all: t.All()}
	if t.Index != nil {
		return r.index()
	}
	return r.table()
}

type renderer struct {
	t   *Table
	all []Col
	out []Statement
}

func (r *renderer) add(s Statement) { r.out = append(r.out, s) }

func (r *renderer) kind(k Kind) []Col {
	var cs []Col
	for _, c := range r.all {
		if c.Kind == k {
			cs = append(cs, c)
		}
	}
	return cs
}

func (r *renderer) col(k Kind) Col {
	for _, c := range r.all {
		if c.Kind == k {
			return c
		}
	}
	return Col{}
}

func (r *renderer) key() []Col { return append(r.kind(KindPartition), r.kind(KindClustering)...) }

func (r *renderer) pagesOne() bool { return len(r.t.Clustering) == 0 && r.t.Bucket == BucketNone }

// HasRead reports whether the table has a read of its own: every table but
// a canonical one whose partitions hold one row, which Get reads.
func (t *Table) HasRead() bool {
	return !(t.Canonical && len(t.Clustering) == 0 && t.Bucket == BucketNone)
}

// ReadsOne reports whether the table's read returns one row rather than
// pages.
func (t *Table) ReadsOne() bool {
	return t.Unique || (len(t.Clustering) == 0 && t.Bucket == BucketNone && !t.Canonical)
}

// HasGetMany reports whether the table gets a multi-get: the source of
// truth whose partitions hold one entity.
func (t *Table) HasGetMany() bool {
	return t.Canonical && len(t.Clustering) == 0 && t.Bucket == BucketNone && !t.Unique && len(t.PartitionKey) > 0
}

// Pages reports whether the table's read is in pages.
func (t *Table) Pages() bool { return t.HasRead() && !t.ReadsOne() }

// Scatters reports whether the table's reads get the scatter form of their
// page statements.
func (t *Table) Scatters() bool {
	return t.Pages() && (t.Bucket == BucketHash || t.Bucket == BucketTime)
}

// HasCounters reports a counter table.
func (t *Table) HasCounters() bool {
	for _, c := range t.Columns {
		if c.Type == "counter" {
			return true
		}
	}
	return false
}

func (r *renderer) table() []Statement {
	t := r.t
	where, keyBinds := equal(r.key())
	if t.Unique {
		r.unique(where, keyBinds)
		if t.Transactional {
			r.txn()
		}
		if t.Maintained {
			r.scan()
		}
		return r.out
	}
	sel := "SELECT " + strings.Join(r.selected(), ", ")
	if t.HasCounters() {
		r.counter(where, keyBinds)
	} else if !t.Versioned {
		var names, marks []string
		var binds []Bind
		for _, c := range r.all {
			names = append(names, Quote(c.Name))
			marks = append(marks, "?")
			binds = append(binds, Bind{Column: c.Name})
		}
		into := []string{
			"INSERT INTO " + t.Name + " (" + strings.Join(names, ", ") + ")",
			"VALUES (" + strings.Join(marks, ", ") + ")",
		}
		r.add(Statement{Slot: SlotInsert, Clauses: append(into[:2:2], "USING TIMESTAMP ?"), Binds: append(binds, Bind{Kind: BindTimestamp})})
		if t.Single {
			// A TTL of the call's, and a create that applies only where
			// no row has the key; Cassandra refuses a client timestamp
			// on a conditional write.
			r.add(Statement{Slot: SlotInsertTTL, Clauses: append(into[:2:2], "USING TTL ? AND TIMESTAMP ?"),
				Binds: append(binds[:len(binds):len(binds)], Bind{Kind: BindTTL}, Bind{Kind: BindTimestamp})})
			r.add(Statement{Slot: SlotCreate, Clauses: append(into[:2:2], "IF NOT EXISTS USING TTL ?"),
				Binds: append(binds[:len(binds):len(binds)], Bind{Kind: BindTTL})})
		}
		r.add(Statement{Slot: SlotDelete, Clauses: []string{"DELETE FROM " + t.Name, "USING TIMESTAMP ?", where},
			Binds: append([]Bind{{Kind: BindTimestamp}}, keyBinds...)})
	}
	if t.Canonical || t.ReadsOne() {
		r.add(Statement{Slot: SlotGet, Clauses: []string{sel, "FROM " + t.Name, where}, Binds: keyBinds})
	}
	if t.Canonical && len(t.Times) > 0 && !t.HasCounters() {
		r.add(Statement{Slot: SlotTimes, Clauses: []string{sel + ", " + strings.Join(t.Times, ", "), "FROM " + t.Name, where}, Binds: keyBinds})
	}
	if t.HasGetMany() {
		pk := r.kind(KindPartition)
		last := pk[len(pk)-1]
		cs, bs := conds(pk[:len(pk)-1])
		cs = append(cs, Quote(last.Name)+" IN ?")
		bs = append(bs, Bind{Kind: BindKeys, Column: last.Name})
		r.add(Statement{Slot: SlotGetMany, Clauses: []string{sel, "FROM " + t.Name, "WHERE " + strings.Join(cs, " AND ")}, Binds: bs})
	}
	if t.Versioned {
		r.protocol(where, keyBinds)
		if t.Fenced {
			r.fence(where, keyBinds)
		}
	}
	if t.Transactional && !t.HasCounters() {
		r.txn()
	}
	if t.Maintained {
		r.scan()
	}
	if t.Scanned {
		r.scanRows(sel)
	}
	if !t.Pages() {
		return r.out
	}
	for depth := 0; depth <= t.Prefix; depth++ {
		r.pages(sel, depth, false)
	}
	if t.Scatters() {
		bucket := Quote(t.PartitionKey[len(t.PartitionKey)-1].Name)
		for depth := 0; depth <= t.Prefix; depth++ {
			r.pages(sel+", "+bucket, depth, true)
		}
	}
	return r.out
}

// selected are the columns a read returns: every column of a field, in
// table order, and on a versioned canonical table the mark of a deleted
// entity, so that reads skip graves.
func (r *renderer) selected() []string {
	var cols []string
	for _, c := range r.all {
		if c.Field || c.Kind == KindDeleted {
			cols = append(cols, Quote(c.Name))
		}
	}
	return cols
}

// pages are the statements of a read in pages that fixes the first depth
// clustering columns by equality: from the first row, unbounded or
// bounded on the next clustering column, and the continuations after a
// row. Their scatter form reads every bucket at once: sel then names the
// bucket column last.
func (r *renderer) pages(sel string, depth int, scatter bool) {
	t := r.t
	read := func(slot Slot, level int, cs []string, bs []Bind) {
		clauses := []string{sel, "FROM " + t.Name, "WHERE " + strings.Join(cs, " AND ")}
		if scatter {
			clauses = append(clauses, "PER PARTITION LIMIT ?")
			bs = append(bs[:len(bs):len(bs)], Bind{Kind: BindPerPartition})
		}
		r.add(Statement{Slot: slot, Depth: depth, Scatter: scatter, Level: level, Clauses: clauses, Binds: bs})
	}
	all := r.kind(KindClustering)
	pconds, pbinds := conds(append(r.kind(KindPartition), all[:depth]...))
	if scatter {
		// The bucket column is the partition key's last.
		b := len(t.PartitionKey) - 1
		pconds[b] = Quote(t.PartitionKey[b].Name) + " IN ?"
		pbinds[b] = Bind{Kind: BindKeys, Column: pbinds[b].Column}
	}
	ck := all[depth:]
	if len(ck) == 0 {
		read(SlotFirst, 0, pconds, pbinds)
		return
	}
	c0 := ck[0]
	fc, fb := Quote(c0.Name)+" "+FromOp(c0.Desc)+" ?", Bind{Kind: BindFrom, Column: c0.Name}
	tc, tb := Quote(c0.Name)+" "+ToOp(c0.Desc)+" ?", Bind{Kind: BindTo, Column: c0.Name}
	with := func(cs []string, bs []Bind, more ...any) ([]string, []Bind) {
		cs, bs = append([]string(nil), cs...), append([]Bind(nil), bs...)
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
	if scatter && t.Bucket == BucketTime {
		return
	}
	// A continuation after a row: for each run of clustering columns of
	// one direction, equal on the columns before the run, after the row
	// on the run's columns as one multi-column slice (Cassandra compares
	// such a slice value by value, the clustering order only when every
	// column of it has the same direction). Under a prefix, the runs
	// start after it.
	runs := t.Runs(depth)
	level := func(k int, op func(bool) string) ([]string, []Bind) {
		return runAfter(ck, runs, k, op, pconds, pbinds)
	}
	for k, start := range runs {
		cs, bs := level(k, AfterOp)
		read(SlotAfter, depth+start, cs, bs)
	}
	cs, bs = level(0, AfterOp)
	cs, bs = with(cs, bs, tc, tb)
	read(SlotAfterTo, 0, cs, bs)
	cs, bs = level(len(runs)-1, FromOp)
	read(SlotAtOrAfter, 0, cs, bs)
	if len(runs) == 1 {
		cs, bs = level(0, FromOp)
		cs, bs = with(cs, bs, tc, tb)
		read(SlotAtOrAfterTo, 0, cs, bs)
	}
}

// counter is a counter table's writes: one update that adds an amount to
// every counter of a row, and a delete. Cassandra refuses an INSERT, and
// a client timestamp, on a counter table.
func (r *renderer) counter(where string, keyBinds []Bind) {
	var set []string
	var binds []Bind
	for _, c := range r.all {
		if (c.Kind == KindRegular || c.Kind == KindStatic) && c.Type == "counter" {
			set = append(set, Quote(c.Name)+" = "+Quote(c.Name)+" + ?")
			binds = append(binds, Bind{Kind: BindDelta, Column: c.Name})
		}
	}
	r.add(Statement{Slot: SlotAdd, Clauses: []string{"UPDATE " + r.t.Name, "SET " + strings.Join(set, ", "), where}, Binds: append(binds, keyBinds...)})
	r.add(Statement{Slot: SlotDelete, Clauses: []string{"DELETE FROM " + r.t.Name, where}, Binds: keyBinds})
}

// runAfter is the condition of a continuation at the k-th run of
// clustering columns of one direction, after the partition's conditions:
// equal on the columns before the run, and op on the run's columns as
// one multi-column slice.
func runAfter(ck []Col, runs []int, k int, op func(bool) string, pconds []string, pbinds []Bind) ([]string, []Bind) {
	start, end := runs[k], len(ck)
	if k+1 < len(runs) {
		end = runs[k+1]
	}
	cs, bs := append([]string(nil), pconds...), append([]Bind(nil), pbinds...)
	eq, eqb := conds(ck[:start])
	cs, bs = append(cs, eq...), append(bs, eqb...)
	var names, marks []string
	for _, c := range ck[start:end] {
		names, marks = append(names, Quote(c.Name)), append(marks, "?")
		bs = append(bs, Bind{Column: c.Name})
	}
	rel := names[0] + " " + op(ck[start].Desc) + " ?"
	if len(names) > 1 {
		rel = "(" + strings.Join(names, ", ") + ") " + op(ck[start].Desc) + " (" + strings.Join(marks, ", ") + ")"
	}
	return append(cs, rel), bs
}

// Runs groups the clustering columns after the first depth (those a
// read in pages fixes by equality) into runs of one direction, returning
// where each run starts, counted from depth: [0] when every column has
// the same direction, [0, 1] for (a DESC, b ASC). The renderer writes a
// continuation statement a run, and the runtime picks among them by the
// same runs.
func (t *Table) Runs(depth int) []int {
	ck := t.Clustering[depth:]
	var runs []int
	for i, c := range ck {
		if i == 0 || c.Desc != ck[i-1].Desc {
			runs = append(runs, i)
		}
	}
	return runs
}

// protocol are the canonical table's statements of the write protocol: the
// state of a row, and the conditional writes that change it, remove it
// (leaving a grave) and settle its pending record.
func (r *renderer) protocol(where string, keyBinds []Bind) {
	t := r.t
	var state, set, clear []string
	var setBinds []Bind
	for _, c := range r.all {
		switch c.Kind {
		case KindRegular, KindStatic:
			set = append(set, Quote(c.Name)+" = ?")
			setBinds = append(setBinds, Bind{Column: c.Name})
			if c.Kind == KindRegular {
				clear = append(clear, Quote(c.Name)+" = null")
			}
		}
		if c.Field || isProtocol(c.Kind) {
			state = append(state, Quote(c.Name))
		}
	}
	version := r.col(KindVersion)
	cond := "IF " + VersionColumn + " = ?"
	old := []Bind{{Kind: BindOldVersion}}
	statics := r.col(KindStaticVersion).Name != ""
	if statics {
		// The statics belong to the partition: a write conditions on
		// their version too.
		cond += " AND " + StaticVersionColumn + " = ?"
		old = append(old, Bind{Kind: BindOldStatic})
	}
	r.add(Statement{Slot: SlotState, Clauses: []string{"SELECT " + strings.Join(state, ", "), "FROM " + t.Name, where}, Binds: keyBinds})
	if statics {
		pk, pkBinds := equal(r.kind(KindPartition))
		r.add(Statement{Slot: SlotPartition, Clauses: []string{"SELECT " + strings.Join(state, ", "), "FROM " + t.Name, pk, "LIMIT 1"}, Binds: pkBinds})
	}
	set = append(set, VersionColumn+" = ?", DeletedColumn+" = false", PendingColumn+" = ?", WritesColumn+" = ?")
	setBinds = append(setBinds, Bind{Column: version.Name}, Bind{Kind: BindPending}, Bind{Kind: BindWrites})
	if statics {
		set = append(set, StaticVersionColumn+" = ?")
		setBinds = append(setBinds, Bind{Kind: BindStaticTS})
	}
	r.add(Statement{Slot: SlotChange, Clauses: []string{"UPDATE " + t.Name, "SET " + strings.Join(set, ", "), where, cond},
		Binds: append(append(setBinds, keyBinds...), old...)})
	if !statics && t.Bucket == BucketNone && !t.Transactional {
		// Create is Change sent without a read, on "no row": every column
		// State reads but the key's null. When it does not apply, the
		// reply holds those columns, in State's order: the row, read by
		// the write itself (docs/protocol.md, "A create without a read").
		// The transactional mode creates inside its transaction instead.
		var nulls []string
		for _, c := range r.all {
			if (c.Field || isProtocol(c.Kind)) && c.Kind != KindPartition && c.Kind != KindClustering {
				nulls = append(nulls, Quote(c.Name)+" = null")
			}
		}
		r.add(Statement{Slot: SlotCreate, Clauses: []string{"UPDATE " + t.Name, "SET " + strings.Join(set, ", "), where, "IF " + strings.Join(nulls, " AND ")},
			Binds: append(append([]Bind(nil), setBinds...), keyBinds...)})
	}
	clear = append(clear, VersionColumn+" = ?", DeletedColumn+" = true", PendingColumn+" = ?", WritesColumn+" = ?")
	r.add(Statement{Slot: SlotRemove, Clauses: []string{"UPDATE " + t.Name, "USING TTL " + strconv.FormatInt(t.GraveTTL(), 10), "SET " + strings.Join(clear, ", "), where, cond},
		Binds: append(append([]Bind{{Column: version.Name}, {Kind: BindPending}, {Kind: BindWrites}}, keyBinds...), old...)})
	// Settling concerns the row's own change: its version alone.
	r.add(Statement{Slot: SlotClearPending, Clauses: []string{"UPDATE " + t.Name, "SET " + PendingColumn + " = null", where, "IF " + VersionColumn + " = ?"},
		Binds: append(append([]Bind(nil), keyBinds...), old[0])})
}

func isProtocol(k Kind) bool {
	switch k {
	case KindVersion, KindDeleted, KindPending, KindStaticVersion, KindWrites:
		return true
	}
	return false
}

// unique are a unique table's statements: the claim (an INSERT IF NOT
// EXISTS), a claim taken over or renewed, a claim given up, the plain
// delete repair runs on a claim no one holds, and the read of a claim.
func (r *renderer) unique(where string, keyBinds []Bind) {
	t := r.t
	var names, marks, set, held []string
	var binds, setBinds, heldBinds []Bind
	for _, c := range r.all {
		names, marks = append(names, Quote(c.Name)), append(marks, "?")
		binds = append(binds, Bind{Column: c.Name})
		if c.Kind == KindRegular {
			set = append(set, Quote(c.Name)+" = ?")
			setBinds = append(setBinds, Bind{Column: c.Name})
			held = append(held, Quote(c.Name)+" = ?")
			heldBinds = append(heldBinds, Bind{Kind: BindHeld, Column: c.Name})
		}
	}
	r.add(Statement{Slot: SlotInsert, Clauses: []string{
		"INSERT INTO " + t.Name + " (" + strings.Join(names, ", ") + ")",
		"VALUES (" + strings.Join(marks, ", ") + ")",
		"IF NOT EXISTS",
	}, Binds: binds})
	r.add(Statement{Slot: SlotDelete, Clauses: []string{"DELETE FROM " + t.Name, "USING TIMESTAMP ?", where},
		Binds: append([]Bind{{Kind: BindTimestamp}}, keyBinds...)})
	r.add(Statement{Slot: SlotGet, Clauses: []string{"SELECT " + strings.Join(names, ", "), "FROM " + t.Name, where}, Binds: keyBinds})
	r.add(Statement{Slot: SlotTake, Clauses: []string{
		"UPDATE " + t.Name,
		"SET " + strings.Join(append(set, ClaimColumn+" = ?"), ", "),
		where,
		"IF " + strings.Join(append(held, ClaimColumn+" = ?"), " AND "),
	}, Binds: append(append(append(append(setBinds, Bind{Column: ClaimColumn}), keyBinds...), heldBinds...), Bind{Kind: BindOldVersion})})
	r.add(Statement{Slot: SlotRelease, Clauses: []string{
		"DELETE FROM " + t.Name,
		where,
		"IF " + strings.Join(append(held, ClaimColumn+" < ?"), " AND "),
	}, Binds: append(append(append([]Bind(nil), keyBinds...), setBinds...), Bind{Kind: BindChange})})
}

// fence are, on the canonical table of an entity with unique tables, the
// conditional writes that move an entity's version on when another writer
// takes over a claim it left behind: a live entity keeps its values; a
// grave, or no row at all, becomes a grave.
func (r *renderer) fence(where string, keyBinds []Bind) {
	t := r.t
	cond := "IF " + VersionColumn + " = ?"
	binds := append(append([]Bind{{Column: VersionColumn}}, keyBinds...), Bind{Kind: BindOldVersion})
	r.add(Statement{Slot: SlotFenceLive, Clauses: []string{"UPDATE " + t.Name, "SET " + VersionColumn + " = ?", where, cond}, Binds: binds})
	r.add(Statement{Slot: SlotFenceGrave, Clauses: []string{"UPDATE " + t.Name, "USING TTL " + strconv.FormatInt(t.GraveTTL(), 10), "SET " + VersionColumn + " = ?, " + DeletedColumn + " = true", where, cond}, Binds: binds})
}

// scan is the token-range scan verify, repair and backfill run: on the
// canonical table, State's columns; elsewhere every column the Insert
// writes, then the write timestamps of Writetime's columns.
func (r *renderer) scan() {
	t := r.t
	var cols, pk []string
	for _, c := range r.all {
		switch {
		case t.Versioned && (c.Field || isProtocol(c.Kind)):
			cols = append(cols, Quote(c.Name))
		case t.Canonical && !t.Versioned && c.Field:
			cols = append(cols, Quote(c.Name))
		case !t.Canonical && c.Kind != KindClaim:
			cols = append(cols, Quote(c.Name))
		}
		if c.Kind == KindPartition {
			pk = append(pk, Quote(c.Name))
		}
	}
	if !t.Versioned {
		for _, c := range t.Writetime() {
			cols = append(cols, "writetime("+Quote(c.Name)+")")
		}
	}
	token := "token(" + strings.Join(pk, ", ") + ")"
	from := []string{"FROM " + t.Name, "WHERE " + token + " > ? AND " + token + " <= ?"}
	r.add(Statement{Slot: SlotScan, Clauses: append([]string{"SELECT " + strings.Join(cols, ", ")}, from...),
		Binds: []Bind{{Kind: BindTokenLo}, {Kind: BindTokenHi}}})
	if t.Canonical && !t.Versioned {
		// How verify reads one entity again, by its key.
		where, keyBinds := equal(r.key())
		r.add(Statement{Slot: SlotState, Clauses: []string{"SELECT " + strings.Join(cols, ", "), "FROM " + t.Name, where}, Binds: keyBinds})
	}
}

// scanRows is the typed full-table read (the table option scan): the
// columns the table's reads select, over a token range of the partition
// key. Its pages are the driver's (a paging state), not a LIMIT: the
// server resumes inside a partition larger than a page, and between two
// partitions of one token, where "token(...) > the last token" would skip
// the rest.
func (r *renderer) scanRows(sel string) {
	t := r.t
	var pk []string
	for _, c := range r.kind(KindPartition) {
		pk = append(pk, Quote(c.Name))
	}
	token := "token(" + strings.Join(pk, ", ") + ")"
	r.add(Statement{Slot: SlotScanRows, Clauses: []string{sel, "FROM " + t.Name, "WHERE " + token + " > ? AND " + token + " <= ?"},
		Binds: []Bind{{Kind: BindTokenLo}, {Kind: BindTokenHi}}})
}

// Writetime are the columns whose write timestamps Scan selects, last, on
// a projection or an immutable entity's canonical table: every regular
// column of one cell (not a collection, unless frozen).
func (t *Table) Writetime() []Column {
	var out []Column
	for _, c := range t.Columns {
		if !c.Static && (!isCollection(c.Type) || strings.HasPrefix(c.Type, "frozen<")) {
			out = append(out, c)
		}
	}
	return out
}

func isCollection(typ string) bool {
	for _, p := range []string{"list<", "set<", "map<"} {
		if strings.HasPrefix(typ, p) {
			return true
		}
	}
	return false
}

// index are the statements of a read through an index: First, After per
// run of clustering columns, and for a scatter Next; for an ANN index,
// Nearest alone.
func (r *renderer) index() []Statement {
	t, ix := r.t, r.t.Index
	sel := "SELECT " + strings.Join(r.selected(), ", ")
	if ix.ANN {
		var binds []Bind
		if ix.Score != "" {
			// The score is selected last; its vector is bound first.
			sel += ", similarity_" + ix.Score + "(" + Quote(ix.Column) + ", ?)"
			binds = append(binds, Bind{Kind: BindValue, Column: ix.Column})
		}
		var clauses = []string{sel, "FROM " + t.Name}
		var cs []string
		if !ix.Scatter {
			pcs, bs := conds(r.kind(KindPartition))
			cs, binds = pcs, append(binds, bs...)
		}
		if ix.Filter != "" {
			op := " = ?"
			if ix.FilterContains {
				op = " CONTAINS ?"
			}
			cs, binds = append(cs, Quote(ix.Filter)+op), append(binds, Bind{Kind: BindValue, Column: ix.Filter})
		}
		if len(cs) > 0 {
			clauses = append(clauses, "WHERE "+strings.Join(cs, " AND "))
		}
		clauses = append(clauses, "ORDER BY "+Quote(ix.Column)+" ANN OF ?", "LIMIT ?")
		binds = append(binds, Bind{Kind: BindValue, Column: ix.Column}, Bind{Kind: BindLimit})
		return []Statement{{Slot: SlotNearest, Clauses: clauses, Binds: binds}}
	}
	add := func(slot Slot, level int, cs []string, bs []Bind) {
		r.add(Statement{Slot: slot, Level: level, Clauses: []string{sel, "FROM " + t.Name, "WHERE " + strings.Join(cs, " AND ")}, Binds: bs})
	}
	c, qc := ix.Column, Quote(ix.Column)
	icond := []string{qc + " = ?"}
	ibinds := []Bind{{Kind: BindValue, Column: c}}
	switch {
	case len(ix.Conds) > 0:
		icond, ibinds = filterConds(ix.Conds)
	case ix.Range:
		icond = []string{qc + " >= ? AND " + qc + " < ?"}
		ibinds = []Bind{{Kind: BindFrom, Column: c}, {Kind: BindTo, Column: c}}
	case ix.Keys:
		icond = []string{qc + " CONTAINS KEY ?"}
	case ix.Contains:
		icond = []string{qc + " CONTAINS ?"}
	}
	pconds, pbinds := conds(r.kind(KindPartition))
	pconds, pbinds = append(pconds, icond...), append(pbinds, ibinds...)
	if ix.Scatter {
		add(SlotFirst, 0, icond, ibinds)
	} else {
		add(SlotFirst, 0, pconds, pbinds)
	}
	ck := r.kind(KindClustering)
	runs := r.t.Runs(0)
	for k, start := range runs {
		cs, bs := runAfter(ck, runs, k, AfterOp, pconds, pbinds)
		add(SlotAfter, start, cs, bs)
	}
	if ix.Scatter {
		var pk, marks []string
		var binds []Bind
		for _, c := range r.kind(KindPartition) {
			pk, marks = append(pk, Quote(c.Name)), append(marks, "?")
			binds = append(binds, Bind{Column: c.Name})
		}
		tok := "token(" + strings.Join(pk, ", ") + ") > token(" + strings.Join(marks, ", ") + ")"
		add(SlotNext, 0, append([]string{tok}, icond...), append(binds, ibinds...))
	}
	return r.out
}

// filterConds are the relations of a filter read's conditions and what
// they bind, in order.
func filterConds(cs []Cond) ([]string, []Bind) {
	var rels []string
	var binds []Bind
	for _, c := range cs {
		q := Quote(c.Column)
		switch c.Op {
		case "range":
			rels = append(rels, q+" >= ?", q+" < ?")
			binds = append(binds, Bind{Kind: BindFrom, Column: c.Column}, Bind{Kind: BindTo, Column: c.Column})
		case "between":
			rels = append(rels, q+" BETWEEN ? AND ?")
			binds = append(binds, Bind{Kind: BindFrom, Column: c.Column}, Bind{Kind: BindTo, Column: c.Column})
		default:
			rels = append(rels, q+" "+FilterOps[c.Op]+" ?")
			binds = append(binds, Bind{Kind: BindValue, Column: c.Column})
		}
	}
	return rels, binds
}

// equal is a WHERE clause with an equality per column.
func equal(cols []Col) (string, []Bind) {
	cs, bs := conds(cols)
	return "WHERE " + strings.Join(cs, " AND "), bs
}

func conds(cols []Col) ([]string, []Bind) {
	var cs []string
	var bs []Bind
	for _, c := range cols {
		cs = append(cs, Quote(c.Name)+" = ?")
		bs = append(bs, Bind{Column: c.Name})
	}
	return cs, bs
}

// FromOp bounds the first row of a read, in clustering order, inclusively.
func FromOp(desc bool) string {
	if desc {
		return "<="
	}
	return ">="
}

// ToOp bounds the last row of a read, in clustering order, exclusively.
func ToOp(desc bool) string {
	if desc {
		return ">"
	}
	return "<"
}

// AfterOp selects rows strictly after a value, in clustering order.
func AfterOp(desc bool) string {
	if desc {
		return "<"
	}
	return ">"
}
