package importer

import (
	"strings"
	"testing"

	"github.com/cqlgen/cqlgen/internal/schemadiff"
)

// A second read through an index changes no schema: its schema.cql holds
// the index once, and cqlgen diff against the schema of the index with
// one read finds nothing to do, so an import of it finds one index too.
func TestSeveralReadsThroughOneIndex(t *testing.T) {
	const model = `package shared

import "github.com/cqlgen/cqlgen/runtime/cqlgen"

type Clip struct {
	_ cqlgen.Pattern ` + "`" + `table:"clips" pk:"channel" ck:"id" size:"rows=100"` + "`" + `
	_ cqlgen.Pattern ` + "`" + `index:"clips_like" col:"v" match:"ann" score:"similarity" name:"ClipsLike"` + "`" + `
%s
	Channel string    ` + "`" + `db:"channel"` + "`" + `
	ID      int32     ` + "`" + `db:"id"` + "`" + `
	V       []float32 ` + "`" + `db:"v" cql:"vector<float, 3>"` + "`" + `
}
`
	one := regenerate(t, []byte(strings.Replace(model, "%s", "", 1)))
	two := regenerate(t, []byte(strings.Replace(model, "%s", "\t_ cqlgen.Pattern `index:\"clips_like\" col:\"v\" match:\"ann\" pk:\"channel\" score:\"similarity(euclidean)\" name:\"ChannelClipsLike\"`", 1)))
	if len(two.Indexes) != 1 || two.Indexes[0].Name != "clips_like" || two.Indexes[0].Column != "v" {
		t.Fatalf("two reads through clips_like: schema.cql declares %+v, want the one index", two.Indexes)
	}
	if changes := schemadiff.Compare(one, two); len(changes) != 0 {
		t.Errorf("a second read through an index: diff finds %+v, want no change", changes)
	}
	if changes := schemadiff.Compare(two, one); len(changes) != 0 {
		t.Errorf("dropping the second read: diff finds %+v, want no change", changes)
	}
}
