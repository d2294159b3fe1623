package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/internal/ordercases"
	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// cqltest, the in-memory Cassandra every unit test runs on, orders rows
// with a comparator of its own. For each type a clustering column can
// have, the same edge values go into a table clustered by it, ascending
// and descending, on the node and in cqltest, in the same shuffled order
// (bound as generated code binds them, in their canonical encoding);
// each row holds its value's place in the list. Both must return the rows
// in the same order, and that order must be the list's (so the list,
// which cqltest's unit tests check the runtime's comparator against,
// is the node's order).
func TestOracleOrderMatchesCassandra(t *testing.T) {
	raw, _ := cassandratest.Keyspace(t)
	var schema strings.Builder
	for i, oc := range ordercases.Cases {
		for _, dir := range []string{"ASC", "DESC"} {
			ddl := fmt.Sprintf("CREATE TABLE oracle_%d_%s (k int, c %s, v int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c %s)", i, dir, oc.Type, dir)
			must(t, raw.Query(ddl).Exec())
			schema.WriteString(ddl + ";\n")
		}
	}
	mem, err := cqltest.New(schema.String())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	memQuery := func(cql string, vals ...any) cqldriver.Query {
		return cqldriver.Query{Stmt: &cqldriver.Statement{CQL: cql, Table: "oracle", Pattern: "oracle"}, Values: vals, PageSize: cqldriver.Unpaged}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i, oc := range ordercases.Cases {
		for _, dir := range []string{"ASC", "DESC"} {
			table := fmt.Sprintf("oracle_%d_%s", i, dir)
			insert := "INSERT INTO " + table + " (k, c, v) VALUES (0, ?, ?)"
			for _, j := range r.Perm(len(oc.Values)) {
				// Through gocqlv1.Value, as generated code binds: gocql
				// writes a Go map's entries in its random iteration
				// order, and the node keeps a descending key's bytes as
				// sent, so a map bound raw lands where its encoding
				// happens to sort.
				if err := raw.Query(insert, gocqlv1.Value(oc.Values[j]), j).Exec(); err != nil {
					t.Fatalf("%s: the node refuses %v: %v", oc.Type, oc.Values[j], err)
				}
				if err := mem.Exec(ctx, memQuery(insert, oc.Values[j], j)); err != nil {
					t.Fatalf("%s: cqltest refuses %v: %v", oc.Type, oc.Values[j], err)
				}
			}
			sel := "SELECT v FROM " + table + " WHERE k = 0"
			var node []int
			it := raw.Query(sel).PageSize(1000).Iter()
			for v := 0; it.Scan(&v); {
				node = append(node, v)
			}
			must(t, it.Close())
			var oracle []int
			mit := mem.Iter(ctx, memQuery(sel))
			for v := 0; mit.Scan(&v); {
				oracle = append(oracle, v)
			}
			must(t, mit.Close())

			listed := make([]int, len(oc.Values))
			for n := range listed {
				listed[n] = n
			}
			if dir == "DESC" {
				slices.Reverse(listed)
			}
			if !slices.Equal(node, listed) {
				t.Errorf("%s %s: the node orders the listed values as %s, not as listed", oc.Type, dir, describe(oc.Values, node))
			}
			if !slices.Equal(oracle, node) {
				t.Errorf("%s %s: cqltest orders them\n  %s\nthe node\n  %s", oc.Type, dir, describe(oc.Values, oracle), describe(oc.Values, node))
			}
		}
	}
}

// describe lists values by their places in the list, as "3:<value>".
func describe(values []any, order []int) string {
	parts := make([]string, len(order))
	for n, i := range order {
		parts[n] = fmt.Sprintf("%d:%v", i, values[i])
	}
	return strings.Join(parts, " ")
}
