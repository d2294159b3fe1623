package promcqlgen_test

import (
	"log"

	"github.com/gocql/gocql"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cqlgen/cqlgen/observe/promcqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Register the metrics on the default registry (served by promhttp) and
// wire the observer into the session a repository runs on.
func Example() {
	var gs *gocql.Session // from gocqlv1.CreateSession(gocqlv1.NewCluster(...))
	obs, err := promcqlgen.New(prometheus.DefaultRegisterer, &promcqlgen.Options{ConstLabels: prometheus.Labels{"service": "music"}})
	if err != nil {
		log.Fatal(err)
	}
	s := gocqlv1.NewSession(gs, &cqlgen.SessionOptions{Observer: obs})
	_ = s // music.NewTrackRepo(s), ...
}
