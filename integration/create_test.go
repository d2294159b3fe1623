package integration

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// ExecCASMap lets faultSession serve cqlgenimpl.CAS (IF NOT EXISTS with the
// row found), failing its k-th call as it fails the others.
func (fs *faultSession) ExecCASMap(ctx context.Context, q cqldriver.Query, current map[string]any) (bool, error) {
	run, fail := fs.step()
	var applied bool
	if run {
		var err error
		if applied, err = fs.Session.(cqldriver.MapCASer).ExecCASMap(ctx, q, current); err != nil {
			return false, err
		}
	}
	if fail != nil {
		return false, fail
	}
	return applied, nil
}

// TestInsertIfAbsent signs organisations up on the real node: eight
// sign-ups race for one name and exactly one gets it, the others are
// told who has it; a sign-up whose reply is lost after it applied, sent
// again, is no conflict, with and without an idempotency key; a rival
// sign-up afterwards is one. Insert with cqlgen.IfAbsent says the same.
// Checks invariant I11: a stale copy never wins; a call run again is no conflict.
func TestInsertIfAbsent(t *testing.T) {
	_, s := repoSession(t, helpdesk.Schema)
	ctx := context.Background()
	repo := helpdesk.NewOrganisationRepo(s)
	at := time.Now().UTC().Truncate(time.Millisecond)
	org := func(name, owner string) *helpdesk.Organisation {
		return &helpdesk.Organisation{OrgID: name, Owner: owner, Plan: "free", SignedUp: at}
	}

	// The race.
	var wg sync.WaitGroup
	results := make([]cqlgen.Inserted[helpdesk.Organisation], 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = repo.InsertIfAbsent(ctx, org("acme", fmt.Sprintf("owner%d@acme.test", i)))
		}()
	}
	wg.Wait()
	winner := ""
	for i, res := range results {
		must(t, errs[i])
		switch {
		case res.Applied && !res.Again:
			if winner != "" {
				t.Fatalf("two sign-ups got acme: %s and owner%d", winner, i)
			}
			winner = fmt.Sprintf("owner%d@acme.test", i)
		case res.Applied:
			t.Errorf("sign-up %d: Again, though no two sign-ups were alike", i)
		}
	}
	if winner == "" {
		t.Fatal("no sign-up got acme")
	}
	for i, res := range results {
		if !res.Applied && (res.Current == nil || res.Current.Owner != winner) {
			t.Errorf("sign-up %d lost but was not told the winner: %+v", i, res.Current)
		}
	}
	got, err := repo.Get(ctx, "acme")
	if err != nil || got.Owner != winner {
		t.Fatalf("acme is %+v, %v; the winner was %s", got, err, winner)
	}
	err = repo.Insert(ctx, org("acme", "late@acme.test"), cqlgen.IfAbsent())
	var conflict *cqlgen.VersionConflictError
	if !errors.As(err, &conflict) || conflict.Table != "organisations" {
		t.Errorf("Insert IfAbsent of a taken name: %v", err)
	}

	// A lost reply: the conditional write applies, the reply fails.
	for _, key := range []string{"", "signup-globex"} {
		name := "globex" + key
		var opts []cqlgen.Option
		if key != "" {
			opts = append(opts, cqlgen.WithIdempotencyKey(key))
		}
		fs := &faultSession{Session: s, k: 1, f: lostReply}
		if key != "" {
			fs.k = 2 // the key's lease, then the insert
		}
		faulty := helpdesk.NewOrganisationRepo(fs)
		fs.armed.Store(true)
		if _, err := faulty.InsertIfAbsent(ctx, org(name, "g@globex.test"), opts...); !errors.Is(err, errInjected) {
			t.Fatalf("%s: the lost reply: %v", name, err)
		}
		fs.armed.Store(false)
		if row, err := repo.Get(ctx, name); err != nil || row.Owner != "g@globex.test" {
			t.Fatalf("%s: the lost insert did not apply: %+v, %v", name, row, err)
		}
		res, err := faulty.InsertIfAbsent(ctx, org(name, "g@globex.test"), opts...)
		if err != nil || !res.Applied || !res.Again {
			t.Errorf("%s: sent again after the lost reply: %+v, %v; want applied, again (not a conflict)", name, res, err)
		}
		if err := faulty.Insert(ctx, org(name, "g@globex.test"), cqlgen.IfAbsent()); err != nil {
			t.Errorf("%s: Insert IfAbsent sent again: %v", name, err)
		}
		res, err = repo.InsertIfAbsent(ctx, org(name, "rival@globex.test"))
		if err != nil || res.Applied || res.Current == nil || res.Current.Owner != "g@globex.test" {
			t.Errorf("%s: a rival after it: %+v, %v; want not applied, the first owner", name, res, err)
		}
	}
}
