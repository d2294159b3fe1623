package cqlspec

import "strings"

// The transactional mode (table:"...,canonical,transactional"): on
// Cassandra 6 with Accord, each write of an entity is one transaction
// (BEGIN TRANSACTION ... COMMIT TRANSACTION) that reads the canonical
// row's version and the claims of its unique keys (LET), checks them
// (IF), and writes every table's rows at once. A table of such an entity
// has, besides its other statements, the parts a transaction is made of;
// Transaction composes them. Inside a transaction Cassandra refuses
// USING TIMESTAMP and USING TTL, so none of the parts has them.

// The slots of a transaction's parts.
const (
	// SlotTxnRead, on the canonical table: LET cur = the row's version.
	SlotTxnRead Slot = "TxnRead"
	// SlotTxnChange, on the canonical table: the row's new values and
	// version, no pending record (a transaction leaves nothing pending).
	SlotTxnChange Slot = "TxnChange"
	// SlotTxnClaimRead, on a unique table: LET claim_<table> = the claim
	// of a key.
	SlotTxnClaimRead Slot = "TxnClaimRead"
	// SlotTxnInsert: a row of a projection, or a claim of a unique table.
	SlotTxnInsert Slot = "TxnInsert"
	// SlotTxnDelete: a row by its primary key (on the canonical table,
	// the entity's delete: no grave is needed).
	SlotTxnDelete Slot = "TxnDelete"
)

// Txn reports whether s is the slot of a transaction's part, which the
// runtime composes into transactions and never sends alone.
func (s Slot) Txn() bool { return strings.HasPrefix(string(s), "Txn") }

// Transaction-specific placeholders.
const (
	// BindHeldClaim is the version of the claim of a unique key as read
	// (its cqlgen_claim), which a transaction that keeps or takes over
	// the claim conditions on.
	BindHeldClaim BindKind = 200
)

// LetName is the name a transaction gives the row it reads of t: cur for
// the canonical row, claim_<table> for a claim.
func (t *Table) LetName() string {
	if t.Canonical {
		return "cur"
	}
	return "claim_" + t.Name
}

// txn adds the parts of a transaction to a table in the transactional
// mode.
func (r *renderer) txn() {
	t := r.t
	where, keyBinds := equal(r.key())
	var names, marks []string
	var binds []Bind
	for _, c := range r.all {
		names, marks = append(names, Quote(c.Name)), append(marks, "?")
		binds = append(binds, Bind{Column: c.Name})
	}
	switch {
	case t.Versioned:
		r.add(Statement{Slot: SlotTxnRead, Clauses: []string{"LET cur = (SELECT " + VersionColumn + " FROM " + t.Name + " " + where + ")"}, Binds: keyBinds})
		var set []string
		var setBinds []Bind
		for _, c := range r.all {
			if c.Kind == KindRegular || c.Kind == KindStatic {
				set = append(set, Quote(c.Name)+" = ?")
				setBinds = append(setBinds, Bind{Column: c.Name})
			}
		}
		set = append(set, VersionColumn+" = ?", DeletedColumn+" = false", PendingColumn+" = null", WritesColumn+" = ?")
		setBinds = append(setBinds, Bind{Column: VersionColumn}, Bind{Kind: BindWrites})
		r.add(Statement{Slot: SlotTxnChange, Clauses: []string{"UPDATE " + t.Name, "SET " + strings.Join(set, ", "), where},
			Binds: append(setBinds, keyBinds...)})
	case t.Unique:
		// The claim's owner (the columns after the key) and version.
		var read []string
		for _, c := range r.all {
			if c.Kind == KindRegular || c.Kind == KindClaim {
				read = append(read, Quote(c.Name))
			}
		}
		r.add(Statement{Slot: SlotTxnClaimRead, Clauses: []string{"LET " + t.LetName() + " = (SELECT " + strings.Join(read, ", ") + " FROM " + t.Name + " " + where + ")"}, Binds: keyBinds})
		r.add(Statement{Slot: SlotTxnInsert, Clauses: []string{
			"INSERT INTO " + t.Name + " (" + strings.Join(names, ", ") + ")",
			"VALUES (" + strings.Join(marks, ", ") + ")",
		}, Binds: binds})
	case !t.Canonical:
		r.add(Statement{Slot: SlotTxnInsert, Clauses: []string{
			"INSERT INTO " + t.Name + " (" + strings.Join(names, ", ") + ")",
			"VALUES (" + strings.Join(marks, ", ") + ")",
		}, Binds: binds})
	default:
		return
	}
	r.add(Statement{Slot: SlotTxnDelete, Clauses: []string{"DELETE FROM " + t.Name, where}, Binds: keyBinds})
}

// Expect is what a transaction expects of a row it reads (a LET): on the
// canonical table, absent or at a version; on a unique table, no claim,
// or the claim of an owner at a claim version.
type Expect struct {
	Table  *Table
	Read   Statement // the table's SlotTxnRead or SlotTxnClaimRead
	Absent bool
	// Owner lists, on a unique table expected held, the columns that name
	// the claim's owner, which the transaction conditions on beside the
	// claim's version.
	Owner []Column
}

// Transaction composes one transaction: the LET of each row in expects,
// a SELECT of what each read found (the canonical row's version, a
// claim's version: the reply, from which the client decides whether the
// condition held, since a transaction has no [applied]), and the writes,
// under the condition that every row is as expected. It returns the text,
// one part a line (a long part over several), indented by nesting, and
// the placeholders in order: each read's, each condition's
// (BindOldVersion for the canonical version; BindHeld per owner column
// and BindHeldClaim for a claim, on the claim's table), then each
// write's.
func Transaction(expects []Expect, writes []Statement) (string, []Bind) {
	var b strings.Builder
	line := func(indent, text string) {
		b.WriteString(indent)
		b.WriteString(strings.ReplaceAll(text, "\n", "\n"+indent))
		b.WriteByte('\n')
	}
	b.WriteString("BEGIN TRANSACTION\n")
	var binds []Bind
	var sel, conds []string
	var condBinds []Bind
	for _, x := range expects {
		line("\t", x.Read.CQL()+";")
		binds = append(binds, x.Read.Binds...)
		let := x.Table.LetName()
		col := VersionColumn
		if x.Table.Unique {
			col = ClaimColumn
		}
		sel = append(sel, let+"."+col)
		switch {
		case x.Absent:
			conds = append(conds, let+" IS NULL")
		case x.Table.Unique:
			for _, c := range x.Owner {
				conds = append(conds, let+"."+Quote(c.Name)+" = ?")
				condBinds = append(condBinds, Bind{Kind: BindHeld, Column: c.Name})
			}
			conds = append(conds, let+"."+col+" = ?")
			condBinds = append(condBinds, Bind{Kind: BindHeldClaim, Column: col})
		default:
			conds = append(conds, let+"."+col+" = ?")
			condBinds = append(condBinds, Bind{Kind: BindOldVersion, Column: col})
		}
	}
	if len(sel) > 0 {
		line("\t", "SELECT "+strings.Join(sel, ", ")+";")
	}
	binds = append(binds, condBinds...)
	indent := "\t"
	if len(conds) > 0 {
		line("\t", "IF "+strings.Join(conds, " AND ")+" THEN")
		indent = "\t\t"
	}
	for _, w := range writes {
		line(indent, w.CQL()+";")
		binds = append(binds, w.Binds...)
	}
	if len(conds) > 0 {
		line("\t", "END IF")
	}
	b.WriteString("COMMIT TRANSACTION")
	return b.String(), binds
}
