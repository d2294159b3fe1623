package v2

import (
	"testing"

	"github.com/cqlgen/cqlgen/integration/annref"
	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/gocqlv2"
)

// TestNearestScoredV2 runs the scored ANN reads on the ASF driver v2: the
// vector bound twice (the score's and the search's) and the float score
// scanned through the v2 adapter, checked against the Go reference as the
// v1 suite checks them.
func TestNearestScoredV2(t *testing.T) {
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, testmodel.Schema)
	s := gocqlv2.NewSession(v2Session(t, ks), nil)
	annref.Check(t, testmodel.NewEmbeddingRepo(s))
}

// TestGetTimesV2 reads TTL() and WRITETIME() through GetTimes on the ASF
// driver v2, rows written by plain gocql v1 included.
func TestGetTimesV2(t *testing.T) {
	raw, ks := cassandratest.Keyspace(t)
	cassandratest.MustApplyCQL(t, raw, testmodel.Schema)
	s := gocqlv2.NewSession(v2Session(t, ks), nil)
	annref.CheckTimes(t, s, func(cql string, args ...any) error { return raw.Query(cql, args...).Exec() }, false)
}
