// Package runtime_test tests cqlgen's runtime against a real Cassandra:
// retries and fan-out strategies under connection faults, idempotency
// keys, conditional writes, the batch size limit, and its overhead over
// raw gocql.
package runtime_test

import (
	"context"
	"github.com/cqlgen/cqlgen/runtime/cqlobserve"
	"io"
	"log"
	"net"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

func TestMain(m *testing.M) { cassandratest.Main(m) }

// proxied connects to keyspace ks with every connection, the control
// connection included, going through p. gocql learns the node's own
// address from system.local and would dial it directly; the address
// translator sends that, and any peer it may learn of, to the proxy too.
// tweak, if given, adjusts the configuration last.
func proxied(t testing.TB, ks string, p *faultProxy, tweak ...func(*gocql.ClusterConfig)) *gocql.Session {
	t.Helper()
	cluster := cassandratest.ClusterConfig(t, ks)
	a := p.addr()
	cluster.Hosts = []string{a.String()}
	cluster.AddressTranslator = gocql.AddressTranslatorFunc(func(net.IP, int) (net.IP, int) { return a.IP, a.Port })
	cluster.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	cluster.WriteCoalesceWaitTime = 0
	// After a cut, come back quickly: the faults are the proxy's, the
	// node never went away.
	cluster.ReconnectInterval = 100 * time.Millisecond
	cluster.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 100, Interval: 20 * time.Millisecond}
	cluster.Timeout = 5 * time.Second
	// gocql logs each reconnection after a cut, hundreds of lines; the
	// tests report what matters themselves.
	cluster.Logger = log.New(io.Discard, "", 0)
	for _, f := range tweak {
		f(cluster)
	}
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatalf("connecting through the proxy: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// faultOptions give statements enough attempts to outlast a cut and the
// pool's reconnection.
func faultOptions(obs cqlobserve.Observer) *cqlgen.SessionOptions {
	return &cqlgen.SessionOptions{MaxAttempts: 8, BaseDelay: 20 * time.Millisecond, MaxDelay: 400 * time.Millisecond, Observer: obs}
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
