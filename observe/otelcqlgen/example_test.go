package otelcqlgen_test

import (
	"log"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/observe/otelcqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// Wire the observer into the session a repository runs on; spans and
// metrics go to the global providers your application set up.
func Example() {
	var gs *gocql.Session // from gocqlv1.CreateSession(gocqlv1.NewCluster(...))
	obs, err := otelcqlgen.New()
	if err != nil {
		log.Fatal(err)
	}
	s := gocqlv1.NewSession(gs, &cqlgen.SessionOptions{Observer: obs})
	_ = s // music.NewTrackRepo(s), ...
}
