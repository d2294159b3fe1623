package integration

import (
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqlgen"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// onBoth runs body twice, as subtests: "node", on a fresh keyspace of the
// real node with schema applied, and "cqltest", on an in-memory session
// of the same schema, so that the in-memory backend is held to what the
// node does. raw is the node's plain gocql session, for checks that read
// the tables without the repository; nil on cqltest, where body skips
// them.
func onBoth(t *testing.T, schema string, body func(t *testing.T, raw *gocql.Session, s cqlgen.Session)) {
	t.Run("node", func(t *testing.T) {
		raw, s := repoSession(t, schema)
		body(t, raw, s)
	})
	t.Run("cqltest", func(t *testing.T) {
		s, err := cqltest.New(schema)
		if err != nil {
			t.Fatalf("cqltest refuses the schema: %v", err)
		}
		body(t, nil, s)
	})
}
