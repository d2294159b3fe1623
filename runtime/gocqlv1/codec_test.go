package gocqlv1

import (
	"bytes"
	"encoding/binary"
	"net"
	"testing"

	"github.com/gocql/gocql"

	"github.com/cqlgen/cqlgen/runtime/cqldriver"
)

type place struct {
	Name string           `cql:"name"`
	Tags map[int32]string `cql:"tags"`
}

// A value that may hold a set or a map reaches Cassandra in its canonical
// encoding, however gocql wrote it: Cassandra keeps a descending key's
// bytes, and a user-defined type's, as sent, so a Go map's random
// iteration order, or a set bound from an unsorted slice, would make one
// key two rows.
func TestValueBindsCanonically(t *testing.T) {
	tags := map[int32]string{}
	for k := range int32(16) {
		tags[k-8] = "x"
	}
	for _, tc := range []struct {
		typ string
		v   any
	}{
		{"frozen<map<int, text>>", tags},
		{"frozen<set<int>>", []int32{3, 1, 2, 1}},
		{"frozen<udt<place, name text, tags frozen<map<int, text>>>>", place{"p", tags}},
		{"frozen<list<frozen<map<int, text>>>>", []map[int32]string{tags, {1: "a"}}},
	} {
		typ, err := cqldriver.ParseType(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		info, err := typeInfo(typ)
		if err != nil {
			t.Fatal(err)
		}
		got, err := gocql.Marshal(info, Value(tc.v)) // as gocql binds a statement's value
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if want := cqldriver.Canonical(typ, got); !bytes.Equal(got, want) {
			t.Errorf("%s: bound as %x, not canonical (%x)", tc.typ, got, want)
		}
		if tc.typ == "frozen<set<int>>" && binary.BigEndian.Uint32(got) != 3 {
			t.Errorf("set from [3 1 2 1] bound with %d elements, want 3", binary.BigEndian.Uint32(got))
		}
	}
	// Scalars go to gocql as they are, and a statement's values are not
	// copied for them.
	vs := []any{"a", 1, []byte("b")}
	if out := values(vs); &out[0] != &vs[0] {
		t.Error("values copied a slice of scalars")
	}
}

// A null inet reads as a nil net.IP, as on the ASF driver v2: gocql v1
// alone refuses it, so an entity written with a nil net.IP could not be
// read back (found by TestDifferential, on the node and on cqltest).
func TestNullInetReadsAsNil(t *testing.T) {
	typ, err := cqldriver.ParseType("inet")
	if err != nil {
		t.Fatal(err)
	}
	ip := net.IP{1, 2, 3, 4}
	for _, data := range [][]byte{nil, {}} {
		if err := (codec{}).Unmarshal(typ, data, &ip); err != nil || ip != nil {
			t.Errorf("null inet %v: %v, %v; want nil", data, ip, err)
		}
	}
	if err := (codec{}).Unmarshal(typ, []byte{10, 0, 0, 1}, &ip); err != nil || !ip.Equal(net.IPv4(10, 0, 0, 1)) {
		t.Errorf("10.0.0.1: %v, %v", ip, err)
	}
	if err := (codec{}).Unmarshal(typ, []byte{1, 2, 3}, &ip); err == nil {
		t.Errorf("3 bytes read as %v", ip)
	}
}

// A null uuid reads as zeros into a [16]byte, as into a gocql.UUID:
// gocql refused it, and a deleted entity's grave (null columns) failed
// every read of a model with a [16]byte field (found by TestDifferential).
func TestNullUUIDReadsAsZeros(t *testing.T) {
	typ, err := cqldriver.ParseType("uuid")
	if err != nil {
		t.Fatal(err)
	}
	raw := [16]byte{1, 2, 3}
	if err := (codec{}).Unmarshal(typ, nil, &raw); err != nil || raw != ([16]byte{}) {
		t.Errorf("null uuid: %v, %v; want zeros", raw, err)
	}
	want := [16]byte{15: 9}
	if err := (codec{}).Unmarshal(typ, want[:], &raw); err != nil || raw != want {
		t.Errorf("uuid: %v, %v; want %v", raw, err, want)
	}
}
