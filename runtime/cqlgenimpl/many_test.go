package cqlgenimpl_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// GetMany on the in-memory node: the entities of several keys in the
// order asked, the missing ones (never written, deleted, of another
// organisation) reported, duplicates answered twice, and the bound on
// the number of keys.
func TestGetMany(t *testing.T) {
	ctx := context.Background()
	repo := fixture.NewProfileRepo(session(t))
	for i := range 10 {
		must(t, repo.Insert(ctx, &fixture.Profile{Org: "o1", UserID: fmt.Sprintf("u%d", i), Name: fmt.Sprintf("n%d", i)}))
	}
	must(t, repo.Insert(ctx, &fixture.Profile{Org: "o2", UserID: "u11", Name: "elsewhere"}))
	must(t, repo.Delete(ctx, &fixture.Profile{Org: "o1", UserID: "u3"})) // a grave: missing

	keys := []string{"u7", "u3", "u11", "u0", "nobody", "u7", "u9"}
	got, err := repo.GetMany(ctx, "o1", keys)
	must(t, err)
	if len(got.Rows) != len(keys) {
		t.Fatalf("%d rows for %d keys", len(got.Rows), len(keys))
	}
	for i, k := range keys {
		r := got.Rows[i]
		want := slices.Contains([]string{"u7", "u0", "u9"}, k)
		switch {
		case want && (r == nil || r.UserID != k || r.Org != "o1" || r.Name != "n"+k[1:]):
			t.Errorf("key %d (%s): got %+v", i, k, r)
		case !want && r != nil:
			t.Errorf("key %d (%s): got %+v, want none", i, k, r)
		}
	}
	if !slices.Equal(got.Missing, []int{1, 2, 4}) {
		t.Errorf("missing %v, want [1 2 4]", got.Missing)
	}

	none, err := repo.GetMany(ctx, "o1", nil)
	if err != nil || len(none.Rows) != 0 || len(none.Missing) != 0 {
		t.Errorf("no keys: %+v, %v", none, err)
	}

	many := make([]string, cqlgen.DefaultMaxKeys+1)
	for i := range many {
		many[i] = fmt.Sprint("u", i)
	}
	var ke *cqlgen.InputError
	if _, err := repo.GetMany(ctx, "o1", many); !(errors.As(err, &ke) && ke.Err == cqlgen.ErrInvalidLimit) || !errors.Is(err, cqlgen.ErrInvalidLimit) {
		t.Errorf("%d keys: %v, want an *cqlgen.InputError (ErrInvalidLimit)", len(many), err)
	}
	wide := fixture.NewProfileRepo(session(t), cqlgen.WithMaxKeys(len(many)))
	if _, err := wide.GetMany(ctx, "o1", many); err != nil {
		t.Errorf("%d keys under WithMaxKeys(%d): %v", len(many), len(many), err)
	}
	if _, err := repo.GetMany(ctx, "o1", []string{"u1", ""}); !errors.Is(err, cqlgen.ErrEmptyKey) {
		t.Errorf("an empty key: %v, want ErrEmptyKey", err)
	}
	if _, err := repo.GetMany(ctx, "", []string{"u1"}); !errors.Is(err, cqlgen.ErrEmptyKey) {
		t.Errorf("an empty organisation: %v, want ErrEmptyKey", err)
	}
}

// CheckPrefix accepts exactly the options a prefix read's statements can
// serve: columns fixed from the first, and a bound only on the next.
func TestCheckPrefix(t *testing.T) {
	names := []string{"Kind", "Day", "Seq"}
	for _, c := range []struct {
		fixed, bounded []bool
		ok             bool
	}{
		{[]bool{false, false}, []bool{false, false, false}, true},
		{[]bool{false, false}, []bool{true, false, false}, true},
		{[]bool{true, false}, []bool{false, true, false}, true},
		{[]bool{true, true}, []bool{false, false, true}, true},
		{[]bool{true, true}, []bool{false, false, false}, true},
		{[]bool{false, true}, []bool{false, false, false}, false}, // a gap
		{[]bool{true, false}, []bool{true, false, false}, false},  // a bound on a fixed column
		{[]bool{false, false}, []bool{false, true, false}, false}, // a bound past the next column
		{[]bool{true, false}, []bool{false, false, true}, false},
		{[]bool{true, true}, []bool{false, true, false}, false},
	} {
		err := cqlgenimpl.CheckPrefix(names, c.fixed, c.bounded)
		var oe *cqlgen.InputError
		if c.ok != (err == nil) || (err != nil && !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption)) {
			t.Errorf("fixed %v bounded %v: %v", c.fixed, c.bounded, err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
