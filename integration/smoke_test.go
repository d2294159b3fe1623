// Package integration holds cqlgen's tests against a real Cassandra. See
// README.md for how to get one; cassandratest finds it.
package integration

import (
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
)

func TestMain(m *testing.M) { cassandratest.Main(m) }

func TestSmoke(t *testing.T) {
	t.Parallel()
	session, ks := cassandratest.Keyspace(t)

	var version string
	if err := session.Query("SELECT release_version FROM system.local").Scan(&version); err != nil {
		t.Fatalf("reading release_version: %v", err)
	}
	t.Logf("Cassandra %s, keyspace %s", version, ks)
	if !strings.HasPrefix(version, "5.0") {
		t.Errorf("release_version = %q, want 5.0.x", version)
	}

	cassandratest.MustApplyCQL(t, session, `
-- What a generated schema file may look like.
CREATE KEYSPACE IF NOT EXISTS shop
  WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
USE shop;

CREATE TABLE users (
    id int PRIMARY KEY,
    name text
);
INSERT INTO users (id, name) VALUES (1, 'semi;colon');
`)
	var name string
	if err := session.Query("SELECT name FROM users WHERE id = 1").Scan(&name); err != nil {
		t.Fatalf("reading back the row: %v", err)
	}
	if name != "semi;colon" {
		t.Errorf("name = %q, want %q", name, "semi;colon")
	}
}

// A failing statement is reported with its line, so a broken generated
// schema is easy to find.
func TestApplyCQLNamesFailingStatement(t *testing.T) {
	t.Parallel()
	session, _ := cassandratest.Keyspace(t)
	err := cassandratest.ApplyCQL(session, "CREATE TABLE a (id int PRIMARY KEY);\n\nCREATE TABLE b (id nosuchtype PRIMARY KEY);\n")
	if err == nil {
		t.Fatal("ApplyCQL succeeded on an unknown type")
	}
	if msg := err.Error(); !strings.Contains(msg, "line 3") || !strings.Contains(msg, "nosuchtype") {
		t.Errorf("error %q does not name line 3 and its statement", msg)
	}
}
