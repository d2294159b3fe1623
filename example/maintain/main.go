// Command maintain verifies, repairs and backfills the tables of the
// music example's entities from their sources of truth, in the keyspace
// make demo loads (music, or CQLGEN_DEMO_KEYSPACE_PREFIX followed by
// music, as example/demo names it), on the Cassandra named by
// CASSANDRA_HOSTS:
//
//	go run ./example/maintain verify
//	go run ./example/maintain repair -entity Track
//	go run ./example/maintain backfill -entity Track -table top_tracks_by_artist -job refill -rate 500
//
// CQLGEN_KEYSPACE names another keyspace. The same binary is a worker of
// a sharded job (docs/runbook.md, "Maintenance across workers"), as the
// Kubernetes Indexed Job of k8s/job.yaml runs it:
//
//	go run ./example/maintain backfill -entity Track -table top_tracks_by_artist -job refill -ranges 4096 -shard 0/4
//
// It is what a team writes to run cqlmaintain.Run from a binary of its
// own: a session, and the repositories to look after. With no program,
// go tool cqlgen maintain verify ./example/music does the same.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

func main() {
	if os.Getenv("CASSANDRA_HOSTS") == "" {
		fmt.Fprintln(os.Stderr, "maintain: set CASSANDRA_HOSTS to host:port (make cassandra-start, then 127.0.0.1:9042)")
		os.Exit(2)
	}
	// CASSANDRA_HOSTS, and the logins, TLS and datacenter of the other
	// CASSANDRA_* variables, as cqlgen reads them (docs/runbook.md,
	// "Reaching a cluster"): in a pod, from the manifest's env and
	// secrets.
	cluster, err := gocqlv1.ClusterFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "maintain:", err)
		os.Exit(2)
	}
	cluster.Keyspace = os.Getenv("CQLGEN_DEMO_KEYSPACE_PREFIX") + "music"
	if ks := os.Getenv("CQLGEN_KEYSPACE"); ks != "" {
		cluster.Keyspace = ks
	}
	gs, err := gocqlv1.CreateSession(cluster)
	if err != nil {
		fmt.Fprintln(os.Stderr, "maintain:", err)
		os.Exit(4)
	}
	defer gs.Close()
	// Ctrl-C (or a pod's SIGTERM) stops a run between rows; run it again
	// with its -job to resume.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := gocqlv1.NewSession(gs, nil)
	os.Exit(cqlmaintain.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, music.NewTrackRepo(s), music.NewChartEntryRepo(s)))
}
