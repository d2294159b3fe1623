// Package clusterenv reads how to reach a Cassandra cluster from the
// CASSANDRA_* environment variables, for the cqlgen command and for the
// maintenance program cqlgen maintain builds (through
// gocqlv1.ClusterFromEnv and gocqlv2.ClusterFromEnv), so that both read
// them alike (docs/runbook.md, "Reaching a cluster"). It knows no driver.
package clusterenv

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"
)

// The environment variables. Only Hosts is required.
const (
	Hosts      = "CASSANDRA_HOSTS"           // host[:port],... contact points
	Username   = "CASSANDRA_USERNAME"        // password authentication
	Password   = "CASSANDRA_PASSWORD"        //
	TLS        = "CASSANDRA_TLS"             // "true": TLS with the system's roots
	TLSCA      = "CASSANDRA_TLS_CA"          // PEM file of the CAs to trust (implies TLS)
	TLSCert    = "CASSANDRA_TLS_CERT"        // PEM client certificate, for mutual TLS (implies TLS)
	TLSKey     = "CASSANDRA_TLS_KEY"         // its PEM private key
	ServerName = "CASSANDRA_TLS_SERVER_NAME" // the name the nodes' certificates carry
	LocalDC    = "CASSANDRA_LOCAL_DC"        // the datacenter to send requests to
)

// Env is how to reach a cluster, as the environment says.
type Env struct {
	Hosts              []string
	Username, Password string
	TLS                *tls.Config // nil: plain connections
	LocalDC            string
}

// Read reads the CASSANDRA_* variables through getenv. A variable given
// without its partner (a password without a user, a certificate without
// a key) or a file that cannot be used is an error that names the
// variable.
func Read(getenv func(string) string) (*Env, error) {
	c := &Env{
		Username: getenv(Username),
		Password: getenv(Password),
		LocalDC:  strings.TrimSpace(getenv(LocalDC)),
	}
	for _, h := range strings.Split(getenv(Hosts), ",") {
		if h = strings.TrimSpace(h); h != "" {
			c.Hosts = append(c.Hosts, h)
		}
	}
	if len(c.Hosts) == 0 {
		return nil, fmt.Errorf("%s is not set: name the cluster's contact points, as host:port,... (docs/runbook.md, \"Reaching a cluster\")", Hosts)
	}
	if c.Password != "" && c.Username == "" {
		return nil, fmt.Errorf("%s is set but %s is not", Password, Username)
	}
	var err error
	if c.TLS, err = readTLS(getenv); err != nil {
		return nil, err
	}
	return c, nil
}

// readTLS builds the TLS configuration, or nil when no TLS variable is set.
func readTLS(getenv func(string) string) (*tls.Config, error) {
	ca, cert, key, name := getenv(TLSCA), getenv(TLSCert), getenv(TLSKey), getenv(ServerName)
	on := getenv(TLS)
	switch strings.ToLower(on) {
	case "", "false", "0":
		if ca == "" && cert == "" && key == "" && name == "" {
			return nil, nil
		}
	case "true", "1":
	default:
		return nil, fmt.Errorf("%s=%q: want true or false", TLS, on)
	}
	cfg := &tls.Config{ServerName: name, MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", TLSCA, err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s holds no PEM certificate", TLSCA, ca)
		}
	}
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("%s and %s go together: a client certificate and its key", TLSCert, TLSKey)
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", TLSCert, TLSKey, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

// Driver is how a driver adapter makes its cluster configuration C, in
// its driver's own types, for Cluster, which decides what to call from
// the environment: NewCluster on the hosts, or NewClusterDC when a local
// datacenter is named; then Password when a user is named, and TLS when
// TLS is asked for.
type Driver[C any] struct {
	NewCluster   func(hosts ...string) C
	NewClusterDC func(localDC string, hosts ...string) C
	Password     func(c C, username, password string)
	TLS          func(c C, cfg *tls.Config)
}

// Cluster returns the cluster configuration that the CASSANDRA_*
// variables, read through getenv (Read), describe.
func (d Driver[C]) Cluster(getenv func(string) string) (C, error) {
	env, err := Read(getenv)
	if err != nil {
		var none C
		return none, err
	}
	var c C
	if env.LocalDC != "" {
		c = d.NewClusterDC(env.LocalDC, env.Hosts...)
	} else {
		c = d.NewCluster(env.Hosts...)
	}
	if env.Username != "" {
		d.Password(c, env.Username, env.Password)
	}
	if env.TLS != nil {
		d.TLS(c, env.TLS)
	}
	return c, nil
}
