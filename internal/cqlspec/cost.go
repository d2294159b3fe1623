package cqlspec

import "fmt"

// What a write costs: the statements each write method of an entity sends
// on its path without a race, a conflict or a lost reply, derived from the
// entity's tables as the runtime writes them (docs/protocol.md). The
// review page lays them out for users deciding between patterns;
// gen/cost_test.go runs every write of the examples on cqltest's
// in-memory session and checks its log against the page's figures, so a
// change of the runtime's path that these do not follow fails there.

// Shape is what an entity's write costs depend on.
type Shape struct {
	// Tables are the entity's tables, the source of truth among them.
	Tables []*Table
	// Sparse tells, per table, whether it holds only the entities its
	// predicate selects (where:"..."). The costs count an entity every
	// sparse table holds, before a change and after it.
	Sparse []bool
	// Immutable: the entity is written once, never changed.
	Immutable bool
}

// Cost is what one call of a write method sends.
type Cost struct {
	Method string // Insert, Update, Delete, Modify, InsertIfAbsent, Add
	Case   string // the case counted: what the call finds and changes
	// Reads counts the single-row reads; Conditional, the conditional
	// writes (each a Paxos round: claims and releases of unique keys
	// included); Statements, every statement sent, reads and each
	// statement of a batch included; Requests, the round trips (a batch
	// is one); Rows, the rows written, a delete's tombstone included.
	Reads, Conditional, Statements, Requests, Rows int
}

// fanOut adds n plain writes of one row each, sent as the default
// strategy (a logged batch) sends them: one request.
func (c *Cost) fanOut(n int) {
	if n > 0 {
		c.Statements += n
		c.Requests++
		c.Rows += n
	}
}

func (c *Cost) read(n int) {
	c.Reads += n
	c.Statements += n
	c.Requests += n
}

// conditional adds n conditional writes of one row each.
func (c *Cost) conditional(n int) {
	c.Conditional += n
	c.Statements += n
	c.Requests += n
	c.Rows += n
}

// Costs lists what each write method of an entity of shape s costs.
func Costs(s Shape) []Cost {
	var canon *Table
	for _, t := range s.Tables {
		if t.Canonical {
			canon = t
		}
	}
	if canon == nil && len(s.Tables) == 1 {
		canon = s.Tables[0]
	}
	if canon == nil {
		return nil
	}
	switch {
	case counting(canon):
		return []Cost{one("Add", "adds to the counters"), one("Delete", "")}
	case len(s.Tables) == 1:
		ifAbsent := Cost{Method: "InsertIfAbsent", Case: "no row has the key"}
		ifAbsent.conditional(1)
		if s.Immutable {
			return []Cost{one("Insert", ""), immutableDelete(1), ifAbsent}
		}
		return []Cost{one("Insert", ""), one("Update", ""), one("Delete", ""), ifAbsent}
	case !canon.Versioned:
		// Written once: every table's row in one logical write.
		ins := Cost{Method: "Insert"}
		ins.fanOut(len(s.Tables))
		return []Cost{ins, immutableDelete(len(s.Tables))}
	}
	if canon.Transactional {
		return txnCosts(s, canon)
	}
	return protocolCosts(s, canon)
}

// transaction adds one transaction of the transactional mode writing
// rows rows: one statement, one request, one checked write.
func (c *Cost) transaction(rows int) {
	c.Conditional++
	c.Statements++
	c.Requests++
	c.Rows += rows
}

// txnCosts is the transactional mode's (txn.go in the runtime): an
// Insert sends its transaction alone, expecting a new entity and
// unclaimed keys; an Update, a Modify (its change's read is the write's)
// or a Delete reads the source of
// truth's row first (a claim only when a first attempt found it taken),
// then sends one transaction that writes every row the change touches:
// the source of truth's, the rows it moves (deleted) and rewrites, the
// claims it takes and gives up.
func txnCosts(s Shape, canon *Table) []Cost {
	n := count(s, canon)
	plain, unique, moves, rewrites, claims := n.plain, n.unique, n.moves, n.stored, n.claims
	ins := Cost{Method: "Insert", Case: "a new entity, in one transaction" + keys(", claims", unique)}
	ins.transaction(1 + plain + unique)
	upd := Cost{Method: "Update", Case: "every field but the key changes, in one transaction" + keys(", claims and releases", claims)}
	upd.read(1)
	upd.transaction(1 + moves + rewrites + 2*claims)
	mod := upd
	mod.Method, mod.Case = "Modify", "the change edits every field but the key, in one transaction"+keys(", claims and releases", claims)
	// Modify's transaction starts from Modify's own read of the entity:
	// one read, as Update.
	del := Cost{Method: "Delete", Case: "an entity that exists, in one transaction" + keys(", releases", unique)}
	del.read(1)
	del.transaction(1 + plain + unique)
	return []Cost{ins, upd, mod, del}
}

// immutableDelete is Delete of an immutable entity in n tables: it reads
// the source of truth first, for the keys of every table's row.
func immutableDelete(n int) Cost {
	c := Cost{Method: "Delete", Case: "an entity that exists"}
	c.read(1)
	c.fanOut(n)
	return c
}

func one(method, when string) Cost {
	c := Cost{Method: method, Case: when}
	c.fanOut(1)
	return c
}

func counting(t *Table) bool {
	for _, c := range t.Columns {
		if c.Type == "counter" {
			return true
		}
	}
	return false
}

// protocolCosts is the write protocol's: a read of the source of truth's
// row (none for the Insert of a new entity, whose conditional write goes
// first on "no row", where the source of truth has Create), a claim of each unique key the change gives the entity, the
// conditional write, the fan-out to the other tables (the rows that move
// deleted, the new rows written) and the release of each unique key it
// gives up.
func protocolCosts(s Shape, canon *Table) []Cost {
	statics := false
	for _, c := range canon.Columns {
		statics = statics || c.Static
	}
	n := count(s, canon)
	plain, unique, moves, rewrites, claims, shared := n.plain, n.unique, n.moves, n.rewrites, n.claims, n.shared

	ins := Cost{Method: "Insert", Case: "a new entity" + keys(", claims", unique)}
	if statics || canon.Bucket != BucketNone {
		// No Create (see protocol): the Insert reads first.
		ins.read(1)
	}
	if statics {
		ins.read(1) // the partition's statics, from its first row
	}
	ins.conditional(unique + 1)
	ins.fanOut(plain)

	// A write that finds the last change's record carries it out first,
	// in one request: the deletes of the rows it moved (none after an
	// Insert) and the rows of the tables sharing the statics, whose
	// static cells may lag; then it releases the keys it gave up.
	write := func(c *Cost, moved, released int) {
		c.read(1)
		c.fanOut(moved + shared)
		c.conditional(released)
	}

	upd := Cost{Method: "Update", Case: "every field but the key changes" + keys(", claims and releases", claims)}
	write(&upd, 0, 0)
	upd.conditional(claims + 1)
	upd.fanOut(moves + rewrites)
	upd.conditional(claims) // releases

	again := Cost{Method: "Update", Case: "the same, again: after a change that moved rows"}
	write(&again, moves, claims)
	again.conditional(claims + 1)
	again.fanOut(moves + rewrites)
	again.conditional(claims)

	mod := upd
	// Modify's write starts from Modify's own read: one read, as Update.
	mod.Method, mod.Case = "Modify", "the change edits every field but the key"+keys(", claims and releases", claims)

	del := Cost{Method: "Delete", Case: "an entity that exists" + keys(", releases", unique)}
	write(&del, 0, 0)
	del.conditional(1)
	del.fanOut(plain)
	del.conditional(unique) // releases
	if moves+claims == 0 {
		return []Cost{ins, upd, mod, del}
	}
	return []Cost{ins, upd, again, mod, del}
}

// tally counts the tables of a shape but its source of truth by what an
// Update that changes every field but the source of truth's key does to
// them.
type tally struct {
	plain, unique int // the tables, plain and unique
	moves         int // plain tables whose row moves: their key holds such a field
	claims        int // unique tables whose key holds one: a claim taken, one given up
	stored        int // plain tables whose row holds one, rewritten
	shared        int // plain tables with static columns (shares)
	rewrites      int // plain tables the write protocol rewrites: stored or shared
}

// count tallies the tables of s but canon, the source of truth.
func count(s Shape, canon *Table) tally {
	key := map[string]bool{}
	for _, c := range append(append([]Column(nil), canon.PartitionKey...), canon.Clustering...) {
		key[c.Name] = true
	}
	var n tally
	for _, t := range s.Tables {
		if t == canon {
			continue
		}
		moved, stored := false, false
		for _, c := range t.All() {
			if !c.Field || key[c.Name] {
				continue
			}
			stored = true
			if c.Kind == KindPartition || c.Kind == KindClustering {
				moved = true
			}
		}
		if t.Unique {
			n.unique++
			n.claims += b2i(moved)
			continue
		}
		n.plain++
		n.moves += b2i(moved)
		n.stored += b2i(stored)
		n.shared += b2i(shares(t))
		n.rewrites += b2i(stored || shares(t))
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shares reports whether t has static columns, which the protocol
// rewrites at every change.
func shares(t *Table) bool {
	for _, c := range t.Columns {
		if c.Static {
			return true
		}
	}
	return false
}

// keys says what a write does to n unique keys: "" for none.
func keys(what string, n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return what + " a unique key"
	}
	return fmt.Sprintf("%s %d unique keys", what, n)
}
