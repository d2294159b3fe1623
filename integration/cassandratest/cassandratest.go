// Package cassandratest gives cqlgen's own integration tests and
// benchmarks a Cassandra and a fresh keyspace per test. It is
// github.com/cqlgen/cqlgen/cqlgentest, the helper users import, set up for
// cqlgen's repository: keyspaces named t_..., the Docker path enabled, and
// messages that say how this repository starts a node.
//
// Cassandra is found as cqlgentest finds it: CASSANDRA_HOSTS (the node
// started by `make cassandra-start`: CASSANDRA_HOSTS=127.0.0.1:9042), a
// node on 127.0.0.1:9042, a cassandra:5.0 container where Docker runs;
// otherwise the test is skipped, or fails under CI=true.
//
// A test package that may use the container should run its tests through
// Main, so the container goes away as soon as the tests are done:
//
//	func TestMain(m *testing.M) { cassandratest.Main(m) }
//
// Typical use:
//
//	session, ks := cassandratest.Keyspace(t)
//	cassandratest.MustApplyCQLFile(t, session, "testdata/schema.cql")
package cassandratest

import (
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/cqlgentest"
	_ "github.com/cqlgen/cqlgen/cqlgentest/container" // the Docker path
)

// EnvHosts names the variable holding comma-separated host:port contact
// points of an already running Cassandra.
const EnvHosts = cqlgentest.EnvHosts

// DockerImage is the image started when no Cassandra is found otherwise.
const DockerImage = cqlgentest.DefaultImage

// cassandra is cqlgentest set up for this repository.
var cassandra = cqlgentest.New(cqlgentest.Options{
	KeyspacePrefix: "t_",
	Image:          DockerImage,
	Help: "In cqlgen's repository: `make cassandra-start` (or `bash integration/cassandra/cassandra.sh start`), " +
		"then run the tests with " + EnvHosts + "=127.0.0.1:9042; `make test` does both.",
})

// Main runs the tests and then stops the shared container, if one was
// started. Use it as TestMain; it does not return.
func Main(m *testing.M) { cassandra.Main(m) }

// Hosts returns the contact points of the test Cassandra, or skips the test
// (fails it under CI=true) when there is none.
func Hosts(t testing.TB) []string {
	t.Helper()
	return cassandra.Hosts(t)
}

// ClusterConfig returns a gocql cluster config for the test Cassandra, with
// timeouts sized for a slow two-core machine where schema changes can take
// seconds. keyspace may be empty. Tests may adjust it before CreateSession.
func ClusterConfig(t testing.TB, keyspace string) *gocql.ClusterConfig {
	t.Helper()
	return cassandra.ClusterConfig(t, keyspace)
}

// Session returns a session not bound to any keyspace, closed when the test
// ends. tweak, if given, may adjust the cluster config first.
func Session(t testing.TB, tweak ...func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	return cassandra.Session(t, tweak...)
}

// Keyspace creates a keyspace that only this test uses (SimpleStrategy,
// replication factor 1) and returns a session bound to it and its name. The
// keyspace is dropped and the session closed when the test ends, so tests
// can run in parallel and leave nothing behind. tweak, if given, may adjust
// the cluster config of the returned session.
func Keyspace(t testing.TB, tweak ...func(*gocql.ClusterConfig)) (*gocql.Session, string) {
	t.Helper()
	return cassandra.Keyspace(t, tweak...)
}
