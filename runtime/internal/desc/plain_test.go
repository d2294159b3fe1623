package desc

import (
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

type uuidKey [16]byte

type label string

// checked has a partition key column of every kind a check looks at, and a
// vector.
type checked struct {
	S    string
	L    label
	T    time.Time
	U    uuidKey
	B    []byte
	F    []string
	I    int64
	V    []float32
	Note string
}

var checkedTable = NewTable(TableSpec{
	Name:         "checked",
	PartitionKey: Cols("s text", "l text", "t timestamp", "u uuid", "b blob", "f frozen<list<text>>", "i bigint"),
	Columns:      Cols("v vector<float, 2>", "note text"),
	Canonical:    true,
	Single:       true,
})

func checkedRow(e *checked, ts int64, _ bool) []any {
	return []any{e.S, e.L, e.T, e.U, e.B, e.F, e.I, value.Vector(e.V), e.Note, ts}
}

func checkedFields(e *checked, dst []any) []any {
	return append(dst, &e.S, &e.L, &e.T, &e.U, &e.B, &e.F, &e.I, &e.V, &e.Note)
}

// The check NewEntity derives for an entity written without the protocol
// reads its fields in place: it refuses what the check derived from
// values (checks, over emptyValue, the versioned entities') refuses,
// column for column, and allocates nothing.
func TestFieldChecksAsValueChecks(t *testing.T) {
	ent := NewEntity(&Entity[checked]{Name: "Checked", Canonical: checkedTable, Row: checkedRow, Fields: checkedFields})
	index := map[string]int{}
	for i, c := range checkedTable.Spec.All() {
		index[c.Name] = i
	}
	byValues := &EntityOf[*checked]{Canonical: checkedTable, Values: func(e *checked, unset bool) []any { return checkedRow(e, 0, unset) }}
	want, _ := checks(byValues, index)

	full := checked{S: "s", L: "l", T: time.Unix(1, 0), U: uuidKey{1}, B: []byte{1}, F: []string{"a"}, I: 0, V: []float32{1, 2}}
	cases := map[string]func(*checked){
		"all set":           func(*checked) {},
		"empty string":      func(e *checked) { e.S = "" },
		"empty named":       func(e *checked) { e.L = "" },
		"zero time":         func(e *checked) { e.T = time.Time{} },
		"zero time in zone": func(e *checked) { e.T = time.Time{}.In(time.FixedZone("x", 3600)) },
		"zero uuid":         func(e *checked) { e.U = uuidKey{} },
		"empty blob":        func(e *checked) { e.B = nil },
		"empty list":        func(e *checked) { e.F = []string{} },
		"vector too short":  func(e *checked) { e.V = []float32{1} },
		"no vector":         func(e *checked) { e.V = nil },
	}
	for what, edit := range cases {
		e := full
		edit(&e)
		got, w := ent.Check(&e), want(&e)
		if (got == nil) != (w == nil) || got != nil && got.Error() != w.Error() {
			t.Errorf("%s: Check says %v; the check by values %v", what, got, w)
		}
		if what != "all set" && what != "no vector" && got == nil {
			t.Errorf("%s: Check refuses nothing", what)
		}
	}
	e := full
	if n := testing.AllocsPerRun(100, func() { _ = ent.Check(&e) }); n != 0 {
		t.Errorf("Check allocates %v times; want none", n)
	}
}
