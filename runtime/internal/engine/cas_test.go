package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

func TestCASRefusesWhatItCannotServe(t *testing.T) {
	ctx := context.Background()
	cond := cqldriver.Query{Stmt: &cqldriver.Statement{CQL: "INSERT ... IF NOT EXISTS", Table: "t", Kind: cqldriver.Conditional}}
	plain := cqldriver.Query{Stmt: &cqldriver.Statement{CQL: "INSERT", Table: "t", Pattern: "p", Kind: cqldriver.Write}}
	if _, err := CAS(ctx, &fakeSession{}, plain); err == nil || !strings.Contains(err.Error(), "not a conditional") {
		t.Errorf("a plain write: err = %v", err)
	}
	type positional struct{ cqldriver.Session }
	if _, err := CAS(ctx, positional{&fakeSession{}}, cond); err == nil || !strings.Contains(err.Error(), "MapCASer") {
		t.Errorf("a session without ExecCASMap: err = %v", err)
	}
}

type casSession struct {
	fakeSession
	applied bool
	row     map[string]any
	err     error
}

func (c *casSession) ExecCASMap(_ context.Context, _ cqldriver.Query, current map[string]any) (bool, error) {
	for k, v := range c.row {
		current[k] = v
	}
	return c.applied, c.err
}

func TestCASResult(t *testing.T) {
	ctx := context.Background()
	q := cqldriver.Query{Stmt: &cqldriver.Statement{CQL: "INSERT ... IF NOT EXISTS", Table: "users", Kind: cqldriver.Conditional}}
	res, err := CAS(ctx, &casSession{row: map[string]any{"id": "u1", "name": "Ann"}}, q)
	if err != nil || res.Applied || res.Table != "users" || res.Current["name"] != "Ann" {
		t.Errorf("not applied: %+v, %v", res, err)
	}
	res, err = CAS(ctx, &casSession{applied: true}, q)
	if err != nil || !res.Applied || res.Current != nil || res.Err() != nil {
		t.Errorf("applied: %+v, %v", res, err)
	}
	boom := errors.New("timeout")
	if _, err := CAS(ctx, &casSession{err: boom}, q); !errors.Is(err, boom) {
		t.Errorf("failed: err = %v", err)
	}
}
