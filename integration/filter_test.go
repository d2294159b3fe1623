package integration

import (
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/filtercheck"
	"github.com/cqlgen/cqlgen/integration/saimodel"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// TestFilterReads writes random videos on the live node and reads them
// through every filter pattern of saimodel, KillrVideo v5's published
// queries that combine two or three storage-attached indexes among them:
// scatters in token order, reads within a partition in clustering order,
// each the rows a reference filter in Go keeps, with every choice of
// each range's bounds and pages of several sizes.
func TestFilterReads(t *testing.T) {
	t.Parallel()
	_, s := repoSession(t, saimodel.Schema)
	seed := uint64(time.Now().UnixNano())
	filtercheck.Videos(t, s, seed, 400)
	filtercheck.UserVideos(t, s, seed, 300)
}

// TestFilterReadsInMemory runs the same check on cqltest, the in-memory
// backend, which must evaluate several conditions on indexed columns as
// the node does.
func TestFilterReadsInMemory(t *testing.T) {
	t.Parallel()
	s, err := cqltest.New(saimodel.Schema)
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	filtercheck.Videos(t, s, seed, 400)
	filtercheck.UserVideos(t, s, seed, 300)
}
