package integration

import (
	"testing"
	"time"

	"github.com/cqlgen/cqlgen/integration/filtercheck"
	"github.com/cqlgen/cqlgen/integration/saimodel"
)

// TestFilterReads writes random videos on the live node and reads them
// through every filter pattern of saimodel, KillrVideo v5's published
// queries that combine two or three storage-attached indexes among them:
// scatters in token order, reads within a partition in clustering order,
// each the rows a reference filter in Go keeps, with every choice of
// each range's bounds and pages of several sizes.
func TestFilterReads(t *testing.T) {
	t.Parallel()
	raw, s := repoSession(t, saimodel.Schema)
	seed := uint64(time.Now().UnixNano())
	filtercheck.Videos(t, raw, s, seed, 400)
	filtercheck.UserVideos(t, s, seed, 300)
}
