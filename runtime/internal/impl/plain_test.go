package impl

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/internal/desc"
	"github.com/cqlgen/cqlgen/runtime/internal/value"
)

var tally = desc.NewTable(desc.TableSpec{
	Name:         "tally",
	PartitionKey: desc.Cols("s text"),
	Columns:      desc.Cols("n counter"),
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
	ent := desc.NewEntity(&desc.Entity[tallied]{
		Name:      "Tallied",
		Canonical: tally,
		Row:       func(e *tallied, ts int64, _ bool) []any { return []any{e.S, e.N, ts} },
		Fields:    func(e *tallied, dst []any) []any { return append(dst, &e.S, &e.N) },
	})
	ctx := context.Background()
	var s recorder
	for _, op := range []func() error{
		func() error { return Insert(ctx, ent, &s, desc.NewOptions(), nil, &tallied{S: "a"}) },
		func() error { return Update(ctx, ent, &s, desc.NewOptions(), nil, &tallied{S: "a"}) },
		func() error {
			_, err := InsertIfAbsent(ctx, ent, &s, desc.NewOptions(), nil, &tallied{S: "a"})
			return err
		},
	} {
		if err := op(); err == nil || !strings.Contains(err.Error(), "Tallied") {
			t.Errorf("a write a counter table has not: %v; want an error naming the entity", err)
		}
	}
	if err := Add(ctx, ent, &s, desc.NewOptions(), nil, &tallied{S: "a", N: 2}); err != nil {
		t.Fatal(err)
	}
	if err := Add(ctx, ent, &s, desc.NewOptions(), nil, &tallied{N: 2}); !errors.Is(err, cqlgen.ErrEmptyKey) {
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
		spec  desc.TableSpec
		empty tagged
	}{
		{"set column", desc.TableSpec{Name: "tagged", PartitionKey: desc.Cols("k text"), Columns: desc.Cols("tags set<text>"), Canonical: true, Single: true}, tagged{Tags: map[string]struct{}{"a": {}}}},
		{"set key", desc.TableSpec{Name: "by_tags", PartitionKey: desc.Cols("tags frozen<set<text>>"), Columns: desc.Cols("k text"), Canonical: true, Single: true}, tagged{K: "k"}},
	} {
		tbl := desc.NewTable(tc.spec)
		keyFirst := tc.spec.PartitionKey[0].Name == "k"
		ent := desc.NewEntity(&desc.Entity[tagged]{
			Name:      "Tagged",
			Canonical: tbl,
			Row: func(e *tagged, ts int64, unset bool) []any {
				if keyFirst {
					return []any{e.K, value.MapOrUnset(e.Tags, unset), ts}
				}
				return []any{value.Normalized("frozen<set<text>>", e.Tags), e.K, ts}
			},
			Fields: func(e *tagged, dst []any) []any {
				if keyFirst {
					return append(dst, &e.K, value.ScanSet(&e.Tags))
				}
				return append(dst, value.ScanSet(&e.Tags), &e.K)
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
		if err := Delete(context.Background(), ent, &s, desc.NewOptions(), nil, &full); err != nil || len(s.sent) != 1 || len(s.sent[0].Values) != 2 {
			t.Errorf("%s: Delete: %v, sent %+v; want one DELETE of the key at a timestamp", tc.name, err, s.sent)
		}
	}
}
