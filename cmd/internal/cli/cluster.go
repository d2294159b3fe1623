package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

// The environment variables that say how to reach a cluster, for
// diff -live, apply, migrate, import and maintain (internal/clusterenv
// reads them, for the program maintain builds too). Only CASSANDRA_HOSTS
// is required.
const (
	envHosts      = clusterenv.Hosts
	envUsername   = clusterenv.Username
	envPassword   = clusterenv.Password
	envTLS        = clusterenv.TLS
	envTLSCA      = clusterenv.TLSCA
	envTLSCert    = clusterenv.TLSCert
	envTLSKey     = clusterenv.TLSKey
	envServerName = clusterenv.ServerName
	envLocalDC    = clusterenv.LocalDC
)

// clusterEnv is how to reach a cluster, as the environment says.
type clusterEnv struct {
	Hosts              []string
	Username, Password string
	TLS                *tls.Config // nil: plain connections
	LocalDC            string
}

// readClusterEnv reads the CASSANDRA_* variables through getenv, as
// clusterenv.Read does.
func readClusterEnv(getenv func(string) string) (*clusterEnv, error) {
	r, err := clusterenv.Read(getenv)
	if err != nil {
		return nil, err
	}
	return &clusterEnv{Hosts: r.Hosts, Username: r.Username, Password: r.Password, TLS: r.TLS, LocalDC: r.LocalDC}, nil
}

// cluster turns c into a driver configuration.
func (c *clusterEnv) cluster() *gocql.ClusterConfig {
	cluster := gocql.NewCluster(c.Hosts...)
	cluster.Timeout = 10 * time.Second
	cluster.ConnectTimeout = 10 * time.Second
	if c.Username != "" {
		cluster.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.TLS != nil {
		// With a Config of its own, gocql verifies the nodes' certificates
		// unless the Config says otherwise, which this one never does.
		cluster.SslOpts = &gocql.SslOptions{Config: c.TLS, EnableHostVerification: true}
	}
	if c.LocalDC != "" {
		cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(c.LocalDC))
		// gocql's DC-aware policy lists the other datacenters' nodes after
		// the local ones, and a retry goes on to them: a LOCAL_QUORUM
		// then answered from another datacenter's quorum. The filter keeps
		// the session in its datacenter, as gocqlv1.NewClusterDC does.
		cluster.HostFilter = gocql.DataCentreHostFilter(c.LocalDC)
		cluster.Consistency = gocql.LocalQuorum
	}
	return cluster
}

// connect opens a session on the cluster the environment names, and
// checks that a CASSANDRA_LOCAL_DC is one of the cluster's datacenters:
// a misspelt one would send every request to a remote datacenter.
func connect(getenv func(string) string) (*gocql.Session, *clusterEnv, error) {
	c, err := readClusterEnv(getenv)
	if err != nil {
		return nil, nil, err
	}
	s, err := c.cluster().CreateSession()
	if err != nil && c.LocalDC != "" {
		// No node of that datacenter answered: say which there are.
		open := *c
		open.LocalDC = ""
		if any, aerr := open.cluster().CreateSession(); aerr == nil {
			dcs, derr := datacenters(any)
			any.Close()
			if derr == nil && !slices.Contains(dcs, c.LocalDC) {
				return nil, nil, fmt.Errorf("%s=%s is not a datacenter of the cluster, whose datacenters are %s", envLocalDC, c.LocalDC, strings.Join(dcs, ", "))
			}
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", strings.Join(c.Hosts, ","), err)
	}
	if c.LocalDC != "" {
		dcs, err := datacenters(s)
		if err != nil {
			s.Close()
			return nil, nil, err
		}
		if !slices.Contains(dcs, c.LocalDC) {
			s.Close()
			return nil, nil, fmt.Errorf("%s=%s is not a datacenter of the cluster, whose datacenters are %s", envLocalDC, c.LocalDC, strings.Join(dcs, ", "))
		}
	}
	return s, c, nil
}

// datacenters lists the datacenters of the nodes the session knows of.
func datacenters(s *gocql.Session) ([]string, error) {
	var dcs []string
	for _, q := range []string{"SELECT data_center FROM system.local", "SELECT data_center FROM system.peers"} {
		var dc string
		it := s.Query(q).Iter()
		for it.Scan(&dc) {
			if !slices.Contains(dcs, dc) {
				dcs = append(dcs, dc)
			}
		}
		if err := it.Close(); err != nil {
			return nil, fmt.Errorf("reading the cluster's datacenters: %w", err)
		}
	}
	if len(dcs) == 0 {
		return nil, errors.New("reading the cluster's datacenters: none found")
	}
	slices.Sort(dcs)
	return dcs, nil
}
