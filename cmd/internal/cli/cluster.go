package cli

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// The environment variables that say how to reach a cluster, for
// diff -live and apply. Only CASSANDRA_HOSTS is required.
const (
	envHosts      = "CASSANDRA_HOSTS"           // host[:port],... contact points
	envUsername   = "CASSANDRA_USERNAME"        // password authentication
	envPassword   = "CASSANDRA_PASSWORD"        //
	envTLS        = "CASSANDRA_TLS"             // "true": TLS with the system's roots
	envTLSCA      = "CASSANDRA_TLS_CA"          // PEM file of the CAs to trust (implies TLS)
	envTLSCert    = "CASSANDRA_TLS_CERT"        // PEM client certificate, for mutual TLS (implies TLS)
	envTLSKey     = "CASSANDRA_TLS_KEY"         // its PEM private key
	envServerName = "CASSANDRA_TLS_SERVER_NAME" // the name the nodes' certificates carry
	envLocalDC    = "CASSANDRA_LOCAL_DC"        // the datacenter to send requests to
)

// clusterEnv is how to reach a cluster, as the environment says.
type clusterEnv struct {
	Hosts              []string
	Username, Password string
	TLS                *tls.Config // nil: plain connections
	LocalDC            string
}

// readClusterEnv reads the CASSANDRA_* variables through getenv. A
// variable given without its partner (a password without a user, a
// certificate without a key) or a file that cannot be used is an error
// that names the variable.
func readClusterEnv(getenv func(string) string) (*clusterEnv, error) {
	c := &clusterEnv{
		Username: getenv(envUsername),
		Password: getenv(envPassword),
		LocalDC:  strings.TrimSpace(getenv(envLocalDC)),
	}
	for _, h := range strings.Split(getenv(envHosts), ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.Hosts = append(c.Hosts, h)
		}
	}
	if len(c.Hosts) == 0 {
		return nil, fmt.Errorf("%s is not set: name the cluster's contact points, as host:port,... (docs/runbook.md, \"Reaching a cluster\")", envHosts)
	}
	if c.Password != "" && c.Username == "" {
		return nil, fmt.Errorf("%s is set but %s is not", envPassword, envUsername)
	}
	var err error
	if c.TLS, err = readTLS(getenv); err != nil {
		return nil, err
	}
	return c, nil
}

// readTLS builds the TLS configuration, or nil when no TLS variable is set.
func readTLS(getenv func(string) string) (*tls.Config, error) {
	ca, cert, key, name := getenv(envTLSCA), getenv(envTLSCert), getenv(envTLSKey), getenv(envServerName)
	on := getenv(envTLS)
	switch strings.ToLower(on) {
	case "", "false", "0":
		if ca == "" && cert == "" && key == "" && name == "" {
			return nil, nil
		}
	case "true", "1":
	default:
		return nil, fmt.Errorf("%s=%q: want true or false", envTLS, on)
	}
	cfg := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", envTLSCA, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", envTLSCA, ca)
		}
	}
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("%s and %s go together: a client certificate and its key", envTLSCert, envTLSKey)
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", envTLSCert, envTLSKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
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
		return nil, nil, fmt.Errorf("connecting to %s: %w", strings.Join(c.Hosts, ","), c.explainConnect(err))
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
