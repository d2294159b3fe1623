// Package container lets cqlgentest start a Cassandra in Docker, through
// testcontainers-go's cassandra module, when neither CASSANDRA_HOSTS nor a
// local node gives one. Import it for its effect, in a test file:
//
//	import _ "github.com/cqlgen/cqlgen/cqlgentest/container"
//
// and run the tests through cqlgentest.Main, so that the container is
// stopped when they end:
//
//	func TestMain(m *testing.M) { cqlgentest.Main(m) }
//
// The image is cqlgentest.Options.Image, cassandra:5.0 by default. Where no
// Docker engine answers, the tests are skipped as without this package
// (failed under CI=true). It is a module of its own so that testcontainers
// and Docker's client enter only the modules that import it.
package container

import (
	"context"
	"fmt"

	"github.com/testcontainers/testcontainers-go"
	tccassandra "github.com/testcontainers/testcontainers-go/modules/cassandra"

	"github.com/cqlgen/cqlgen/cqlgentest"
)

func init() { cqlgentest.RegisterStarter(Starter{}) }

// Starter starts a Cassandra container; the package registers it.
type Starter struct{}

// Start checks that a Docker engine answers, then runs image and waits
// for CQL; it returns the mapped CQL port on the host.
func (Starter) Start(ctx context.Context, image string) (hostPort string, stop func() error, err error) {
	if reason := dockerUnavailable(ctx); reason != "" {
		return "", nil, fmt.Errorf("%s: %w", reason, cqlgentest.ErrUnavailable)
	}
	c, err := tccassandra.Run(ctx, image)
	if c != nil {
		stop = func() error { return testcontainers.TerminateContainer(c) }
	}
	if err != nil {
		return "", stop, fmt.Errorf("running %s with testcontainers: %w", image, err)
	}
	hostPort, err = c.ConnectionHost(ctx)
	if err != nil {
		return "", stop, fmt.Errorf("finding the container's CQL port: %w", err)
	}
	return hostPort, stop, nil
}

// dockerUnavailable returns why Docker cannot be used, or "" when it can.
func dockerUnavailable(ctx context.Context) (reason string) {
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
	if err := provider.Health(ctx); err != nil { // Health closes provider
		return "no healthy Docker engine: " + err.Error()
	}
	return ""
}
