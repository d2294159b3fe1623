package cqlgenimpl_test

import (
	"testing"

	"github.com/cqlgen/cqlgen/internal/testutil/costcheck"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl/internal/fixture"
)

// TestFixtureWriteCostsMatchTheRuntime checks the fixture's review page
// as gen's test checks the examples': its entities with static columns,
// shared by another table (Line), are what the examples lack.
func TestFixtureWriteCostsMatchTheRuntime(t *testing.T) {
	repos := costcheck.Repos{
		"fixture.Reading":  func(s cqlgen.Session) any { return fixture.NewReadingRepo(s) },
		"fixture.Tick":     func(s cqlgen.Session) any { return fixture.NewTickRepo(s) },
		"fixture.Setting":  func(s cqlgen.Session) any { return fixture.NewSettingRepo(s) },
		"fixture.Line":     func(s cqlgen.Session) any { return fixture.NewLineRepo(s) },
		"fixture.Part":     func(s cqlgen.Session) any { return fixture.NewPartRepo(s) },
		"fixture.Order":    func(s cqlgen.Session) any { return fixture.NewOrderRepo(s) },
		"fixture.Profile":  func(s cqlgen.Session) any { return fixture.NewProfileRepo(s) },
		"fixture.Event":    func(s cqlgen.Session) any { return fixture.NewEventRepo(s) },
		"fixture.PageHits": func(s cqlgen.Session) any { return fixture.NewPageHitsRepo(s) },
	}
	if n := costcheck.Check(t, ".", []string{"./internal/fixture"}, repos); n < 10 {
		t.Errorf("checked %d priced writes; the fixture prices more", n)
	}
}
