package impl

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// txnEntity is an entity's transactional mode: the parts of its
// transactions, rendered from its tables' descriptions.
type txnEntity struct {
	canon  *Table
	read   cqlspec.Statement // LET cur
	change cqlspec.Statement // the canonical row's UPDATE
	remove cqlspec.Statement // the canonical row's DELETE
	// changePlan says, per placeholder of change, the index of the value
	// in the entity's Values, or bindTS or bindWrites.
	changePlan []int
	tables     []txnTable // per projection, in the entity's order
	shapes     sync.Map   // shape key → *cqldriver.Statement
}

type txnTable struct {
	t      *Table
	unique bool
	// owner lists, on a unique table, its columns after the key: those
	// that name the claim's owner.
	owner               []cqlspec.Column
	insert, del, claim  cqlspec.Statement
	insertN, keyN, rowN int
}

// newTxnEntity renders the parts of the transactions of an entity whose
// canonical table is canon, with projections tables (unique[i] marks a
// unique one); index maps a column of the canonical table to its place
// in Values.
func newTxnEntity(canon *Table, tables []*Table, unique []bool, index map[string]int) *txnEntity {
	x := &txnEntity{canon: canon}
	for _, s := range cqlspec.Render(&canon.Spec) {
		switch s.Slot {
		case cqlspec.SlotTxnRead:
			x.read = s
		case cqlspec.SlotTxnChange:
			x.change = s
		case cqlspec.SlotTxnDelete:
			x.remove = s
		}
	}
	for _, b := range x.change.Binds {
		switch {
		case b.Kind == cqlspec.BindWrites:
			x.changePlan = append(x.changePlan, bindWrites)
		case b.Column == cqlspec.VersionColumn:
			x.changePlan = append(x.changePlan, bindTS)
		default:
			i, ok := index[b.Column]
			if !ok {
				panic(fmt.Sprintf("cqlgenimpl: %s: TxnChange binds column %s, which no field holds", canon.Spec.Name, b.Column))
			}
			x.changePlan = append(x.changePlan, i)
		}
	}
	for i, t := range tables {
		tt := txnTable{t: t, unique: unique[i], rowN: len(t.Row), keyN: len(t.Spec.PartitionKey) + len(t.Spec.Clustering)}
		for _, s := range cqlspec.Render(&t.Spec) {
			switch s.Slot {
			case cqlspec.SlotTxnInsert:
				tt.insert, tt.insertN = s, len(s.Binds)
			case cqlspec.SlotTxnDelete:
				tt.del = s
			case cqlspec.SlotTxnClaimRead:
				tt.claim = s
			}
		}
		if tt.unique {
			tt.owner = t.Row[tt.keyN:]
		}
		x.tables = append(x.tables, tt)
	}
	return x
}

// txnImage is an entity as the transaction writes it: its canonical
// values, and per projection whether the table holds it, its key and its
// row (the table's columns in order; a unique table's claim version
// last).
type txnImage struct {
	values []any
	key    []any // the canonical primary key
	rows   []txnRow
}

type txnRow struct {
	holds    bool
	key, row []any
}

// txnExpect is what the write read of a row the transaction checks: the
// canonical row (table -1) or a claim (a projection's index).
type txnExpect struct {
	table  int
	key    []any
	absent bool
	// version: the canonical version, or the claim's; owner: a claim's
	// owner columns as read.
	version int64
	owner   []any
}

// txnPlan is the plan of one transaction: its checks and its writes.
type txnPlan struct {
	expects []txnExpect
	shape   strings.Builder
	parts   []cqlspec.Statement
	values  [][]any
}

func (w *txnPlan) add(tag string, part cqlspec.Statement, values []any) {
	w.shape.WriteString(tag)
	w.shape.WriteByte(';')
	w.parts = append(w.parts, part)
	w.values = append(w.values, values)
}

// plan is the transaction that takes the entity from cur (nil: no live
// entity) to next (nil: deleted) at version ts, with the record of the
// last changes writes; claims lists the claims it takes (see
// txnEntity.claims), expects what it read of the rows it checks. touch
// rewrites every row even where it is unchanged.
func (x *txnEntity) plan(cur, next *txnImage, ts int64, writes []byte, expects []txnExpect, touch bool) *txnPlan {
	w := &txnPlan{expects: expects}
	for _, e := range expects {
		if e.absent {
			fmt.Fprintf(&w.shape, "?%d=;", e.table)
		} else {
			fmt.Fprintf(&w.shape, "?%d;", e.table)
		}
	}
	if next == nil {
		w.add("rm", x.remove, x.canonKey(cur, next))
	} else {
		vals := make([]any, len(x.changePlan))
		for i, p := range x.changePlan {
			switch p {
			case bindTS:
				vals[i] = ts
			case bindWrites:
				vals[i] = writes
			default:
				vals[i] = next.values[p]
			}
		}
		w.add("ch", x.change, vals)
	}
	for i := range x.tables {
		tt := &x.tables[i]
		var was, will *txnRow
		if cur != nil && cur.rows[i].holds {
			was = &cur.rows[i]
		}
		if next != nil && next.rows[i].holds {
			will = &next.rows[i]
		}
		moved := was != nil && (will == nil || !SameKey(tt.t, was.key, will.key))
		if moved {
			w.add("d"+strconv.Itoa(i), tt.del, was.key)
		}
		if will == nil {
			continue
		}
		if tt.unique {
			if touch || was == nil || moved {
				// The claim: the key, its owner, and this change's version.
				row := append(append([]any(nil), will.row[:tt.insertN-1]...), ts)
				w.add("i"+strconv.Itoa(i), tt.insert, row)
			}
			continue
		}
		if !touch && was != nil && !moved && tt.sameRow(was.row, will.row) {
			continue // the row is what it was
		}
		w.add("i"+strconv.Itoa(i), tt.insert, will.row[:tt.insertN])
	}
	return w
}

func (x *txnEntity) canonKey(cur, next *txnImage) []any {
	if next != nil {
		return next.key
	}
	return cur.key
}

// sameRow reports whether two rows of the table hold the same values, as
// Cassandra stores them.
func (tt *txnTable) sameRow(a, b []any) bool {
	cols := tt.t.Row
	if len(a) < len(cols) || len(b) < len(cols) {
		return false
	}
	return sameEncoded(a[:len(cols)], b[:len(cols)], func(i int) string { return cols[i].Type })
}

// statement is the transaction of w's shape, composed and wrapped once.
func (x *txnEntity) statement(w *txnPlan) (*cqldriver.Statement, []any) {
	var values []any
	for _, e := range w.expects {
		values = append(values, e.key...)
	}
	for _, e := range w.expects {
		if e.absent {
			continue
		}
		values = append(values, e.owner...)
		values = append(values, e.version)
	}
	for _, v := range w.values {
		values = append(values, v...)
	}
	key := w.shape.String()
	if s, ok := x.shapes.Load(key); ok {
		return s.(*cqldriver.Statement), values
	}
	expects := make([]cqlspec.Expect, len(w.expects))
	for i, e := range w.expects {
		if e.table < 0 {
			expects[i] = cqlspec.Expect{Table: &x.canon.Spec, Read: x.read, Absent: e.absent}
			continue
		}
		tt := &x.tables[e.table]
		expects[i] = cqlspec.Expect{Table: &tt.t.Spec, Read: tt.claim, Absent: e.absent, Owner: tt.owner}
	}
	cql, _ := cqlspec.Transaction(expects, w.parts)
	s := &cqldriver.Statement{
		CQL:     cql,
		Table:   x.canon.Spec.Name,
		Pattern: x.canon.Spec.Pattern,
		// A transaction runs at the write level, its reads at the serial
		// one, as a conditional write; like one, it is not sent twice.
		Kind: cqlgen.Conditional,
	}
	actual, _ := x.shapes.LoadOrStore(key, s)
	return actual.(*cqldriver.Statement), values
}
