package v2

import (
	"testing"

	"github.com/cqlgen/cqlgen/integration/v2model"
	"github.com/cqlgen/cqlgen/runtime/cqltest"
)

// onBoth runs body twice, as subtests: "node", on a keyspace of the real
// node through the v2 driver (newEnv), and "cqltest", on an in-memory
// session of v2model's schema, whose values the v2 adapter's codec
// marshals, so that cqltest is held to what the node does for a program
// on the ASF driver. There e.raw is nil, and body skips the checks that
// read the tables with plain gocql.
func onBoth(t *testing.T, body func(t *testing.T, e *env)) {
	t.Run("node", func(t *testing.T) { body(t, newEnv(t, nil)) })
	t.Run("cqltest", func(t *testing.T) {
		s, err := cqltest.New(v2model.Schema)
		if err != nil {
			t.Fatalf("cqltest refuses v2model's schema: %v", err)
		}
		body(t, &env{s: s})
	})
}
