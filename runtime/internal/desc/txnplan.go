package desc

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/cqlgen/cqlgen/internal/cqlspec"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

// TxnEntity is an entity's transactional mode: the parts of its
// transactions, rendered from its tables' descriptions.
type TxnEntity struct {
	Canon  *Table
	Read   cqlspec.Statement // LET cur
	change cqlspec.Statement // the canonical row's UPDATE
	remove cqlspec.Statement // the canonical row's DELETE
	// changePlan says, per placeholder of change, the index of the value
	// in the entity's Values, or bindTS or bindWrites.
	changePlan []int
	Tables     []txnTable // per projection, in the entity's order
	shapes     sync.Map   // shape key → *cqldriver.Statement
}

type txnTable struct {
	T      *Table
	unique bool
	// Owner lists, on a unique table, its columns after the key: those
	// that name the claim's owner.
	Owner               []cqlspec.Column
	insert, del, Claim  cqlspec.Statement
	insertN, keyN, rowN int
}

// NewTxnEntity renders the parts of the transactions of an entity whose
// canonical table is canon, with projections tables (unique[i] marks a
// unique one); index maps a column of the canonical table to its place
// in Values.
func NewTxnEntity(canon *Table, tables []*Table, unique []bool, index map[string]int) *TxnEntity {
	x := &TxnEntity{Canon: canon}
	for _, s := range cqlspec.Render(&canon.Spec) {
		switch s.Slot {
		case cqlspec.SlotTxnRead:
			x.Read = s
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
		tt := txnTable{T: t, unique: unique[i], rowN: len(t.Row), keyN: len(t.Spec.PartitionKey) + len(t.Spec.Clustering)}
		for _, s := range cqlspec.Render(&t.Spec) {
			switch s.Slot {
			case cqlspec.SlotTxnInsert:
				tt.insert, tt.insertN = s, len(s.Binds)
			case cqlspec.SlotTxnDelete:
				tt.del = s
			case cqlspec.SlotTxnClaimRead:
				tt.Claim = s
			}
		}
		if tt.unique {
			tt.Owner = t.Row[tt.keyN:]
		}
		x.Tables = append(x.Tables, tt)
	}
	return x
}

// TxnImage is an entity as the transaction writes it: its canonical
// values, and per projection whether the table holds it, its key and its
// row (the table's columns in order; a unique table's claim version
// last).
type TxnImage struct {
	Values []any
	Key    []any // the canonical primary key
	Rows   []TxnRow
}

type TxnRow struct {
	Holds    bool
	Key, Row []any
}

// TxnExpect is what the write read of a row the transaction checks: the
// canonical row (table -1) or a claim (a projection's index).
type TxnExpect struct {
	Table  int
	Key    []any
	Absent bool
	// Version: the canonical version, or the claim's; owner: a claim's
	// owner columns as read.
	Version int64
	Owner   []any
}

// TxnPlan is the plan of one transaction: its checks and its writes.
type TxnPlan struct {
	Expects []TxnExpect
	shape   strings.Builder
	Parts   []cqlspec.Statement
	values  [][]any
}

func (w *TxnPlan) add(tag string, part cqlspec.Statement, values []any) {
	w.shape.WriteString(tag)
	w.shape.WriteByte(';')
	w.Parts = append(w.Parts, part)
	w.values = append(w.values, values)
}

// Plan is the transaction that takes the entity from cur (nil: no live
// entity) to next (nil: deleted) at version ts, with the record of the
// last changes writes; claims lists the claims it takes (see
// txnEntity.claims), expects what it read of the rows it checks. touch
// rewrites every row even where it is unchanged.
func (x *TxnEntity) Plan(cur, next *TxnImage, ts int64, writes []byte, expects []TxnExpect, touch bool) *TxnPlan {
	w := &TxnPlan{Expects: expects}
	for _, e := range expects {
		if e.Absent {
			fmt.Fprintf(&w.shape, "?%d=;", e.Table)
		} else {
			fmt.Fprintf(&w.shape, "?%d;", e.Table)
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
				vals[i] = next.Values[p]
			}
		}
		w.add("ch", x.change, vals)
	}
	for i := range x.Tables {
		tt := &x.Tables[i]
		var was, will *TxnRow
		if cur != nil && cur.Rows[i].Holds {
			was = &cur.Rows[i]
		}
		if next != nil && next.Rows[i].Holds {
			will = &next.Rows[i]
		}
		moved := was != nil && (will == nil || !SameKey(tt.T, was.Key, will.Key))
		if moved {
			w.add("d"+strconv.Itoa(i), tt.del, was.Key)
		}
		if will == nil {
			continue
		}
		if tt.unique {
			if touch || was == nil || moved {
				// The claim: the key, its owner, and this change's version.
				row := append(append([]any(nil), will.Row[:tt.insertN-1]...), ts)
				w.add("i"+strconv.Itoa(i), tt.insert, row)
			}
			continue
		}
		if !touch && was != nil && !moved && tt.sameRow(was.Row, will.Row) {
			continue // the row is what it was
		}
		w.add("i"+strconv.Itoa(i), tt.insert, will.Row[:tt.insertN])
	}
	return w
}

func (x *TxnEntity) canonKey(cur, next *TxnImage) []any {
	if next != nil {
		return next.Key
	}
	return cur.Key
}

// sameRow reports whether two rows of the table hold the same values, as
// Cassandra stores them.
func (tt *txnTable) sameRow(a, b []any) bool {
	cols := tt.T.Row
	if len(a) < len(cols) || len(b) < len(cols) {
		return false
	}
	return value.SameEncoded(a[:len(cols)], b[:len(cols)], func(i int) string { return cols[i].Type })
}

// Statement is the transaction of w's shape, composed and wrapped once.
func (x *TxnEntity) Statement(w *TxnPlan) (*cqldriver.Statement, []any) {
	var values []any
	for _, e := range w.Expects {
		values = append(values, e.Key...)
	}
	for _, e := range w.Expects {
		if e.Absent {
			continue
		}
		values = append(values, e.Owner...)
		values = append(values, e.Version)
	}
	for _, v := range w.values {
		values = append(values, v...)
	}
	key := w.shape.String()
	if s, ok := x.shapes.Load(key); ok {
		return s.(*cqldriver.Statement), values
	}
	expects := make([]cqlspec.Expect, len(w.Expects))
	for i, e := range w.Expects {
		if e.Table < 0 {
			expects[i] = cqlspec.Expect{Table: &x.Canon.Spec, Read: x.Read, Absent: e.Absent}
			continue
		}
		tt := &x.Tables[e.Table]
		expects[i] = cqlspec.Expect{Table: &tt.T.Spec, Read: tt.Claim, Absent: e.Absent, Owner: tt.Owner}
	}
	cql, _ := cqlspec.Transaction(expects, w.Parts)
	s := &cqldriver.Statement{
		CQL:     cql,
		Table:   x.Canon.Spec.Name,
		Pattern: x.Canon.Spec.Pattern,
		// A transaction runs at the write level, its reads at the serial
		// one, as a conditional write; like one, it is not sent twice.
		Kind: cqlgen.Conditional,
	}
	actual, _ := x.shapes.LoadOrStore(key, s)
	return actual.(*cqldriver.Statement), values
}
