package integration

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/integration/cassandratest"
	"github.com/cqlgen/cqlgen/runtime/gocqlv1"
)

// sentAs binds the bytes it holds, as a driver would have encoded some Go
// value: a Go map's entries come in its random iteration order.
type sentAs struct{ b []byte }

func (s sentAs) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return s.b, nil }

// rawBytes captures a column's bytes as the node returns them.
type rawBytes struct{ b []byte }

func (r *rawBytes) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	r.b = append([]byte(nil), data...)
	return nil
}

// enc is an encoded collection (a count, then length-prefixed parts) or,
// with count < 0, a user-defined type (its fields alone).
func enc(count int, ps ...[]byte) []byte {
	var b []byte
	if count >= 0 {
		b = binary.BigEndian.AppendUint32(b, uint32(count))
	}
	for _, p := range ps {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	return b
}

func be32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

// Cassandra 5.0 rebuilds a bound set or map in its own order only where
// the column's type is itself a collection, ascending. In a descending
// clustering column, and inside a frozen user-defined type (even a
// partition key's), it keeps the bytes as sent: one value sent in two
// orders is two rows, or two partitions. The driver adapters bind every
// such value canonically (cqldriver.Canonical), so the same value is
// always the same key.
func TestSetsAndMapsInKeysAreOneValue(t *testing.T) {
	raw, _ := cassandratest.Keyspace(t)
	for _, ddl := range []string{
		"CREATE TYPE u (n int, m frozen<map<int, text>>)",
		"CREATE TABLE map_asc (p int, c frozen<map<int, text>>, v int, PRIMARY KEY (p, c))",
		"CREATE TABLE map_desc (p int, c frozen<map<int, text>>, v int, PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)",
		"CREATE TABLE set_desc (p int, c frozen<set<int>>, v int, PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)",
		"CREATE TABLE list_desc (p int, c frozen<list<frozen<map<int, text>>>>, v int, PRIMARY KEY (p, c)) WITH CLUSTERING ORDER BY (c DESC)",
		"CREATE TABLE udt_asc (p int, c frozen<u>, v int, PRIMARY KEY (p, c))",
		"CREATE TABLE udt_pk (p frozen<u>, c int, v int, PRIMARY KEY (p, c))",
	} {
		must(t, raw.Query(ddl).Exec())
	}
	empty := []byte{}
	sortedMap := enc(2, be32(-1), empty, be32(0), empty) // {-1: '', 0: ''}
	otherMap := enc(2, be32(0), empty, be32(-1), empty)  // the same, entries reversed
	cases := []struct {
		table       string
		sorted      []byte
		sent        [][]byte // other encodings of the same value
		nodeSortsIt bool     // whether the node stores one row for them unaided
	}{
		{"map_asc", sortedMap, [][]byte{otherMap}, true},
		{"map_desc", sortedMap, [][]byte{otherMap}, false},
		{"set_desc", enc(2, be32(0), be32(1)), [][]byte{enc(2, be32(1), be32(0)), enc(3, be32(0), be32(0), be32(1))}, false},
		{"list_desc", enc(1, sortedMap), [][]byte{enc(1, otherMap)}, false},
		{"udt_asc", enc(-1, be32(7), sortedMap), [][]byte{enc(-1, be32(7), otherMap)}, false},
		{"udt_pk", enc(-1, be32(7), sortedMap), [][]byte{enc(-1, be32(7), otherMap)}, false},
	}
	insert := func(table string, p int, key any, v int) {
		cql := fmt.Sprintf("INSERT INTO %s (p, c, v) VALUES (%d, ?, ?)", table, p)
		if table == "udt_pk" {
			cql = fmt.Sprintf("INSERT INTO %s (p, c, v) VALUES (?, %d, ?)", table, p)
		}
		must(t, raw.Query(cql, key, v).Exec())
	}
	rows := func(table string, p int) (n int, stored []string) {
		cql := fmt.Sprintf("SELECT c, v FROM %s WHERE p = %d", table, p)
		if table == "udt_pk" {
			cql = fmt.Sprintf("SELECT p, v FROM %s WHERE c = %d ALLOW FILTERING", table, p)
		}
		it := raw.Query(cql).Iter()
		var c rawBytes
		var v int
		for it.Scan(&c, &v) {
			n++
			stored = append(stored, fmt.Sprintf("%x", c.b))
		}
		must(t, it.Close())
		return n, stored
	}
	for _, tc := range cases {
		// As sent, unaided: partition 0.
		insert(tc.table, 0, sentAs{tc.sorted}, 0)
		for i, b := range tc.sent {
			insert(tc.table, 0, sentAs{b}, i+1)
		}
		n, stored := rows(tc.table, 0)
		if tc.nodeSortsIt != (n == 1) {
			t.Errorf("%s: %d encodings of one value, sent as they are, are %d rows on the node (stored %v): the node's handling has changed", tc.table, 1+len(tc.sent), n, stored)
		}
		// Bound as generated code binds them, through the adapter:
		// partition 1.
		insert(tc.table, 1, gocqlv1.Value(sentAs{tc.sorted}), 0)
		for i, b := range tc.sent {
			insert(tc.table, 1, gocqlv1.Value(sentAs{b}), i+1)
		}
		if n, stored := rows(tc.table, 1); n != 1 || stored[0] != fmt.Sprintf("%x", tc.sorted) {
			t.Errorf("%s: one value bound in %d encodings through gocqlv1.Value is %d rows, stored %v; want one, %x", tc.table, 1+len(tc.sent), n, stored, tc.sorted)
		}
		// And a read by either encoding finds it.
		if tc.table != "udt_pk" {
			for _, b := range append([][]byte{tc.sorted}, tc.sent...) {
				var found int
				must(t, raw.Query("SELECT count(*) FROM "+tc.table+" WHERE p = 1 AND c = ?", gocqlv1.Value(sentAs{b})).Scan(&found))
				if found != 1 {
					t.Errorf("%s: reading by %x finds %d rows, want 1", tc.table, b, found)
				}
			}
		}
	}
	// A Go map, which gocql writes in its random iteration order, is one
	// key however often it is bound.
	m := map[int32]string{}
	for k := range int32(12) {
		m[k-6] = "x"
	}
	for i := range 8 {
		must(t, raw.Query("INSERT INTO map_desc (p, c, v) VALUES (2, ?, ?)", gocqlv1.Value(m), i).Exec())
	}
	if n, _ := rows("map_desc", 2); n != 1 {
		t.Errorf("one Go map bound 8 times through gocqlv1.Value is %d rows of a descending key, want 1", n)
	}
}
