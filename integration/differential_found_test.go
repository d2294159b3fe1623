package integration

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/example/helpdesk"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/typemodel"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// The divergences TestDifferential found, each held to the node here.

// rawBoth runs statements on the node (plain gocql) and on cqltest with
// the same schema.
type rawBoth struct {
	node *gocql.Session
	mem  *cqltest.Session
}

func newRawBoth(t *testing.T, schema ...string) rawBoth {
	raw, _ := cassandratest.Keyspace(t)
	var all string
	for _, ddl := range schema {
		must(t, raw.Query(ddl).Exec())
		all += ddl + ";\n"
	}
	mem, err := cqltest.New(all)
	if err != nil {
		t.Fatal(err)
	}
	return rawBoth{raw, mem}
}

func (b rawBoth) exec(cql string, vals ...any) (node, mem error) {
	q := cqldriver.Query{Stmt: &cqldriver.Statement{CQL: cql, Table: "t", Pattern: "t"}, Values: vals}
	return b.node.Query(cql, vals...).Exec(), b.mem.Exec(context.Background(), q)
}

// ints reads one int column on both.
func (b rawBoth) ints(cql string, vals ...any) (node, mem []int, nodeErr, memErr error) {
	it := b.node.Query(cql, vals...).Iter()
	for v := 0; it.Scan(&v); {
		node = append(node, v)
	}
	nodeErr = it.Close()
	q := cqldriver.Query{Stmt: &cqldriver.Statement{CQL: cql, Table: "t", Pattern: "t"}, Values: vals, PageSize: cqldriver.Unpaged}
	mit := b.mem.Iter(context.Background(), q)
	for v := 0; mit.Scan(&v); {
		mem = append(mem, v)
	}
	return node, mem, nodeErr, mit.Close()
}

// A null single-column slice bound is the start of the column's
// clustering order, before every value, an empty one too (c > null: every
// row of an ascending column, none of a descending one); a multi-column
// bound, and an equality, refuse null.
// cqltest refused every null bound: a range read whose bound option
// pointed at a nil slice (a frozen list clustering column) failed there
// and read on the node.
func TestNullSliceBoundAsCassandra(t *testing.T) {
	b := newRawBoth(t,
		"CREATE TABLE nb (k int, c int, d text, v int, PRIMARY KEY (k, c, d))",
		"CREATE TABLE nl (k int, c frozen<list<text>>, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c DESC)")
	for _, row := range [][]any{{1, "a", 1}, {2, "", 2}, {2, "b", 3}} {
		n, m := b.exec("INSERT INTO nb (k, c, d, v) VALUES (1, ?, ?, ?)", row...)
		must(t, n)
		must(t, m)
	}
	for _, row := range [][]any{{[]string{}, 1}, {[]string{"a"}, 2}} {
		n, m := b.exec("INSERT INTO nl (k, c, v) VALUES (1, ?, ?)", row...)
		must(t, n)
		must(t, m)
	}
	var null []string
	for _, tc := range []struct {
		cql     string
		val     any
		refused bool
	}{
		{"SELECT v FROM nb WHERE k = 1 AND c > ?", nil, false},
		{"SELECT v FROM nb WHERE k = 1 AND c < ?", nil, false},
		{"SELECT v FROM nb WHERE k = 1 AND c = 2 AND d >= ?", nil, false},
		{"SELECT v FROM nb WHERE k = 1 AND c = 2 AND d > ?", nil, false},
		{"SELECT v FROM nb WHERE k = 1 AND c = 2 AND d <= ?", nil, false},
		{"SELECT v FROM nb WHERE k = 1 AND (c) > (?)", nil, true},
		{"SELECT v FROM nb WHERE k = 1 AND c = ?", nil, true},
		{"SELECT v FROM nl WHERE k = 1 AND c >= ?", null, false},
		{"SELECT v FROM nl WHERE k = 1 AND c > ?", null, false},
		{"SELECT v FROM nl WHERE k = 1 AND c < ?", null, false},
		{"SELECT v FROM nl WHERE k = 1 AND c <= ?", null, false},
	} {
		node, mem, nerr, merr := b.ints(tc.cql, tc.val)
		if (nerr != nil) != tc.refused {
			t.Errorf("%s with null: the node answers %v, %v", tc.cql, node, nerr)
		}
		if (merr != nil) != (nerr != nil) || !slices.Equal(node, mem) {
			t.Errorf("%s with null:\n  node    %v, %v\n  cqltest %v, %v", tc.cql, node, nerr, mem, merr)
		}
	}
}

// A duration is negative or positive as a whole, alone or in a
// collection; and its fields are Cassandra's vints (cqltest read them as
// protobuf varints, so (1, 7, 100) came back wrong, and then was refused
// as malformed).
func TestDurationsAsCassandra(t *testing.T) {
	b := newRawBoth(t, "CREATE TABLE durs (k int PRIMARY KEY, d duration, ds list<duration>)")
	mixed := gocql.Duration{Days: 3, Nanoseconds: -1}
	for _, tc := range []struct {
		cql     string
		val     any
		refused bool
	}{
		{"INSERT INTO durs (k, d) VALUES (1, ?)", gocql.Duration{Months: 1, Days: 7, Nanoseconds: 100}, false},
		{"INSERT INTO durs (k, d) VALUES (2, ?)", gocql.Duration{Months: -14, Days: -400, Nanoseconds: -int64(90 * time.Minute)}, false},
		{"INSERT INTO durs (k, d) VALUES (3, ?)", mixed, true},
		{"INSERT INTO durs (k, ds) VALUES (4, ?)", []gocql.Duration{{Days: 1}, mixed}, true},
	} {
		n, m := b.exec(tc.cql, tc.val)
		if (n != nil) != tc.refused || (m != nil) != tc.refused {
			t.Errorf("%s %v: refused: node %v, cqltest %v; want refused %v", tc.cql, tc.val, n, m, tc.refused)
		}
	}
	for _, k := range []int{1, 2} {
		var node gocql.Duration
		must(t, b.node.Query("SELECT d FROM durs WHERE k = ?", k).Scan(&node))
		var mem gocql.Duration
		it := b.mem.Iter(context.Background(), cqldriver.Query{Stmt: &cqldriver.Statement{CQL: "SELECT d FROM durs WHERE k = ?", Table: "durs", Pattern: "durs"}, Values: []any{k}})
		if !it.Scan(&mem) {
			t.Fatalf("cqltest: no row %d: %v", k, it.Close())
		}
		rows, err := b.mem.Rows("durs")
		must(t, err)
		var decoded any
		for _, r := range rows {
			if r["k"] == k {
				decoded = r["d"]
			}
		}
		want := cqltest.Duration{Months: node.Months, Days: node.Days, Nanoseconds: node.Nanoseconds}
		if mem != node || decoded != want {
			t.Errorf("row %d: node %+v, cqltest %+v, its Rows %+v", k, node, mem, decoded)
		}
	}
}

// InsertIfAbsent into a table with a vector column, when the row is
// there: gocql v1's MapScan cannot make a value for a vector, scanned the
// conditional insert's current row into no column at all, and failed
// with "not enough columns to scan into" on the node (cqltest answered).
func TestInsertIfAbsentWithVectorColumnAgain(t *testing.T) {
	onBoth(t, helpdesk.Schema, func(t *testing.T, _ *gocql.Session, s cqlgen.Session) {
		repo := helpdesk.NewCannedReplyRepo(s)
		e := &helpdesk.CannedReply{OrgID: "o", ReplyID: ticketID(1), Title: "t", Body: "b"}
		for i, want := range []cqlgen.Inserted[helpdesk.CannedReply]{{Applied: true}, {Applied: true, Again: true}} {
			got, err := repo.InsertIfAbsent(t.Context(), e)
			if err != nil || got.Applied != want.Applied || got.Again != want.Again {
				t.Fatalf("InsertIfAbsent %d: %+v, %v; want %+v", i+1, got, err, want)
			}
		}
		other := *e
		other.Title = "other"
		got, err := repo.InsertIfAbsent(t.Context(), &other)
		if err != nil || got.Applied || got.Current == nil || got.Current.Title != "t" {
			t.Fatalf("InsertIfAbsent of another: %+v, %v; want the row found", got, err)
		}
		if s := fmt.Sprint(got.Current.Embedding); s != "[]" {
			t.Errorf("the row found has embedding %s, want none", s)
		}
	})
}

// A value the driver cannot encode for its column (an int64 beyond a
// CQL int) fails the call before anything is sent: the write did not
// apply, and says so. The gocql adapter classified gocql's MarshalError
// as unknown, so the write protocol settled it as a lost reply and
// answered "outcome unknown" (ErrOutcomeUnknown) on the node.
func TestUnencodableValueIsNotAnUnknownOutcome(t *testing.T) {
	onBoth(t, typemodel.Schema, func(t *testing.T, _ *gocql.Session, s cqlgen.Session) {
		repo := typemodel.NewEverythingRepo(s)
		e := everything("s", 1)
		e.Narrow = math.MaxInt64 // a CQL int
		// and a null clustering key, which a settling read could not use
		// either: the call answered that its outcome was unknown.
		e.TagsKey = nil
		err := repo.Insert(t.Context(), &e)
		if err == nil || errors.Is(err, cqlgen.ErrOutcomeUnknown) {
			t.Fatalf("Insert of an int64 beyond a CQL int: %v; want a refusal, not an unknown outcome", err)
		}
		e.Narrow, e.TagsKey = 1, []string{}
		if _, err := repo.Get(t.Context(), e.ID, e.TagsKey, e.Day); !errors.Is(err, cqlgen.ErrNotFound) {
			t.Errorf("Get after the refused Insert: %v; want ErrNotFound", err)
		}
	})
}

// An entity whose net.IP field is nil is written with a null inet, and
// reads back with a nil one: gocql v1 refused to read a null inet into a
// net.IP ("invalid sized IP: got 0 bytes"), so such an entity could be
// written and never read, on the node as on cqltest.
func TestNilInetReadsBack(t *testing.T) {
	onBoth(t, typemodel.Schema, func(t *testing.T, _ *gocql.Session, s cqlgen.Session) {
		repo := typemodel.NewEverythingRepo(s)
		e := everything("s", 1)
		e.Addr = nil
		must(t, repo.Insert(t.Context(), &e))
		got, err := repo.Get(t.Context(), e.ID, e.TagsKey, e.Day)
		if err != nil {
			t.Fatalf("Get of an entity with a nil net.IP: %v", err)
		}
		if got.Addr != nil {
			t.Errorf("Addr read back as %v, want nil", got.Addr)
		}
	})
}

// An entity with a [16]byte field (a uuid column) deleted, then written
// again: the write protocol reads the deleted entity's grave, whose
// columns are null, and gocql (v1 and v2) refused a null uuid into a
// [16]byte. The conditional write took that for a lost reply, and the
// reads that were to settle it failed alike: "outcome unknown".
func TestEntityWithRawUUIDWrittenOverItsGrave(t *testing.T) {
	onBoth(t, typemodel.Schema, func(t *testing.T, _ *gocql.Session, s cqlgen.Session) {
		repo := typemodel.NewEverythingRepo(s)
		e := everything("s", 1)
		must(t, repo.Insert(t.Context(), &e))
		must(t, repo.Delete(t.Context(), &e))
		e.S = "again"
		if err := repo.Insert(t.Context(), &e); err != nil {
			t.Fatalf("Insert over the grave: %v", err)
		}
		got, err := repo.Get(t.Context(), e.ID, e.TagsKey, e.Day)
		if err != nil || got.S != "again" || got.Raw16 != e.Raw16 {
			t.Fatalf("Get: %+v, %v", got, err)
		}
	})
}
