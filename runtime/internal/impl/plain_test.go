package impl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
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
	return []any{e.S, e.L, e.T, e.U, e.B, e.F, e.I, Vector(e.V), e.Note, ts}
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
	byValues := &entity[*checked]{Canonical: checkedTable, Values: func(e *checked, unset bool) []any { return checkedRow(e, 0, unset) }}
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

var tally = NewTable(TableSpec{
	Name:         "tally",
	PartitionKey: Cols("s text"),
	Columns:      Cols("n counter"),
	Canonical:    true,
})

type tallied struct {
	S string
	N int64
}

// A counter table's entity has Add and Delete alone: its other writes are
// refused with an error that says so, as is InsertIfAbsent of an entity
// in several tables, never with a panic.
func TestPlainWritesItHasNot(t *testing.T) {
	ent := NewEntity(&Entity[tallied]{
		Name:      "Tallied",
		Canonical: tally,
		Row:       func(e *tallied, ts int64, _ bool) []any { return []any{e.S, e.N, ts} },
		Fields:    func(e *tallied, dst []any) []any { return append(dst, &e.S, &e.N) },
	})
	ctx := context.Background()
	var s recorder
	for _, op := range []func() error{
		func() error { return Insert(ctx, ent, &s, NewOptions(), nil, &tallied{S: "a"}) },
		func() error { return Update(ctx, ent, &s, NewOptions(), nil, &tallied{S: "a"}) },
		func() error {
			_, err := InsertIfAbsent(ctx, ent, &s, NewOptions(), nil, &tallied{S: "a"})
			return err
		},
	} {
		if err := op(); err == nil || !strings.Contains(err.Error(), "Tallied") {
			t.Errorf("a write a counter table has not: %v; want an error naming the entity", err)
		}
	}
	if err := Add(ctx, ent, &s, NewOptions(), nil, &tallied{S: "a", N: 2}); err != nil {
		t.Fatal(err)
	}
	if err := Add(ctx, ent, &s, NewOptions(), nil, &tallied{N: 2}); !errors.Is(err, cqlgen.ErrEmptyKey) {
		t.Errorf("Add without a key: %v; want ErrEmptyKey", err)
	}
	if len(s.sent) != 1 || s.sent[0].Stmt != tally.Add || s.sent[0].Values[0] != int64(2) || s.sent[0].Values[1] != "a" {
		t.Errorf("sent %+v; want the one Add, its amount then its key", s.sent)
	}
}

// recorder is a session that keeps the statements it is asked to run.
type recorder struct{ sent []cqldriver.Query }

func (r *recorder) Exec(_ context.Context, q cqldriver.Query) error {
	r.sent = append(r.sent, q)
	return nil
}
func (r *recorder) Iter(context.Context, cqldriver.Query) cqldriver.Iter { return nil }
func (r *recorder) ExecCAS(context.Context, cqldriver.Query, ...any) (bool, error) {
	return false, errors.New("recorder: no conditional writes")
}
func (r *recorder) Batch(_ context.Context, _ cqldriver.BatchKind, qs []cqldriver.Query) error {
	r.sent = append(r.sent, qs...)
	return nil
}

type tagged struct {
	K    string
	Tags map[string]struct{}
}

// Fields may scan a field through a scanner of the driver's values
// (ScanSet, ScanDuration, Present), not a pointer to it: such a field is
// bound and checked by its value, a key's too.
func TestFieldsThroughScanners(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  TableSpec
		empty tagged
	}{
		{"set column", TableSpec{Name: "tagged", PartitionKey: Cols("k text"), Columns: Cols("tags set<text>"), Canonical: true, Single: true}, tagged{Tags: map[string]struct{}{"a": {}}}},
		{"set key", TableSpec{Name: "by_tags", PartitionKey: Cols("tags frozen<set<text>>"), Columns: Cols("k text"), Canonical: true, Single: true}, tagged{K: "k"}},
	} {
		tbl := NewTable(tc.spec)
		keyFirst := tc.spec.PartitionKey[0].Name == "k"
		ent := NewEntity(&Entity[tagged]{
			Name:      "Tagged",
			Canonical: tbl,
			Row: func(e *tagged, ts int64, unset bool) []any {
				if keyFirst {
					return []any{e.K, MapOrUnset(e.Tags, unset), ts}
				}
				return []any{Normalized("frozen<set<text>>", e.Tags), e.K, ts}
			},
			Fields: func(e *tagged, dst []any) []any {
				if keyFirst {
					return append(dst, &e.K, ScanSet(&e.Tags))
				}
				return append(dst, ScanSet(&e.Tags), &e.K)
			},
		})
		if err := ent.Check(&tc.empty); !errors.Is(err, cqlgen.ErrEmptyKey) {
			t.Errorf("%s: Check of an empty key: %v; want ErrEmptyKey", tc.name, err)
		}
		full := tagged{K: "k", Tags: map[string]struct{}{"a": {}}}
		if err := ent.Check(&full); err != nil {
			t.Errorf("%s: Check: %v", tc.name, err)
		}
		var s recorder
		if err := Delete(context.Background(), ent, &s, NewOptions(), nil, &full); err != nil || len(s.sent) != 1 || len(s.sent[0].Values) != 2 {
			t.Errorf("%s: Delete: %v, sent %+v; want one DELETE of the key at a timestamp", tc.name, err, s.sent)
		}
	}
}
