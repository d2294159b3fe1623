package cqltest

import (
	"testing"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
	"github.com/cqlgen/cqlgen/runtime/cqlgenimpl"
)

// The runtime orders values with its own comparator (cqlgenimpl's
// CompareEncoded, by which it merges hash buckets and checks cursors);
// cqltest with one written apart from it. On every pair of the shared edge
// values, whose listed order the integration suite checks against a node,
// the two must agree.
func TestOracleAgreesWithRuntime(t *testing.T) {
	for _, tc := range orderCases {
		typ := testType(t, tc.typ)
		rt, err := cqldriver.ParseType(tc.typ)
		if err != nil {
			t.Fatalf("%s: the runtime cannot parse the type: %v", tc.typ, err)
		}
		vals := make([][]byte, len(tc.values))
		for i, v := range tc.values {
			vals[i] = marshal(t, typ, v)
		}
		for i := range vals {
			for j := range vals {
				oracle := compareValues(typ, vals[i], vals[j])
				runtime := sign(cqlgenimpl.CompareEncoded(rt, vals[i], vals[j]))
				if oracle != runtime {
					t.Errorf("%s: compare(%v, %v): cqltest says %d, the runtime %d", tc.typ, tc.values[i], tc.values[j], oracle, runtime)
				}
			}
		}
	}
}
