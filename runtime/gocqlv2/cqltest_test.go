package gocqlv2_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// A program on the ASF driver v2 tests on cqltest: its values (v2's UUID
// and Duration, structs for user-defined types) are marshaled by v2's
// codec, which this package registers, with gocql v1 nowhere in the
// program (TestCqltestLinksNoV1).

type v2Geo struct {
	Lat float64 `cql:"lat"`
	Lon float64 `cql:"lon"`
}

type v2Place struct {
	Name string         `cql:"name"`
	Wait gocql.Duration `cql:"wait"`
	At   *v2Geo         `cql:"at"`
}

const v2Schema = `
CREATE TYPE geo (lat double, lon double);
CREATE TYPE place (name text, wait duration, at frozen<geo>);
CREATE TABLE visits (id uuid, at timeuuid, home frozen<place>, stops list<frozen<place>>, note text,
	PRIMARY KEY (id, at)) WITH CLUSTERING ORDER BY (at DESC);
CREATE TABLE tally (id uuid PRIMARY KEY, n counter);`

func v2q(kind cqldriver.StatementKind, cql string, vals ...any) cqldriver.Query {
	return cqldriver.Query{Stmt: &cqldriver.Statement{CQL: cql, Table: "visits", Pattern: "test", Kind: kind}, Values: vals}
}

func TestCqltestOnV2(t *testing.T) {
	ctx := context.Background()
	s, err := cqltest.New(v2Schema)
	if err != nil {
		t.Fatal(err)
	}
	id := gocql.MustRandomUUID()
	first, second := gocql.UUIDFromTime(time.Unix(100, 0)), gocql.UUIDFromTime(time.Unix(200, 0))
	home := v2Place{Name: "home", Wait: gocql.Duration{Days: 1, Nanoseconds: 5}, At: &v2Geo{1, 2}}
	ins := "INSERT INTO visits (id, at, home, stops, note) VALUES (?, ?, ?, ?, ?)"
	if err := s.Exec(ctx, v2q(cqldriver.Write, ins, id, first, home, []v2Place{{Name: "a"}, home}, "one")); err != nil {
		t.Fatal(err)
	}
	// v2's UnsetValue and cqlgen's Unset leave note as it is.
	if err := s.Exec(ctx, v2q(cqldriver.Write, ins, id, second, home, []v2Place(nil), gocql.UnsetValue)); err != nil {
		t.Fatal(err)
	}
	it := s.Iter(ctx, v2q(cqldriver.Read, "SELECT at, home, stops, note FROM visits WHERE id = ?", id))
	var ats []gocql.UUID
	var at gocql.UUID
	var gotHome v2Place
	var stops []v2Place
	var note *string
	for it.Scan(&at, &gotHome, &stops, &note) {
		ats = append(ats, at)
		if gotHome.Name != "home" || gotHome.Wait != home.Wait || gotHome.At == nil || *gotHome.At != *home.At {
			t.Errorf("home %+v", gotHome)
		}
		if at == first && (len(stops) != 2 || stops[1].Name != "home" || note == nil || *note != "one") {
			t.Errorf("first visit: stops %+v, note %v", stops, note)
		}
		if at == second && (len(stops) != 0 || note != nil) {
			t.Errorf("second visit: stops %+v, note %v", stops, note)
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	if len(ats) != 2 || ats[0] != second || ats[1] != first {
		t.Fatalf("timeuuids in descending order: %v, want %v, %v", ats, second, first)
	}

	// A conditional write through the runtime's CAS: the current values
	// come back by name, the UUID as the runtime reads it.
	res, err := cqlgenimpl.CAS(ctx, s, v2q(cqldriver.Conditional, "INSERT INTO visits (id, at, note) VALUES (?, ?, ?) IF NOT EXISTS", id, first, "again"))
	if err != nil || res.Applied {
		t.Fatalf("IF NOT EXISTS on a row that exists: %+v, %v", res, err)
	}
	if got, _ := res.Current["id"].([16]byte); gocql.UUID(got) != id || res.Current["note"] != "one" {
		t.Fatalf("current %v", res.Current)
	}

	// Counters, through the runtime's counter path.
	add := cqldriver.Query{Stmt: &cqldriver.Statement{CQL: "UPDATE tally SET n = n + ? WHERE id = ?", Table: "tally", Pattern: "Add", Kind: cqldriver.Write}}
	for _, n := range []int64{5, -2} {
		add.Values = []any{n, id}
		if err := cqlgenimpl.AddCounters(ctx, s, cqlgen.Options{}, add); err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	it = s.Iter(ctx, v2q(cqldriver.Read, "SELECT n FROM tally WHERE id = ?", id))
	if !it.Scan(&n) || n != 3 {
		t.Fatalf("counter %d after +5, -2 (%v)", n, it.Close())
	}
	// A refused update did not apply, and says so.
	add.Values = []any{nil, id}
	if err := cqlgenimpl.AddCounters(ctx, s, cqlgen.Options{}, add); !errors.Is(err, cqlgen.ErrCounterNotApplied) {
		t.Fatalf("a null increment: %v, want ErrCounterNotApplied", err)
	}
	// A v2 error from a hook is classified by v2's adapter: a write
	// timeout leaves the counter's outcome unknown.
	hooked, err := cqltest.New(v2Schema, cqltest.WithHook(func(context.Context, cqltest.Call) error {
		return &gocql.RequestErrWriteTimeout{WriteType: "COUNTER"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	add.Values = []any{int64(1), id}
	if err := cqlgenimpl.AddCounters(ctx, hooked, cqlgen.Options{}, add); !errors.Is(err, cqlgen.ErrOutcomeUnknown) {
		t.Fatalf("a counter update that timed out: %v, want ErrOutcomeUnknown", err)
	}
}

// TestCqltestLinksNoV1 checks that a test binary of this module, which
// uses cqltest, does not link gocql v1: cqltest marshals through the
// codecs of the adapters the program links, and this one links v2's.
func TestCqltestLinksNoV1(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-test", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, d := range deps {
		if d == "github.com/gocql/gocql" || d == "github.com/cqlgen/cqlgen/runtime/gocqlv1" {
			t.Errorf("the test binary links %s", d)
		}
	}
	if !strings.Contains(string(out), "github.com/cqlgen/cqlgen/runtime/cqltest") {
		t.Errorf("the test binary does not link cqltest: the check checks nothing")
	}
}
