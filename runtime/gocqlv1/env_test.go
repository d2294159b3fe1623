package gocqlv1

import (
	"strings"
	"testing"

	"github.com/gocql/gocql"
)

// TestClusterFromEnv: the variables the cqlgen command reads make the
// same connection here: hosts, password authentication, a datacenter
// never left, TLS; and their mistakes are errors that name them.
func TestClusterFromEnv(t *testing.T) {
	env := map[string]string{
		"CASSANDRA_HOSTS":           "db1:9142, db2:9142",
		"CASSANDRA_USERNAME":        "ops",
		"CASSANDRA_PASSWORD":        "pw",
		"CASSANDRA_LOCAL_DC":        "eu",
		"CASSANDRA_TLS":             "true",
		"CASSANDRA_TLS_SERVER_NAME": "cassandra.internal",
	}
	c, err := ClusterFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Hosts, ",") != "db1:9142,db2:9142" || c.HostFilter == nil || c.ProtoVersion != 4 {
		t.Errorf("hosts %v, host filter %v, protocol %d", c.Hosts, c.HostFilter, c.ProtoVersion)
	}
	if a, ok := c.Authenticator.(gocql.PasswordAuthenticator); !ok || a.Username != "ops" || a.Password != "pw" {
		t.Errorf("authenticator %#v", c.Authenticator)
	}
	if c.SslOpts == nil || !c.SslOpts.EnableHostVerification || c.SslOpts.Config.ServerName != "cassandra.internal" {
		t.Errorf("TLS %#v", c.SslOpts)
	}
	plain, err := ClusterFromEnv(func(k string) string { return map[string]string{"CASSANDRA_HOSTS": "127.0.0.1:9042"}[k] })
	if err != nil || plain.HostFilter != nil || plain.Authenticator != nil || plain.SslOpts != nil {
		t.Errorf("plain: %v, %#v", err, plain)
	}
	for _, bad := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "CASSANDRA_HOSTS is not set"},
		{map[string]string{"CASSANDRA_HOSTS": "h", "CASSANDRA_PASSWORD": "pw"}, "CASSANDRA_PASSWORD is set but CASSANDRA_USERNAME is not"},
		{map[string]string{"CASSANDRA_HOSTS": "h", "CASSANDRA_TLS_CERT": "c.pem"}, "CASSANDRA_TLS_CERT and CASSANDRA_TLS_KEY go together"},
	} {
		if _, err := ClusterFromEnv(func(k string) string { return bad.env[k] }); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v: %v, want %q", bad.env, err, bad.want)
		}
	}
}
