package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cqlgen/cqlgen/internal/tag"
)

// DefaultCassandra is the Cassandra version a package targets without a
// //cqlgen:cassandra directive.
const DefaultCassandra = "5.0"

// CassandraVersions are the versions //cqlgen:cassandra takes.
var CassandraVersions = []string{"5.0", "6.0"}

// filterOps are the operators the storage-attached indexes of each
// version serve in a filter read, as probed on 5.0.8 and 6.0-alpha2
// (docs/grammar.md, Operators by version).
var filterOps = map[string][]tag.FilterOp{
	"5.0": {tag.OpEq, tag.OpRange, tag.OpContains, tag.OpContainsKey},
	"6.0": {tag.OpEq, tag.OpRange, tag.OpContains, tag.OpContainsKey, tag.OpBetween},
}

// Serves reports whether the storage-attached indexes of version serve
// op in a read.
func Serves(version string, op tag.FilterOp) bool { return slices.Contains(filterOps[version], op) }

// RefusedOp says why version does not serve op, for a diagnostic at the
// operator: what the version does with it, and what to write instead.
func RefusedOp(version string, op tag.FilterOp) string {
	served := func() string {
		var s []string
		for _, o := range filterOps[version] {
			s = append(s, string(o))
		}
		return strings.Join(s, ", ")
	}
	head := fmt.Sprintf("Cassandra %s's storage-attached indexes do not serve %s", version, strings.ToUpper(string(op)))
	switch {
	case op == tag.OpBetween:
		return head + " (Cassandra 6.0 adds it; declare //cqlgen:cassandra 6.0 once the cluster runs it): write range, whose options make either end inclusive or exclusive"
	case version == "5.0" && op == tag.OpIn:
		return head + " (the node refuses col IN (...) on an indexed column unless ALLOW FILTERING scans every row): read each value with eq, or keep the values in a set and filter by contains"
	case version == "5.0":
		return head + " (the CQL of 5.0 has no " + strings.ToUpper(string(op)) + "; 6.0 parses it, yet its indexes do not serve it either); the operators 5.0 serves are " + served()
	}
	return head + ": 6.0-alpha2 parses it, but refuses it on an indexed column unless ALLOW FILTERING scans every row; the operators 6.0 serves are " + served()
}

// RefusedOr says why version does not serve or between conditions.
func RefusedOr(version string) string {
	return fmt.Sprintf("Cassandra %s does not serve OR between conditions (its CQL does not parse OR in a WHERE clause, on 5.0.8 as on 6.0-alpha2): join the conditions with and, or read each alternative with its own pattern", version)
}
