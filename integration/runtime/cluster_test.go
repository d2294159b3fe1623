package runtime_test

import (
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// One configuration serves several sessions through gocqlv1.CreateSession,
// where gocql's own CreateSession would panic on the second: each gets a
// host selection policy of its own. A configuration whose shared policy
// cannot be renewed gets an error, not a panic.
func TestOneClusterManySessions(t *testing.T) {
	hosts := cassandratest.Hosts(t)
	for name, cluster := range map[string]*gocql.ClusterConfig{
		"NewCluster":   gocqlv1.NewCluster(hosts...),
		"NewClusterDC": gocqlv1.NewClusterDC("datacenter1", hosts...),
	} {
		for i := range 2 {
			s, err := gocqlv1.CreateSession(cluster)
			if err != nil {
				t.Fatalf("%s, session %d: %v", name, i+1, err)
			}
			var v string
			if err := s.Query("SELECT release_version FROM system.local").Scan(&v); err != nil || v == "" {
				t.Errorf("%s, session %d: %q, %v", name, i+1, v, err)
			}
			s.Close()
		}
	}
	own := gocql.NewCluster(hosts...)
	own.ProtoVersion = 4
	own.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	first, err := gocqlv1.CreateSession(own)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if s, err := gocqlv1.CreateSession(own); err == nil {
		s.Close()
		t.Error("a second session on a shared token-aware policy: no error")
	}
}
