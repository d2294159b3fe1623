package gocqlv2_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv2"
)

// TestCassandra6TransactionBinds runs a Cassandra 6 transaction with bound
// values on the ASF driver: sent as it is, the driver leaves it
// unprepared and drops its values; through the runtime's session it binds.
// Only make test-integration-c6 names a Cassandra 6 node (CASSANDRA6_HOSTS);
// without one the test is skipped, CI or not.
func TestCassandra6TransactionBinds(t *testing.T) {
	env := os.Getenv("CASSANDRA6_HOSTS")
	if env == "" {
		t.Skip("CASSANDRA6_HOSTS is not set: run make test-integration-c6")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cluster := gocqlv2.NewCluster(strings.Split(env, ",")...)
	cluster.Consistency = gocql.Quorum // Accord refuses LOCAL_QUORUM
	raw, err := gocqlv2.CreateSession(cluster)
	if err != nil {
		t.Fatalf("connecting to %s: %v", env, err)
	}
	defer raw.Close()
	ks := fmt.Sprintf("cqlgen_v2_c6_%d_%04d", time.Now().Unix(), rand.IntN(10000))
	for _, s := range []string{
		"CREATE KEYSPACE " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE " + ks + ".a (id int PRIMARY KEY, v text) WITH transactional_mode = 'full'",
		"CREATE TABLE " + ks + ".b (v text PRIMARY KEY, id int) WITH transactional_mode = 'full'",
	} {
		if err := raw.Query(s).ExecContext(ctx); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	defer func() {
		// Cassandra 6 refuses to drop a keyspace holding Accord tables.
		for _, s := range []string{"DROP TABLE " + ks + ".a", "DROP TABLE " + ks + ".b", "DROP KEYSPACE " + ks} {
			if err := raw.Query(s).ExecContext(context.Background()); err != nil {
				t.Errorf("%s: %v", s, err)
			}
		}
	}()

	txn := "BEGIN TRANSACTION INSERT INTO " + ks + ".a (id, v) VALUES (?, ?); INSERT INTO " + ks + ".b (v, id) VALUES (?, ?); COMMIT TRANSACTION"
	err = raw.Query(txn, 1, "x", "x", 1).ExecContext(ctx)
	if err == nil || !strings.Contains(err.Error(), "Invalid amount of bind variables") {
		t.Errorf("the driver alone: %v, want Invalid amount of bind variables", err)
	}
	s := gocqlv2.NewSession(raw, &cqlgen.SessionOptions{
		ReadConsistency: cqldriver.Quorum, WriteConsistency: cqldriver.Quorum, SerialConsistency: cqldriver.Serial,
	})
	stmt := &cqldriver.Statement{CQL: txn, Table: "a", Pattern: "probe", Kind: cqldriver.Write}
	if err := s.Exec(ctx, cqldriver.Query{Stmt: stmt, Values: []any{1, "x", "x", 1}}); err != nil {
		t.Fatalf("through the runtime's session: %v", err)
	}
	var id int
	if err := raw.Query("SELECT id FROM "+ks+".b WHERE v = ?", "x").ScanContext(ctx, &id); err != nil || id != 1 {
		t.Errorf("b[x] = %d, %v; want 1", id, err)
	}
}
