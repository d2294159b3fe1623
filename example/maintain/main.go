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
// It is what a team writes to run cqlmaintain.Run from a binary of its
// own: a session, and the repositories to look after. With no program,
// go tool cqlgen maintain verify ./example/music does the same.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"

	"github.com/cqlgen/cqlgen/example/music"
	"github.com/cqlgen/cqlgen/runtime/cqlmaintain"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

func main() {
	hosts := os.Getenv("CASSANDRA_HOSTS")
	if hosts == "" {
		fmt.Fprintln(os.Stderr, "maintain: set CASSANDRA_HOSTS to host:port (make cassandra-start, then 127.0.0.1:9042)")
		os.Exit(2)
	}
	cluster := gocqlv1.NewCluster(strings.Split(hosts, ",")...)
	cluster.Keyspace = os.Getenv("CQLGEN_DEMO_KEYSPACE_PREFIX") + "music"
	gs, err := gocqlv1.CreateSession(cluster)
	if err != nil {
		fmt.Fprintln(os.Stderr, "maintain:", err)
		os.Exit(4)
	}
	defer gs.Close()
	// Ctrl-C stops a backfill between rows; run it again to resume.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s := gocqlv1.NewSession(gs, nil)
	os.Exit(cqlmaintain.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, music.NewTrackRepo(s), music.NewChartEntryRepo(s)))
}
