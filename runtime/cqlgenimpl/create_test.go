package cqlgenimpl_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// lostReplies is a session whose conditional writes of the settings
// table apply and then report an error, as when the reply is lost on
// the way back, while lose is set. (The idempotency keys' own are
// answered.)
type lostReplies struct {
	cqlgen.Session
	lose bool
	cas  int
}

func (l *lostReplies) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	l.cas++
	applied, err := l.Session.(cqldriver.MapCASer).ExecCASMap(ctx, q, current)
	if err == nil && l.lose && q.Stmt.Table == "settings" {
		return false, errors.New("reply lost")
	}
	return applied, err
}

// TestInsertIfAbsent creates a setting once: a second insert of other
// values does not apply and returns the row there, an insert of the very
// same values counts as applied and says Again, and Insert with
// cqlgen.IfAbsent says the same as an error or nil.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestInsertIfAbsent(t *testing.T) {
	ctx := context.Background()
	repo := fixture.NewSettingRepo(session(t))
	dark, light := "dark", "light"
	first := &fixture.Setting{Owner: "u", Name: "theme", Value: &dark, Labels: map[string]string{"by": "ada"}}
	res, err := repo.InsertIfAbsent(ctx, first)
	if err != nil || !res.Applied || res.Again || res.Current != nil {
		t.Fatalf("first create: %+v, %v", res, err)
	}
	res, err = repo.InsertIfAbsent(ctx, &fixture.Setting{Owner: "u", Name: "theme", Value: &light})
	if err != nil || res.Applied || res.Again || res.Current == nil || *res.Current.Value != "dark" || res.Current.Labels["by"] != "ada" {
		t.Fatalf("second create: %+v, %v", res, err)
	}
	res, err = repo.InsertIfAbsent(ctx, &fixture.Setting{Owner: "u", Name: "theme", Value: &dark, Labels: map[string]string{"by": "ada"}})
	if err != nil || !res.Applied || !res.Again || res.Current == nil {
		t.Fatalf("identical create: %+v, %v", res, err)
	}
	// A nil pointer written as unset reads back nil: still the same row.
	if res, err := repo.InsertIfAbsent(ctx, &fixture.Setting{Owner: "u", Name: "font"}); err != nil || !res.Applied {
		t.Fatalf("create without value: %+v, %v", res, err)
	}
	if res, err := repo.InsertIfAbsent(ctx, &fixture.Setting{Owner: "u", Name: "font"}); err != nil || !res.Applied || !res.Again {
		t.Fatalf("identical create without value: %+v, %v", res, err)
	}

	err = repo.Insert(ctx, &fixture.Setting{Owner: "u", Name: "theme", Value: &light}, cqlgen.IfAbsent())
	var conflict *cqlgen.VersionConflictError
	if !errors.As(err, &conflict) || !errors.Is(err, cqlgen.ErrNotApplied) || conflict.Table != "settings" || conflict.Expected != cqlgen.Absent {
		t.Fatalf("Insert IfAbsent over another row: %v", err)
	}
	if got, _ := repo.Get(ctx, "u", "theme"); *got.Value != "dark" {
		t.Fatalf("the conflicting insert wrote %q", *got.Value)
	}
	if err := repo.Insert(ctx, first, cqlgen.IfAbsent()); err != nil {
		t.Fatalf("Insert IfAbsent of the row that is there: %v", err)
	}
	if err := repo.Insert(ctx, &fixture.Setting{Owner: "u", Name: "lang", Value: &light}, cqlgen.IfAbsent()); err != nil {
		t.Fatalf("Insert IfAbsent of a new row: %v", err)
	}
	// Deleted, the key is free again.
	if err := repo.Delete(ctx, first); err != nil {
		t.Fatal(err)
	}
	if res, err := repo.InsertIfAbsent(ctx, &fixture.Setting{Owner: "u", Name: "theme", Value: &light}); err != nil || !res.Applied || res.Again {
		t.Fatalf("create after delete: %+v, %v", res, err)
	}
}

// TestInsertIfAbsentLostReply loses the reply of a create that applied:
// the call fails, and the same call sent again is no conflict. With an
// idempotency key, a rival's create of other values is reported as the
// conflict it is, to every call with the rival's key.
// Checks invariant I10: a keyed call applies at most once.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestInsertIfAbsentLostReply(t *testing.T) {
	ctx := context.Background()
	ls := &lostReplies{Session: session(t), lose: true}
	repo := fixture.NewSettingRepo(ls)
	v := "dark"
	e := &fixture.Setting{Owner: "u", Name: "theme", Value: &v}
	if _, err := repo.InsertIfAbsent(ctx, e); err == nil {
		t.Fatal("the lost reply was not reported")
	}
	ls.lose = false
	res, err := repo.InsertIfAbsent(ctx, e)
	if err != nil || !res.Applied || !res.Again {
		t.Fatalf("the create sent again: %+v, %v; want applied, again", res, err)
	}
	if err := repo.Insert(ctx, e, cqlgen.IfAbsent()); err != nil {
		t.Fatalf("Insert IfAbsent sent again: %v", err)
	}

	// With a key: lost, then sent again with the key.
	ls.lose = true
	f := &fixture.Setting{Owner: "u", Name: "font", Value: &v}
	key := cqlgen.WithIdempotencyKey("create-font")
	if _, err := repo.InsertIfAbsent(ctx, f, key); err == nil {
		t.Fatal("the lost reply was not reported")
	}
	ls.lose = false
	if res, err := repo.InsertIfAbsent(ctx, f, key); err != nil || !res.Applied {
		t.Fatalf("sent again with its key: %+v, %v", res, err)
	}
	calls := ls.cas
	if res, err := repo.InsertIfAbsent(ctx, f, key); err != nil || !res.Applied || !res.Again {
		t.Fatalf("sent a third time with its key: %+v, %v", res, err)
	}
	// A rival with other values, its own key: not applied, recorded so.
	other := "mono"
	rival := &fixture.Setting{Owner: "u", Name: "font", Value: &other}
	for i := range 2 {
		res, err := repo.InsertIfAbsent(ctx, rival, cqlgen.WithIdempotencyKey("rival"))
		if err != nil || res.Applied || res.Current == nil || *res.Current.Value != "dark" {
			t.Fatalf("rival, call %d: %+v, %v", i, res, err)
		}
	}
	if ls.cas-calls < 1 {
		t.Fatal("the rival never tried")
	}
}

// TestWriteOptionsRefused checks that what a write cannot honour is
// an *cqlgen.InputError (ErrInvalidOption) with nothing sent: a TTL on a Delete, on a counter
// or on an entity in several tables, given to the repository rather than
// the call, or not a whole number of seconds; IfAbsent on an Update;
// IfVersion on an entity without versions.
// Checks invariant I13: "nothing was sent" is true.
func TestWriteOptionsRefused(t *testing.T) {
	ctx := context.Background()
	s := session(t)
	v := "x"
	e := &fixture.Setting{Owner: "u", Name: "n", Value: &v}
	settings := fixture.NewSettingRepo(s)
	for name, err := range map[string]error{
		"Delete WithTTL":           settings.Delete(ctx, e, cqlgen.WithTTL(time.Hour)),
		"Update IfAbsent":          settings.Update(ctx, e, cqlgen.IfAbsent()),
		"Insert IfVersion":         settings.Insert(ctx, e, cqlgen.IfVersion(3)),
		"Insert WithTTL 1.5s":      settings.Insert(ctx, e, cqlgen.WithTTL(1500*time.Millisecond)),
		"Insert WithTTL -1s":       settings.Insert(ctx, e, cqlgen.WithTTL(-time.Second)),
		"Insert WithTTL 21y":       settings.Insert(ctx, e, cqlgen.WithTTL(cqlgen.MaxTTL+time.Second)),
		"repository WithTTL":       fixture.NewSettingRepo(s, cqlgen.WithTTL(time.Hour)).Insert(ctx, e),
		"several tables WithTTL":   fixture.NewTickRepo(s).Insert(ctx, &fixture.Tick{Stream: "s", Seq: 1}, cqlgen.WithTTL(time.Hour)),
		"InsertIfAbsent IfVersion": func() error { _, err := settings.InsertIfAbsent(ctx, e, cqlgen.IfVersion(2)); return err }(),
	} {
		var oe *cqlgen.InputError
		if !(errors.As(err, &oe) && oe.Err == cqlgen.ErrInvalidOption) {
			t.Errorf("%s: %v, want an *cqlgen.InputError (ErrInvalidOption)", name, err)
		}
	}
	if _, err := settings.Get(ctx, "u", "n"); !errors.Is(err, cqlgen.ErrNotFound) {
		t.Errorf("a refused write wrote: %v", err)
	}
	if err := settings.Insert(ctx, e, cqlgen.WithTTL(cqlgen.MaxTTL)); err != nil {
		t.Errorf("the longest TTL: %v", err)
	}
}
