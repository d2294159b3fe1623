package container_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/cqlgentest"
	"github.com/cqlgen/cqlgen/cqlgentest/container"
)

func TestMain(m *testing.M) { cqlgentest.Main(m) }

// Where no Docker engine answers, Start says so with ErrUnavailable, so
// that cqlgentest skips rather than fails; where one does, it starts a
// node that takes CQL. Only the first can run on a machine without Docker,
// such as the one cqlgen is developed on.
func TestStart(t *testing.T) {
	if os.Getenv("CQLGENTEST_DOCKER") == "" {
		t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	hostPort, stop, err := container.Starter{}.Start(ctx, cqlgentest.DefaultImage)
	if stop != nil {
		defer stop()
	}
	switch {
	case errors.Is(err, cqlgentest.ErrUnavailable):
		if os.Getenv("CQLGENTEST_DOCKER") != "" {
			t.Fatalf("CQLGENTEST_DOCKER is set, but: %v", err)
		}
		t.Logf("as expected without Docker: %v", err)
	case err != nil:
		t.Fatal(err)
	case hostPort == "":
		t.Fatal("no host:port")
	default:
		t.Logf("started %s at %s", cqlgentest.DefaultImage, hostPort)
	}
}
