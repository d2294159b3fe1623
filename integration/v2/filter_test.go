package v2

import (
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/filtercheck"
	"github.com/cqlgen/cqlgen/integration/saimodel"
	"github.com/cqlgen/cqlgen/runtime/gocqlv2"
)

// TestFilterReads runs the check of reads through several indexes at
// once (filter patterns, integration/saimodel) on the ASF driver: the
// same rows a reference filter in Go keeps, scatters in token order,
// reads of one partition in clustering order, every choice of bounds.
func TestFilterReads(t *testing.T) {
	t.Parallel()
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, saimodel.Schema)
	s := gocqlv2.NewSession(v2Session(t, ks), nil)
	seed := uint64(time.Now().UnixNano())
	filtercheck.Videos(t, s, seed, 300)
	filtercheck.UserVideos(t, s, seed, 200)
}
