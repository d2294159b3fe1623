package integration

import (
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/annref"
	"github.com/cqlgen/cqlgen/integration/testmodel"
	"github.com/cqlgen/cqlgen/runtime/cqlgen"
)

// TestGetTimes reads TTL() and WRITETIME() through GetTimes on the node
// (gocql v1) and on cqltest: rows written by the repository with the
// call's TTL, the table's and none, by the write protocol (the write time
// is the change's version), and on the node rows written by plain gocql
// with USING TTL and TIMESTAMP.
func TestGetTimes(t *testing.T) {
	onBoth(t, testmodel.Schema, func(t *testing.T, raw *gocql.Session, s cqlgen.Session) {
		var plain func(string, ...any) error
		if raw != nil {
			plain = func(cql string, args ...any) error { return raw.Query(cql, args...).Exec() }
		}
		annref.CheckTimes(t, s, plain, true)
	})
}
