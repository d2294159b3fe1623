// Package cqlgentest gives each test of a cqlgen repository a fresh
// keyspace on a real Cassandra, with the package's schema.cql applied:
//
//	func TestTracks(t *testing.T) {
//		session, _ := cqlgentest.Schema(t, "schema.cql")
//		repo := music.NewTrackRepo(gocqlv1.NewSession(session, nil))
//		...
//	}
//
// The Cassandra is found in this order:
//
//  1. CASSANDRA_HOSTS: comma-separated host:port contact points of a
//     running Cassandra (CI's service container, a shared test cluster).
//
//  2. A node listening on 127.0.0.1:9042 (Options.Local): one you started
//     yourself, with `docker run -p 9042:9042 cassandra:5.0` say.
//
//  3. A container started through testcontainers-go, where a Docker engine
//     is reachable, if the test binary imports the container module:
//
//     import _ "github.com/cqlgen/cqlgen/cqlgentest/container"
//
//     It is started once per test binary and shared by its tests; run the
//     tests through Main so it is stopped when they end.
//
//  4. None: the test is skipped, saying how to get one; under CI=true it
//     fails instead, so CI cannot pass by skipping.
//
// The container is a module of its own so that testcontainers and Docker's
// client stay out of a module that does not ask for them.
//
// Each keyspace is named from Options.KeyspacePrefix, the test's name and
// a random suffix, created with SimpleStrategy and replication factor 1,
// and dropped when the test ends, so tests may run in parallel.
package cqlgentest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// EnvHosts names the variable holding comma-separated host:port contact
// points of a running Cassandra.
const EnvHosts = "CASSANDRA_HOSTS"

// DefaultImage is the image a container is started from by default.
const DefaultImage = "cassandra:5.0"

// DefaultLocal is where a node started by hand usually listens.
const DefaultLocal = "127.0.0.1:9042"

// Options say where to look for a Cassandra and how to name keyspaces.
// Zero fields take the defaults.
type Options struct {
	// KeyspacePrefix starts every keyspace name; default "test_". It must
	// be a valid start of an unquoted keyspace name: a letter, then
	// letters, digits and underscores, at most 16 characters.
	KeyspacePrefix string
	// Image is the container image; default DefaultImage.
	Image string
	// Local is the address probed when CASSANDRA_HOSTS is unset; default
	// DefaultLocal; "-" probes nothing.
	Local string
	// Help is added to the message of a test skipped (or failed under
	// CI=true) for want of a Cassandra: how your project starts one.
	Help string
	// Cluster, if set, adjusts every cluster configuration made, before
	// the per-call tweaks.
	Cluster func(*gocql.ClusterConfig)
}

// Cassandra finds the Cassandra of a test binary once, and gives its tests
// keyspaces on it. Make one per test binary (a package variable), or use
// the package's functions, which use Default.
type Cassandra struct {
	opts Options

	once   sync.Once
	found  target
	mu     sync.Mutex
	stop   func() error
	prefix error // a bad KeyspacePrefix
}

// target is where the Cassandra is, or why there is none.
type target struct {
	hosts     []string
	translate bool   // dial hosts[0] whatever address the nodes advertise
	err       error  // a broken setup: fail
	skip      string // nothing to use: skip, or fail under CI=true
	source    string // how it was found, for messages
}

// Default is the Cassandra of the package-level functions.
var Default = New(Options{})

// New makes a Cassandra with the given options; nothing is looked for
// until a test asks.
func New(o Options) *Cassandra {
	if o.KeyspacePrefix == "" {
		o.KeyspacePrefix = "test_"
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.Local == "" {
		o.Local = DefaultLocal
	}
	c := &Cassandra{opts: o}
	if !validPrefix.MatchString(o.KeyspacePrefix) {
		c.prefix = fmt.Errorf("Options.KeyspacePrefix %q is not a valid start of a keyspace name: a letter, then letters, digits or underscores, at most 16 characters", o.KeyspacePrefix)
	}
	return c
}

var validPrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,15}$`)

// A Starter starts a Cassandra when neither CASSANDRA_HOSTS nor a local
// node gives one. The container module registers one.
type Starter interface {
	// Start starts a node from image and returns its contact point
	// (host:port, reachable from the test) and how to stop it. An error
	// wrapping ErrUnavailable means there is nothing to start it with (no
	// Docker engine): the tests are skipped, not failed.
	Start(ctx context.Context, image string) (hostPort string, stop func() error, err error)
}

// ErrUnavailable is wrapped by a Starter's error when it has nothing to
// start a node with.
var ErrUnavailable = errors.New("cqlgentest: unavailable")

var starter Starter

// RegisterStarter sets the Starter tried last; the container module calls
// it from its init.
func RegisterStarter(s Starter) { starter = s }

// Main runs the tests, then stops the container Default started, if any.
// Use it as TestMain; it does not return.
func Main(m *testing.M) { Default.Main(m) }

// Main runs the tests, then stops the container c started, if any.
func (c *Cassandra) Main(m *testing.M) {
	code := m.Run()
	if err := c.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "cqlgentest: stopping the container: %v\n", err)
	}
	os.Exit(code)
}

// Close stops the container c started, if any.
func (c *Cassandra) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop == nil {
		return nil
	}
	err := c.stop()
	c.stop = nil
	return err
}

// Hosts returns the contact points of Default's Cassandra, or skips the
// test (fails it under CI=true) when there is none.
func Hosts(t testing.TB) []string { t.Helper(); return Default.Hosts(t) }

// Hosts returns the contact points of c's Cassandra, or skips the test
// (fails it under CI=true) when there is none.
func (c *Cassandra) Hosts(t testing.TB) []string {
	t.Helper()
	return c.find(t).hosts
}

func (c *Cassandra) find(t testing.TB) target {
	t.Helper()
	c.once.Do(func() { c.found = c.resolve() })
	f := c.found
	switch {
	case f.err != nil:
		t.Fatalf("cqlgentest: %v", f.err)
	case f.skip != "" && os.Getenv("CI") == "true":
		t.Fatalf("cqlgentest: %s\n(CI=true: a test that needs Cassandra must not be skipped in CI)", f.skip)
	case f.skip != "":
		t.Skipf("cqlgentest: %s", f.skip)
	}
	return f
}

func (c *Cassandra) resolve() target {
	if v := strings.TrimSpace(os.Getenv(EnvHosts)); v != "" {
		var hosts []string
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hosts = append(hosts, h)
			}
		}
		return target{hosts: hosts, source: EnvHosts}
	}
	var tried []string
	if c.opts.Local != "-" {
		conn, err := net.DialTimeout("tcp", c.opts.Local, time.Second)
		if err == nil {
			conn.Close()
			return target{hosts: []string{c.opts.Local}, source: "the node at " + c.opts.Local}
		}
		tried = append(tried, "nothing listens on "+c.opts.Local)
	}
	if starter == nil {
		tried = append(tried, "the test binary does not import github.com/cqlgen/cqlgen/cqlgentest/container, which starts a container where Docker runs")
		return target{skip: c.help(tried)}
	}
	// Pulling the image and booting Cassandra takes minutes on a cold
	// machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	hostPort, stop, err := starter.Start(ctx, c.opts.Image)
	if stop != nil {
		c.mu.Lock()
		c.stop = stop
		c.mu.Unlock()
	}
	switch {
	case errors.Is(err, ErrUnavailable):
		return target{skip: c.help(append(tried, err.Error()))}
	case err != nil:
		return target{err: fmt.Errorf("starting %s: %w", c.opts.Image, err)}
	}
	return target{hosts: []string{hostPort}, translate: true, source: "a " + c.opts.Image + " container"}
}

// help says why there is no Cassandra and how to get one.
func (c *Cassandra) help(tried []string) string {
	msg := "no Cassandra to run this test on (" + EnvHosts + " is unset; " + strings.Join(tried, "; ") + ").\n" +
		"Give it one: set " + EnvHosts + "=host:port to a running Cassandra, " +
		"start one on " + c.opts.Local + " (docker run -d -p 9042:9042 " + c.opts.Image + "), " +
		"or import _ \"github.com/cqlgen/cqlgen/cqlgentest/container\" in the test and make a Docker engine available."
	if c.opts.Help != "" {
		msg += "\n" + c.opts.Help
	}
	return msg
}

// ClusterConfig returns a gocql cluster configuration for Default's
// Cassandra; see Cassandra.ClusterConfig.
func ClusterConfig(t testing.TB, keyspace string) *gocql.ClusterConfig {
	t.Helper()
	return Default.ClusterConfig(t, keyspace)
}

// ClusterConfig returns a gocql cluster configuration for c's Cassandra,
// bound to keyspace (which may be empty), with timeouts sized for a slow
// test machine where a schema change can take seconds.
func (c *Cassandra) ClusterConfig(t testing.TB, keyspace string) *gocql.ClusterConfig {
	t.Helper()
	f := c.find(t)
	cluster := gocql.NewCluster(f.hosts...)
	cluster.Keyspace = keyspace
	// gocql v1.7 speaks up to v4; fixing it skips a failed v5 handshake.
	cluster.ProtoVersion = 4
	cluster.Consistency = gocql.LocalQuorum
	cluster.ConnectTimeout = 10 * time.Second
	cluster.Timeout = 30 * time.Second
	cluster.WriteTimeout = 30 * time.Second
	cluster.MaxWaitSchemaAgreement = 2 * time.Minute
	cluster.ReconnectInterval = time.Second
	if f.translate {
		// A node in a container advertises its bridge address; always
		// dial the mapped port on the host instead.
		mapped, err := net.ResolveTCPAddr("tcp", f.hosts[0])
		if err != nil {
			t.Fatalf("cqlgentest: resolving %s: %v", f.hosts[0], err)
		}
		cluster.AddressTranslator = gocql.AddressTranslatorFunc(
			func(net.IP, int) (net.IP, int) { return mapped.IP, mapped.Port })
	}
	if c.opts.Cluster != nil {
		c.opts.Cluster(cluster)
	}
	return cluster
}

// Session returns a session on Default's Cassandra bound to no keyspace.
func Session(t testing.TB, tweak ...func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	return Default.Session(t, tweak...)
}

// Session returns a session on c's Cassandra bound to no keyspace, closed
// when the test ends. tweak, if given, adjusts the configuration first.
func (c *Cassandra) Session(t testing.TB, tweak ...func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	return connect(t, c.ClusterConfig(t, ""), tweak)
}

func connect(t testing.TB, cluster *gocql.ClusterConfig, tweak []func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	for _, f := range tweak {
		f(cluster)
	}
	session, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("cqlgentest: connecting to %v: %v", cluster.Hosts, err)
	}
	t.Cleanup(session.Close)
	return session
}

// Keyspace creates a keyspace on Default's Cassandra that only this test
// uses; see Cassandra.Keyspace.
func Keyspace(t testing.TB, tweak ...func(*gocql.ClusterConfig)) (*gocql.Session, string) {
	t.Helper()
	return Default.Keyspace(t, tweak...)
}

// Keyspace creates a keyspace that only this test uses (SimpleStrategy,
// replication factor 1) and returns a session bound to it and its name.
// The keyspace is dropped and the session closed when the test ends.
// tweak, if given, adjusts the returned session's configuration.
func (c *Cassandra) Keyspace(t testing.TB, tweak ...func(*gocql.ClusterConfig)) (*gocql.Session, string) {
	t.Helper()
	if c.prefix != nil {
		t.Fatalf("cqlgentest: %v", c.prefix)
	}
	name := c.keyspaceName(t.Name())
	admin := c.Session(t)
	create := fmt.Sprintf("CREATE KEYSPACE %s WITH replication = "+
		"{'class': 'SimpleStrategy', 'replication_factor': 1}", name)
	if err := admin.Query(create).Exec(); err != nil {
		t.Fatalf("cqlgentest: %s on %s: %v", create, c.found.source, err)
	}
	// Registered before the keyspace session's Close, so it runs after it
	// (cleanups run last in, first out) on the still open admin session.
	t.Cleanup(func() {
		if err := dropKeyspace(admin, name); err != nil {
			t.Errorf("cqlgentest: dropping keyspace %s: %v", name, err)
		}
	})
	return connect(t, c.ClusterConfig(t, name), tweak), name
}

// dropKeyspace drops the keyspace name. Cassandra 6 refuses to drop a
// keyspace that holds tables in Accord's transactional mode ("Cannot drop
// keyspace ... as it contains accord tables"): then its tables are
// dropped first, one by one, and the keyspace after them.
func dropKeyspace(admin *gocql.Session, name string) error {
	err := admin.Query("DROP KEYSPACE IF EXISTS " + name).Exec()
	if err == nil || !strings.Contains(err.Error(), "accord tables") {
		return err
	}
	it := admin.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?", name).Iter()
	var tables []string
	for table := ""; it.Scan(&table); {
		tables = append(tables, table)
	}
	if cerr := it.Close(); cerr != nil {
		return fmt.Errorf("%w; listing its tables: %v", err, cerr)
	}
	for _, table := range tables {
		if derr := schemaChange(admin, fmt.Sprintf("DROP TABLE IF EXISTS %s.%q", name, table)); derr != nil {
			return fmt.Errorf("%w; dropping its table %s: %v", err, table, derr)
		}
	}
	return schemaChange(admin, "DROP KEYSPACE IF EXISTS "+name)
}

// schemaChange runs an idempotent schema statement (an IF EXISTS drop),
// sending it again when no reply came in time: a 6.0 node can take longer
// than the session's timeout to drop an Accord table while other schema
// changes queue beside it, and the drop then completes on its own.
func schemaChange(admin *gocql.Session, stmt string) error {
	var err error
	for range 4 {
		if err = admin.Query(stmt).Exec(); !errors.Is(err, gocql.ErrTimeoutNoResponse) {
			return err
		}
	}
	return err
}

var notIdent = regexp.MustCompile(`[^a-z0-9]+`)

// keyspaceName makes a valid, unique keyspace name of at most 48
// characters (Cassandra's limit) that still says which test made it.
func (c *Cassandra) keyspaceName(testName string) string {
	base := strings.Trim(notIdent.ReplaceAllString(strings.ToLower(testName), "_"), "_")
	if room := 48 - len(c.opts.KeyspacePrefix) - 13; len(base) > room {
		base = base[:room]
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return strings.ToLower(c.opts.KeyspacePrefix) + base + "_" + hex.EncodeToString(b[:])
}
