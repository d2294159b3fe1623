package v2

import (
	"testing"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/gocqlv2"
)

// The ASF driver, too, writes a Go map's entries in the map's random
// iteration order, and the node keeps a descending key's bytes as sent:
// bound as they are, the same map becomes several rows. Through
// gocqlv2.Value, as generated code binds it, it is one.
func TestMapKeyIsOneRowOnV2(t *testing.T) {
	raw, ks := cassandratest.Keyspace(t)
	must(t, raw.Query("CREATE TABLE map_desc (p int, c frozen<map<int, text>>, v int, PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)").Exec())
	gs := v2Session(t, ks)
	m := map[int32]string{}
	for k := range int32(12) {
		m[k-6] = "x"
	}
	count := func(p int) (n int) {
		must(t, raw.Query("SELECT count(*) FROM map_desc WHERE p = ?", p).Scan(&n))
		return n
	}
	for i := range 8 {
		must(t, gs.Query("INSERT INTO map_desc (p, c, v) VALUES (0, ?, ?)", m, i).Exec())
		must(t, gs.Query("INSERT INTO map_desc (p, c, v) VALUES (1, ?, ?)", gocqlv2.Value(m), i).Exec())
	}
	if n := count(0); n < 2 {
		t.Logf("bound as it is, one map made %d row (its entries came in one order 8 times)", n)
	} else {
		t.Logf("bound as it is, one map made %d rows", n)
	}
	if n := count(1); n != 1 {
		t.Errorf("one Go map bound 8 times through gocqlv2.Value is %d rows of a descending key, want 1", n)
	}
}
