// Package cassandratest gives integration tests and benchmarks a Cassandra to
// talk to and a fresh keyspace per test.
//
// Cassandra is found in this order:
//
//  1. CASSANDRA_HOSTS, comma-separated host:port contact points, e.g. the
//     node started by `make cassandra-start`: CASSANDRA_HOSTS=127.0.0.1:9042.
//  2. A healthy Docker engine: a cassandra:5.0 container is started through
//     testcontainers-go, once per test binary, and shared by its tests.
//  3. Neither: the test is skipped, saying how to get a Cassandra; under
//     CI=true it fails instead, so CI can never pass by skipping.
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
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"github.com/testcontainers/testcontainers-go"
	tccassandra "github.com/testcontainers/testcontainers-go/modules/cassandra"
)

// EnvHosts names the variable holding comma-separated host:port contact
// points of an already running Cassandra.
const EnvHosts = "CASSANDRA_HOSTS"

// DockerImage is the image started when no CASSANDRA_HOSTS is given.
const DockerImage = "cassandra:5.0"

// How to get a Cassandra, for skip and failure messages.
const howTo = "no Cassandra available: start one with `make cassandra-start` " +
	"(or `bash integration/cassandra/cassandra.sh start`) and run the tests with " +
	EnvHosts + "=127.0.0.1:9042, or make a Docker engine available so a " +
	DockerImage + " container is started automatically"

var (
	resolveOnce sync.Once
	resolved    target
	container   *tccassandra.CassandraContainer
)

// target is where the tests' Cassandra is, or why there is none.
type target struct {
	hosts []string
	// docker is set when hosts is a container's mapped port: the node
	// advertises its in-container address, which the host may not reach.
	docker bool
	// err is a broken setup (fails the test); skip is "nothing to use".
	err  error
	skip string
}

// Main runs the tests and then stops the shared container, if one was
// started. Use it as TestMain; it does not return.
func Main(m *testing.M) {
	code := m.Run()
	if container != nil {
		if err := testcontainers.TerminateContainer(container); err != nil {
			fmt.Fprintf(os.Stderr, "cassandratest: terminating container: %v\n", err)
		}
	}
	os.Exit(code)
}

// Hosts returns the contact points of the test Cassandra, or skips the test
// (fails it under CI=true) when there is none.
func Hosts(t testing.TB) []string {
	t.Helper()
	return find(t).hosts
}

func find(t testing.TB) target {
	t.Helper()
	resolveOnce.Do(func() { resolved = resolve() })
	switch {
	case resolved.err != nil:
		t.Fatalf("cassandratest: %v", resolved.err)
	case resolved.skip != "" && os.Getenv("CI") == "true":
		t.Fatalf("cassandratest: %s (CI=true: integration tests must not be skipped)", resolved.skip)
	case resolved.skip != "":
		t.Skipf("cassandratest: %s", resolved.skip)
	}
	return resolved
}

func resolve() target {
	if v := strings.TrimSpace(os.Getenv(EnvHosts)); v != "" {
		var hosts []string
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hosts = append(hosts, h)
			}
		}
		return target{hosts: hosts}
	}
	if reason := dockerUnavailable(); reason != "" {
		return target{skip: howTo + " (" + EnvHosts + " is unset; " + reason + ")"}
	}
	// Pulling the image and booting Cassandra takes minutes on a cold
	// machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c, err := tccassandra.Run(ctx, DockerImage)
	if c != nil {
		container = c
	}
	if err != nil {
		return target{err: fmt.Errorf("starting %s with testcontainers: %w", DockerImage, err)}
	}
	hostPort, err := c.ConnectionHost(ctx)
	if err != nil {
		return target{err: fmt.Errorf("finding the container's CQL port: %w", err)}
	}
	return target{hosts: []string{hostPort}, docker: true}
}

// dockerUnavailable returns why Docker cannot be used, or "" when it can.
func dockerUnavailable() (reason string) {
	// testcontainers panics on some broken setups; that is "no Docker" too.
	defer func() {
		if r := recover(); r != nil {
			reason = fmt.Sprintf("Docker is unusable: %v", r)
		}
	}()
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		return "no Docker engine: " + err.Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := provider.Health(ctx); err != nil { // Health closes provider
		return "no healthy Docker engine: " + err.Error()
	}
	return ""
}

// ClusterConfig returns a gocql cluster config for the test Cassandra, with
// timeouts sized for a slow two-core machine where schema changes can take
// seconds. keyspace may be empty. Tests may adjust it before CreateSession.
func ClusterConfig(t testing.TB, keyspace string) *gocql.ClusterConfig {
	t.Helper()
	target := find(t)
	cluster := gocql.NewCluster(target.hosts...)
	cluster.Keyspace = keyspace
	// gocql v1.7 speaks up to v4; fixing it skips a failed v5 handshake.
	cluster.ProtoVersion = 4
	cluster.Consistency = gocql.LocalQuorum
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Timeout = 30 * time.Second
	cluster.WriteTimeout = 30 * time.Second
	cluster.MaxWaitSchemaAgreement = 2 * time.Minute
	cluster.ReconnectInterval = time.Second
	if target.docker {
		// Cassandra in the container advertises its bridge address;
		// always dial the mapped port on the host instead.
		mapped, err := net.ResolveTCPAddr("tcp", target.hosts[0])
		if err != nil {
			t.Fatalf("cassandratest: resolving %s: %v", target.hosts[0], err)
		}
		cluster.AddressTranslator = gocql.AddressTranslatorFunc(
			func(net.IP, int) (net.IP, int) { return mapped.IP, mapped.Port })
	}
	return cluster
}

// Session returns a session not bound to any keyspace, closed when the test
// ends. tweak, if given, may adjust the cluster config first.
func Session(t testing.TB, tweak ...func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	return connect(t, ClusterConfig(t, ""), tweak)
}

func connect(t testing.TB, cluster *gocql.ClusterConfig, tweak []func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	for _, f := range tweak {
		f(cluster)
	}
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("cassandratest: connecting to %v: %v", cluster.Hosts, err)
	}
	t.Cleanup(session.Close)
	return session
}

// Keyspace creates a keyspace that only this test uses (SimpleStrategy,
// replication factor 1) and returns a session bound to it and its name. The
// keyspace is dropped and the session closed when the test ends, so tests
// can run in parallel and leave nothing behind. tweak, if given, may adjust
// the cluster config of the returned session.
func Keyspace(t testing.TB, tweak ...func(*gocql.ClusterConfig)) (*gocql.Session, string) {
	t.Helper()
	name := keyspaceName(t.Name())
	admin := Session(t)
	create := fmt.Sprintf("CREATE KEYSPACE %s WITH replication = "+
		"{'class': 'SimpleStrategy', 'replication_factor': 1}", name)
	if err := admin.Query(create).Exec(); err != nil {
		t.Fatalf("cassandratest: %s: %v", create, err)
	}
	// Registered before the keyspace session's Close, so it runs after it
	// (cleanups run last-in, first-out) on the still open admin session.
	t.Cleanup(func() {
		if err := admin.Query("DROP KEYSPACE IF EXISTS " + name).Exec(); err != nil {
			t.Errorf("cassandratest: dropping keyspace %s: %v", name, err)
		}
	})
	return connect(t, ClusterConfig(t, name), tweak), name
}

var notIdent = regexp.MustCompile(`[^a-z0-9]+`)

// keyspaceName makes a valid, unique keyspace name (at most 48 characters)
// that still says which test made it, for anyone looking at a leftover.
func keyspaceName(testName string) string {
	base := strings.Trim(notIdent.ReplaceAllString(strings.ToLower(testName), "_"), "_")
	if len(base) > 30 {
		base = base[:30]
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return "t_" + base + "_" + hex.EncodeToString(b[:])
}
