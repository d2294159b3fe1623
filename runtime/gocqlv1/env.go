package gocqlv1

import (
	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/internal/clusterenv"
)

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
	env, err := clusterenv.Read(getenv)
	if err != nil {
		return nil, err
	}
	c := NewCluster(env.Hosts...)
	if env.LocalDC != "" {
		c = NewClusterDC(env.LocalDC, env.Hosts...)
	}
	if env.Username != "" {
		c.Authenticator = gocql.PasswordAuthenticator{Username: env.Username, Password: env.Password}
	}
	if env.TLS != nil {
		// With a Config of its own, gocql verifies the nodes'
		// certificates unless the Config says otherwise, which this one
		// never does.
		c.SslOpts = &gocql.SslOptions{Config: env.TLS, EnableHostVerification: true}
	}
	return c, nil
}
