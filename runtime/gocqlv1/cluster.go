package gocqlv1

import (
	"crypto/tls"
	"fmt"
	"sync"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

// NewCluster returns a gocql cluster configuration with the defaults
// cqlgen's repositories are tested with (checked against gocql v1.7.0):
//
//   - token-aware routing over round robin, so each statement goes straight
//     to a replica of its partition: gocql prepares every statement and
//     computes its routing key from the partition key columns of the
//     prepared metadata (for a batch, from its first statement). For a
//     cluster of several datacenters, use NewClusterDC. gocql panics when
//     one host selection policy serves two sessions: create sessions with
//     CreateSession, which gives each one its own.
//   - WriteCoalesceWaitTime 0: with gocql's default of 200µs, a request on
//     an idle connection starts a 200µs timer and is written when it fires,
//     so that later requests share the write system call; that helps
//     throughput under heavy load but adds 200µs to every request of a
//     latency-bound service. 0 writes each request at once.
//   - Timeout 11 s (gocql's default, kept on purpose): a client timeout
//     must exceed the server's own (Cassandra's largest default,
//     range_request_timeout, is 10 s), otherwise the client gives up first
//     with an opaque ErrTimeoutNoResponse instead of the coordinator's
//     typed read or write timeout, which says whether a retry is safe.
//     Bound the latency of a call with its context's deadline instead: the
//     session honours it, backoff included.
//   - ConnectTimeout 5 s, protocol version 4 (the highest gocql v1.7.0
//     speaks; fixing it skips a failed v5 handshake with Cassandra 4+).
//   - LocalQuorum consistency; NewSession sets reads, writes and serial
//     consistency per statement kind anyway.
func NewCluster(hosts ...string) *gocql.ClusterConfig {
	return newCluster(func() gocql.HostSelectionPolicy { return gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy()) }, hosts)
}

// NewClusterDC is NewCluster for a cluster of several datacenters: routing
// is token-aware over the replicas of localDC, then round robin within it,
// and never leaves it; with LocalQuorum and LocalSerial (the session's
// defaults), every statement stays in the local datacenter.
//
// "Never leaves it" takes a host filter: gocql's DC-aware policy puts the
// other datacenters' nodes after the local ones, and a retry on the next
// host (after Unavailable, say) reaches them once the local ones are
// down; LOCAL_QUORUM there is that datacenter's quorum, which need not
// hold what the local one wrote. With the filter the session connects to
// localDC's nodes alone, and a local outage is a typed Unavailable.
func NewClusterDC(localDC string, hosts ...string) *gocql.ClusterConfig {
	c := newCluster(func() gocql.HostSelectionPolicy {
		return gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(localDC))
	}, hosts)
	c.HostFilter = gocql.DataCentreHostFilter(localDC)
	return c
}

// ClusterFromEnv returns the cluster configuration that the CASSANDRA_*
// environment variables, read through getenv (os.Getenv), describe, as
// the cqlgen command reads them (docs/runbook.md, "Reaching a cluster"):
// NewCluster on CASSANDRA_HOSTS, or NewClusterDC with CASSANDRA_LOCAL_DC;
// password authentication with CASSANDRA_USERNAME and CASSANDRA_PASSWORD;
// TLS, the nodes' certificates verified, with CASSANDRA_TLS,
// CASSANDRA_TLS_CA, CASSANDRA_TLS_CERT and CASSANDRA_TLS_KEY, and
// CASSANDRA_TLS_SERVER_NAME. It is how the maintenance program cqlgen
// maintain builds connects. A missing CASSANDRA_HOSTS, or a variable set
// without its partner, is an error that names it.
func ClusterFromEnv(getenv func(string) string) (*gocql.ClusterConfig, error) {
	return fromEnv.Cluster(getenv)
}

// fromEnv makes what ClusterFromEnv returns, in the driver's types.
var fromEnv = clusterenv.Driver[*gocql.ClusterConfig]{
	NewCluster:   NewCluster,
	NewClusterDC: NewClusterDC,
	Password: func(c *gocql.ClusterConfig, username, password string) {
		c.Authenticator = gocql.PasswordAuthenticator{Username: username, Password: password}
	},
	TLS: func(c *gocql.ClusterConfig, cfg *tls.Config) {
		// With a Config of its own, gocql verifies the nodes'
		// certificates unless the Config says otherwise, which this one
		// never does.
		c.SslOpts = &gocql.SslOptions{Config: cfg, EnableHostVerification: true}
	},
}

// made remembers, for the configurations NewCluster and NewClusterDC
// made, the policy they were given and how to make another.
var made sync.Map // *gocql.ClusterConfig → madePolicy

type madePolicy struct {
	first gocql.HostSelectionPolicy
	make  func() gocql.HostSelectionPolicy
}

func newCluster(policy func() gocql.HostSelectionPolicy, hosts []string) *gocql.ClusterConfig {
	c := gocql.NewCluster(hosts...)
	c.PoolConfig.HostSelectionPolicy = policy()
	made.Store(c, madePolicy{c.PoolConfig.HostSelectionPolicy, policy})
	c.WriteCoalesceWaitTime = 0
	c.Timeout = 11 * time.Second
	c.ConnectTimeout = 5 * time.Second
	c.ProtoVersion = 4
	c.Consistency = gocql.LocalQuorum
	return c
}

// CreateSession creates a gocql session from cluster, which may serve any
// number of sessions: a configuration made by NewCluster or NewClusterDC
// gets a host selection policy of its own for each, unless the caller put
// another policy in it, which is then used as it is. gocql panics when one
// policy serves two sessions; that panic comes back as an error.
func CreateSession(cluster *gocql.ClusterConfig) (s *gocql.Session, err error) {
	c := *cluster
	c.PoolConfig.HostSelectionPolicy = sessionPolicy(cluster)
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("cqlgen: creating a session: %v (give each session its own host selection policy)", r)
		}
	}()
	return c.CreateSession()
}

// sessionPolicy is the host selection policy CreateSession gives a
// session of cluster: a fresh one of cqlgen's while cluster still holds
// the one NewCluster or NewClusterDC put in it, and otherwise the
// cluster's own, so that a policy the caller chose is never replaced.
func sessionPolicy(cluster *gocql.ClusterConfig) gocql.HostSelectionPolicy {
	p := cluster.PoolConfig.HostSelectionPolicy
	if m, ok := made.Load(cluster); ok && p == m.(madePolicy).first {
		return m.(madePolicy).make()
	}
	return p
}
