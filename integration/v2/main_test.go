// Package v2 runs cqlgen's generated repositories on the ASF driver,
// github.com/apache/cassandra-gocql-driver/v2, through the gocqlv2
// adapter, against a real Cassandra: the v2 column of the matrix whose
// v1 column is the rest of the integration suite. The model is
// integration/v2model, whose fields hold v2's UUID and Duration.
//
// Every test gets a keyspace of its own from cassandratest, which also
// applies the schema and gives a plain gocql v1 session. The checks read
// the tables through that session, never through the repositories they
// check, and through the other driver than the one that wrote them.
package v2

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	gocqlv1 "github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv2"
)

func TestMain(m *testing.M) { cassandratest.Main(m) }

// env is one test's keyspace: the plain v1 session that checks it, and
// the cqlgen session on v2 that the repositories under test run on.
type env struct {
	raw *gocqlv1.Session
	ks  string
	gs  *gocql.Session
	s   cqlgen.Session
}

// newEnv creates a keyspace with v2model's schema and connects a v2
// session to it. Without a Cassandra the test is skipped, or fails under
// CI=true, as cassandratest decides for the whole suite. tweak, if given,
// adjusts the v2 cluster configuration before the session is created.
func newEnv(t *testing.T, opts *cqlgen.SessionOptions, tweak ...func(*gocql.ClusterConfig)) *env {
	t.Helper()
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, v2model.Schema)
	gs := v2Session(t, ks, tweak...)
	return &env{raw: raw, ks: ks, gs: gs, s: gocqlv2.NewSession(gs, opts)}
}

// v2Session connects to keyspace ks with gocqlv2's defaults, on the
// contact points, timeouts and address translation of cassandratest's
// own configuration, so that v2 reaches the node wherever the suite
// found it (a node in a container included).
func v2Session(t *testing.T, ks string, tweak ...func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	v1 := cassandratest.ClusterConfig(t, ks)
	cluster := gocqlv2.NewCluster(v1.Hosts...)
	cluster.Keyspace = ks
	cluster.ConnectTimeout = v1.ConnectTimeout
	cluster.MaxWaitSchemaAgreement = v1.MaxWaitSchemaAgreement
	if v1.AddressTranslator != nil {
		// The two drivers' translators have one method, the same.
		cluster.AddressTranslator = v1.AddressTranslator
	}
	for _, f := range tweak {
		f(cluster)
	}
	gs, err := gocqlv2.CreateSession(cluster)
	if err != nil {
		t.Fatalf("connecting the v2 driver to %v: %v", cluster.Hosts, err)
	}
	t.Cleanup(gs.Close)
	return gs
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// rows reads every row a statement selects with the plain v1 session, as
// one line a row: its columns in the order selected, each as str writes
// it. Sorted, so that tables compare whatever their clustering order.
func rows(t *testing.T, raw *gocqlv1.Session, cql string, args ...any) []string {
	t.Helper()
	it := raw.Query(cql, args...).PageSize(500).Iter()
	cols := it.Columns()
	var out []string
	for {
		dest := make([]any, len(cols))
		for i, c := range cols {
			dest[i] = c.TypeInfo.New()
		}
		if !it.Scan(dest...) {
			break
		}
		parts := make([]string, len(cols))
		for i, d := range dest {
			parts[i] = cols[i].Name + "=" + str(deref(d))
		}
		out = append(out, strings.Join(parts, " "))
	}
	must(t, it.Close())
	sort.Strings(out)
	return out
}

// deref is the value a pointer made by TypeInfo.New points to.
func deref(p any) any { return reflect.ValueOf(p).Elem().Interface() }

// str writes a value the same way whichever driver's type holds it: a
// UUID in its usual form, a time in UTC to the millisecond.
func str(v any) string {
	switch x := v.(type) {
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z")
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

// line is a row as rows writes it, from its column names and values.
func line(kv ...any) string {
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, fmt.Sprint(kv[i])+"="+str(kv[i+1]))
	}
	return strings.Join(parts, " ")
}
